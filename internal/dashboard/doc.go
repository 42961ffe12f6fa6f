// Package dashboard serves moat's web dashboard: what the agents did, live, and the
// approval queue, in a browser on loopback.
//
// The daemon serves it (moat ui asks the daemon for a one-time login URL). Everything
// the page needs is embedded; nothing is fetched from elsewhere. A browser is let in by
// exchanging a one-time login token for an HttpOnly, SameSite=Strict session cookie;
// every change of state also needs the session's CSRF token in a header and a
// same-origin request, and every request must name the dashboard's own loopback address
// as its Host, so that neither another site nor a rebound DNS name can reach the API
// through the user's browser.
package dashboard
