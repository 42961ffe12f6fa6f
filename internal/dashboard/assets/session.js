// The sessions pages (APPR22): #/sessions lists the agents' recent sessions;
// #/sessions/AGENT/SESSION is one session's timeline, oldest call first, with the calls
// it makes from now on appended as they are recorded. A finding whose evidence names an
// earlier call ("record 41", as cross-call correlation writes it) links to that call.
"use strict";

(() => {
  const enc = encodeURIComponent;

  // target is what a record's call acted on: its command, path, URL or MCP tool.
  function target(r) {
    const a = r.args || {};
    for (const k of ["command", "path", "url", "pattern"]) {
      if (typeof a[k] === "string" && a[k] !== "") return a[k];
    }
    return r.mcp || r.tool || "";
  }

  function sessionHash(agent, session) { return "#/sessions/" + enc(agent) + "/" + enc(session); }

  // counts shows a session's records by decision, each a word and a number.
  function counts(c) {
    return ["allow", "audit", "ask", "deny"].filter(v => c && c[v]).map(v => moat.el("span", {class: "count-" + v}, moat.decision(v), " " + c[v]));
  }

  async function renderList(main, query) {
    // The last week unless the page asks for more: listing every session ever recorded
    // reads the whole database.
    const since = query.get("since") || "168h";
    main.append(moat.el("h1", {text: "Sessions"}));
    const form = moat.el("form", {id: "sessions-filter", class: "filters"},
      moat.el("label", {}, "Active within",
        moat.el("select", {name: "since"},
          [["1h", "the last hour"], ["24h", "the last day"], ["168h", "the last week"], ["720h", "the last 30 days"], ["all", "any time"]].map(([v, t]) =>
            moat.el("option", {value: v, selected: v === since, text: t})))),
      moat.el("button", {type: "submit", text: "Show"}));
    form.addEventListener("submit", ev => {
      ev.preventDefault();
      const v = form.elements.since.value;
      moat.go("#/sessions?since=" + enc(v));
    });
    main.append(form);
    const data = await moat.api("GET", "/api/sessions?limit=200" + (since !== "all" ? "&since=" + enc(since) : ""));
    if (!data.sessions.length) {
      main.append(moat.el("p", {class: "muted", text: "No sessions in this period: sessions appear once an agent's calls were decided through the daemon."}));
      return;
    }
    const th = text => moat.el("th", {scope: "col", text});
    const rows = data.sessions.map(s => moat.el("tr", {},
      moat.el("th", {scope: "row", class: "session"}, moat.el("a", {href: sessionHash(s.agent, s.session), "data-session": s.session, "data-agent": s.agent, text: s.session})),
      moat.el("td", {class: "agent", text: s.agent}),
      moat.el("td", {class: "cwd mono", text: s.cwd || ""}),
      moat.el("td", {class: "time"}, moat.el("time", {datetime: s.first, text: moat.time(s.first)})),
      moat.el("td", {class: "time"}, moat.el("time", {datetime: s.last, text: moat.time(s.last)})),
      moat.el("td", {class: "calls", text: String(s.calls)}),
      moat.el("td", {class: "counts"}, counts(s.counts))));
    main.append(moat.el("table", {id: "sessions"},
      moat.el("caption", {class: "muted", text: "Newest activity first"}),
      moat.el("thead", {}, moat.el("tr", {}, th("Session"), th("Agent"), th("Directory"), th("First call"), th("Last call"), th("Calls"), th("Decisions"))),
      moat.el("tbody", {}, rows)));
  }

  // evidence shows a finding's evidence as text, each "record N" in it a link to call N.
  function evidence(text) {
    const out = [];
    const re = /record (\d+)/g;
    let at = 0;
    let m;
    while ((m = re.exec(text)) !== null) {
      if (m.index > at) out.push(text.slice(at, m.index));
      out.push(moat.el("a", {href: "#/record/" + m[1], "data-ref-seq": m[1], class: "ref", text: m[0]}));
      at = m.index + m[0].length;
    }
    if (at < text.length) out.push(text.slice(at));
    return out;
  }

  // entry draws one record of the timeline.
  function entry(r) {
    const findings = (r.findings || []).map(f => moat.el("li", {},
      moat.el("code", {class: "finding-id", text: f.id}), f.severity ? " (" + f.severity + ")" : "", f.evidence ? ": " : "", evidence(f.evidence || "")));
    const answered = r.answer && r.answer !== r.decision ? moat.el("span", {class: "muted", title: r.answer === "defer" ? "moat expressed no opinion: the agent's own permissions decided" : "what the agent was told", text: " (answered " + r.answer + ")"}) : null;
    return moat.el("li", {"data-seq": String(r.seq), id: "seq-" + r.seq, tabindex: "-1", class: "call"},
      moat.el("div", {class: "call-head"},
        moat.el("time", {class: "time", datetime: r.time, text: moat.time(r.time)}),
        moat.el("span", {class: "class mono", text: r.class}),
        moat.el("span", {class: "decision-cell"}, moat.decision(r.decision), answered),
        r.rule ? moat.el("span", {class: "rule mono", text: r.rule}) : null,
        moat.el("a", {href: "#/record/" + r.seq, class: "seq", "aria-label": "record " + r.seq, text: "#" + r.seq})),
      moat.el("pre", {class: "target", text: target(r)}),
      r.reason ? moat.el("p", {class: "reason", text: r.reason}) : null,
      findings.length ? moat.el("ul", {class: "findings", "aria-label": "Findings"}, findings) : null);
  }

  async function renderTimeline(main, agent, session) {
    main.append(
      moat.el("p", {}, moat.el("a", {href: "#/sessions", text: "← All sessions"})),
      moat.el("h1", {}, "Session ", moat.el("span", {class: "mono", text: session})),
      moat.el("p", {class: "muted", text: agent}));
    const count = moat.el("p", {class: "muted", "aria-live": "polite"});
    const timeline = moat.el("ol", {id: "timeline", class: "timeline"});
    main.append(count, timeline);
    timeline.addEventListener("click", ev => {
      const a = ev.target.closest("a[data-ref-seq]");
      if (!a) return;
      const li = timeline.querySelector("li[data-seq=\"" + a.dataset.refSeq + "\"]");
      if (!li) return; // not in this timeline: #/record/N shows it
      ev.preventDefault();
      timeline.querySelectorAll("li.highlight").forEach(x => x.classList.remove("highlight"));
      li.classList.add("highlight");
      li.scrollIntoView({block: "center"});
      li.focus({preventScroll: true});
    });
    const base = "/api/sessions/" + enc(agent) + "/" + enc(session);
    let after = 0;
    let n = 0;
    const add = records => {
      for (const r of records) {
        if (r.seq <= after) continue;
        timeline.append(entry(r));
        after = r.seq;
        n++;
      }
      count.textContent = n + (n === 1 ? " call" : " calls");
    };
    // The session's records page by page (bounded), then the new ones as they come.
    for (let page = 0; page < 20; page++) {
      const data = await moat.api("GET", base + "?limit=500&after=" + after);
      add(data.records);
      if (!data.next) break;
    }
    if (!n) count.textContent = "No calls recorded in this session yet.";
    moat.stream(base + "/stream?after=" + after, {records: add});
  }

  moat.view("sessions", {
    title: "sessions",
    render(main, {parts, query}) {
      if (parts.length >= 2 && parts[0] && parts[1]) return renderTimeline(main, parts[0], parts.slice(1).join("/"));
      return renderList(main, query);
    },
  });
})();
