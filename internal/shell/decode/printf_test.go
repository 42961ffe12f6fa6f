package decode

import (
	"strings"
	"testing"
)

type printfTest struct {
	format string
	args   []string
	want   string
	ok     bool
}

var printfTests = []printfTest{
	// Hidden commands.
	{`\x72\x6d\x20\x2d\x72\x66\x20\x2f`, nil, "rm -rf /", true},
	{`\162\155\040\055\162\146\040\057`, nil, "rm -rf /", true},
	{`\u0072\U0000006d -rf /`, nil, "rm -rf /", true},
	{`%b`, []string{`\x72\x6d -rf /`}, "rm -rf /", true},
	{`%b`, []string{`\0162\0155 -rf /`}, "rm -rf /", true},
	{`%c%c %s`, []string{"rm", "m", "-rf /"}, "rm -rf /", true},
	{`\\%o`, []string{"114"}, `\162`, true}, // the inner printf of printf "\\$(printf %o 114)"

	// Reusing the format.
	{`%s\n`, []string{"a", "b", "c"}, "a\nb\nc\n", true},
	{`%s %s\n`, []string{"a", "b", "c"}, "a b\nc \n", true},
	{`%d %d\n`, []string{"1", "2", "3"}, "1 2\n3 0\n", true},
	{`x\n`, []string{"a", "b"}, "x\n", true}, // no conversion: printed once
	{`%%`, []string{"a", "b"}, "%", true},
	{`A%.0sB`, []string{"1", "2"}, "ABAB", true},
	{`%s`, nil, "", true},
	{`A%sB\n`, nil, "AB\n", true},

	// Escapes in the format.
	{`x\0y`, nil, "x\x00y", true},
	{`\101\1012\0101`, nil, "AA2\b1", true},
	{`\400|\477|\777`, nil, "\x00|?|\xff", true},
	{`\a\b\e\E\f\n\r\t\v\\`, nil, "\a\b\x1b\x1b\f\n\r\t\v\\", true},
	{`\'\"\?`, nil, `'"?`, true},
	{`a\cb`, nil, `a\cb`, true}, // \c is not an escape in the format
	{`\q`, nil, `\q`, true},
	{`\%s`, []string{"x"}, `\x`, true}, // the % after an unknown escape still converts
	{`\x`, nil, `\x`, true},
	{`\x414`, nil, "A4", true},
	{`\u`, nil, `\u`, true},
	{`\u41\u00e9\U0001F600`, nil, "Aé😀", true},
	{`\uD800|\U7FFFFFFF|\UFFFFFFFF`, nil, "\xed\xa0\x80|\xfd\xbf\xbf\xbf\xbf\xbf|", true},
	{`abc\`, nil, `abc\`, true},
	{"a\x00b", nil, "a", true}, // an argument word ends at NUL

	// %b.
	{`%b|`, []string{`\101`, `\0101`, `\01012`, `\1`, `\8`, `\0`}, "A|A|A2|\x01|\\8|\x00|", true},
	{`%b`, []string{`\'\"\?`}, `\'\"\?`, true},
	{`%b`, []string{`\e\E\q\\`}, "\x1b\x1b\\q\\", true},
	{`%b-%s`, []string{`a\cb`, "z"}, "a", true}, // \c ends all output
	{`%b`, []string{`a\\cb`}, `a\cb`, true},
	{`%5b|`, []string{`ab\cd`}, "   ab", true},
	{`%.2b|`, []string{`\x41\x42\x43`}, "AB|", true},

	// %c and %s.
	{`%c|%c|%c`, []string{"abc", "", "é"}, "a|\x00|\xc3", true},
	{`%c`, nil, "\x00", true},
	{`%5s|%-5s|%.2s|%5.1s|%.s|`, []string{"a", "b", "cde", "fgh", "ijk"}, "    a|b    |cd|    f||", true},
	{`%*s|%-*s|%*s|`, []string{"3", "x", "3", "y", "-3", "z"}, "  x|y  |z  |", true},
	{`%*.*s|`, []string{"5", "2", "abcdef"}, "   ab|", true},
	{`%.1s|%3s|`, []string{"éa", "é"}, "\xc3| é|", true}, // bytes, not characters
	{`%05s|%-+ #0s|%05c|`, []string{"b", "c", "d"}, "    b|c|    d|", true},
	{`%ls|%hs|%lc`, []string{"a", "b", "c"}, "a|b|c", true},

	// Integers.
	{`%d|%i|%d|%d|%d|%d`, []string{"42", "-7", "0x1F", "017", "+3", " 12"}, "42|-7|31|15|3|12", true},
	{`%d|%d|%d|%d|%d`, []string{"'A", `"B`, "'é", "'", "'\xff"}, "65|66|233|0|255", true},
	{`%d|%d|%d|%d|%d|%d`, []string{"abc", "12abc", "", "-", "0x", "08"}, "0|12|0|0|0|0", true},
	{`%d|%d`, []string{"99999999999999999999", "-9223372036854775809"}, "9223372036854775807|-9223372036854775808", true},
	{`%x|%o|%u|%X`, []string{"-1", "8", "-1", "255"}, "ffffffffffffffff|10|18446744073709551615|FF", true},
	{`%u|%u`, []string{"18446744073709551616", "-18446744073709551615"}, "18446744073709551615|1", true},
	{`%05d|%-5d|%+d|% d|%.3d|%8.3d|%08.3d|`, []string{"42", "42", "42", "42", "7", "7", "7"}, "00042|42   |+42| 42|007|     007|     007|", true},
	{`%+5d|%-+5d|%+05d|% 05d|%05d|%5.3d|%05.3d|`, []string{"3", "3", "3", "3", "-3", "-3", "-3"}, "   +3|+3   |+0003| 0003|-0003| -003| -003|", true},
	{`%+.0d|% .0d|%.0d|%#.0o|%#o|%#x|`, []string{"0", "0", "0", "0", "0", "0"}, "+| ||0|0|0|", true},
	{`%#5.3x|%-#8x|%0#8x|%#08o|%#X|`, []string{"1", "1", "1", "1", "255"}, "0x001|0x1     |0x000001|00000001|0XFF|", true},
	{`%+u|% u|%+x|%5u|%05o|%.5x`, []string{"5", "5", "5", "7", "7", "255"}, "5|5|5|    7|00007|000ff", true},
	{`%ld|%hhd|%lld|%zd|%jd|%Ld|%td`, []string{"1", "300", "3", "4", "5", "6", "7"}, "1|300|3|4|5|6|7", true},
	{`%*d|%.*d|`, []string{"-4", "3", "-4", "3"}, "3   |3|", true},
	{`%*s|`, []string{"abc", "x"}, "x|", true}, // an invalid width reads as 0

	// Where bash fails, or this package declines: the output before it.
	{`a%yb`, nil, "a", false},
	{`x%`, nil, "x", false},
	{`x%5`, nil, "x", false},
	{`%%|%5%|`, nil, "%|", false},
	{`%1$s`, []string{"a"}, "", false},
	{`%s%f`, []string{"a", "1"}, "a", false},
	{`%q`, []string{"a b"}, "", false},
	{`%'d`, []string{"1234567"}, "", false},
	{`%(%F)T`, nil, "", false},
	{`%2000000s`, []string{"x"}, "", false},
	{`%*s`, []string{"2000000", "x"}, "", false},
	{`%.2000000d`, []string{"1"}, "", false},
}

func TestPrintf(t *testing.T) {
	for _, tt := range printfTests {
		got, ok := Printf(tt.format, tt.args)
		if got != tt.want || ok != tt.ok {
			t.Errorf("Printf(%q, %q) = %q, %v; want %q, %v", tt.format, tt.args, got, ok, tt.want, tt.ok)
		}
	}
}

func TestPrintfLimits(t *testing.T) {
	// A format used once per argument, each use printing a little.
	args := make([]string, 1<<17)
	for i := range args {
		args[i] = "abcdefghijklmnop"
	}
	got, ok := Printf(`%s\n`, args)
	if ok || len(got) != MaxOutput {
		t.Errorf("Printf of %d arguments: %d bytes, %v; want %d bytes, false", len(args), len(got), ok, MaxOutput)
	}
	// A long format of conversions that print nothing, used many times.
	format := strings.Repeat("%.0s", 1<<16)
	got, ok = Printf(format, args)
	if !ok || got != "" {
		t.Errorf("Printf(%%.0s × %d) = %d bytes, %v; want 0 bytes, true", 1<<16, len(got), ok)
	}
	// A format whose literal text alone is too long.
	got, ok = Printf(strings.Repeat("x", MaxOutput+1), nil)
	if ok || len(got) != MaxOutput {
		t.Errorf("Printf of a long format: %d bytes, %v; want %d bytes, false", len(got), ok, MaxOutput)
	}
	// A field that does not fit after one that did: the output is still a prefix.
	got, ok = Printf("%1000000X", []string{"", "0"})
	want := strings.Repeat(" ", 999999) + "0" + strings.Repeat(" ", MaxOutput-1000000)
	if ok || got != want {
		t.Errorf("Printf(%%1000000X, \"\", 0) = %d bytes, %v; want %d bytes, false", len(got), ok, len(want))
	}
	got, ok = Printf(strings.Repeat("x", MaxOutput), nil)
	if !ok || len(got) != MaxOutput {
		t.Errorf("Printf of a format of MaxOutput bytes: %d bytes, %v; want %d bytes, true", len(got), ok, MaxOutput)
	}
}
