package decide

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// enginePath is the package only the decision service may ask.
const enginePath = "github.com/moatdev/moat/internal/engine"

// mayImportEngine are the directories whose Go files may import the engine: the
// service, and the engine's own tests and benchmarks.
var mayImportEngine = []string{"internal/decide", "internal/engine"}

// TestOnlyDecideImportsEngine: every entry point decides through this package. A file
// elsewhere that imports the engine (a test included) has found a way around the
// service: its recording, fail modes and policy lookup.
func TestOnlyDecideImportsEngine(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	offenders, err := engineImporters(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range offenders {
		t.Errorf("%s imports %s: decide through internal/decide instead", f, enginePath)
	}
}

// engineImporters lists the Go files under root, outside mayImportEngine, that import
// the engine.
func engineImporters(root string) ([]string, error) {
	var found []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			name := d.Name()
			if rel != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor") {
				return filepath.SkipDir
			}
			for _, ok := range mayImportEngine {
				if rel == ok {
					return filepath.SkipDir
				}
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == enginePath {
				found = append(found, rel)
			}
		}
		return nil
	})
	return found, err
}

// The walk finds an importer: without it, the test above could pass by finding nothing.
func TestEngineImportersFindsOne(t *testing.T) {
	root := t.TempDir()
	write := func(rel, src string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := mkdirWrite(p, src); err != nil {
			t.Fatal(err)
		}
	}
	write("internal/cli/check.go", "package cli\n\nimport _ \""+enginePath+"\"\n")
	write("internal/engine/engine_test.go", "package engine\n\nimport _ \""+enginePath+"\"\n")
	write("internal/decide/local.go", "package decide\n\nimport _ \""+enginePath+"\"\n")
	write("internal/hook/hook.go", "package hook\n\nimport _ \"fmt\"\n")
	got, err := engineImporters(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != "internal/cli/check.go" {
		t.Errorf("importers %q; want only internal/cli/check.go", got)
	}
}
