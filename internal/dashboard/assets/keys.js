// Keyboard shortcuts of every page: / search, j/k move in the page's list, Enter opens,
// g then l/a/s/p/c switches pages, ? lists them. None fires while typing in a field.
"use strict";

(() => {
  const pages = {l: "live", a: "approvals", s: "sessions", p: "policy", c: "charts"};
  const shortcuts = [
    ["/", "Search (the live page's text filter)"],
    ["j / k", "Next / previous item of the list"],
    ["Enter", "Open the selected item"],
    ["g then l, a, s, p, c", "Go to Live, Approvals, Sessions, Policy, Charts"],
    ["?", "Show these shortcuts"],
  ];
  // The lists j and k move in, the first present on the page.
  const lists = ["#records tbody tr[data-seq]", "#timeline li[data-seq]", "#approvals [data-approval-id]", "a[data-session]", "#policies [data-policy-source]"];

  function typing(el) {
    return el && (el.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName));
  }

  function items() {
    for (const sel of lists) {
      const found = document.querySelectorAll(sel);
      if (found.length) return Array.from(found);
    }
    return [];
  }

  function move(by) {
    const all = items();
    if (!all.length) return;
    const at = all.findIndex(e => e.getAttribute("aria-selected") === "true");
    const to = all[Math.min(all.length - 1, Math.max(0, at < 0 ? 0 : at + by))];
    all.forEach(e => e.removeAttribute("aria-selected"));
    to.setAttribute("aria-selected", "true");
    if (!to.hasAttribute("tabindex") && !["A", "BUTTON"].includes(to.tagName)) to.setAttribute("tabindex", "-1");
    to.focus();
    to.scrollIntoView({block: "nearest"});
  }

  function open() {
    const sel = items().find(e => e.getAttribute("aria-selected") === "true");
    if (!sel || sel !== document.activeElement || ["A", "BUTTON"].includes(sel.tagName)) return false;
    const link = sel.tagName === "TR" ? null : sel.querySelector("a[href]");
    (link || sel).click();
    return true;
  }

  let help = null;
  function showHelp() {
    if (!help) {
      help = moat.el("dialog", {id: "shortcuts", "aria-labelledby": "shortcuts-title"},
        moat.el("h2", {id: "shortcuts-title", text: "Keyboard shortcuts"}),
        moat.el("dl", {}, ...shortcuts.flatMap(([k, what]) => [moat.el("dt", {}, moat.el("kbd", {text: k})), moat.el("dd", {text: what})])),
        moat.el("form", {method: "dialog"}, moat.el("button", {type: "submit", text: "Close"})));
      document.body.append(help);
    }
    if (!help.open) help.showModal();
  }

  let pendingG = 0;
  document.addEventListener("keydown", ev => {
    if (ev.ctrlKey || ev.metaKey || ev.altKey || typing(ev.target) || (help && help.open)) return;
    const now = Date.now();
    if (pendingG && now - pendingG < 1500 && pages[ev.key]) {
      pendingG = 0;
      ev.preventDefault();
      moat.go("#/" + pages[ev.key]);
      return;
    }
    pendingG = 0;
    switch (ev.key) {
    case "g": pendingG = now; break;
    case "/": {
      ev.preventDefault();
      const q = document.querySelector("#filters [name=q]");
      if (q) q.focus();
      else { moat.go("#/live"); setTimeout(() => { const f = document.querySelector("#filters [name=q]"); if (f) f.focus(); }, 200); }
      break;
    }
    case "j": ev.preventDefault(); move(1); break;
    case "k": ev.preventDefault(); move(-1); break;
    case "Enter": if (open()) ev.preventDefault(); break;
    case "?": ev.preventDefault(); showHelp(); break;
    }
  });
})();
