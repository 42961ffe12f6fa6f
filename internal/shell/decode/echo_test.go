package decode

import (
	"strings"
	"testing"
)

var echoTests = []struct {
	args []string
	want string
}{
	{[]string{"-e", `\x72\x6d\x20\x2d\x72\x66\x20\x2f`}, "rm -rf /\n"},
	{[]string{"-e", `\0162\0155`, "-rf", `\x2f`}, "rm -rf /\n"},
	{[]string{"-ne", `\u0072\U0000006d -rf /`}, "rm -rf /"},
	{nil, "\n"},
	{[]string{""}, "\n"},
	{[]string{"", ""}, " \n"},
	{[]string{"a", "b"}, "a b\n"},
	{[]string{"-n", "-e", `a\tb`}, "a\tb"},
	{[]string{"-n"}, ""},
	{[]string{"-x"}, "-x\n"},
	{[]string{"--", "x"}, "-- x\n"},
	{[]string{"-"}, "-\n"},
	{[]string{"-nx", "y"}, "-nx y\n"},
	{[]string{"x", "-n"}, "x -n\n"},
	{[]string{"-e", "-n", "-E", `\n`}, `\n`},
	{[]string{"-eE", `\n`}, "\\n\n"},
	{[]string{"-Ee", `\n`}, "\n\n"},
	{[]string{`\n`}, "\\n\n"}, // no escapes without -e
	{[]string{"-e", `\101|\0101|\01012|\08|\0`}, "\\101|A|A2|\x008|\x00\n"},
	{[]string{"-e", `a\cb`, "c"}, "a"},
	{[]string{"-e", `a\\cb`}, "a\\cb\n"},
	{[]string{"-e", `\x|\xg|\x414|\u|\q|\"|\'`}, "\\x|\\xg|A4|\\u|\\q|\\\"|\\'\n"},
	{[]string{"-e", `\e\E\a\b\f\r\t\v`}, "\x1b\x1b\a\b\f\r\t\v\n"},
	{[]string{"-e", `\ud800|\U110000|\U7FFFFFFF|\U80000000`}, "\xed\xa0\x80|\xf4\x90\x80\x80|\xfd\xbf\xbf\xbf\xbf\xbf|\n"},
	{[]string{"-e", `a\u0b`}, "a\v\n"},
	{[]string{"-e", `a\`}, "a\\\n"},
	{[]string{"a\x00b", "c"}, "a c\n"},
}

func TestEcho(t *testing.T) {
	for _, tt := range echoTests {
		if got := Echo(tt.args); got != tt.want {
			t.Errorf("Echo(%q) = %q; want %q", tt.args, got, tt.want)
		}
	}
}

func TestEchoLimit(t *testing.T) {
	big := strings.Repeat("x", MaxOutput)
	if got := Echo([]string{big}); len(got) != MaxOutput || strings.HasSuffix(got, "\n") {
		t.Errorf("Echo of %d bytes printed %d bytes", len(big), len(got))
	}
	if got := Echo([]string{"-e", strings.Repeat(`\x41`, MaxOutput)}); len(got) != MaxOutput {
		t.Errorf("Echo -e of %d escapes printed %d bytes", MaxOutput, len(got))
	}
}
