package metrics

import (
	"sync"
	"unicode/utf8"

	"github.com/moatdev/moat/internal/call"
)

// Label values that stand for several.
const (
	// other stands for a value outside a label's bounded set.
	other = "other"
	// none stands for an agent the event did not name (a direct `moat check`).
	none = "none"
)

// maxLabelLen bounds a rule or sink name used as a label value; longer ones are other.
const maxLabelLen = 128

// boundedSet gives label values to a set of names that is finite in principle (the rule
// ids of the policies in force) but might grow with every policy edit: the fixed names
// always have their own value, the first max others seen too, and every later one is
// other, so a series count never grows without bound.
type boundedSet struct {
	fixed map[string]bool
	max   int

	mu   sync.Mutex
	seen map[string]bool
}

func newBoundedSet(limit int, fixed ...string) *boundedSet {
	s := &boundedSet{fixed: map[string]bool{}, max: limit, seen: map[string]bool{}}
	for _, f := range fixed {
		s.fixed[f] = true
	}
	return s
}

// label returns name's label value: name itself, or other.
func (s *boundedSet) label(name string) string {
	if s.fixed[name] {
		return name
	}
	if name == "" || len(name) > maxLabelLen || !utf8.ValidString(name) {
		return other
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seen[name] {
		return name
	}
	if len(s.seen) >= s.max {
		return other
	}
	s.seen[name] = true
	return name
}

// verdictLabel is a verdict's name, or other for a value that is not a verdict.
func verdictLabel(v call.Verdict) string {
	if !v.Valid() {
		return other
	}
	return v.String()
}

// agentLabel is the registry's name for an agent, none when the event named none, and
// other for a name moat does not know.
func agentLabel(name string) string {
	if name == "" {
		return none
	}
	if a, ok := call.ParseAgent(name); ok {
		return string(a)
	}
	return other
}

// classLabel is a canonical class's name, or other (itself a class) for anything else.
func classLabel(name string) string {
	if c, ok := call.ParseClass(name); ok {
		return string(c)
	}
	return other
}
