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
  window.addEventListener("hashchange", () => moat.route());
  moat.route();
})();
