package shell

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"mvdan.cc/sh/v3/syntax"
)

// typical are commands of the kind coding agents run all day.
var typical = []string{
	"ls -la",
	"git status",
	"git diff --stat HEAD~1",
	`git commit -m "fix: handle empty input"`,
	"git log --oneline -n 20",
	"go test ./...",
	"go build -o bin/moat ./cmd/moat",
	"npm install",
	"npm run build && npm test",
	"cat README.md",
	"grep -rn TODO src/",
	"find . -name '*.go' -type f",
	"rm -rf node_modules dist",
	"mkdir -p build/out",
	"cp -r src/ backup/",
	"mv old.txt new.txt",
	"cd web && npm ci && npm run lint",
	`echo "done" > status.txt`,
	"python3 -m pytest tests/ -x -q",
	"pip install -r requirements.txt",
	"docker build -t app:latest .",
	"make -j8 2>&1 | tail -n 50",
	"head -n 100 logs/app.log",
	"wc -l $(git ls-files '*.go')",
	"sed -i 's/foo/bar/g' main.go",
	"curl -s https://api.example.com/health | jq .status",
	"chmod +x scripts/deploy.sh",
	"export NODE_ENV=production && node server.js",
	"tar -czf release.tar.gz dist/",
	"for f in *.md; do wc -w \"$f\"; done",
}

// BenchmarkAnalyze reports the cost of analysing one typical command.
func BenchmarkAnalyze(b *testing.B) {
	b.ReportAllocs()
	env := Env{Cwd: "/home/u/proj", Home: "/home/u"}
	i := 0
	for b.Loop() {
		Analyze(typical[i%len(typical)], env)
		i++
	}
}

// BenchmarkAnalyzeLarge reports the cost of the largest fuzzed inputs, in the shapes that
// cost the analysis most.
func BenchmarkAnalyzeLarge(b *testing.B) {
	for i, line := range largeLines() {
		b.Run(fmt.Sprintf("%02d-%.6s", i, strings.ReplaceAll(line, " ", "_")), func(b *testing.B) {
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				Analyze(line, testEnv)
				n++
			}
			// What parsing alone costs, measured right after on the same line, so that the
			// analysis is also read as a multiple of the parse: the absolute times of a
			// shared machine vary more than the ratio.
			analysis := b.Elapsed() / time.Duration(n)
			parse := parseTime(b, line, n)
			b.ReportMetric(float64(parse.Nanoseconds()), "parse-ns/op")
			b.ReportMetric(float64(analysis)/float64(parse), "analysis/parse")
		})
	}
}

// parseTime returns the mean time of n parses of line, as analyze parses it.
func parseTime(b *testing.B, line string, n int) time.Duration {
	start := time.Now()
	for range n {
		p := syntax.NewParser(syntax.KeepComments(false), syntax.Variant(syntax.LangBash))
		if _, err := p.Parse(strings.NewReader(line), ""); err != nil {
			b.Fatalf("parse: %v", err)
		}
	}
	return time.Since(start) / time.Duration(n)
}
