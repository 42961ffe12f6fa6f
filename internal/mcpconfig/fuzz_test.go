package mcpconfig

import (
	"github.com/rogpeppe/go-internal/diff"
	"os"
	"strings"
	"testing"
)

// seeds are the golden files (inputs and wrapped) and the layout tables of one format.
func seeds(f *testing.F, toml bool) {
	for _, g := range goldenCases(f) {
		if g.client.TOML != toml {
			continue
		}
		for _, name := range []string{g.input, g.wrappedPath()} {
			if data, err := os.ReadFile(name); err == nil {
				f.Add(string(data))
			}
		}
	}
	key := "cursor"
	if toml {
		key = "codex"
	}
	for _, text := range layouts[key] {
		f.Add(text)
	}
	for name, texts := range remoteLayouts {
		if (name == "codex") == toml {
			for _, text := range texts {
				f.Add(text)
			}
		}
	}
}

// checkSpans checks that every value lies inside its parent, in order.
func checkSpans(t *testing.T, text string, v *value, lo, hi int) {
	t.Helper()
	if v.Start < lo || v.End > hi || v.Start >= v.End {
		t.Fatalf("value %q spans %d-%d outside %d-%d", v.Kind, v.Start, v.End, lo, hi)
	}
	at := v.Start
	for i, e := range v.Elems {
		if v.Kind == '{' && (v.KeyStarts[i] < at || v.KeyStarts[i] >= e.Start) {
			t.Fatalf("key %d at %d out of order", i, v.KeyStarts[i])
		}
		checkSpans(t, text, e, at, v.End)
		at = e.End
	}
}

// checkWrap checks the promises of Wrap and Unwrap on any text the client can read:
// the results can be read again, wrapping is idempotent, and wrapping then unwrapping
// a text with nothing of moat's in it gives the text back.
func checkWrap(t *testing.T, c Client, text string) {
	t.Helper()
	wrapped, _, err := c.Wrap(text, moatBin, Options{})
	if err != nil {
		return
	}
	if _, _, err := c.Unwrap(wrapped); err != nil {
		t.Fatalf("%s: the wrapped text does not parse: %v\n%q", c.Name, err, wrapped)
	}
	again, _, err := c.Wrap(wrapped, moatBin, Options{})
	if err != nil || again != wrapped {
		t.Fatalf("%s: wrapping twice changed the text (%v):\n%q\n%q", c.Name, err, wrapped, again)
	}
	// Entries are edited independently, so unwrapping what Wrap gave restores what Wrap
	// wrapped and unwraps what was moat's before, as unwrapping the text itself does.
	// For a text with nothing of moat's, that is the text itself.
	before, _, err := c.Unwrap(text)
	if err != nil {
		t.Fatal(err)
	}
	back, _, err := c.Unwrap(wrapped)
	if err != nil {
		t.Fatal(err)
	}
	if back != before {
		t.Fatalf("%s: not restored:\n%q\n%q\n%q\n%q", c.Name, text, wrapped, back, before)
	}
	if _, _, err := c.Wrap(back, moatBin, Options{}); err != nil {
		t.Fatalf("%s: the unwrapped text does not parse: %v\n%q", c.Name, err, back)
	}
	_ = diff.Diff("text", []byte(text), "wrapped", []byte(wrapped))
}

func FuzzJSON(f *testing.F) {
	seeds(f, false)
	for _, s := range []string{`{"a": [1, -2.5e3, true, null, {"b": "c\"d\u00e9"}], /* x */ "e": {},}`, "[", `{"a":"\ud800"}`} {
		f.Add(s)
	}
	var clients []Client
	for _, name := range []string{"claude-code", "cursor", "gemini-cli", "vscode", "windsurf"} {
		clients = append(clients, client(f, name))
	}
	f.Fuzz(func(t *testing.T, text string) {
		v, err := parseJSON(text)
		if err != nil || v == nil {
			return
		}
		checkSpans(t, text, v, 0, len(text))
		for _, c := range clients {
			checkWrap(t, c, text)
		}
	})
}

func FuzzTOML(f *testing.F) {
	seeds(f, true)
	for _, s := range []string{
		"a.\"b\".'c' = { d = [1, 2.0, 1979-05-27 07:32:00Z, true, \"\"\"\n\"\"\"], e = '''x'''}\n",
		"[[t]]\n[t.u]\nx = 0x1F # c\n",
		"s = \"\\u00e9\\U0001F600\\x41\"",
	} {
		f.Add(s)
	}
	c := client(f, "codex")
	f.Fuzz(func(t *testing.T, text string) {
		doc, err := parseTOML(text)
		if err != nil {
			return
		}
		for _, kv := range doc.KVs {
			if kv.LineStart > kv.KeyStart || kv.KeyStart >= kv.Val.Start {
				t.Fatalf("key at %d, line at %d, value at %d", kv.KeyStart, kv.LineStart, kv.Val.Start)
			}
			checkSpans(t, text, kv.Val, kv.KeyStart, len(text))
			if kv.Val.Kind == '"' {
				if _, ok := unquoteTOML(text[kv.Val.Start:kv.Val.End]); !ok {
					t.Fatalf("a string the reader took cannot be decoded: %q", text[kv.Val.Start:kv.Val.End])
				}
			}
		}
		for _, tb := range doc.Tables {
			if tb.Start >= tb.End || tb.End > len(text) || !strings.HasPrefix(text[tb.Start:], "[") {
				t.Fatalf("table header at %d-%d", tb.Start, tb.End)
			}
		}
		checkWrap(t, c, text)
	})
}
