package findings

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/call"
)

func TestCatalogue(t *testing.T) {
	kinds := Kinds()
	if len(kinds) == 0 {
		t.Fatal("empty catalogue")
	}
	for i, k := range kinds {
		if i > 0 && kinds[i-1].ID >= k.ID {
			t.Errorf("catalogue not sorted or has a duplicate at %s", k.ID)
		}
		if k.Category == "" || k.Summary == "" || k.Severity < call.Low || k.Severity > call.Critical {
			t.Errorf("%s: incomplete entry %+v", k.ID, k)
		}
		if got, ok := Lookup(k.ID); !ok || got != k {
			t.Errorf("Lookup(%s) = %v %v", k.ID, got, ok)
		}
		if f := New(k.ID, "ev"); f != k.New("ev") {
			t.Errorf("New(%s) = %+v", k.ID, f)
		}
	}
	if f := New("not.catalogued", "x"); f.Severity != call.High || f.Category != "uncatalogued" {
		t.Errorf("uncatalogued finding: %+v", f)
	}
	kinds[0].ID = "changed"
	if Kinds()[0].ID == "changed" {
		t.Error("Kinds returns the catalogue itself, not a copy")
	}
}

// TestDeclaredOnce: an id declared by two analysers would be graded by whichever the
// catalogue happened to keep.
func TestDeclaredOnce(t *testing.T) {
	seen := map[string]int{}
	for i, ks := range declared() {
		for _, k := range ks {
			if j, ok := seen[k.ID]; ok {
				t.Errorf("%s is declared by list %d and list %d of declared()", k.ID, j, i)
			}
			seen[k.ID] = i
		}
	}
}

func TestMatch(t *testing.T) {
	kinds := Kinds()
	ids, err := Match("destructive.*")
	if err != nil || len(ids) == 0 {
		t.Errorf("destructive.*: %v %v", ids, err)
	}
	if _, err := Match("[unclosed"); err == nil {
		t.Error("bad pattern must be an error")
	}
	// An exact id is looked up, and a wildcard tried only on the ids that start as it
	// does: each finds what matching it against every kind finds.
	for _, pattern := range []string{
		kinds[0].ID, kinds[len(kinds)-1].ID, "destructive.disk.wipe", "no.such.finding", "destructive", "",
		"destructive.*", "*", "*.network", "secret.?li-password", "[cd]*", `destructive\.*`, "exfiltration.*.*",
	} {
		got, err := Match(pattern)
		var want []string
		for _, k := range kinds {
			if ok, _ := path.Match(pattern, k.ID); ok {
				want = append(want, k.ID)
			}
		}
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("Match(%q) = %v, %v; want %v", pattern, got, err, want)
		}
	}
}

// findingID is the shape of a finding id: a category and dotted lower-case words.
var findingID = regexp.MustCompile(`^[a-z]+(?:-[a-z]+)*(?:\.[a-z0-9]+(?:-[a-z0-9]+)*)+$`)

// notIDs are string literals of the analysers' code that have the shape of a finding id
// and a catalogued id's first word, but are something else.
var notIDs = map[string]bool{
	"mcp.json": true, "credentials.json": true, // file names
	"shell.bash": true, "shell.posix": true, "shell.zsh": true, // shell dialects
	"shell.nix": true, // a Nix file
}

// TestEveryReportedIDIsDeclared reads the Go code of moat (tests excluded) for string
// literals shaped like a finding id whose first word is that of a declared id
// ("destructive.", "secret."…), and requires each to be declared: a finding reported
// under an id that no analyser declares is graded as uncatalogued, and no policy rule
// can name it.
func TestEveryReportedIDIsDeclared(t *testing.T) {
	prefixes := map[string]bool{}
	for _, k := range Kinds() {
		prefixes[strings.SplitN(k.ID, ".", 2)[0]] = true
	}
	root := filepath.Join("..", "..")
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); name == "testdata" || strings.HasPrefix(name, ".") && path != root {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || strings.HasSuffix(path, "_gen.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil || !findingID.MatchString(s) || !prefixes[strings.SplitN(s, ".", 2)[0]] || notIDs[s] {
				return true
			}
			checked++
			if _, ok := Lookup(s); !ok {
				t.Errorf("%s: %q looks like a finding id but no analyser declares it (add it to the Kinds of the package that reports it, or to notIDs if it is not a finding id)", path, s)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 50 {
		t.Errorf("only %d finding ids found in the code: is the walk reading the repository?", checked)
	}
}
