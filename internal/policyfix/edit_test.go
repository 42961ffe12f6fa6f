package policyfix

import (
	"errors"
	"strings"
	"testing"
)

// TestInsert checks the text edits byte for byte on the layouts policies are written in:
// every byte of the file stays, the rule lands where asked with the list's own
// indentation, and the test goes first among the tests.
func TestInsert(t *testing.T) {
	rule := []string{"id: r", "decision: allow"}
	test := []string{`{command: "x", expect: allow}`}
	tests := []struct {
		name string
		at   int
		text string
		want string
	}{
		{"after the last rule, before the comments of the next key", 1,
			"version: 1\nrules:\n  # first\n  - id: a # keep\n    decision: deny\n\n# tests below\ntests:\n  - {command: ls, expect: allow}\n",
			"version: 1\nrules:\n  # first\n  - id: a # keep\n    decision: deny\n  - id: r\n    decision: allow\n\n# tests below\ntests:\n  - {command: \"x\", expect: allow}\n  - {command: ls, expect: allow}\n"},
		{"above a rule, as an exception to it", 0,
			"version: 1\nrules:\n  - id: a\n    decision: deny\ntests:\n  - {command: ls, expect: allow}\n",
			"version: 1\nrules:\n  - id: r\n    decision: allow\n  - id: a\n    decision: deny\ntests:\n  - {command: \"x\", expect: allow}\n  - {command: ls, expect: allow}\n"},
		{"above a rule and the comments about it", 1,
			"version: 1\nrules:\n  - id: a\n    decision: deny\n    # not a\n\n  # about b\n  # more\n  - id: b\n    decision: deny\n",
			"version: 1\nrules:\n  - id: a\n    decision: deny\n    # not a\n\n  - id: r\n    decision: allow\n  # about b\n  # more\n  - id: b\n    decision: deny\ntests:\n  - {command: \"x\", expect: allow}\n"},
		{"unindented list items", 1,
			"version: 1\nrules:\n- id: a\n  decision: deny\ntests:\n- {command: ls, expect: allow}\n",
			"version: 1\nrules:\n- id: a\n  decision: deny\n- id: r\n  decision: allow\ntests:\n- {command: \"x\", expect: allow}\n- {command: ls, expect: allow}\n"},
		{"flow-style items", 1,
			"version: 1\nrules:\n    - {id: a, decision: deny}\ntests:\n    - {command: ls, expect: allow}\n",
			"version: 1\nrules:\n    - {id: a, decision: deny}\n    - id: r\n      decision: allow\ntests:\n    - {command: \"x\", expect: allow}\n    - {command: ls, expect: allow}\n"},
		{"no rules and no tests", 0,
			"version: 1\ndefault: ask # careful\n",
			"version: 1\ndefault: ask # careful\nrules:\n  - id: r\n    decision: allow\ntests:\n  - {command: \"x\", expect: allow}\n"},
		{"no final line break", 0,
			"version: 1\ndefault: ask",
			"version: 1\ndefault: ask\nrules:\n  - id: r\n    decision: allow\ntests:\n  - {command: \"x\", expect: allow}\n"},
		{"empty lists in flow style", 0,
			"version: 1\nrules: [] # none yet\ntests: []\n",
			"version: 1\nrules: # none yet\n  - id: r\n    decision: allow\ntests:\n  - {command: \"x\", expect: allow}\n"},
		{"a key with only comments under it", 0,
			"version: 1\nrules:\n  # - id: example\n\ntests:\n",
			"version: 1\nrules:\n  - id: r\n    decision: allow\n  # - id: example\n\ntests:\n  - {command: \"x\", expect: allow}\n"},
		{"rules last in the file", 1,
			"version: 1\ntests:\n  - {command: ls, expect: allow}\nrules:\n  - id: a\n    decision: deny\n",
			"version: 1\ntests:\n  - {command: \"x\", expect: allow}\n  - {command: ls, expect: allow}\nrules:\n  - id: a\n    decision: deny\n  - id: r\n    decision: allow\n"},
		{"CRLF line breaks", 1,
			"version: 1\r\nrules:\r\n  - id: a\r\n    decision: deny\r\ntests:\r\n  - {command: ls, expect: allow}\r\n",
			"version: 1\r\nrules:\r\n  - id: a\r\n    decision: deny\r\n  - id: r\r\n    decision: allow\r\ntests:\r\n  - {command: \"x\", expect: allow}\r\n  - {command: ls, expect: allow}\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := insertInto(tt.text, tt.at, rule, test)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

func insertInto(text string, at int, rule, test []string) (string, error) {
	doc, err := parseDocument([]byte(text))
	if err != nil {
		return "", err
	}
	rules, err := doc.section("rules")
	if err != nil {
		return "", err
	}
	tests, err := doc.section("tests")
	if err != nil {
		return "", err
	}
	out, err := doc.insert(rules, tests, at, rule, test)
	return string(out), err
}

// TestInsertRefuses: layouts moat fix does not edit are refused, not garbled.
func TestInsertRefuses(t *testing.T) {
	for _, text := range []string{
		"version: 1\nrules: [{id: a, decision: deny}]\n",
		"version: 1\ntests: [{command: ls, expect: allow}]\n",
		"version: 1\nrules: {}\n",
	} {
		_, err := insertInto(text, 0, []string{"id: r"}, []string{"{}"})
		if !errors.Is(err, ErrRefused) {
			t.Errorf("%q: err %v, want a refusal", text, err)
		}
	}
	if _, err := insertInto("version: [1\n", 0, nil, nil); err == nil || !strings.Contains(err.Error(), "YAML") {
		t.Errorf("broken YAML: err %v", err)
	}
}

// FuzzInsert: whatever the policy text, the edit either is refused or keeps every line
// of the text and still reads as YAML; it never panics.
func FuzzInsert(f *testing.F) {
	for _, s := range []string{
		"version: 1\nrules:\n  # first\n  - id: a # keep\n    decision: deny\n\n# tests below\ntests:\n  - {command: ls, expect: allow}\n",
		"version: 1\nrules:\n- id: a\n  decision: deny\ntests:\n- {command: ls, expect: allow}\n",
		"version: 1\ndefault: ask",
		"version: 1\r\nrules:\r\n  - id: a\r\n    decision: deny\r\n",
		"version: 1\nrules:\n  # - id: example\n\ntests:\n",
	} {
		f.Add(s, 0)
		f.Add(s, 1)
	}
	f.Fuzz(func(t *testing.T, text string, at int) {
		if at < 0 || at > 2 {
			return
		}
		out, err := insertInto(text, at, []string{"id: r", "decision: allow"}, []string{`{command: "x", expect: allow}`})
		if err != nil {
			return
		}
		if _, err := parseDocument([]byte(out)); err != nil && !strings.Contains(text, "[]") {
			t.Fatalf("the edited text does not read: %v\n%q\n%q", err, text, out)
		}
		if !subsequence(text, out) && !strings.Contains(text, "[]") {
			t.Fatalf("the edit lost text:\n%q\n%q", text, out)
		}
	})
}

// subsequence reports whether every byte of s is in t, in order: nothing of s was lost.
func subsequence(s, t string) bool {
	i := 0
	for j := 0; j < len(t) && i < len(s); j++ {
		if s[i] == t[j] {
			i++
		}
	}
	return i == len(s)
}
