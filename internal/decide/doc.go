// Package decide is moat's one decision service: every entry point (the hooks, check,
// check --stdin, run and moat-shell, the MCP proxy) asks it, and nothing else asks the
// engine.
//
// The Service interface is the seam the daemon serves over its socket, so every request
// and result is plain data that encodes as JSON: a policy is named by the Key that Lookup
// returns, never passed as a compiled value. A call is decided and recorded in one step
// (Decide with Record set), as Open Policy Agent's SDK evaluates and logs in one
// Decision; the result carries the decision with what determined it (findings, rule,
// the explain trace on request), as Cedar's Authorize returns its diagnostics.
//
// Local is the implementation in the caller's process: it finds the policy (flag,
// environment, the trusted project file, the user's, the embedded one: see
// policy/source), compiles it once per source and content for the process's life, and
// appends the records to the user's audit log. A long-lived process makes it live
// (Options.Live): each scope's policy is kept, refreshed by package decide/watch when its
// files change, and an edit that cannot be used keeps the last good policy, reported by
// Problems and in the next decision's reason. What stays with the entry points is only
// their own protocol: reading the event, deadlines, rendering the answer.
package decide
