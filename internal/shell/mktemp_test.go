package shell

import (
	"testing"

	"github.com/moatdev/moat/internal/call"
)

// TestMktempTargets: what a line writes through $(mktemp …) is a fresh file where mktemp
// makes it; forms moat cannot read leave the target unknown (written as "/", anything).
func TestMktempTargets(t *testing.T) {
	tests := []struct {
		line, want string
	}{
		{`echo hi > "$(mktemp)"`, "/tmp/tmp.XXXXXXXXXX"},
		{`x=$(mktemp); echo hi > "$x"`, "/tmp/tmp.XXXXXXXXXX"},
		{`d=$(mktemp -d); echo hi > "$d/out"`, "/tmp/tmp.XXXXXXXXXX/out"},
		{`echo hi > "$(mktemp -t build.XXXXXX)"`, "/tmp/build.XXXXXX"},
		{`echo hi > "$(mktemp -p /var/tmp)"`, "/var/tmp/tmp.XXXXXXXXXX"},
		{`echo hi > "$(mktemp --tmpdir=/scratch x.XXX --suffix=.log)"`, "/scratch/x.XXX.log"},
		{`echo hi > "$(mktemp out.XXXXXX)"`, "/work/proj/out.XXXXXX"},
		{`TMPDIR=/var/tmp; echo hi > "$(mktemp)"`, "/var/tmp/tmp.XXXXXXXXXX"},
		// Not readable: the target stays unknown.
		{`echo hi > "$(mktemp moat.yaml)"`, "/"},
		{`echo hi > "$(mktemp --frobnicate)"`, "/"},
		{`TMPDIR=$(cat f); echo hi > "$(mktemp)"`, "/"},
		{`x=$(ls); echo hi > "$x"`, "/"},
	}
	for _, tt := range tests {
		got := ""
		for _, c := range Analyze(tt.line, testEnv).Commands {
			for _, acc := range c.Accesses {
				if acc.Kind == call.Write && acc.Redirect {
					got = acc.Path
				}
			}
		}
		if got != tt.want {
			t.Errorf("%s: writes %q, want %q", tt.line, got, tt.want)
		}
	}
}
