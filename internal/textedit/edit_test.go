package textedit

import (
	"slices"
	"strings"
	"testing"
)

func TestApply(t *testing.T) {
	const text = "{\n  // keep me\n  \"a\": 1,\n  \"b\": [2]\n}\n"
	at := func(s string) int { return strings.Index(text, s) }
	for _, tt := range []struct {
		name  string
		edits []Edit
		want  string
		err   string
	}{
		{"none", nil, text, ""},
		{"replace", []Edit{{at("1"), at("1") + 1, "10"}}, strings.Replace(text, "1", "10", 1), ""},
		{"insert and cut, out of order",
			[]Edit{{at("2]"), at("2]"), "1, "}, {at(`  "a"`), at(`  "b"`), ""}},
			"{\n  // keep me\n  \"b\": [1, 2]\n}\n", ""},
		{"two insertions at one place keep their order",
			[]Edit{{at("2"), at("2"), "x"}, {at("2"), at("2"), "y"}},
			strings.Replace(text, "[2]", "[xy2]", 1), ""},
		{"overlap", []Edit{{at("\"a\""), at("1"), ""}, {at(": 1"), at(",\n  \"b\""), ""}}, "", "3:"},
		{"past the end", []Edit{{len(text), len(text) + 1, ""}}, "", "overlapping edits"},
		{"backwards", []Edit{{5, 4, ""}}, "", "overlapping edits"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := slices.Clone(tt.edits)
			got, err := Apply(text, tt.edits)
			switch {
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Errorf("Apply = %q, %v; want an error with %q", got, err, tt.err)
			case tt.err == "" && (err != nil || got != tt.want):
				t.Errorf("Apply = %q, %v; want %q", got, err, tt.want)
			}
			if !slices.Equal(before, tt.edits) {
				t.Errorf("Apply reordered the caller's edits: %v", tt.edits)
			}
		})
	}
}
