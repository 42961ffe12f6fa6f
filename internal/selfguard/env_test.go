package selfguard

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestEnvVarsComplete reads moat's source for the environment variables it reads (the
// names given to a Getenv or getenv call, as literals or constants) and for every
// constant naming a MOAT_ variable, and checks each is classified in EnvVars: a new
// variable that chooses the policy must not go unnoticed by the guard.
func TestEnvVarsComplete(t *testing.T) {
	consts := map[string]string{} // "pkg.Name" and "Name" (within pkg) → value
	type callSite struct{ pkg, arg, where string }
	var calls []callSite
	var moatConsts []string
	fset := token.NewFileSet()
	for _, top := range []string{"../../internal", "../../cmd"} {
		err := filepath.WalkDir(top, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if d.Name() == "testdata" {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			f, err := parser.ParseFile(fset, path, src, 0)
			if err != nil {
				return err
			}
			pkg := f.Name.Name
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.ValueSpec:
					for i, name := range n.Names {
						if i < len(n.Values) {
							if lit, ok := n.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
								v, _ := strconv.Unquote(lit.Value)
								consts[pkg+"."+name.Name] = v
								if strings.HasPrefix(v, "MOAT_") {
									moatConsts = append(moatConsts, v)
								}
							}
						}
					}
				case *ast.CallExpr:
					var fn string
					switch f := n.Fun.(type) {
					case *ast.Ident:
						fn = f.Name
					case *ast.SelectorExpr:
						fn = f.Sel.Name
					}
					if !strings.EqualFold(fn, "getenv") && fn != "LookupEnv" || len(n.Args) != 1 {
						return true
					}
					where := fset.Position(n.Pos()).String()
					switch a := n.Args[0].(type) {
					case *ast.BasicLit:
						v, _ := strconv.Unquote(a.Value)
						calls = append(calls, callSite{pkg, "=" + v, where})
					case *ast.Ident:
						calls = append(calls, callSite{pkg, pkg + "." + a.Name, where})
					case *ast.SelectorExpr:
						if x, ok := a.X.(*ast.Ident); ok {
							calls = append(calls, callSite{pkg, x.Name + "." + a.Sel.Name, where})
						}
					}
				}
				return true
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	known := func(name string) bool {
		return slices.ContainsFunc(EnvVars(), func(v EnvVar) bool { return v.Name == name })
	}
	found := 0
	for _, c := range calls {
		name, ok := strings.CutPrefix(c.arg, "=")
		if !ok {
			if name, ok = consts[c.arg]; !ok {
				continue // a parameter or variable: its values are constants found below
			}
		}
		found++
		if !known(name) {
			t.Errorf("%s reads %s, which selfguard.EnvVars does not classify", c.where, name)
		}
	}
	for _, name := range moatConsts {
		if !known(name) {
			t.Errorf("moat names the variable %s, which selfguard.EnvVars does not classify", name)
		}
	}
	if found < 10 || !slices.Contains(moatConsts, "MOAT_POLICY") {
		t.Fatalf("found only %d variables read, and MOAT_ constants %v: is the source where the test looks?", found, moatConsts)
	}
}
