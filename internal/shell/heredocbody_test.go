package shell

import (
	"strings"
	"testing"
)

// TestWithoutQuotedBodies: the bounds on separators and nesting count the code of a line,
// not the text of its quoted here-documents (a source file written with cat > FILE).
func TestWithoutQuotedBodies(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"ls; pwd", "ls; pwd"},
		{"cat > a.py <<'EOF'\nx = f(g(h(1)));\nEOF\nls", "cat > a.py <<'EOF'\nEOF\nls"},
		{"cat > a <<\"END\"\n;;;\nEND", "cat > a <<\"END\"\nEND"},
		{"cat > a <<-\\X\n\t;|&\n\tX\necho", "cat > a <<-\\X\n\tX\necho"},
		{"cat > a <<EOF\n$(rm -rf /);\nEOF", "cat > a <<EOF\n$(rm -rf /);\nEOF"}, // expanded: code
		{"cat <<< 'a;b'", "cat <<< 'a;b'"},
		{"cat > a <<'EOF'\nno end;", "cat > a <<'EOF'\n"},
	} {
		if got := withoutQuotedBodies(tt.in); got != tt.want {
			t.Errorf("withoutQuotedBodies(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	// A source file of more separators than a line may hold is analysed.
	body := strings.Repeat("a = f(1); b = g(2); c = [x for x in y if x]\n", 2000)
	a := Analyze("cat > src/m.py <<'EOF'\n"+body+"EOF", testEnv)
	for _, f := range a.Findings {
		if f.ID == findTooComplex || f.ID == findTooDeep {
			t.Errorf("a quoted here-document's text counted as code: %v", f)
		}
	}
}
