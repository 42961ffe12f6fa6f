// The charts page: decisions over time by verdict, top rules, top denied commands and
// decisions per agent, drawn by the server as SVG images (patterns and words, not colour
// alone), each with a table of its numbers (issue 22, part POL22).
"use strict";

(() => {
  const ranges = [["24h", "Last 24 hours"], ["7d", "Last 7 days"], ["30d", "Last 30 days"]];
  const verdicts = ["allow", "audit", "ask", "deny"];
  // What an empty key means in each top list (the server's images say the same).
  const empty = {rules: "(no rule: the default)", agents: "(no agent named)", denied: "(no command recorded)"};
  const keyHeading = {rules: "Rule", agents: "Agent", denied: "Command"};

  function countCells(c) {
    return [...verdicts.map(v => moat.el("td", {class: "num", text: String(c[v])})),
      moat.el("td", {class: "num", text: String(verdicts.reduce((n, v) => n + c[v], 0))})];
  }

  function headRow(first) {
    return moat.el("tr", {}, moat.el("th", {scope: "col", text: first}),
      ...verdicts.map(v => moat.el("th", {scope: "col", class: "num"}, moat.decision(v))),
      moat.el("th", {scope: "col", class: "num", text: "total"}));
  }

  // table is the numbers of one chart.
  function table(name, title, stats) {
    let rows;
    let first = keyHeading[name];
    if (name === "verdicts") {
      first = "From";
      const wide = stats.buckets.length > 1 && (new Date(stats.buckets[1].start) - new Date(stats.buckets[0].start)) >= 86400000;
      rows = stats.buckets.map(b => moat.el("tr", {},
        moat.el("th", {scope: "row", text: wide ? new Date(b.start).toLocaleDateString() : moat.time(b.start)}), ...countCells(b.counts)));
    } else {
      rows = (stats[name] || []).map(k => moat.el("tr", {},
        moat.el("th", {scope: "row"}, moat.el("code", {text: k.key || empty[name]})), ...countCells(k.counts)));
      if (!rows.length) rows = [moat.el("tr", {}, moat.el("td", {colspan: 6, text: "No decisions in this range."}))];
    }
    return moat.el("table", {class: "numbers"}, moat.el("caption", {text: title + ": the numbers"}),
      moat.el("thead", {}, headRow(first)), moat.el("tbody", {}, ...rows));
  }

  moat.view("charts", {
    title: "charts",
    async render(main, {query}) {
      const range = ranges.some(r => r[0] === query.get("range")) ? query.get("range") : "24h";
      const picker = moat.el("fieldset", {class: "range"}, moat.el("legend", {text: "Time range"}),
        ...ranges.map(([value, label]) => {
          const input = moat.el("input", {type: "radio", name: "range", value, id: "range-" + value, checked: value === range});
          input.addEventListener("change", () => moat.go("#/charts?range=" + value));
          return moat.el("label", {for: "range-" + value, class: "choice"}, input, label);
        }));
      const summary = moat.el("p", {id: "charts-summary", "aria-live": "polite"});
      const section = moat.el("section", {id: "charts", "aria-label": "Charts"});
      main.append(moat.el("h2", {text: "Charts"}), picker, summary, section);
      const data = await moat.api("GET", "/api/charts?range=" + encodeURIComponent(range));
      const st = data.stats;
      const total = verdicts.reduce((n, v) => n + st.total[v], 0);
      summary.textContent = `${total} decisions from ${moat.time(st.since)} to ${moat.time(st.until)}: ` +
        verdicts.map(v => `${st.total[v]} ${v}`).join(", ") + ".";
      for (const c of data.charts) {
        const img = moat.el("img", {src: `/api/charts/${encodeURIComponent(c.name)}.svg?range=${encodeURIComponent(range)}`, alt: c.alt, title: c.title, class: "chart"});
        img.addEventListener("error", () => img.replaceWith(moat.errorBox("The chart " + c.title + " could not be drawn.")));
        section.append(moat.el("figure", {"data-chart": c.name},
          moat.el("figcaption", {}, moat.el("h3", {text: c.title})),
          img,
          moat.el("details", {}, moat.el("summary", {text: "Numbers of this chart"}), table(c.name, c.title, st))));
      }
    },
  });
})();
