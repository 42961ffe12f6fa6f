package policy

import (
	"testing"

	"github.com/moatdev/moat/internal/call"
)

// FuzzLoad feeds the loader arbitrary documents, seeded from the templates, the packs and
// the error table: it must never panic, and a policy it accepts must be usable.
func FuzzLoad(f *testing.F) {
	for _, name := range TemplateNames() {
		data, _ := Template(name)
		f.Add(data)
	}
	for _, name := range PackNames() {
		data, _ := packFS.ReadFile("packs/" + name + ".yaml")
		f.Add(data)
	}
	f.Add(selfProtectionYAML)
	f.Add([]byte("version: 1\nextends: [recommended, ../x.moat.yaml, a/b.yaml]\nforbid_allow: [web.fetch, \"mcp:*\"]\n"))
	for _, tt := range loadErrorCases {
		f.Add([]byte(tt.src))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Load("/proj/moat.yaml", data, testHost())
		if err != nil {
			if _, ok := err.(ErrorList); !ok {
				t.Fatalf("error of type %T, want ErrorList: %v", err, err)
			}
			return
		}
		if !p.Default.Valid() {
			t.Fatalf("accepted policy has default %v", p.Default)
		}
		for _, r := range p.Rules {
			if !r.Decision.Valid() || r.ID == "" {
				t.Fatalf("accepted rule %+v", r)
			}
		}
		// Matching an accepted policy's rules against a plain call must not panic.
		c := call.Call{Class: call.Shell, Args: map[string]any{"command": "ls"}, Cwd: "/proj"}
		s := &Subject{Call: &c, Command: &call.Command{Name: "ls"}, Workspace: []string{"/proj"},
			Accesses: []call.Access{{Kind: call.Read, Path: "/proj", Recursive: true}}}
		for _, r := range p.Candidates(call.Shell) {
			r.Match(s)
			r.Explain(s)
		}
	})
}
