// The live page: the decisions as they are made, filtered as moat logs filters them,
// and the page of one record.
"use strict";

(() => {
  const filterNames = ["decision", "agent", "session", "rule", "tool", "since", "until", "q"];

  // apiQuery turns the page's query (datetime-local values in the browser's zone) into
  // the API's (RFC 3339 times).
  function apiQuery(query) {
    const out = new URLSearchParams();
    for (const name of filterNames) {
      let v = (query.get(name) || "").trim();
      if (!v) continue;
      if ((name === "since" || name === "until") && !isNaN(new Date(v))) v = new Date(v).toISOString();
      out.set(name, v);
    }
    return out;
  }

  // target is what a record acted on: the command, path, URL or MCP tool.
  function target(r) {
    const a = r.args || {};
    return a.command || a.path || a.url || r.mcp || a.pattern || r.tool || "";
  }

  function field(label, control) {
    return moat.el("label", {}, label, control);
  }

  function filtersForm(query) {
    const input = (name, type, placeholder) => moat.el("input", {name, type: type || "text", value: query.get(name) || "", placeholder, maxlength: type ? undefined : 200});
    const decision = moat.el("select", {name: "decision"},
      ...[["", "any"], ["allow", "allow"], ["audit", "audit"], ["ask", "ask"], ["deny", "deny"]].map(([v, t]) =>
        moat.el("option", {value: v, selected: (query.get("decision") || "") === v}, t)));
    const form = moat.el("form", {id: "filters", class: "filters", role: "search", "aria-label": "Filter decisions"},
      field("Decision", decision),
      field("Agent", input("agent", null, "claude-code")),
      field("Session", input("session")),
      field("Rule", input("rule")),
      field("Tool", input("tool", null, "shell, Bash, mcp:srv/tool")),
      field("Since", input("since", "datetime-local")),
      field("Until", input("until", "datetime-local")),
      field("Search", input("q", "search", "text in the record")),
      moat.el("button", {type: "submit", class: "primary"}, "Filter"),
      moat.el("button", {type: "button", class: "quiet", onclick: () => moat.go("#/live")}, "Clear"));
    form.addEventListener("submit", ev => {
      ev.preventDefault();
      const q = new URLSearchParams();
      for (const name of filterNames) {
        const v = (form.elements[name].value || "").trim();
        if (v) q.set(name, v);
      }
      const s = q.toString();
      moat.go("#/live" + (s ? "?" + s : ""));
    });
    return form;
  }

  function row(r) {
    const findings = (r.findings || []).map(f => f.id).join(", ");
    const tr = moat.el("tr", {"data-seq": r.seq, tabindex: "-1", class: "clickable"},
      moat.el("td", {class: "time"}, moat.el("time", {datetime: r.time, text: moat.time(r.time)})),
      moat.el("td", {class: "agent", text: r.agent || ""}),
      moat.el("td", {class: "session mono", text: r.session || ""}),
      moat.el("td", {class: "class", text: r.class || ""}),
      moat.el("td", {class: "target mono"}, moat.el("a", {href: "#/record/" + r.seq, text: target(r) || "(record " + r.seq + ")"})),
      moat.el("td", {class: "decision"}, moat.decision(r.decision), r.failure ? " (failure)" : ""),
      moat.el("td", {class: "rule mono", text: r.rule || ""}),
      moat.el("td", {class: "findings", text: findings}));
    tr.addEventListener("click", ev => { if (!ev.target.closest("a")) moat.go("#/record/" + r.seq); });
    return tr;
  }

  moat.view("live", {
    title: "live",
    async render(main, {query}) {
      const api = apiQuery(query);
      const tbody = moat.el("tbody");
      const news = moat.el("p", {id: "live-news", class: "muted", role: "status", "aria-live": "polite"});
      const more = moat.el("button", {type: "button", id: "load-more", hidden: true}, "Load more");
      const empty = moat.el("p", {class: "muted", hidden: true, text: "No decisions match."});
      main.append(
        moat.el("h1", {text: "Live decisions"}),
        filtersForm(query),
        news,
        moat.el("table", {id: "records"},
          moat.el("caption", {class: "visually-hidden", text: "Decisions, newest first"}),
          moat.el("thead", {}, moat.el("tr", {}, ...["Time", "Agent", "Session", "Class", "Target", "Decision", "Rule", "Findings"].map(h => moat.el("th", {scope: "col", text: h})))),
          tbody),
        empty, more);

      let next = 0;
      let newest = 0;
      const load = async before => {
        const q = new URLSearchParams(api);
        if (before) q.set("before", before);
        const page = await moat.api("GET", "/api/records?" + q);
        for (const r of page.records) tbody.append(row(r));
        if (!before && page.records.length) newest = page.records[0].seq;
        next = page.next;
        more.hidden = !next;
        empty.hidden = tbody.children.length > 0;
      };
      more.addEventListener("click", async () => {
        more.disabled = true;
        try { await load(next); } catch (e) { moat.setStatus(e.message); }
        more.disabled = false;
      });
      await load(0);

      // New decisions are prepended; screen readers hear how many, not the table.
      let fresh = 0;
      let quiet = null;
      const s = new URLSearchParams(api);
      s.set("after", newest);
      moat.stream("/api/records/stream?" + s, {
        record(r) {
          if (tbody.querySelector(`tr[data-seq="${Number(r.seq)}"]`)) return;
          tbody.prepend(row(r));
          empty.hidden = true;
          fresh++;
          news.textContent = fresh === 1 ? "1 new decision" : fresh + " new decisions";
          clearTimeout(quiet);
          quiet = setTimeout(() => { fresh = 0; news.textContent = ""; }, 5000);
        },
      });
      moat.onLeave(() => clearTimeout(quiet));
    },
  });

  // refText shows text in which "record N" links to that record.
  function refText(text) {
    const parts = [];
    const re = /record (\d+)/g;
    let at = 0;
    let m;
    while ((m = re.exec(text)) !== null) {
      parts.push(text.slice(at, m.index));
      parts.push(moat.el("a", {href: "#/record/" + m[1], "data-ref-seq": m[1], text: m[0]}));
      at = m.index + m[0].length;
    }
    parts.push(text.slice(at));
    return parts;
  }

  moat.view("record", {
    title: "record",
    async render(main, {parts}) {
      const seq = parts[0] || "";
      if (!/^\d+$/.test(seq)) throw new Error("No such record: " + seq);
      const r = await moat.api("GET", "/api/records/" + seq);
      const rows = [];
      const add = (name, ...value) => {
        if (value.every(v => v === undefined || v === null || v === "" || v === false)) return;
        rows.push(moat.el("dt", {text: name}), moat.el("dd", {}, ...value));
      };
      const sessionLink = r.agent && r.session
        ? moat.el("a", {href: "#/sessions/" + encodeURIComponent(r.agent) + "/" + encodeURIComponent(r.session), text: r.session + " (timeline)"})
        : r.session;
      add("Time", moat.el("time", {datetime: r.time, text: moat.time(r.time)}));
      add("Decision", moat.decision(r.decision));
      add("Answer to the agent", r.answer);
      add("Failure", r.failure ? "moat could not decide; this is its fail mode's answer" : "");
      add("Rule", r.rule && moat.el("code", {text: r.rule}));
      add("Reason", ...(r.reason ? refText(r.reason) : []));
      add("Agent", r.agent);
      add("Session", sessionLink);
      add("Event", r.event);
      add("Class", r.class);
      add("Tool", r.tool);
      add("MCP tool", r.mcp);
      add("Working directory", r.cwd && moat.el("code", {text: r.cwd}));
      add("Policy", r.policy);
      add("Latency", r.latency_ms !== undefined ? r.latency_ms + " ms" : "");
      add("Clipped", r.clipped);
      add("Chain", r.chain && moat.el("code", {class: "mono", text: r.chain}));
      const findings = (r.findings || []).map(f => moat.el("li", {},
        moat.el("strong", {text: f.id}), " ",
        moat.el("span", {class: "muted", text: [f.category, f.severity, f.taxonomy].filter(Boolean).join(" · ")}),
        f.evidence ? moat.el("div", {class: "evidence"}, ...refText(f.evidence)) : ""));
      main.append(moat.el("section", {id: "record", "aria-labelledby": "record-title"},
        moat.el("p", {}, moat.el("a", {href: "#/live", text: "← Live decisions"})),
        moat.el("h1", {id: "record-title", text: "Record " + r.seq}),
        moat.el("dl", {class: "record-fields"}, ...rows),
        moat.el("h2", {text: "Arguments"}),
        moat.el("pre", {class: "args", text: JSON.stringify(r.args || {}, null, 2)}),
        moat.el("h2", {text: "Findings"}),
        findings.length ? moat.el("ul", {class: "findings"}, ...findings) : moat.el("p", {class: "muted", text: "None."})));
    },
  });
})();
