package policy

import (
	"fmt"
	"testing"
)

// TestChoicesAreTheLoaders checks that every word Choices lists for a setting loads, and
// that a word it does not list is refused: the lists are what the loader accepts.
func TestChoicesAreTheLoaders(t *testing.T) {
	docs := map[string]string{
		"fail":              "version: 1\nfail: %s\n",
		"hooks.allow":       "version: 1\nhooks: {allow: %s}\n",
		"hooks.ask":         "version: 1\nhooks: {ask: %s}\n",
		"approvals.queue":   "version: 1\napprovals: {queue: %s}\n",
		"output.injection":  "version: 1\noutput: {injection: %s}\n",
		"output.secrets":    "version: 1\noutput: {secrets: %s}\n",
		"mcp.changed_tools": "version: 1\nmcp: {changed_tools: %s}\n",
		"limit.scope":       "version: 1\nrules:\n  - {id: x, tool: shell, decision: deny, limit: \"1 per minute per %s\"}\n",
	}
	choices := Choices()
	for key, words := range choices {
		doc, ok := docs[key]
		if !ok {
			t.Errorf("Choices has %q, which this test does not know how to write: add it to docs", key)
			continue
		}
		if len(words) == 0 {
			t.Errorf("Choices()[%q] is empty", key)
		}
		for _, w := range append(words, "no-such-word") {
			_, err := Load("moat.yaml", fmt.Appendf(nil, doc, w), Host{Home: "/home/u"})
			if valid := w != "no-such-word"; valid != (err == nil) {
				t.Errorf("%s: %s: loaded=%v, want %v (%v)", key, w, err == nil, valid, err)
			}
		}
	}
	for key := range docs {
		if _, ok := choices[key]; !ok {
			t.Errorf("Choices has no %q", key)
		}
	}
}
