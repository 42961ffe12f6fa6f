package decode

import (
	"strings"
	"testing"
)

var revTests = []struct{ in, want string }{
	{"/ fr- mr", "rm -rf /"},
	{"/ fr- mr\n", "rm -rf /\n"},
	{"ba\ndc", "ab\ncd"},
	{"ab\n\ncd\n", "ba\n\ndc\n"},
	{"", ""},
	{"\n", "\n"},
	{"é😀x", "x😀é"},
	{"a\rb\n", "b\ra\n"},
	{"a\xffb", "b\xffa"}, // a byte outside UTF-8 is a character of its own
	{"\xe2\x82a", "a\x82\xe2"},
}

func TestRev(t *testing.T) {
	for _, tt := range revTests {
		if got := Rev(tt.in); got != tt.want {
			t.Errorf("Rev(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
	if got := Rev(strings.Repeat("ab\n", MaxOutput)); len(got) != MaxOutput {
		t.Errorf("Rev of %d bytes printed %d bytes; want %d", 3*MaxOutput, len(got), MaxOutput)
	}
}

var rot13Tests = []struct{ in, want string }{
	{"ez -es /", "rm -rf /"},
	{"Hello, World! é", "Uryyb, Jbeyq! é"},
	{"", ""},
	{"AMNZamnz", "NZAMnzam"},
}

func TestRot13(t *testing.T) {
	for _, tt := range rot13Tests {
		if got := Rot13(tt.in); got != tt.want {
			t.Errorf("Rot13(%q) = %q; want %q", tt.in, got, tt.want)
		}
		tr, _ := Tr("A-Za-z", "N-ZA-Mn-za-m", tt.in)
		if got := Rot13(tt.in); got != tr {
			t.Errorf("Rot13(%q) = %q; tr prints %q", tt.in, got, tr)
		}
	}
}
