package textedit

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseJSON(t *testing.T) {
	for _, tt := range []struct {
		name, text string
		err        string // "" when the text must parse
	}{
		{"comments and a trailing comma", "// settings\n{\"a\": [1, 2,], /* b */ \"b\": {},}", ""},
		{"byte order mark", "\uFEFF{\"a\": true}", ""},
		{"empty", " // nothing\n", ""},
		{"escaped key", `{"\u0061\"": null}`, ""},
		{"missing comma", "{\"a\": 1\n \"b\": 2}", `2:2: expected ',' or '}' after the member "a"`},
		{"not a literal", `{"a": yes}`, `1:7: unexpected 'y'`},
		{"unclosed comment", `{"a": 1 /* }`, "1:9: unterminated comment"},
		{"string across lines", "{\"a\": \"b\n\"}", "1:7: unterminated string"},
		{"bad escape", `{"a": "\x"}`, `1:8: invalid escape "\\x"`},
		{"after the value", `{} {}`, "1:4: unexpected text after the JSON value"},
		{"too deep", strings.Repeat("[", MaxDepth+2), "values nested too deeply"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseJSON(tt.text)
			switch {
			case tt.err == "" && err != nil:
				t.Errorf("ParseJSON: %v", err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Errorf("ParseJSON = %v; want an error with %q", err, tt.err)
			}
		})
	}
	v, err := ParseJSON(`{"a": 1, "b": {"c": "d"}, "a": 2}`)
	if err != nil {
		t.Fatal(err)
	}
	if a, n := v.Member("a"); n != 2 || a.Start != 31 {
		t.Errorf("Member(a) = %+v, %d; want the last of two", a, n)
	}
	if b, _ := v.Member("b"); b.Kind != '{' || b.Keys[0] != "c" {
		t.Errorf("Member(b) = %+v", b)
	}
}

func TestUnquoteJSONQuote(t *testing.T) {
	for _, s := range []string{"", "plain", "quo\"te", "back\\slash", "tab\tnew\nline", "\x01\x7f", "é😀"} {
		got, ok := UnquoteJSON(Quote(s))
		if !ok || got != s {
			t.Errorf("UnquoteJSON(Quote(%q)) = %q, %v", s, got, ok)
		}
	}
	if s, ok := UnquoteJSON(`"\ud83d\ude00 \u00e9"`); !ok || s != "😀 é" {
		t.Errorf("surrogate pair: %q, %v", s, ok)
	}
}

func TestSkipJSONSpace(t *testing.T) {
	text := "[1, // one\n /* two */ 2]"
	if got := SkipJSONSpace(text, 3); text[got] != '2' {
		t.Errorf("SkipJSONSpace stopped at %q", text[got:])
	}
}

// FuzzParseJSON: whatever ParseJSON accepts has values that nest inside each other, in order,
// and keys that decode as encoding/json decodes them.
func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{`{"a": [1, -2.5e3, true, null, {"b": "c\"d\u00e9"}], /* x */ "e": {},}`, "[", `{"a":"\ud800"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		v, err := ParseJSON(text)
		if err != nil || v == nil {
			return
		}
		checkSpans(t, v, 0, len(text))
		checkKeys(t, text, v)
	})
}

func checkSpans(t *testing.T, v *Value, lo, hi int) {
	t.Helper()
	if v.Start < lo || v.End > hi || v.Start >= v.End {
		t.Fatalf("value %q spans %d-%d outside %d-%d", v.Kind, v.Start, v.End, lo, hi)
	}
	at := v.Start
	for i, e := range v.Elems {
		if v.Kind == '{' && (v.KeyStarts[i] < at || v.KeyStarts[i] >= e.Start) {
			t.Fatalf("key %d at %d out of order", i, v.KeyStarts[i])
		}
		checkSpans(t, e, at, v.End)
		at = e.End
	}
}

// checkKeys checks that keys decode as encoding/json decodes them.
func checkKeys(t *testing.T, text string, v *Value) {
	for i, k := range v.Keys {
		p := &jsonParser{s: text, pos: v.KeyStarts[i]}
		if err := p.str(); err != nil {
			t.Fatalf("the key at %d does not scan again: %v", v.KeyStarts[i], err)
		}
		raw := text[v.KeyStarts[i]:p.pos]
		var want string
		// encoding/json replaces invalid UTF-8 where moat keeps the bytes, which go back
		// into the file as they came.
		if utf8.ValidString(raw) && json.Unmarshal([]byte(raw), &want) == nil && want != k {
			t.Fatalf("key %s decoded to %q, want %q", raw, k, want)
		}
	}
	for _, e := range v.Elems {
		checkKeys(t, text, e)
	}
}

// TestQuoteJSON: serde_json's form, which Codex hashes, differs from Quote only in DEL,
// which JSON allows bare and TOML does not.
func TestQuoteJSON(t *testing.T) {
	for _, tt := range []struct{ in, quote, quoteJSON string }{
		{"a\"b\\c", `"a\"b\\c"`, `"a\"b\\c"`},
		{"tab\there\n", `"tab\there\n"`, `"tab\there\n"`},
		{"\x01<&>\u2028", `"\u0001<&>` + "\u2028" + `"`, `"\u0001<&>` + "\u2028" + `"`},
		{"del\x7f", `"del\u007f"`, "\"del\x7f\""},
	} {
		if got := Quote(tt.in); got != tt.quote {
			t.Errorf("Quote(%q) = %s, want %s", tt.in, got, tt.quote)
		}
		if got := QuoteJSON(tt.in); got != tt.quoteJSON {
			t.Errorf("QuoteJSON(%q) = %s, want %s", tt.in, got, tt.quoteJSON)
		}
	}
}
