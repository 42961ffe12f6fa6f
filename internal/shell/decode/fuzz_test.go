package decode

import (
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// The fuzzers check properties against independent implementations where there is one
// (encoding/base64, encoding/base32, encoding/hex, strconv) and against each other where
// there is not (echo -e and printf %b read nearly the same escapes). Seeds are the test
// tables; testdata/fuzz holds further seeds and every crasher found.

// withoutSpace returns s without ASCII whitespace.
func withoutSpace(s string) string {
	return strings.Map(func(r rune) rune {
		if r < utf8.RuneSelf && isSpace(byte(r)) {
			return -1
		}
		return r
	}, s)
}

// checkBase compares a decoder with the standard library's on s, read as that library
// reads unpadded input, and checks that it decodes what the library encodes. The
// library's base32 decoder accepts groups of invalid length (it reads "MZX" as "f" less
// its last digit), so only when lengthChecked is its success compared.
func checkBase(t *testing.T, name string, decode func(string) (string, bool), std, raw interface {
	EncodeToString([]byte) string
	DecodeString(string) ([]byte, error)
}, quantum int, lengthChecked bool, s string) {
	got, ok := decode(s)
	if len(got) > len(s) {
		t.Fatalf("%s(%q) = %q: longer than its input", name, s, got)
	}
	norm := withoutSpace(s)
	if name == "Base64" {
		norm = strings.NewReplacer("-", "+", "_", "/").Replace(norm)
	}
	trimmed := strings.TrimRight(norm, "=")
	if !strings.Contains(trimmed, "=") {
		want, err := raw.DecodeString(trimmed)
		wantOK := err == nil && (len(trimmed) == len(norm) || len(trimmed)%quantum != 0)
		if ok && !wantOK || !ok && wantOK && lengthChecked || ok && got != string(want) {
			t.Fatalf("%s(%q) = %q, %v; the standard library decodes %q, %v", name, s, got, ok, want, wantOK)
		}
	}
	enc := std.EncodeToString([]byte(s))
	if got, ok := decode(enc); !ok || got != s {
		t.Fatalf("%s(%q) = %q, %v; want %q, true", name, enc, got, ok, s)
	}
}

func FuzzBase64(f *testing.F) {
	for _, tt := range base64Tests {
		f.Add(tt.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkBase(t, "Base64", Base64, base64.StdEncoding, base64.RawStdEncoding, 4, true, s)
		enc := base64.URLEncoding.EncodeToString([]byte(s))
		if got, ok := Base64(enc); !ok || got != s {
			t.Fatalf("Base64(%q) = %q, %v; want %q, true", enc, got, ok, s)
		}
	})
}

func FuzzBase32(f *testing.F) {
	for _, tt := range base32Tests {
		f.Add(tt.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkBase(t, "Base32", Base32, base32.StdEncoding, base32.StdEncoding.WithPadding(base32.NoPadding), 8, false, s)
	})
}

func FuzzHex(f *testing.F) {
	for _, tt := range hexTests {
		f.Add(tt.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := Hex(s)
		digits := strings.NewReplacer(" ", "", "\t", "", "\n", "", "\r", "").Replace(s)
		valid := strings.Trim(digits, "0123456789abcdefABCDEF") == ""
		want, err := hex.DecodeString(digits[:len(digits)&^1])
		if ok != valid || valid && (err != nil || got != string(want)) {
			t.Fatalf("Hex(%q) = %q, %v; encoding/hex decodes %q, %v", s, got, ok, want, err)
		}
		if got, ok := Hex(hex.EncodeToString([]byte(s))); !ok || got != s {
			t.Fatalf("Hex(hex of %q) = %q, %v", s, got, ok)
		}
	})
}

// hasOctalEscape reports whether s holds \1 to \7, which printf's %b reads as an octal
// escape and echo -e does not.
func hasOctalEscape(s string) bool {
	for i := 0; i+1 < len(s); i++ {
		if s[i] == '\\' {
			if '1' <= s[i+1] && s[i+1] <= '7' {
				return true
			}
			i++
		}
	}
	return false
}

func FuzzPrintf(f *testing.F) {
	for _, tt := range printfTests {
		a, b := "", ""
		if len(tt.args) > 0 {
			a = tt.args[0]
		}
		if len(tt.args) > 1 {
			b = tt.args[1]
		}
		f.Add(tt.format, a, b)
	}
	f.Fuzz(func(t *testing.T, format, a, b string) {
		got, ok := Printf(format, []string{a, b})
		if len(got) > MaxOutput {
			t.Fatalf("Printf(%q, %q, %q): %d bytes", format, a, b, len(got))
		}
		if !strings.ContainsAny(cString(format), `%\`) && (!ok || got != cString(format)) {
			t.Fatalf("Printf(%q) = %q, %v; want the format", format, got, ok)
		}
		if got, ok := Printf("%s", []string{a}); !ok || got != cString(a) {
			t.Fatalf("Printf(%%s, %q) = %q, %v", a, got, ok)
		}
		if n, err := strconv.ParseInt(a, 10, 64); err == nil && !strings.HasPrefix(strings.TrimLeft(a, "+-"), "0") {
			if got, ok := Printf("%d", []string{a}); !ok || got != strconv.FormatInt(n, 10) {
				t.Fatalf("Printf(%%d, %q) = %q, %v", a, got, ok)
			}
		}
		if !hasOctalEscape(a) {
			got, ok := Printf("%b", []string{a})
			want := strings.TrimPrefix(Echo([]string{"-ne", "", a}), " ")
			if !ok || got != want {
				t.Fatalf("Printf(%%b, %q) = %q, %v; echo -ne prints %q", a, got, ok, want)
			}
		}
	})
}

func FuzzEcho(f *testing.F) {
	for _, tt := range echoTests {
		a, b := "", ""
		if len(tt.args) > 0 {
			a = tt.args[0]
		}
		if len(tt.args) > 1 {
			b = tt.args[1]
		}
		f.Add(a, b)
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		got := Echo([]string{a, b})
		if len(got) > MaxOutput {
			t.Fatalf("Echo(%q, %q): %d bytes", a, b, len(got))
		}
		if !isEchoOption(a) {
			if want := cString(a) + " " + cString(b) + "\n"; got != want {
				t.Fatalf("Echo(%q, %q) = %q; want %q", a, b, got, want)
			}
		}
		Echo([]string{"-e", a, b})
	})
}

func FuzzTr(f *testing.F) {
	for _, tt := range trTests {
		if len(tt.in) < 1000 {
			f.Add(tt.set1, tt.set2, tt.in)
		}
	}
	f.Fuzz(func(t *testing.T, set1, set2, s string) {
		got, ok := Tr(set1, set2, s)
		if ok && len(got) != len(s) || !ok && got != "" && len(s) <= MaxOutput {
			t.Fatalf("Tr(%q, %q, %q) = %q, %v", set1, set2, s, got, ok)
		}
		// A set translated to itself changes nothing.
		if got, ok := Tr(set1, set1, s); ok && got != s {
			t.Fatalf("Tr(%q, %q, %q) = %q", set1, set1, s, got)
		}
		// tr -d deletes exactly the bytes that tr SET1 X translates to X, for any X.
		deleted, ok := TrDelete(set1, s)
		if !ok {
			return
		}
		one, ok1 := Tr(set1, "\x01", s)
		two, ok2 := Tr(set1, "\x02", s)
		if !ok1 || !ok2 {
			t.Fatalf("TrDelete(%q) accepted a set that Tr rejects", set1)
		}
		var want strings.Builder
		for i := range len(s) {
			if one[i] != 1 || two[i] != 2 {
				want.WriteByte(s[i])
			}
		}
		if deleted != want.String() {
			t.Fatalf("TrDelete(%q, %q) = %q; Tr keeps %q", set1, s, deleted, want.String())
		}
	})
}

func FuzzRev(f *testing.F) {
	for _, tt := range revTests {
		f.Add(tt.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Rev(s)
		if len(got) != len(s) || strings.Count(got, "\n") != strings.Count(s, "\n") {
			t.Fatalf("Rev(%q) = %q: not a permutation of lines", s, got)
		}
		if utf8.ValidString(s) && Rev(got) != s {
			t.Fatalf("Rev(Rev(%q)) = %q", s, Rev(got))
		}
		if Rot13(Rot13(s)) != s {
			t.Fatalf("Rot13(Rot13(%q)) = %q", s, Rot13(Rot13(s)))
		}
	})
}
