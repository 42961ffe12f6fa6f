package policy

import (
	"testing"

	"github.com/moatdev/moat/internal/call"
)

// TestSubjectAccessesChange keeps the per-subject cache of judged accesses honest: a
// subject matched once and then given other accesses is judged by the new ones, whether
// the new slice is shorter, longer, or another slice of the same length.
func TestSubjectAccessesChange(t *testing.T) {
	const src = `version: 1
rules:
  - id: keys
    paths: {write: ["~/.ssh/**"]}
    decision: deny
  - id: build
    paths: {delete: ["$workspace/build/**"]}
    decision: allow
`
	p, err := Load("moat.yaml", []byte(src), testHost())
	if err != nil {
		t.Fatal(err)
	}
	keys, build := p.Rules[0], p.Rules[1]
	c := &call.Call{Class: call.Shell, Args: map[string]any{call.ArgCommand: "x"}}
	s := &Subject{Call: c, Workspace: []string{"/w"}}
	steps := []struct {
		accesses         []call.Access
		wantKeys, wantBd bool
	}{
		{[]call.Access{{Kind: call.Write, Path: "/w/a"}}, false, false},
		{[]call.Access{{Kind: call.Write, Path: "/home/u/.ssh/config"}}, true, false},
		{[]call.Access{{Kind: call.Delete, Path: "/w/build/*.o", Glob: true}}, false, true},
		{[]call.Access{{Kind: call.Delete, Path: "/w/build/*.o", Glob: true}, {Kind: call.Write, Path: "/home/u/.ssh/*", Glob: true}}, true, false},
		{nil, false, true},
	}
	for i, st := range steps {
		s.Accesses = st.accesses
		if got := keys.Match(s); got != st.wantKeys {
			t.Errorf("step %d: keys matched %v, want %v", i, got, st.wantKeys)
		}
		if got := build.Match(s); got != st.wantBd {
			t.Errorf("step %d: build matched %v, want %v", i, got, st.wantBd)
		}
	}
}
