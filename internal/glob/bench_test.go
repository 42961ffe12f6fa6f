package glob

import (
	"strings"
	"testing"
)

func BenchmarkPathMatch(b *testing.B) {
	for _, bc := range []struct {
		name, pattern, path string
		fold                bool
	}{
		{"literal", "/etc/passwd", "/etc/passwd", false},
		{"literal-fold", "/Users/u/.SSH/config", "/users/U/.ssh/config", true},
		{"tree", "/home/u/.ssh/**", "/home/u/.ssh/keys/id_ed25519", false},
		{"tree-fold", "/Users/u/.ssh/**", "/users/u/.SSH/keys/id_ed25519", true},
		{"star-segments", "/home/*/.ssh/id_*", "/home/alice/.ssh/id_ed25519", false},
		{"suffix", "/home/u/src/*.pem", "/home/u/src/server-cert.pem", false},
		{"doublestar-middle", "/**/.git/**", "/home/u/src/project/.git/hooks/pre-commit", false},
		{"doublestar-suffix", "/home/u/**/*.{pem,key}", "/home/u/src/project/certs/dev/server.key", false},
		{"doublestar-fold", "/Users/**/*.PEM", "/users/u/src/project/certs/dev/server.pem", true},
		{"miss", "/home/*/.aws/**", "/var/lib/docker/overlay2/abc/merged/etc/passwd", false},
	} {
		p, err := CompilePath(bc.pattern, Options{FoldCase: bc.fold})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p.Match(bc.path)
			}
		})
	}
}

// BenchmarkPathMiss measures the common case of path rules: a pattern that starts with
// literal segments, tested against a path elsewhere. The literal start rejects it at once,
// without the segment-by-segment match or, for a tree, the allocations of TouchesTree.
func BenchmarkPathMiss(b *testing.B) {
	p, err := CompilePath("/home/u/.config/{google-chrome*,chromium}/**/{Login Data,Cookies}", Options{})
	if err != nil {
		b.Fatal(err)
	}
	const path = "/home/u/project/internal/engine/testdata/shell"
	b.Run("Match", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			p.Match(path)
		}
	})
	b.Run("TouchesTree", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			p.TouchesTree(path)
		}
	})
}

// BenchmarkPathTouches measures TouchesTree where no literal start rejects the tree: a
// pattern that can match at any depth, against a project directory.
func BenchmarkPathTouches(b *testing.B) {
	for _, pattern := range []string{"/**/.env", "/home/*/.ssh/id_*"} {
		p, err := CompilePath(pattern, Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(pattern, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p.TouchesTree("/home/u/project/internal/engine")
			}
		})
	}
}

func BenchmarkPathTree(b *testing.B) {
	p, err := CompilePath("/home/*/.ssh/**", Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("MatchTree", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			p.MatchTree("/home/u")
		}
	})
	b.Run("CoversTree", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			p.CoversTree("/home/u/.ssh/keys")
		}
	})
}

func BenchmarkWordsMatch(b *testing.B) {
	for _, bc := range []struct {
		name    string
		pattern []string
		words   []string
	}{
		{"literal", []string{"rm", "-rf", "./build"}, []string{"rm", "-rf", "./build"}},
		{"trailing-doublestar", []string{"git", "push", "**"}, []string{"git", "push", "origin", "main"}},
		{"middle-doublestar", []string{"git", "**", "push", "**", "--force*"}, []string{"git", "-C", "repo", "push", "origin", "main", "--force-with-lease"}},
		{"word-glob", []string{"npm", "run", "test:*"}, []string{"npm", "run", "test:unit"}},
		{"long-miss", []string{"**", "--force", "**"}, strings.Fields(strings.Repeat("arg ", 1000))},
	} {
		ws, err := CompileWords(bc.pattern)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				ws.Match(bc.words)
			}
		})
	}
}

func BenchmarkCompilePath(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := CompilePath("/home/*/.ssh/**/id_{rsa,ed25519}*", Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
