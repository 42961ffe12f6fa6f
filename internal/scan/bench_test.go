package scan_test

import (
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/scan/injection"
	"github.com/moatdev/moat/internal/scan/secrets"
)

// benchSources are ordinary source code with no secrets, from the Go distribution that
// runs the benchmark: directories of GOROOT and the suffix of the files to read there.
// The JavaScript includes a minified file.
var benchSources = []benchSource{
	{"go", []string{"src/net/http"}, ".go"},
	{"js", []string{"lib/wasm", "src/cmd/vendor/github.com/google/pprof", "src/internal/trace/traceviewer/static"}, ".js"},
}

// benchText returns size bytes of the source files under dirs of GOROOT whose names end
// in suffix (excluding tests), repeated as needed.
func benchText(b *testing.B, dirs []string, suffix string, size int) string {
	var text strings.Builder
	for _, dir := range dirs {
		filepath.WalkDir(filepath.Join(build.Default.GOROOT, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, suffix) || strings.HasSuffix(path, "_test"+suffix) || strings.Contains(path, "testdata") {
				return nil
			}
			if c, err := os.ReadFile(path); err == nil {
				text.Write(c)
			}
			return nil
		})
	}
	if text.Len() == 0 {
		b.Skipf("no %s files under %s in GOROOT", suffix, dirs)
	}
	s := text.String()
	for len(s) < size {
		s += s
	}
	return s[:size]
}

func BenchmarkFindSecrets(b *testing.B) {
	benchScan(b, benchSources, func(b *testing.B, s string) {
		if found := secrets.Find(s); len(found) > 0 {
			b.Logf("the benchmark text holds %d secrets, first %s %q", len(found), found[0].RuleID, s[found[0].Start:found[0].End])
		}
	}, func(s string) { secrets.Find(s) })
}

// benchSource names text to benchmark on: the files under dirs of GOROOT whose names
// end in suffix.
type benchSource struct {
	name   string
	dirs   []string
	suffix string
}

// benchScan runs scan on 1 KiB and 1 MiB of each source, after check has looked at the
// text once (to log what the benchmark text holds).
func benchScan(b *testing.B, sources []benchSource, check func(*testing.B, string), scan func(string)) {
	for _, src := range sources {
		for _, size := range []struct {
			name string
			n    int
		}{{"1KiB", 1 << 10}, {"1MiB", 1 << 20}} {
			b.Run(src.name+"/"+size.name, func(b *testing.B) {
				s := benchText(b, src.dirs, src.suffix, size.n)
				check(b, s)
				b.SetBytes(int64(len(s)))
				b.ReportAllocs()
				for b.Loop() {
					scan(s)
				}
			})
		}
	}
}

// BenchmarkFindSecretsAdversarial runs on 1 MiB made of one keyword-laden unit repeated:
// the worst cases for the keyword prefilter, which must stay linear.
func BenchmarkFindSecretsAdversarial(b *testing.B) {
	for _, tc := range []struct{ name, unit string }{
		{"pem-headers", "-----BEGIN RSA PRIVATE KEY-----\n"},
		{"assignments", "password="},
		{"key-assignments", "key=aB3"},
		{"openai-prefixes", "sk-"},
		{"bearer", "Authorization: Bearer "},
		{"jwt", "eyJhbGciOiJIUzI1NiJ9."},
	} {
		b.Run(tc.name, func(b *testing.B) {
			s := strings.Repeat(tc.unit, (1<<20)/len(tc.unit))
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				secrets.Find(s)
			}
		})
	}
}

// BenchmarkFindInjections scans ordinary source code and prose-like documentation, 1 KiB
// and 1 MiB of each, for prompt injection.
func BenchmarkFindInjections(b *testing.B) {
	sources := append(slices.Clone(benchSources), benchSource{"docs", []string{"doc", "src/cmd/go/testdata"}, ".md"})
	benchScan(b, sources, func(b *testing.B, s string) {
		if found := injection.Find(s); len(found) > 0 {
			b.Logf("the benchmark text holds %d injection passages, first %+v", len(found), found[0])
		}
	}, func(s string) { injection.Find(s) })
}

// BenchmarkFindInjectionsAdversarial runs on 1 MiB made of one keyword-laden unit
// repeated: every anchor fires, so the cost of the patterns around them shows.
func BenchmarkFindInjectionsAdversarial(b *testing.B) {
	for _, tc := range []struct{ name, unit string }{
		{"ignore", "ignore previous "},
		{"your-response", "in your response "},
		{"base64", "QUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFB "},
		{"html-comments", "<!-- ai: you must -->"},
		{"quotes", "\"ignore' `x` “"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			s := strings.Repeat(tc.unit, (1<<20)/len(tc.unit))
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				injection.Find(s)
			}
		})
	}
}
