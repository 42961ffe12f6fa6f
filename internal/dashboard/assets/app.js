// moat dashboard: the shared helpers every view uses. No framework, no inline script
// (the Content-Security-Policy forbids it), no markup parsed from data: every text is set
// as text, so a command or a finding can never become markup.
"use strict";

const moat = {
  csrf: "",
  views: {},
  current: null, // {name, cleanup: [functions]}

  // api calls the dashboard's API and returns its JSON; it throws an Error with the
  // server's message when the request failed.
  async api(method, path, body) {
    const opts = {method, headers: {"Accept": "application/json"}, credentials: "same-origin"};
    if (method !== "GET") {
      opts.headers[moat.csrfHeader] = moat.csrf;
      if (body !== undefined) {
        opts.headers["Content-Type"] = "application/json";
        opts.body = JSON.stringify(body);
      }
    }
    const res = await fetch(path, opts);
    let data = null;
    try { data = await res.json(); } catch (e) { data = null; }
    if (!res.ok) {
      const msg = data && data.error ? data.error : res.status + " " + res.statusText;
      if (res.status === 401) moat.setStatus("Logged out: run moat ui to log in again.");
      throw new Error(msg);
    }
    return data;
  },
  csrfHeader: "X-Moat-CSRF",

  // el builds an element: attrs sets attributes (on* keys add listeners, "text" sets
  // the text); children are elements or strings (as text).
  el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k.startsWith("on") && typeof v === "function") e.addEventListener(k.slice(2), v);
      else if (k === "text") e.textContent = v;
      else e.setAttribute(k, v === true ? "" : String(v));
    }
    for (const c of children.flat()) {
      if (c === undefined || c === null || c === false) continue;
      e.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return e;
  },

  // view registers a page: render(main, params) draws it into main and may return
  // nothing; cleanups registered with moat.onLeave run when another page is shown.
  view(name, def) { moat.views[name] = def; },
  onLeave(fn) { if (moat.current) moat.current.cleanup.push(fn); },

  // route shows the page the location's hash names: #/NAME/REST?QUERY.
  async route() {
    const hash = location.hash.replace(/^#\/?/, "") || "live";
    const [pathPart, query] = hash.split("?");
    const parts = pathPart.split("/").map(decodeURIComponent);
    const name = parts[0];
    const def = moat.views[name] || moat.views.live;
    if (moat.current) moat.current.cleanup.forEach(fn => { try { fn(); } catch (e) { /* leaving */ } });
    moat.current = {name, cleanup: []};
    document.querySelectorAll("nav a[data-nav]").forEach(a => {
      if (a.dataset.nav === name) a.setAttribute("aria-current", "page");
      else a.removeAttribute("aria-current");
    });
    const main = document.getElementById("view");
    main.replaceChildren();
    document.title = (def && def.title ? def.title + " · " : "") + "moat dashboard";
    if (!def) { main.append(moat.el("p", {text: "Unknown page."})); return; }
    try {
      await def.render(main, {parts: parts.slice(1), query: new URLSearchParams(query || "")});
    } catch (e) {
      main.append(moat.errorBox(e));
    }
  },
  go(hash) { if (location.hash === hash) moat.route(); else location.hash = hash; },

  // stream opens a Server-Sent Events stream for the current page: handlers maps event
  // names to functions of the parsed data. It closes when the page changes.
  stream(path, handlers) {
    const es = new EventSource(path);
    for (const [name, fn] of Object.entries(handlers)) {
      es.addEventListener(name, ev => fn(JSON.parse(ev.data), ev));
    }
    es.addEventListener("error", ev => {
      if (ev.data) moat.setStatus(JSON.parse(ev.data).error);
    });
    moat.onLeave(() => es.close());
    return es;
  },

  setStatus(text) { document.getElementById("status").textContent = text || ""; },

  errorBox(err) { return moat.el("p", {class: "error", role: "alert", text: String(err && err.message || err)}); },

  // decision shows a verdict as a word and a symbol, never by colour alone.
  decision(v) {
    const sym = {allow: "✓", ask: "?", deny: "✕"}[v] || "•";
    return moat.el("span", {class: "decision d-" + (v || "none")}, moat.el("span", {"aria-hidden": "true", text: sym + " "}), v || "none");
  },

  time(iso) {
    if (!iso) return "";
    const d = new Date(iso);
    return isNaN(d) ? iso : d.toLocaleString();
  },
};
