package shell

import (
	"slices"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/call"
)

// accessList renders the writes and deletes of a line, "w /path", "w /path/**" for a
// tree, "d /path", in order.
func accessList(line string) []string {
	var out []string
	for _, c := range Analyze(line, testEnv).Commands {
		for _, acc := range c.Accesses {
			var k string
			switch acc.Kind {
			case call.Write:
				k = "w "
			case call.Delete:
				k = "d "
			default:
				continue
			}
			p := acc.Path
			if acc.Recursive {
				p += "/**"
			}
			if acc.Hidden {
				p += " (hidden too)"
			}
			out = append(out, k+p)
		}
	}
	return out
}

func TestEditors(t *testing.T) {
	const cwd = "/work/proj"
	cases := []struct {
		line string
		want []string
	}{
		{"perl -pi -e s/a/b/ moat.yaml", []string{"w " + cwd + "/moat.yaml"}},
		{"perl -i.bak -pe s/a/b/ a b", []string{"w " + cwd + "/a", "w " + cwd + "/b"}},
		{"perl -pi fix.pl moat.yaml", []string{"w " + cwd + "/moat.yaml"}},
		{"perl -pe s/a/b/ moat.yaml", nil},
		{"ruby -pi -e 'x' conf", []string{"w " + cwd + "/conf"}},
		{"vim -es moat.yaml", []string{"w " + cwd + "/moat.yaml"}},
		{"vim -c wq -u NONE moat.yaml", []string{"w " + cwd + "/moat.yaml"}},
		{"nvim --headless --cmd 'set x' f +wq", []string{"w " + cwd + "/f"}},
		{"ex -s f", []string{"w " + cwd + "/f"}},
		{"ed -p '>' f", []string{"w " + cwd + "/f"}},
		{"emacs --batch --eval '(x)' f", []string{"w " + cwd + "/f"}},
		{"dos2unix a b", []string{"w " + cwd + "/a", "w " + cwd + "/b"}},
		{"rename s/f/g/ f", []string{"d " + cwd + "/f", "w " + cwd + "/g"}},
		{"rename 's/(\\w+)\\.yml$/$1.yaml/' a.yml", []string{"d " + cwd + "/a.yml", "w " + cwd + "/a.yaml"}},
		{"rename .yml .yaml a.yml b.yml", []string{"d " + cwd + "/a.yml", "w " + cwd + "/a.yaml", "d " + cwd + "/b.yml", "w " + cwd + "/b.yaml"}},
		{"rename 'tr/a-z/A-Z/' f", []string{"d " + cwd + "/f"}},
		{"link a b", []string{"w " + cwd + "/b"}},
		// Patches: the files the diff names, when it is in the line; the tree otherwise.
		{"patch -p1 < fix.diff", []string{"w " + cwd + "/**"}},
		{"patch -d sub -p1 -i fix.diff", []string{"w " + cwd + "/sub/**"}},
		{"patch f fix.diff", []string{"w " + cwd + "/f"}},
		{"patch -o out.c -i fix.diff", []string{"w " + cwd + "/out.c"}},
		{"patch --dry-run -p1 < fix.diff", nil},
		{"printf '%s\\n' '--- a/x.go' '+++ b/x.go' | patch -p1", []string{"w " + cwd + "/x.go"}},
		{"patch -p0 <<'EOF'\n--- moat.yaml\n+++ moat.yaml\n@@ -1 +1 @@\n-a\n+b\nEOF", []string{"w " + cwd + "/moat.yaml"}},
		{"patch <<'EOF'\n--- a/moat.yaml\n+++ b/moat.yaml\nEOF", []string{"w " + cwd + "/a/moat.yaml", "w " + cwd + "/moat.yaml", "w " + cwd + "/b/moat.yaml"}},
		{"git apply x.diff", []string{"w " + cwd + "/**"}},
		{"git apply --stat x.diff", nil},
		{"git apply --cached x.diff", nil},
		{"git apply --directory=sub <<'EOF'\ndiff --git a/m.yaml b/m.yaml\n--- a/m.yaml\n+++ b/m.yaml\nEOF", []string{"w " + cwd + "/sub/m.yaml"}},
		{"git am 0001.patch", []string{"w " + cwd + "/**"}},
		// Archives: a write of the whole destination.
		{"unzip -o x.zip -d ~", []string{"w /home/u/**"}},
		{"unzip x.zip", []string{"w " + cwd + "/**"}},
		{"unzip -l x.zip", nil},
		{"7z x a.7z -o/home/u/.claude", []string{"w /home/u/.claude/**"}},
		{"7z l a.7z", nil},
		{"cpio -idm < a.cpio", []string{"w " + cwd + "/**"}},
		{"cpio -i -D /home/u < a.cpio", []string{"w /home/u/**"}},
		{"bsdtar xf a.tar -C /home/u/.claude", []string{"w /home/u/.claude/**"}},
		// xargs fed by ls and find.
		{"ls | xargs rm", []string{"d " + cwd + "/*"}},
		{"ls -a ~/.claude | xargs rm -f", []string{"d /home/u/.claude", "d /home/u/.claude/* (hidden too)"}},
		{"ls moat.yaml | xargs rm", []string{"d " + cwd + "/moat.yaml", "d " + cwd + "/moat.yaml/*"}},
		{"find . -name '*.orig' | xargs rm", []string{"d " + cwd + "/**/*.orig (hidden too)"}},
		{"find . -name '*.orig' -delete", []string{"d " + cwd + "/**/*.orig (hidden too)"}},
	}
	for _, c := range cases {
		got := accessList(c.line)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s:\n got %q\nwant %q", strings.ReplaceAll(c.line, "\n", "⏎"), got, c.want)
		}
	}
}

func TestDiffPaths(t *testing.T) {
	diff := "diff --git a/x b/y\nsimilarity index 90%\nrename from x\nrename to y\n--- a/x\t2024-01-01\n+++ b/y\n*** c/z\n--- /dev/null\n"
	got := diffPaths(diff)
	want := []string{"a/x", "b/y", "x", "y", "c/z"}
	if !slices.Equal(got, want) {
		t.Fatalf("diffPaths = %q, want %q", got, want)
	}
}
