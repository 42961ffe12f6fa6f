package oneliner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestZZ(t *testing.T) {
	files, _ := filepath.Glob("/tmp/zi/*")
	for _, f := range files {
		if want := os.Getenv("ZZ"); want != "" && !strings.Contains(f, want) {
			continue
		}
		b, _ := os.ReadFile(f)
		lang := map[string]Lang{".py": Python, ".js": Node, ".mjs": Node, ".ts": Node, ".rb": Ruby, ".php": PHP, ".t": Perl, ".PL": Perl, ".pm": Perl, ".pl": Perl, ".go": Go}[filepath.Ext(f)]
		if lang == "" {
			continue
		}
		code := string(b)
		for _, u := range Units(lang, code) {
			r := InspectProgram(lang, u)
			t.Logf("%s: F=%v Sh=%q D=%v R=%v W=%v S=%v N=%v Env=%v H=%v Op=%q", filepath.Base(f), r.Findings, r.Shell, r.Deletes, r.Reads, r.Writes, r.Sends, r.Network, r.EnvVars, r.URLHosts, r.Opaque)
		}
	}
}
