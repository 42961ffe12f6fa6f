package planted

import (
	"strings"
	"testing"
)

// BenchmarkExtract measures the extraction of the largest shapes of the fuzz limit (64 KiB).
func BenchmarkExtract(b *testing.B) {
	for _, bc := range []struct{ name, path, text string }{
		{"workflow", "/home/u/p/.github/workflows/x.yml", "jobs:\n  a:\n    steps:\n" + strings.Repeat("      - run: echo ${{ secrets.X }}\n", 1800)},
		{"makefile", "/home/u/p/Makefile", strings.Repeat("a:\n\trm -rf b; x | sh\n", 3000)},
		{"package.json", "/home/u/p/package.json", `{"scripts": {` + strings.Repeat(`"a": "x | sh",`, 4000) + `"b": "c"}}`},
	} {
		f, _ := Lookup(bc.path, home)
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				f.Extract(bc.text)
			}
		})
	}
}

// BenchmarkLookup measures the check every write of a shell line pays: most paths written
// carry no code.
func BenchmarkLookup(b *testing.B) {
	for b.Loop() {
		Lookup("/home/u/project/src/internal/server/handler.go", home)
		Shadow("/home/u/project/src/internal/server/handler.go", home)
	}
}
