package conventions

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestOneWayToBuildAndRerun keeps internal/testbin the only test code that builds a
// program (go build) or runs the test binary again (os.Args[0]): the same helper was
// once written seven times, each with its own way of reporting a failure and none
// removing what it built.
func TestOneWayToBuildAndRerun(t *testing.T) {
	root := moduleRoot(t)
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		if !strings.HasSuffix(path, "_test.go") || filepath.Dir(rel) == filepath.Join("internal", "testbin") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		for _, pos := range selfBuilds(f) {
			t.Errorf("%s: builds a program or reruns the test binary itself; use internal/testbin (Binary, Build or Rerun)", fset.Position(pos))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// selfBuilds returns where f calls exec.Command or exec.CommandContext to run "go build"
// or os.Args[0].
func selfBuilds(f *ast.File) []token.Pos {
	var found []token.Pos
	ast.Inspect(f, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := c.Fun.(*ast.SelectorExpr)
		if !ok || !isIdent(sel.X, "exec") || (sel.Sel.Name != "Command" && sel.Sel.Name != "CommandContext") {
			return true
		}
		args := c.Args
		if sel.Sel.Name == "CommandContext" && len(args) > 0 {
			args = args[1:]
		}
		if len(args) >= 2 && isString(args[0], "go") && isString(args[1], "build") || len(args) >= 1 && isOSArgs0(args[0]) {
			found = append(found, c.Pos())
		}
		return true
	})
	return found
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

func isString(e ast.Expr, want string) bool {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return false
	}
	s, err := strconv.Unquote(lit.Value)
	return err == nil && s == want
}

// isOSArgs0 reports whether e is os.Args[0].
func isOSArgs0(e ast.Expr) bool {
	ix, ok := e.(*ast.IndexExpr)
	if !ok {
		return false
	}
	sel, ok := ix.X.(*ast.SelectorExpr)
	return ok && isIdent(sel.X, "os") && sel.Sel.Name == "Args" && isInt(ix.Index, "0")
}

func isInt(e ast.Expr, want string) bool {
	lit, ok := e.(*ast.BasicLit)
	return ok && lit.Kind == token.INT && lit.Value == want
}
