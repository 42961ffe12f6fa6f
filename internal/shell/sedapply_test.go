package shell

import (
	"strings"
	"testing"
)

func TestSedApply(t *testing.T) {
	const pyproject = "[project]\nname = \"x\"\nversion = \"1.2.0\"\n\n[tool.poe.tasks]\ntest = \"pytest\"\n"
	cases := []struct {
		name string
		args []string
		text string
		want string // "" when sedApply must decline
	}{
		{"plain substitution", []string{"-i", `s/version = "1.2.0"/version = "1.2.1"/`, "f"}, pyproject,
			"[project]\nname = \"x\"\nversion = \"1.2.1\"\n\n[tool.poe.tasks]\ntest = \"pytest\"\n"},
		{"basic syntax: groups, anchors, literal +", []string{"-i", `s/^\(test = \)".*"/\1"a+b \&"/`, "f"}, pyproject,
			"[project]\nname = \"x\"\nversion = \"1.2.0\"\n\n[tool.poe.tasks]\ntest = \"a+b &\"\n"},
		{"extended syntax and the match", []string{"-E", "-i.bak", `s/(name) = "(x)"/\1 = "[&]"/`, "f"}, pyproject,
			"[project]\nname = \"[name = \"x\"]\"\nversion = \"1.2.0\"\n\n[tool.poe.tasks]\ntest = \"pytest\"\n"},
		{"global and nth", []string{"-i", "-e", "s/a/A/2g", "f"}, "aaaa\n", "aAAA\n"},
		{"address by pattern and number", []string{"-i", "/^test/s/py/my/;1s/project/proj/", "f"}, pyproject,
			"[proj]\nname = \"x\"\nversion = \"1.2.0\"\n\n[tool.poe.tasks]\ntest = \"mytest\"\n"},
		{"last line, no final newline", []string{"-i", "$s/b/c/", "f"}, "b\nb", "b\nc"},
		{"BSD in-place with empty suffix", []string{"-i", "", "s/1/2/", "f"}, "1\n", "2\n"},
		{"bundle -Ei", []string{"-Ei", "s/a+/b/", "f"}, "aaa\n", "b\n"},
		{"bracket with class and slash delimiter", []string{"-i", `s|[[:space:]]*#.*||`, "f"}, "x = 1  # note\n", "x = 1\n"},
		{"case-insensitive flag", []string{"-i", "s/ABC/x/I", "f"}, "abc\n", "x\n"},
		{"star first is literal in basic syntax", []string{"-i", `s/*a/b/`, "f"}, "*a\n", "b\n"},
		{"print flag duplicates the line", []string{"-i", "s/a/b/p", "f"}, "a\n", "b\nb\n"},
		{"no match declines", []string{"-i", "s/zzz/y/", "f"}, pyproject, ""},
		{"one of two unmatched declines", []string{"-i", "-e", "s/name/n/", "-e", "s/zzz/y/", "f"}, pyproject, ""},
		{"delete by pattern", []string{"-i", "/^name/d", "f"}, pyproject,
			"[project]\nversion = \"1.2.0\"\n\n[tool.poe.tasks]\ntest = \"pytest\"\n"},
		{"delete a line, then substitute", []string{"-i", "1d;s/pytest/tox/", "f"}, pyproject,
			"name = \"x\"\nversion = \"1.2.0\"\n\n[tool.poe.tasks]\ntest = \"tox\"\n"},
		{"delete the last line", []string{"-i", "$d", "f"}, "a\nb\n", "a\n"},
		{"delete with no line selected declines", []string{"-i", "/zzz/d", "f"}, pyproject, ""},
		{"delete followed by another command's text declines", []string{"-i", "/x/dq", "f"}, pyproject, ""},
		{"append declines", []string{"-i", "/x/a y", "f"}, pyproject, ""},
		{"backreference in pattern declines", []string{"-i", `s/\(a\)\1/b/`, "f"}, "aa\n", ""},
		{"case conversion declines", []string{"-i", `s/a/\U&/`, "f"}, "a\n", ""},
		{"e flag declines", []string{"-i", "s/a/b/e", "f"}, "a\n", ""},
		{"w flag declines", []string{"-i", "s/a/b/w out", "f"}, "a\n", ""},
		{"-n declines", []string{"-n", "-i", "s/a/b/p", "f"}, "a\n", ""},
		{"script file declines", []string{"-i", "-f", "x.sed", "f"}, "a\n", ""},
		{"range declines", []string{"-i", "1,3s/a/b/", "f"}, "a\n", ""},
		{"negation declines", []string{"-i", "/x/!s/a/b/", "f"}, "a\n", ""},
		{"unterminated declines", []string{"-i", "s/a/b", "f"}, "a\n", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := sedApply(c.args, c.text)
			if c.want == "" {
				if ok {
					t.Fatalf("sedApply(%q) = %q, want it to decline", c.args, got)
				}
				return
			}
			if !ok || got != c.want {
				t.Fatalf("sedApply(%q) = %q, %v; want %q", c.args, got, ok, c.want)
			}
		})
	}
}

// FuzzSedApply checks that any script and text are read without a panic, and that an
// edit moat follows removes no line: a substitution only rewrites lines.
func FuzzSedApply(f *testing.F) {
	for _, s := range []string{`/x/d`, `1d;s/a/b/`, `s/a/b/`, `s/^\(x\) = .*/\1 = "y"/g`, `/re/s|[[:space:]]*#.*||2`, `$s/a*/&&/p`, `s/[]]/x/I`, `s/\<w\>/\n/`} {
		f.Add(s, "a = 1\nx = 2\n# c\n")
	}
	f.Fuzz(func(t *testing.T, script, text string) {
		for _, args := range [][]string{{"-i", script, "f"}, {"-E", "-i", script, "f"}} {
			// Only a d command removes lines, and each p flag adds at most one per line.
			after, ok := sedApply(args, text)
			if ok && !strings.Contains(script, "d") && strings.Count(after, "\n") < strings.Count(text, "\n") {
				t.Fatalf("sedApply(%q) on %q = %q: lines removed", args, text, after)
			}
			if ok && strings.Count(after, "\n") > (strings.Count(script, "p")+1)*(strings.Count(text, "\n")+1) {
				t.Fatalf("sedApply(%q) on %q = %q: more lines than p makes", args, text, after)
			}
		}
	})
}
