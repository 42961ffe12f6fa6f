package planted

import (
	"slices"
	"testing"
)

func TestJustEval(t *testing.T) {
	vars := map[string][]string{"tc": {"nightly"}, "ctx": {"--context=k3d-x"}}
	for _, tt := range []struct {
		expr string
		want []string // nil: not read
	}{
		{`"cargo"`, []string{"cargo"}},
		{`'raw \n'`, []string{`raw \n`}},
		{`"a\tb"`, []string{"a\tb"}},
		{`"kubectl " + ctx`, []string{"kubectl --context=k3d-x"}},
		{`"cargo" + if tc != "" { " +" + tc } else { "" }`, []string{"cargo +nightly", "cargo"}},
		{`if os() == "windows" { "a" } else if arch() == "x" { "b" } else { "c" }`, []string{"a", "b", "c"}},
		{`just_executable()`, []string{"just"}},
		{`justfile_directory() / "scripts" / "x.sh"`, []string{"./scripts/x.sh"}},
		{`env_var_or_default("CARGO", "cargo") + " build"`, []string{"${CARGO} build"}},
		{`join("a", "b")`, []string{"a/b"}},
		{`quote("it's")`, []string{`'it'\''s'`}},
		{`uppercase(x)`, []string{"${JUST_UPPERCASE}"}},
		{`param`, []string{"${param}"}},
		{"`git rev-parse HEAD`", []string{"${JUST_BACKTICK}"}},
		{`('''a''' + "b")`, []string{"ab"}},
		{`if a == "1" { "w" } else { "x" } + if b == "1" { "y" } else { "z" }`, nil}, // an if's else takes the rest
		{`if a == "1" { if b == "" { "1" } else { "2" } } else { if c == "" { "3" } else { "4" } } + if d == "" { "5" } else { "6" }`, nil},
		{`"unclosed`, nil},
		{`"a" +`, nil},
		{`if a { "x" } else { "y" }`, nil},
	} {
		got, ok := justEval(tt.expr, vars)
		if tt.want == nil {
			if ok {
				t.Errorf("justEval(%s) = %q, want not read", tt.expr, got)
			}
			continue
		}
		if !ok || !slices.Equal(got, tt.want) {
			t.Errorf("justEval(%s) = %q, %v, want %q", tt.expr, got, ok, tt.want)
		}
	}
}

func TestExpandJust(t *testing.T) {
	vars := map[string][]string{"cargo": {"cargo +n", "cargo"}, "k": {"kubectl"}}
	for _, tt := range []struct {
		line string
		max  int
		want []string
	}{
		{"{{ cargo }} fmt --all", 4, []string{"cargo +n fmt --all", "cargo fmt --all"}},
		{"{{ cargo }} fmt --all", 1, []string{"${cargo} fmt --all"}},
		{"{{k}} get pods; {{ cargo }} test {{ flags }}", 4, []string{"kubectl get pods; cargo +n test ${flags}", "kubectl get pods; cargo test ${flags}"}},
		{"{{ cargo }} {{ cargo }} {{ cargo }}", 4, []string{"cargo +n cargo +n ${cargo}", "cargo +n cargo ${cargo}", "cargo cargo +n ${cargo}", "cargo cargo ${cargo}"}},
		{"echo {{{{literal}}", 4, []string{"echo {{{{literal}}"}},
	} {
		if got := expandJust(tt.line, vars, tt.max); !slices.Equal(got, tt.want) {
			t.Errorf("expandJust(%q, %d) = %q, want %q", tt.line, tt.max, got, tt.want)
		}
	}
}
