package decode

import (
	"strings"
	"testing"
)

type trTest struct {
	delete     bool // tr -d SET1
	set1, set2 string
	in         string
	want       string
	ok         bool
}

var trTests = []trTest{
	{set1: "A-Za-z", set2: "N-ZA-Mn-za-m", in: "ez -es /", want: "rm -rf /", ok: true},
	{set1: "a-y", set2: "b-z", in: "ql -qe /", want: "rm -rf /", ok: true},
	{set1: "[:upper:]", set2: "[:lower:]", in: "RM -RF /", want: "rm -rf /", ok: true},
	{set1: "_", set2: " ", in: "rm_-rf_/", want: "rm -rf /", ok: true},
	{set1: "abc", set2: "x", in: "abcd", want: "xxxd", ok: true}, // SET2 padded with its last byte
	{set1: "a", set2: "xyz", in: "abc", want: "xbc", ok: true},   // SET2's extra bytes are unused
	{set1: "aa", set2: "xy", in: "abc", want: "ybc", ok: true},   // the last place counts
	{set1: "a-a", set2: "x", in: "abc", want: "xbc", ok: true},
	{set1: "a-", set2: "xy", in: "a-c", want: "xyc", ok: true},      // a trailing dash is itself
	{set1: "-a", set2: "xy", in: "a-c", want: "yxc", ok: true},      // and a leading one
	{set1: `a\-c`, set2: "xyz", in: "a-bc", want: "xybz", ok: true}, // an escaped dash is itself
	{set1: "a-b-c", set2: "xyz", in: "a-bc", want: "xzyz", ok: true},
	{set1: `\\`, set2: "x", in: `a\c`, want: "axc", ok: true},
	{set1: `a\`, set2: "xy", in: `a\`, want: "xy", ok: true},
	{set1: `\141`, set2: "x", in: "abc", want: "xbc", ok: true},
	{set1: `\1411`, set2: "xy", in: "a1", want: "xy", ok: true},
	{set1: `\400`, set2: "xy", in: " 0", want: "xy", ok: true}, // \40 then 0
	{set1: `\q`, set2: "x", in: "aqc", want: "axc", ok: true},
	{set1: `\n\t`, set2: "xy", in: "a\nb\tc", want: "axbyc", ok: true},
	{set1: `a-\143`, set2: "xyz", in: "abc", want: "xyz", ok: true},
	{set1: "[ab]", set2: "xyzw", in: "a[b]", want: "yxzw", ok: true}, // not a construct: literal
	{set1: "[a", set2: "xy", in: "a[b", want: "yxb", ok: true},
	{set1: "[:", set2: "xy", in: "a:[", want: "ayx", ok: true},
	{set1: "[:lower:", set2: "x", in: "l:]", want: "xx]", ok: true},
	{set1: "[-a", set2: "x", in: "a[b", want: "xxb", ok: true}, // the range [-a
	{set1: "[:lower:]", set2: "[:upper:]", in: "abc1", want: "ABC1", ok: true},
	{set1: "[:upper:]", set2: "[:upper:]", in: "ABc", want: "ABc", ok: true},
	{set1: "[:lower:]x", set2: "[:upper:]y", in: "xa", want: "yA", ok: true},
	{set1: "x[:lower:]", set2: "y[:upper:]", in: "xa", want: "XA", ok: true}, // the class's place is later
	{set1: "[:lower:][:upper:]", set2: "[:upper:][:lower:]", in: "aB", want: "Ab", ok: true},
	{set1: "[:lower:]", set2: "[:upper:]a", in: "ab", want: "AB", ok: true},
	{set1: "[:lower:][:lower:]", set2: "[:upper:]x", in: "abc", want: "xxx", ok: true},
	{set1: "ab", set2: "xyz[:upper:]", in: "ab", want: "xy", ok: true}, // a class tr never reaches
	{set1: "[:alnum:]", set2: "x", in: "a1-B", want: "xx-x", ok: true},
	{set1: "[:space:]", set2: "_", in: "a b\tc\n", want: "a_b_c_", ok: true},
	{set1: "[:punct:]", set2: ".", in: "a,b!{}", want: "a.b...", ok: true},
	{set1: "[:digit:][:xdigit:][:blank:][:cntrl:][:graph:][:print:][:alpha:]", set2: "x", in: "a", want: "x", ok: true},
	{set1: "é", set2: "xy", in: "é", want: "xy", ok: true}, // bytes, not characters
	{set1: "", set2: "x", in: "abc", want: "abc", ok: true},
	{set1: "", set2: "", in: "abc", want: "abc", ok: true},

	{set1: "abc", set2: "", in: "abc"},                 // SET2 must not be empty
	{set1: "z-a", set2: "x", in: "abc"},                // backwards range
	{set1: "a--", set2: "x", in: "abc"},                // '-' sorts before 'a'
	{set1: "[:foo:]", set2: "x", in: "abc"},            // unknown class
	{set1: "[::]", set2: "x", in: "abc"},               // missing class name
	{set1: "a-z", set2: "[:upper:]", in: "abc"},        // misaligned case class
	{set1: "[:alpha:]", set2: "[:upper:]", in: "abc"},  // misaligned case class
	{set1: "a", set2: "x[:upper:]", in: "abc"},         // a case class facing nothing
	{set1: "", set2: "[:upper:]", in: "abc"},           // the same
	{set1: "[:lower:]", set2: "x[:upper:]", in: "abc"}, // misaligned
	{set1: "[:upper:]a", set2: "[:lower:]", in: "abc"}, // SET2 ends with a class
	{set1: "a-c", set2: "[:digit:]", in: "abc"},        // only case classes in SET2
	{set1: "[=a=]", set2: "x", in: "abc"},              // equivalence classes: unsupported
	{set1: "ab", set2: "[x*]", in: "abc"},              // repeats: unsupported
	{set1: "ab", set2: "x[y*2]", in: "abc"},            // repeats: unsupported
	{set1: "[a*]", set2: "xyz", in: "abc"},             // tr rejects repeats in SET1
	{set1: "a", set2: "b", in: strings.Repeat("a", MaxOutput+1), want: strings.Repeat("b", MaxOutput)},

	{delete: true, set1: "a-b", in: "abc", want: "c", ok: true},
	{delete: true, set1: "[:lower:]", in: "abC\n", want: "C\n", ok: true},
	{delete: true, set1: "", in: "abc", want: "abc", ok: true},
	{delete: true, set1: "]", in: "a]", want: "a", ok: true},
	{delete: true, set1: ":]", in: "a:]", want: "a", ok: true},
	{delete: true, set1: `\n`, in: "rm\n -rf\n /", want: "rm -rf /", ok: true},
	{delete: true, set1: "#", in: "r#m# -#rf /", want: "rm -rf /", ok: true},
	{delete: true, set1: "[:Upper:]", in: "aA"},
	{delete: true, set1: "[=a=]", in: "aA"},
	{delete: true, set1: "[a*]", in: "a*["},
	{delete: true, set1: "x", in: strings.Repeat("a", MaxOutput+1), want: strings.Repeat("a", MaxOutput)},
}

func TestTr(t *testing.T) {
	for _, tt := range trTests {
		var got string
		var ok bool
		name := "Tr"
		if tt.delete {
			name = "TrDelete"
			got, ok = TrDelete(tt.set1, tt.in)
		} else {
			got, ok = Tr(tt.set1, tt.set2, tt.in)
		}
		if got != tt.want || ok != tt.ok {
			t.Errorf("%s(%q, %q, %.20q) = %.20q, %v; want %.20q, %v", name, tt.set1, tt.set2, tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestTrLargeSets(t *testing.T) {
	// A set that expands beyond MaxOutput is declined, not walked.
	set := strings.Repeat("\x01-\xff", MaxOutput/255+1)
	if _, ok := Tr(set, "x", "a"); ok {
		t.Errorf("Tr accepted a set of %d bytes expanding to %d", len(set), 255*(MaxOutput/255+1))
	}
	if _, ok := TrDelete(strings.Repeat("[:alpha:]", MaxOutput/52+1), "a"); ok {
		t.Errorf("TrDelete accepted a set expanding beyond MaxOutput")
	}
}
