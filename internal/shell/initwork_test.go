package shell

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// maxInitMapEntries is the largest map literal a package-level variable may hold. Up to
// eight entries, Go's map is a single group: two small allocations, as many as the
// sync.OnceValue that would defer it. A larger one is a table, built entry by entry.
const maxInitMapEntries = 8

// TestNoWorkAtInit keeps the shell analyser and its subpackages from doing work at init:
// no init functions, no package-level variable computed by a call (regexp.MustCompile,
// a table compiler) and no map literal of more than a few entries or of composite values.
// moat starts one process per tool call, so work done at init is paid by every call,
// while only the analysis of a shell command needs these tables and patterns. Build them
// on first use with sync.OnceValue instead, keeping the literal as it is.
func TestNoWorkAtInit(t *testing.T) {
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			switch decl := decl.(type) {
			case *ast.FuncDecl:
				if decl.Name.Name == "init" && decl.Recv == nil {
					t.Errorf("%s: func init runs at every start of moat", fset.Position(decl.Pos()))
				}
			case *ast.GenDecl:
				if decl.Tok != token.VAR {
					continue
				}
				for _, spec := range decl.Specs {
					for _, v := range spec.(*ast.ValueSpec).Values {
						for _, problem := range initWork(v) {
							t.Errorf("%s: %s", fset.Position(problem.Pos()), describeInitWork(problem))
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// initWork returns the nodes of a package-level initializer that run code at init. The
// bodies of function literals run only when called, so they are not inspected.
func initWork(e ast.Expr) []ast.Node {
	var found []ast.Node
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			if !isOnce(n.Fun) {
				found = append(found, n)
			}
		case *ast.CompositeLit:
			if _, ok := n.Type.(*ast.MapType); ok && (len(n.Elts) > maxInitMapEntries || hasCompositeValue(n)) {
				found = append(found, n)
				return false
			}
		}
		return true
	})
	return found
}

// isOnce reports whether fun is one of the sync functions that defer work to first use.
func isOnce(fun ast.Expr) bool {
	if ix, ok := fun.(*ast.IndexExpr); ok { // sync.OnceValue[T](…)
		fun = ix.X
	}
	sel, ok := fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && pkg.Name == "sync" && strings.HasPrefix(sel.Sel.Name, "Once")
}

func hasCompositeValue(m *ast.CompositeLit) bool {
	for _, e := range m.Elts {
		if kv, ok := e.(*ast.KeyValueExpr); ok {
			if _, ok := kv.Value.(*ast.CompositeLit); ok {
				return true
			}
		}
	}
	return false
}

func describeInitWork(n ast.Node) string {
	if call, ok := n.(*ast.CallExpr); ok {
		return "a package-level variable calls " + exprName(call.Fun) + " at init; call it on first use (sync.OnceValue)"
	}
	return "a package-level map literal is built entry by entry at init; build it on first use (sync.OnceValue)"
}

// exprName renders a called function's name: regexp.MustCompile, compilePathRules.
func exprName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return exprName(e.X) + "." + e.Sel.Name
	case *ast.IndexExpr:
		return exprName(e.X)
	}
	return "a function"
}
