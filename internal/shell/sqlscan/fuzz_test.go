package sqlscan

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// checkFindings checks what holds for any findings: known ids, short evidence, no repeats.
func checkFindings(t *testing.T, what string, fs []Finding, ids ...string) {
	t.Helper()
	for i, f := range fs {
		if !slices.Contains(ids, f.ID) || len(f.Evidence) > maxEvidence || slices.Contains(fs[:i], f) {
			t.Fatalf("%s: bad finding %q among %q", what, f, fs)
		}
	}
}

func FuzzSQL(f *testing.F) {
	for _, tt := range sqlTests {
		f.Add(tt.script)
	}
	for _, s := range adversarial(1 << 10) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, script string) {
		checkFindings(t, fmt.Sprintf("SQL(%q)", script), SQL(script), drop, unbounded, reach, IDGrant)
		// Quoted or commented out, nothing in the script runs.
		if !strings.Contains(script, "$q$") {
			if fs := SQL("SELECT $q$" + script + "$q$"); len(fs) > 0 {
				t.Fatalf("SQL of %q dollar-quoted = %q", script, fs)
			}
		}
		if !strings.Contains(script, "\n") {
			if fs := SQL("-- " + script); len(fs) > 0 {
				t.Fatalf("SQL of %q commented out = %q", script, fs)
			}
		}
	})
}

func FuzzMongo(f *testing.F) {
	for _, tt := range mongoTests {
		f.Add(tt.js)
	}
	f.Fuzz(func(t *testing.T, js string) {
		checkFindings(t, fmt.Sprintf("Mongo(%q)", js), Mongo(js), drop, unbounded)
		if fs := Mongo("print(" + strconv.Quote(js) + ")"); len(fs) > 0 {
			t.Fatalf("Mongo of %q in a string = %q", js, fs)
		}
		if !strings.Contains(js, "*/") {
			if fs := Mongo("/* " + js + " */"); len(fs) > 0 {
				t.Fatalf("Mongo of %q in a comment = %q", js, fs)
			}
		}
	})
}

// redisQuote quotes s as redis-cli reads a double-quoted word.
func redisQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < ' ' || c >= 0x7f:
			fmt.Fprintf(&b, `\x%02x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func FuzzRedisScript(f *testing.F) {
	for _, tt := range redisScriptTests {
		f.Add(tt.script)
	}
	f.Fuzz(func(t *testing.T, script string) {
		checkFindings(t, fmt.Sprintf("RedisScript(%q)", script), RedisScript(script), drop, config, reach)
		// Splitting a line quoted word by word gives the same words back.
		for line := range strings.Lines(script) {
			argv, ok := splitRedisLine(line)
			if !ok {
				continue
			}
			quoted := make([]string, len(argv))
			for i, a := range argv {
				quoted[i] = redisQuote(a)
			}
			again, ok := splitRedisLine(strings.Join(quoted, " "))
			if !ok || !slices.Equal(again, argv) {
				t.Fatalf("splitRedisLine(%q) = %q; quoted and split again: %q, %v", line, argv, again, ok)
			}
			if !slices.Equal(Redis(argv), Redis(again)) {
				t.Fatalf("Redis(%q) differs once quoted", argv)
			}
		}
	})
}
