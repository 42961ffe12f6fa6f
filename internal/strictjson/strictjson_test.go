package strictjson

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

type checkCase struct {
	in     string
	msg    string // "" when the document is accepted; otherwise a substring of the message
	offset int64
}

var checkCases = []checkCase{
	// Accepted.
	{`{}`, "", 0},
	{`[]`, "", 0},
	{` {"a":1} `, "", 0},
	{"\t\r\n[1,2]\n", "", 0},
	{`"x"`, "", 0},
	{`0`, "", 0},
	{`-0.5e+10`, "", 0},
	{`1E-2`, "", 0},
	{`123456789012345678901234567890e999`, "", 0},
	{`true`, "", 0},
	{`null`, "", 0},
	{`{"a":{"a":{"a":1}},"b":[{"a":1},{"a":2}]}`, "", 0},
	{`{"tool":"Bash","args":{"command":"ls"}}`, "", 0},
	{`{"a":1,"b":2,"c":3,"ab":4,"ba":5}`, "", 0},
	{`["\"\\\/\b\f\n\r\t\u0041\u00e9\ud83d\ude00"]`, "", 0},
	{`{"\u0000":1,"":2}`, "", 0},
	{`"日本語 é"`, "", 0},
	{`{"straße":1,"STRASSE":2}`, "", 0}, // full case folding would merge these; simple folding does not
	{`[{"a":1},{"a":1}]`, "", 0},
	{`{"a":{"b":1},"b":2}`, "", 0},

	// Duplicate keys.
	{`{"tool":"Bash","args":1,"args":2}`, `duplicate key "args"`, 24},
	{`{"a":1,"\u0061":2}`, `duplicate key "a"`, 7},
	{`{"a\/b":1,"a/b":2}`, `duplicate key "a/b"`, 10},
	{`{"args":1,"Args":2}`, `key "Args" differs from an earlier key "args" only in letter case`, 10},
	{`{"k":1,"\u212a":2}`, `only in letter case`, 7}, // Kelvin sign
	{`{"ſ":1,"S":2}`, `only in letter case`, 8},
	{`{"É":1,"é":2}`, `only in letter case`, 8},
	{`{"a":{"x":1,"x":2}}`, `duplicate key "x"`, 12},
	{`[{"a":1,"b":{},"a":2}]`, `duplicate key "a"`, 15},

	// Strings.
	{`"\ud800"`, `lone high surrogate`, 1},
	{`"\ud800x"`, `lone high surrogate`, 1},
	{`"\ud800\u0041"`, `lone high surrogate`, 1},
	{`"\udc00"`, `lone low surrogate`, 1},
	{`{"\udfff":1}`, `lone low surrogate`, 2},
	{"\"a\xffb\"", `invalid UTF-8`, 2},
	{"\"\xed\xa0\x80\"", `invalid UTF-8`, 1}, // a surrogate encoded directly
	{"\"\xc0\xaf\"", `invalid UTF-8`, 1},     // overlong '/'
	{"\"a\nb\"", `control character U+000A`, 2},
	{`"\x"`, `invalid escape "\x"`, 1},
	{`"\u12"`, `invalid \u escape`, 1},
	{`"abc`, `unterminated string`, 0},
	{`"abc\`, `unterminated string`, 4},

	// Syntax.
	{``, `empty document`, 0},
	{`   `, `empty document`, 3},
	{`{"a":1}{}`, `unexpected '{' after the end of the document`, 7},
	{`{"a":1} x`, `after the end of the document`, 8},
	{`1 2`, `after the end of the document`, 2},
	{`{"a":1,}`, `trailing comma before '}'`, 7},
	{`[1,]`, `trailing comma before ']'`, 3},
	{`[1 2]`, `expecting ',' or ']'`, 3},
	{`{"a" 1}`, `expecting ':'`, 5},
	{`{a:1}`, `expecting a string key or '}'`, 1},
	{`{"a":1,2:3}`, `expecting a string key or a key`, 7},
	{`{"a":}`, `where a value should start`, 5},
	{`[`, `unexpected end of document`, 1},
	{`{"a":1`, `unexpected end of document inside an object`, 6},
	{`{"a"`, `unexpected end of document after an object key`, 4},
	{`01`, `invalid number`, 0},
	{`-`, `invalid number`, 0},
	{`1.`, `invalid number`, 0},
	{`1.e5`, `invalid number`, 0},
	{`1e`, `invalid number`, 0},
	{`+1`, `unexpected '+'`, 0},
	{`.5`, `unexpected '.'`, 0},
	{`1x`, `invalid number`, 0},
	{`NaN`, `unexpected 'N'`, 0},
	{`tru`, `invalid literal (expecting true)`, 0},
	{`truex`, `invalid literal`, 0},
	{`nul`, `invalid literal`, 0},
	{`[True]`, `unexpected 'T'`, 1},
	{"\xef\xbb\xbf{}", `unexpected byte 0xEF`, 0}, // byte order mark
	{"[1,\x00]", `unexpected byte 0x00`, 3},
	{`'a'`, `unexpected '\''`, 0},
}

func TestCheck(t *testing.T) {
	for _, tc := range checkCases {
		err := Check([]byte(tc.in), Limits{})
		if tc.msg == "" {
			if err != nil {
				t.Errorf("Check(%q) = %v, want nil", tc.in, err)
			}
			continue
		}
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("Check(%q) = %v, want an *Error", tc.in, err)
			continue
		}
		if !strings.Contains(e.Msg, tc.msg) || e.Offset != tc.offset {
			t.Errorf("Check(%q) = %v, want %q at offset %d", tc.in, err, tc.msg, tc.offset)
		}
	}
}

func TestErrorText(t *testing.T) {
	err := Check([]byte(`{"tool":"Bash","args":1,"args":2}`), Limits{})
	const want = `duplicate key "args" at offset 24`
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

func TestLimits(t *testing.T) {
	deep := func(n int) []byte {
		return []byte(strings.Repeat("[", n) + strings.Repeat("]", n))
	}
	deepObj := func(n int) []byte {
		return []byte(strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n))
	}
	for _, tc := range []struct {
		name string
		in   []byte
		lim  Limits
		msg  string
	}{
		{"default depth", deep(128), Limits{}, ""},
		{"over default depth", deep(129), Limits{}, "nesting is deeper than the limit of 128"},
		{"objects over default depth", deepObj(129), Limits{}, "limit of 128"},
		{"custom depth", deep(3), Limits{MaxDepth: 3}, ""},
		{"over custom depth", deep(4), Limits{MaxDepth: 3}, "limit of 3"},
		{"negative depth means default", deep(100), Limits{MaxDepth: -1}, ""},
		{"scalar at depth 0", []byte("1"), Limits{MaxDepth: 1}, ""},
		{"very deep", deep(1 << 20), Limits{}, "limit of 128"},
		{"very deep allowed", deep(1 << 20), Limits{MaxDepth: 1 << 20}, ""},
		{"size", []byte(`"12345"`), Limits{MaxBytes: 7}, ""},
		{"over size", []byte(`"123456"`), Limits{MaxBytes: 7}, "document is 8 bytes, over the limit of 7"},
		{"over default size", make([]byte, 16<<20+1), Limits{}, "over the limit of 16777216"},
	} {
		err := Check(tc.in, tc.lim)
		if tc.msg == "" && err != nil || tc.msg != "" && (err == nil || !strings.Contains(err.Error(), tc.msg)) {
			t.Errorf("%s: Check = %v, want %q", tc.name, err, tc.msg)
		}
	}
}

// TestManyKeys checks duplicate detection in objects large enough to use the map,
// including a duplicate far from its first occurrence and the whole thing in quadratic
// time's territory.
func TestManyKeys(t *testing.T) {
	obj := func(n int, extra string) []byte {
		var b strings.Builder
		b.WriteString("{")
		for i := range n {
			fmt.Fprintf(&b, `"key%d":%d,`, i, i)
		}
		b.WriteString(extra)
		b.WriteString(`"end":0}`)
		return []byte(b.String())
	}
	if err := Check(obj(100000, ""), Limits{}); err != nil {
		t.Errorf("100k distinct keys: %v", err)
	}
	for _, extra := range []string{`"key3":1,`, `"KEY99999":1,`, `"end":1,`, `"k\u0065y17":1,`} {
		err := Check(obj(100000, extra), Limits{})
		if err == nil || !strings.Contains(err.Error(), "key") {
			t.Errorf("100k keys plus %s: %v, want a duplicate", extra, err)
		}
	}
	for n := range 40 {
		if err := Check(obj(n, fmt.Sprintf(`"Key%d":1,`, n/2)), Limits{}); (err == nil) != (n == 0) {
			t.Errorf("%d keys plus a case variant of key %d: %v", n, n/2, err)
		}
	}
}

func TestAgreesWithEncodingJSON(t *testing.T) {
	for _, tc := range checkCases {
		if err := Check([]byte(tc.in), Limits{}); err == nil && !json.Valid([]byte(tc.in)) {
			t.Errorf("Check accepts %q, which encoding/json rejects", tc.in)
		}
	}
}

func TestAllocs(t *testing.T) {
	doc := []byte(`{"tool_name":"Bash","tool_input":{"command":"rm -rf ./build","description":"clean"},"session_id":"abc","cwd":"/home/u/src","n":[1,2.5,-3e4,true,false,null]}`)
	n := testing.AllocsPerRun(100, func() {
		if err := Check(doc, Limits{}); err != nil {
			t.Fatal(err)
		}
	})
	if n > 1 {
		t.Errorf("Check allocates %v times for a hook payload, want at most 1", n)
	}
}
