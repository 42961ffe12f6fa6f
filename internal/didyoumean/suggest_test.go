package didyoumean

import "testing"

func TestHint(t *testing.T) {
	known := []string{"claude-code", "cursor", "codex", "gemini-cli", "recommended"}
	for _, tt := range []struct{ in, want string }{
		{"claude-cod", ` (did you mean "claude-code"?)`},
		{"Cursr", ` (did you mean "cursor"?)`},
		{"codx", ` (did you mean "codex"?)`},
		{"recomended", ` (did you mean "recommended"?)`},
		{"gemini", ""}, // four letters away: not a typo
		{"aider", ""},
		{"", ""},
	} {
		if got := Hint(tt.in, known); got != tt.want {
			t.Errorf("Hint(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"a", "", 1}, {"kitten", "sitting", 3}, {"héllo", "hello", 1},
	} {
		if got := distance(tt.a, tt.b); got != tt.want {
			t.Errorf("distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
