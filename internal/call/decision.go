package call

import (
	"fmt"
	"time"
)

// Verdict is what moat answers about a call. Its order is its restrictiveness, so the
// most restrictive of several verdicts is simply the largest. The zero value is not a
// verdict: code that meets it must treat it as a failure, never as an allow.
type Verdict uint8

// Verdicts from least to most restrictive.
const (
	Allow Verdict = iota + 1 // run it
	Audit                    // run it and flag it
	Ask                      // require the user's approval
	Deny                     // refuse it
)

var verdictNames = [...]string{Allow: "allow", Audit: "audit", Ask: "ask", Deny: "deny"}

// Valid reports whether v is one of the four verdicts.
func (v Verdict) Valid() bool { return v >= Allow && v <= Deny }

func (v Verdict) String() string {
	if !v.Valid() {
		return fmt.Sprintf("invalid(%d)", uint8(v))
	}
	return verdictNames[v]
}

// ParseVerdict returns the verdict named s ("allow", "audit", "ask", "deny").
func ParseVerdict(s string) (Verdict, bool) {
	for v := Allow; v <= Deny; v++ {
		if verdictNames[v] == s {
			return v, true
		}
	}
	return 0, false
}

// MarshalText encodes the verdict by name; an invalid verdict is an error so that it can
// never be written out as something a reader might take for an allow.
func (v Verdict) MarshalText() ([]byte, error) {
	if !v.Valid() {
		return nil, fmt.Errorf("invalid verdict %d", uint8(v))
	}
	return []byte(verdictNames[v]), nil
}

// UnmarshalText decodes a verdict name.
func (v *Verdict) UnmarshalText(b []byte) error {
	p, ok := ParseVerdict(string(b))
	if !ok {
		return fmt.Errorf("unknown decision %q (want allow, audit, ask or deny)", b)
	}
	*v = p
	return nil
}

// Stricter returns the more restrictive of a and b. An invalid verdict counts as the most
// restrictive of all, so a bug upstream can only make the answer stricter.
func Stricter(a, b Verdict) Verdict {
	if !a.Valid() || !b.Valid() {
		return Deny
	}
	return max(a, b)
}

// Permissive reports whether v lets the call run (allow or audit).
func (v Verdict) Permissive() bool { return v == Allow || v == Audit }

// Decision is the engine's answer about one call.
type Decision struct {
	Verdict Verdict
	// Rule is the id of the rule that decided, "default" when no rule matched, or the
	// failure mode ("fail-closed", "fail-open") when evaluation itself failed.
	Rule     string
	Reason   string
	Findings []Finding
	Latency  time.Duration
	// Policy is the source of the layer that decided, when several policies decide
	// together (a managed layer, or a user and a project policy); "" when one does.
	Policy string `json:",omitempty"`
}

// Reserved rule ids, never valid in a policy.
const (
	RuleDefault    = "default"
	RuleFailClosed = "fail-closed"
	RuleFailOpen   = "fail-open"
)
