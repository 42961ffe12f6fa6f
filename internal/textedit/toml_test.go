package textedit

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestParseTOMLSpans(t *testing.T) {
	text := `model = "o3" # a comment with [brackets]
[hooks.state."/h/.codex/hooks.json:pre_tool_use:0:0"]
trusted_hash = "sha256:ab"
[[profiles]]
a.b = [1, # c
  2]
s = """x
[not = a header]"""
`
	doc, err := ParseTOML(text)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for _, tb := range doc.Tables {
		tables = append(tables, strings.Join(tb.Path, "|")+map[bool]string{true: " (array)"}[tb.Array])
		if got := text[tb.Start:tb.End]; !strings.HasPrefix(got, "[") || !strings.HasSuffix(got, "]") {
			t.Errorf("header span %q", got)
		}
	}
	want := []string{"hooks|state|/h/.codex/hooks.json:pre_tool_use:0:0", "profiles (array)"}
	if !slices.Equal(tables, want) {
		t.Errorf("tables = %q, want %q", tables, want)
	}
	var kvs []string
	for _, kv := range doc.KVs {
		kvs = append(kvs, strings.Join(kv.Path, "|")+"="+text[kv.Val.Start:kv.Val.End])
		if kv.LineStart > kv.KeyStart || text[kv.LineStart:kv.KeyStart] != "" {
			t.Errorf("key %q does not start its line", kv.Path)
		}
	}
	wantKVs := []string{`model="o3"`, `trusted_hash="sha256:ab"`, "a|b=[1, # c\n  2]", "s=\"\"\"x\n[not = a header]\"\"\""}
	if !slices.Equal(kvs, wantKVs) {
		t.Errorf("kvs = %q, want %q", kvs, wantKVs)
	}
	if doc.KVs[0].Table != -1 || doc.KVs[1].Table != 0 || doc.KVs[2].Table != 1 {
		t.Errorf("tables of the keys: %d %d %d", doc.KVs[0].Table, doc.KVs[1].Table, doc.KVs[2].Table)
	}
}

func TestParseTOMLErrors(t *testing.T) {
	for _, tc := range []struct{ text, where string }{
		{"a = \"open\n", "1:5"},
		{"[t\nx = 1\n", "1:3"},
		{"a = 1\nb 2\n", "2:3"},
		{"a = [1,,]\n", "1:8"},
	} {
		_, err := ParseTOML(tc.text)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("ParseTOML(%q) = %v, want a *SyntaxError", tc.text, err)
			continue
		}
		if !strings.HasPrefix(se.Error(), tc.where+":") {
			t.Errorf("ParseTOML(%q) = %v, want it at %s", tc.text, err, tc.where)
		}
	}
}

func TestUnquoteTOML(t *testing.T) {
	for raw, want := range map[string]string{
		`"a\"b"`:          `a"b`,
		`'C:\x'`:          `C:\x`,
		`"\u00e9"`:        "é",
		"\"\"\"\nx\"\"\"": "x",
	} {
		if got, ok := UnquoteTOML(raw); !ok || got != want {
			t.Errorf("UnquoteTOML(%q) = %q, %v, want %q", raw, got, ok, want)
		}
	}
	if _, ok := UnquoteTOML(`"\q"`); ok {
		t.Error(`UnquoteTOML("\q") accepted an invalid escape`)
	}
}
