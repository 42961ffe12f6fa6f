// Package hookpayload holds the bound on a hook event's size, shared by `moat hook` and
// the thin hook client (which must not link the hook adapters) so that both read the
// same bytes of an agent's event.
package hookpayload

// MaxPayload is the largest hook payload read. A larger one is not evaluated: it fails
// (closed, unless the policy says open), since part of a call cannot be judged.
const MaxPayload = 16 << 20
