// The fleet page: the machines that ship their audit to the fleet's PostgreSQL database,
// their decisions by verdict (a server-drawn chart, with its numbers as a table), and the
// newest records of one machine (issue 24, part REMOTE).
"use strict";

(() => {
  const ranges = [["24h", "Last 24 hours"], ["7d", "Last 7 days"], ["30d", "Last 30 days"]];
  const verdicts = ["allow", "audit", "ask", "deny"];
  const name = m => m.machine || m.machine_id;

  function th(text, cls) { return moat.el("th", {scope: "col", class: cls, text}); }

  function machinesTable(machines) {
    const rows = machines.map(m => moat.el("tr", {"data-machine": m.machine_id},
      moat.el("th", {scope: "row"}, moat.el("a", {href: "#/fleet/" + encodeURIComponent(m.machine_id), text: name(m)})),
      moat.el("td", {text: m.os_user || ""}),
      moat.el("td", {class: "mono", text: m.moat_version || ""}),
      moat.el("td", {class: "num", text: String(m.managed_serial)}),
      moat.el("td", {class: "num", text: String(m.last_seq)}),
      moat.el("td", {}, moat.el("time", {datetime: m.last_seen, text: moat.time(m.last_seen)}), m.quiet ? " (quiet)" : "")));
    if (!rows.length) rows.push(moat.el("tr", {}, moat.el("td", {colspan: 6, text: "No machine has shipped records yet."})));
    return moat.el("table", {class: "numbers", id: "fleet-machines"}, moat.el("caption", {text: "Machines"}),
      moat.el("thead", {}, moat.el("tr", {}, th("Machine"), th("User"), th("moat"), th("Managed serial", "num"), th("Last record", "num"), th("Last seen"))),
      moat.el("tbody", {}, ...rows));
  }

  function countsTable(top) {
    const rows = top.map(k => moat.el("tr", {},
      moat.el("th", {scope: "row", text: k.key}),
      ...verdicts.map(v => moat.el("td", {class: "num", text: String(k.counts[v])})),
      moat.el("td", {class: "num", text: String(verdicts.reduce((n, v) => n + k.counts[v], 0))})));
    if (!rows.length) rows.push(moat.el("tr", {}, moat.el("td", {colspan: 6, text: "No decisions in this range."})));
    return moat.el("table", {class: "numbers"}, moat.el("caption", {text: "Decisions per machine: the numbers"}),
      moat.el("thead", {}, moat.el("tr", {}, th("Machine"), ...verdicts.map(v => moat.el("th", {scope: "col", class: "num"}, moat.decision(v))), th("total", "num"))),
      moat.el("tbody", {}, ...rows));
  }

  function target(r) {
    const a = r.args || {};
    return a.command || a.path || a.url || r.mcp || a.pattern || r.tool || "";
  }

  async function machinePage(main, id) {
    main.append(moat.el("p", {}, moat.el("a", {href: "#/fleet", text: "← All machines"})),
      moat.el("h2", {text: "Records of " + id}));
    const data = await moat.api("GET", "/api/fleet/records?machine=" + encodeURIComponent(id));
    const rows = data.records.map(x => {
      const r = x.record;
      return moat.el("tr", {"data-seq": r.seq},
        moat.el("td", {class: "num", text: String(r.seq)}),
        moat.el("td", {class: "time"}, moat.el("time", {datetime: r.time, text: moat.time(r.time)})),
        moat.el("td", {class: "agent", text: r.agent || ""}),
        moat.el("td", {class: "class", text: r.class || ""}),
        moat.el("td", {class: "target mono", text: target(r)}),
        moat.el("td", {class: "decision"}, moat.decision(r.decision), r.failure ? " (failure)" : ""),
        moat.el("td", {class: "rule mono", text: r.rule || ""}));
    });
    if (!rows.length) rows.push(moat.el("tr", {}, moat.el("td", {colspan: 7, text: "No records of this machine."})));
    main.append(moat.el("table", {class: "records", id: "fleet-records"}, moat.el("caption", {text: "The newest records, newest first"}),
      moat.el("thead", {}, moat.el("tr", {}, th("#", "num"), th("Time"), th("Agent"), th("Class"), th("Call"), th("Decision"), th("Rule"))),
      moat.el("tbody", {}, ...rows)));
  }

  moat.view("fleet", {
    title: "fleet",
    async render(main, {parts, query}) {
      if (parts.length && parts[0]) return machinePage(main, parts[0]);
      const range = ranges.some(r => r[0] === query.get("range")) ? query.get("range") : "24h";
      const picker = moat.el("fieldset", {class: "range"}, moat.el("legend", {text: "Time range"}),
        ...ranges.map(([value, label]) => {
          const input = moat.el("input", {type: "radio", name: "range", value, id: "fleet-range-" + value, checked: value === range});
          input.addEventListener("change", () => moat.go("#/fleet?range=" + value));
          return moat.el("label", {for: "fleet-range-" + value, class: "choice"}, input, label);
        }));
      const summary = moat.el("p", {id: "fleet-summary", "aria-live": "polite"});
      main.append(moat.el("h2", {text: "Fleet"}), picker, summary);
      const data = await moat.api("GET", "/api/fleet?range=" + encodeURIComponent(range));
      const t = data.summary.decisions;
      const total = verdicts.reduce((n, v) => n + t[v], 0);
      summary.textContent = `${total} decisions on ${data.summary.machines} of ${data.machines.length} machines since ${moat.time(data.since)}: ` +
        verdicts.map(v => `${t[v]} ${v}`).join(", ") + ".";
      const img = moat.el("img", {src: "/api/fleet/machines.svg?range=" + encodeURIComponent(range), alt: data.chart.alt, title: data.chart.title, class: "chart"});
      img.addEventListener("error", () => img.replaceWith(moat.errorBox("The chart " + data.chart.title + " could not be drawn.")));
      main.append(machinesTable(data.machines),
        moat.el("figure", {"data-chart": "machines"}, moat.el("figcaption", {}, moat.el("h3", {text: data.chart.title})), img,
          moat.el("details", {}, moat.el("summary", {text: "Numbers of this chart"}), countsTable(data.top))));
    },
  });
})();
