package shell

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/moatdev/moat/internal/call"
)

var update = flag.Bool("update", false, "rewrite the expected analyses in testdata/*.txtar")

// testEnv is the environment every corpus case runs in. Its secrets are the ssh private
// keys and the AWS credentials, as $secrets has them.
var testEnv = Env{Cwd: "/work/proj", Home: "/home/u", Sensitive: testSensitive}

func testSensitive(acc call.Access) bool {
	p := acc.Path
	if acc.Recursive && (p == "/home/u/.ssh" || p == "/home/u/.aws") {
		return true
	}
	return strings.HasPrefix(p, "/home/u/.ssh/id_") && !strings.HasSuffix(p, ".pub") || p == "/home/u/.aws/credentials"
}

// The corpus: testdata/*.txtar, one case per archive file, named by what it tests. A case
// is the command line, a line holding "=>", and the analysis as render prints it.
func TestCorpus(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	for _, file := range files {
		ar, err := readArchive(file)
		if err != nil {
			t.Fatal(err)
		}
		changed := false
		for i := range ar.files {
			c := &ar.files[i]
			line, want, ok := strings.Cut(c.data, "\n=>\n")
			if !ok {
				t.Errorf("%s: case %q has no \"=>\" line", file, c.name)
				continue
			}
			got := render(Analyze(line, testEnv))
			if got == want {
				continue
			}
			if *update {
				c.data = line + "\n=>\n" + got
				changed = true
				continue
			}
			t.Errorf("%s: %s\n%s\ngot:\n%swant:\n%s", file, c.name, line, got, want)
		}
		if changed {
			if err := os.WriteFile(file, ar.format(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// render prints an analysis one fact a line, for the corpus.
func render(a Analysis) string {
	var b strings.Builder
	for _, f := range a.Findings {
		fmt.Fprintf(&b, "finding %s: %s\n", f.ID, f.Evidence)
	}
	for _, c := range a.Commands {
		b.WriteString(quote(c.Name))
		if c.Dynamic {
			b.WriteString(" dynamic")
		}
		if c.Opaque {
			b.WriteString(" opaque")
		}
		b.WriteString("\n")
		if c.Path != "" {
			fmt.Fprintf(&b, "  path %s\n", quote(c.Path))
		}
		if len(c.Args) > 0 {
			fmt.Fprintf(&b, "  args %s\n", quoteAll(c.Args))
		}
		if len(c.Flags) > 0 {
			fmt.Fprintf(&b, "  flags %s\n", quoteAll(c.Flags))
		}
		if len(c.Operands) > 0 {
			fmt.Fprintf(&b, "  operands %s\n", quoteAll(c.Operands))
		}
		for _, acc := range c.Accesses {
			fmt.Fprintf(&b, "  %s %s", acc.Kind, quote(acc.Path))
			if acc.Recursive {
				b.WriteString(" recursive")
			}
			if acc.Glob {
				b.WriteString(" glob")
			}
			if acc.Hidden {
				b.WriteString(" hidden")
			}
			if acc.Redirect {
				b.WriteString(" redirect")
			}
			if acc.Link {
				b.WriteString(" link")
			}
			b.WriteString("\n")
		}
		for _, n := range c.Net {
			fmt.Fprintf(&b, "  net %s %s", n.Direction, quote(n.Host))
			if len(n.Uploads) > 0 {
				fmt.Fprintf(&b, " uploads %s", quoteAll(n.Uploads))
			}
			b.WriteString("\n")
		}
		for _, f := range c.Findings {
			fmt.Fprintf(&b, "  finding %s: %s\n", f.ID, f.Evidence)
		}
	}
	return b.String()
}

// quote leaves plain words as they are and quotes the rest Go-style.
func quote(s string) string {
	if s == "" || strings.ContainsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || !unicode.IsPrint(r) || strings.ContainsRune(`"\`, r)
	}) {
		return strconv.Quote(s)
	}
	return s
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = quote(s)
	}
	return strings.Join(q, " ")
}

// archive is a txtar file: a comment, then files introduced by "-- name --" lines.
type archive struct {
	comment string
	files   []archiveFile
}

type archiveFile struct {
	name, data string
}

func readArchive(file string) (archive, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return archive{}, fmt.Errorf("reading corpus: %w", err)
	}
	var ar archive
	cur := &ar.comment
	for _, line := range strings.SplitAfter(string(b), "\n") {
		if name, ok := header(line); ok {
			ar.files = append(ar.files, archiveFile{name: name})
			cur = &ar.files[len(ar.files)-1].data
			continue
		}
		*cur += line
	}
	return ar, nil
}

func header(line string) (string, bool) {
	line = strings.TrimSuffix(line, "\n")
	if !strings.HasPrefix(line, "-- ") || !strings.HasSuffix(line, " --") || len(line) < 6 {
		return "", false
	}
	return strings.TrimSpace(line[3 : len(line)-3]), true
}

func (ar archive) format() []byte {
	var b bytes.Buffer
	b.WriteString(ar.comment)
	for _, f := range ar.files {
		fmt.Fprintf(&b, "-- %s --\n%s", f.name, f.data)
		if !strings.HasSuffix(f.data, "\n") {
			b.WriteString("\n")
		}
	}
	return b.Bytes()
}

// Lines the corpus cannot hold as text: bytes that are not UTF-8, NULs, sizes.
func TestUnprintable(t *testing.T) {
	tests := []struct {
		name, line string
		want       string
	}{
		{"invalid UTF-8", "echo \xff\xfe", "finding shell.parse-error: 1:6: invalid UTF-8 encoding\n"},
		{"NUL dropped by the parser, and reported", "rm -rf /tmp/x\x00y",
			"finding evasion.nul-byte: NUL byte at offset 13\nrm\n  args -rf /tmp/xy\n  flags r f\n  operands /tmp/xy\n  delete /tmp/xy recursive\n  finding destructive.fs.recursive-delete: /tmp/xy\n"},
		{"NUL in $'' ends the word", "$'rm\\0 -x' -rf /", "rm\n  args -rf /\n  flags r f\n  operands /\n  delete / recursive\n  finding destructive.fs.recursive-delete: /\n"},
		{"too large", strings.Repeat("a", MaxInput+1), fmt.Sprintf("finding input.too-large: shell command of %d bytes; at most %d are analysed\n", MaxInput+1, MaxInput)},
		{"largest parsed", "echo " + strings.Repeat("a", MaxInput-5), "echo\n  args " + strings.Repeat("a", MaxInput-5) + "\n  operands " + strings.Repeat("a", MaxInput-5) + "\n"},
		{"deep command substitution", strings.Repeat("$(", 10000) + "rm -rf /" + strings.Repeat(")", 10000), "finding shell.too-deep: brackets nest 10000 deep; at most 255 are analysed\n"},
		{"deep subshells", strings.Repeat("(", 20000) + strings.Repeat(")", 20000), "finding shell.too-deep: brackets nest 20000 deep; at most 255 are analysed\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, over := againstFloor(tt.line, maxFloorRatio)
			if got := render(a); got != tt.want {
				t.Errorf("got:\n%.2000s\nwant:\n%.2000s", got, tt.want)
			}
			if over != "" {
				t.Error(over)
			}
		})
	}
}

// A line nested as deeply as is analysed is analysed whole, quickly.
func TestNestingLimit(t *testing.T) {
	line := strings.Repeat("echo $(", maxNesting) + "rm -rf /" + strings.Repeat(")", maxNesting)
	// Each level is a command of its own, analysed whole: about 17× the floor, which an
	// analysis whose cost grew with the depth's square would pass by far.
	a, over := againstFloor(line, 100)
	if over != "" {
		t.Error(over)
	}
	if len(a.Commands) != maxNesting+1 || len(a.Findings) != 0 {
		t.Fatalf("want %d commands, got %d and findings %v", maxNesting+1, len(a.Commands), a.Findings)
	}
	if c := a.Commands[maxNesting]; c.Name != "rm" || !c.HasFlag("r") {
		t.Errorf("innermost: got %s %v", c.Name, c.Args)
	}
}

// Env values that are not absolute are unknown: relative paths cannot be resolved.
func TestEnv(t *testing.T) {
	tests := []struct {
		name string
		env  Env
		line string
		want string
	}{
		{"no cwd", Env{Home: "/home/u"}, "rm -r build /abs ~/x", "rm opaque\n  args -r build /abs /home/u/x\n  flags r\n  operands build /abs /home/u/x\n  delete /abs recursive\n  delete /home/u/x recursive\n  finding destructive.fs.recursive-delete: build /abs /home/u/x\n"},
		{"relative cwd", Env{Cwd: "proj", Home: "/home/u"}, "cat a", "cat opaque\n  args a\n  operands a\n"},
		{"no home", Env{Cwd: "/w"}, "cat ~/x", "cat opaque\n  args ~/x\n  operands ~/x\n"},
		{"unclean cwd", Env{Cwd: "/w/./a/../b/", Home: "/h"}, "cat x", "cat\n  args x\n  operands x\n  read /w/b/x\n"},
		{"cd to relative with no cwd", Env{}, "cd a && cat b", "cd\n  args a\n  operands a\ncat opaque\n  args b\n  operands b\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := render(Analyze(tt.line, tt.env)); got != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

func TestFindingsCatalogued(t *testing.T) {
	for _, id := range findingIDs {
		if _, ok := lookupKind(id); !ok {
			t.Errorf("finding %q is not declared (kinds.go)", id)
		}
	}
}

// The commands of code a line hands to other programs count towards the line's bound:
// past it, the code is not analysed, and the command that runs it says so.
func TestCommandBudget(t *testing.T) {
	tests := []struct {
		name        string
		reps        int
		wantTooMany bool
	}{
		{"within the bound", maxAnalysedCommands / 2, false},
		{"nested code past the bound", maxAnalysedCommands/2 + 10, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line := strings.Repeat("sh -c 'rm -rf /tmp/x';", tt.reps)
			a := Analyze(line, testEnv)
			var tooMany, nested int
			for _, c := range a.Commands {
				if c.Name == "rm" {
					nested++
				}
				if slices.ContainsFunc(c.Findings, func(f call.Finding) bool { return f.ID == findTooComplex }) {
					tooMany++
				}
			}
			if got := tooMany > 0; got != tt.wantTooMany {
				t.Fatalf("%d commands carry %s, want some: %v", tooMany, findTooComplex, tt.wantTooMany)
			}
			// Each sh -c and its rm count two: no code is analysed once the count
			// reaches the bound, after half as many sh -c as the bound.
			if nested > maxAnalysedCommands/2 {
				t.Errorf("%d nested commands analysed, the bound allows %d", nested, maxAnalysedCommands/2)
			}
			if nested+tooMany != tt.reps {
				t.Errorf("%d nested rm analysed and %d sh -c cut short, want %d in all", nested, tooMany, tt.reps)
			}
		})
	}
}

// Brace expansion is bounded for the whole line: past the bound, words are unknown (and
// the command opaque), however many words each produced alone.
func TestLineBraceFields(t *testing.T) {
	tests := []struct {
		words      int
		wantOpaque bool
	}{
		{maxLineBraceFields / 8, false},
		{maxLineBraceFields/8 + 1, true},
	}
	for _, tt := range tests {
		// The long word after gives the line the expansion budget of its length, so that
		// it is the bound on brace fields, not the budget, that is reached.
		line := "touch " + strings.Repeat("{a,b}{c,d}{e,f} ", tt.words) + "; : " + strings.Repeat("x", 30000)
		a := Analyze(line, testEnv)
		if len(a.Commands) != 2 {
			t.Fatalf("%d words: %d commands", tt.words, len(a.Commands))
		}
		c := a.Commands[0]
		if c.Opaque != tt.wantOpaque {
			t.Errorf("%d words of 8 fields: opaque %v, want %v", tt.words, c.Opaque, tt.wantOpaque)
		}
		// The word past the bound stays one argument, whose value is unknown.
		if len(c.Args) > maxLineBraceFields+1 {
			t.Errorf("%d words of 8 fields: %d arguments, at most %d", tt.words, len(c.Args), maxLineBraceFields+1)
		}
	}
}
