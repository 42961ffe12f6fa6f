package decode

import (
	"strings"
	"testing"
)

// TestHiddenCommands runs, stage by stage, pipelines that hide `rm -rf /`.
func TestHiddenCommands(t *testing.T) {
	type stage func(string) (string, bool)
	echo := func(args ...string) stage {
		return func(string) (string, bool) { return Echo(args), true }
	}
	printf := func(format string, args ...string) stage {
		return func(string) (string, bool) { return Printf(format, args) }
	}
	hereString := func(s string) stage { // <<< adds a newline
		return func(string) (string, bool) { return s + "\n", true }
	}
	rev := func(s string) (string, bool) { return Rev(s), true }
	tr := func(set1, set2 string) stage {
		return func(s string) (string, bool) { return Tr(set1, set2, s) }
	}
	for _, tt := range []struct {
		line   string
		stages []stage
	}{
		{`echo cm0gLXJmIC8= | base64 -d`, []stage{echo("cm0gLXJmIC8="), Base64}},
		{`base32 -d <<< OJWSALLSMYQC6===`, []stage{hereString("OJWSALLSMYQC6==="), Base32}},
		{`xxd -r -p <<< 726d202d7266202f`, []stage{hereString("726d202d7266202f"), Hex}},
		{`printf '\x72\x6d\x20\x2d\x72\x66\x20\x2f'`, []stage{printf(`\x72\x6d\x20\x2d\x72\x66\x20\x2f`)}},
		{`printf %b '\0162\0155\040-rf /'`, []stage{printf("%b", `\0162\0155\040-rf /`)}},
		{`echo -e '\x72\x6d\x20\x2d\x72\x66\x20\x2f'`, []stage{echo("-e", `\x72\x6d\x20\x2d\x72\x66\x20\x2f`)}},
		{`echo '/ fr- mr' | rev`, []stage{echo("/ fr- mr"), rev}},
		{`echo 'ez -es /' | tr 'A-Za-z' 'N-ZA-Mn-za-m'`, []stage{echo("ez -es /"), tr("A-Za-z", "N-ZA-Mn-za-m")}},
		{`echo '/ EQ- LQ' | rev | tr '[:upper:]' '[:lower:]' | tr 'a-y' 'b-z'`, []stage{
			echo("/ EQ- LQ"), rev, tr("[:upper:]", "[:lower:]"), tr("a-y", "b-z")}},
		{`echo LyBmci0gbXIK | base64 -d | rev`, []stage{echo("LyBmci0gbXIK"), Base64, rev}},
	} {
		text, ok := "", true
		for _, s := range tt.stages {
			if text, ok = s(text); !ok {
				break
			}
		}
		if !ok || strings.TrimSuffix(text, "\n") != "rm -rf /" {
			t.Errorf("%s: %q, %v; want rm -rf /", tt.line, text, ok)
		}
	}
}
