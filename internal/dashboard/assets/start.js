// Starts the dashboard once every view has registered.
"use strict";

(async () => {
  try {
    const s = await moat.api("GET", "/api/session");
    moat.csrf = s.csrf;
  } catch (e) {
    moat.setStatus(e.message);
  }
  document.getElementById("logout").addEventListener("click", async () => {
    try { await moat.api("POST", "/api/logout"); } catch (e) { /* logged out either way */ }
    location.replace("/");
  });
  // APPR22: the number of calls waiting for an answer, in the nav on every page, from
  // the approvals stream (which sends the queue whenever it changes).
  if (moat.csrf) {
    new EventSource("/api/approvals/stream").addEventListener("approvals", ev => {
      const n = JSON.parse(ev.data).filter(a => a.state === "pending").length;
      const count = document.getElementById("approval-count");
      count.textContent = n ? String(n) : "";
      count.title = n ? n + " waiting for your answer" : "";
    });
  }
  window.addEventListener("hashchange", () => moat.route());
  moat.route();
})();
