package shell

import (
	"strings"
	"testing"
)

// interpLargeLines are lines of the largest size fuzzed made of interpreter code in the
// shapes that cost constant folding most: many lookups, assignments, sinks and groups,
// each program as large as inspection reads.
func interpLargeLines() []string {
	code := func(s string) string { return strings.Repeat(s, (maxInterpreterCode-64)/len(s)) }
	four := func(s string) string { return strings.Repeat(s+";", 4) }
	return []string{
		four(`python3 -c "` + code("getattr(o,'a'+'b')(x);") + `"`),
		four(`python3 -c "` + code("x = 'a' + x\n") + `"`),
		four(`python3 -c "` + code("(") + code(")") + `"`),
		four(`python3 -c "` + code("exec(f'{x}');") + `"`),
		four(`node -e "` + code("require('a'+'b')[x](y);") + `"`),
		four(`node -e '` + code("const {a: b} = require(\"x\"); b(`${c}`);") + `'`),
		four(`ruby -e '` + code(`send(:a, "#{b}");`) + `'`),
		four(`perl -e '` + code(`my $a = "$b" . $c; eval $a;`) + `'`),
		four(`php -r '` + code(`$f = "a" . $b; $f(1);`) + `'`),
		four(`lua -e '` + code(`local a = b .. "c"; load(a)();`) + `'`),
		four(`pwsh -c '` + code(`$a = "b" + $c; iex $a; `) + `'`),
		four(`pwsh -c '` + code(`(`) + `'`),
		four(`pwsh -c '` + code(`Remove-Item -Recurse (Join-Path $HOME x) | `) + `'`),
	}
}

func TestInterpreterLargeInputs(t *testing.T) {
	for _, line := range interpLargeLines() {
		a, over := againstFloor(line, maxFloorRatio)
		if over != "" {
			t.Errorf("%.30q…: %s", line, over)
		}
		check(t, a)
	}
}
