package textdiff

import (
	"strings"
	"testing"
)

func TestUnified(t *testing.T) {
	for _, tc := range []struct{ old, new, want string }{
		{"a\nb\n", "a\nb\n", ""},
		{"a\nb\nc\n", "a\nB\nc\n", "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
		{"", "x\n", "@@ -0,0 +1 @@\n+x\n"},
		{"x", "x\n", "@@ -1 +1 @@\n-x\n\\ No newline at end of file\n+x\n"},
		{
			"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n",
			"1\nTWO\n3\n4\n5\n6\n7\n8\n9\n10\nELEVEN\n12\n",
			"@@ -1,5 +1,5 @@\n 1\n-2\n+TWO\n 3\n 4\n 5\n@@ -8,5 +8,5 @@\n 8\n 9\n 10\n-11\n+ELEVEN\n 12\n",
		},
	} {
		if got := Unified(tc.old, tc.new); got != tc.want {
			t.Errorf("Unified(%q, %q) =\n%s\nwant\n%s", tc.old, tc.new, got, tc.want)
		}
	}
}

// TestUnifiedLargeFile: a large file with a small change is diffed quickly and in little
// memory, as ~/.claude.json must be.
func TestUnifiedLargeFile(t *testing.T) {
	var b strings.Builder
	for i := range 200000 {
		b.WriteString(strings.Repeat("x", i%7) + "\n")
	}
	old := b.String()
	new := strings.Replace(old, "xxxxxx\n", "changed\n", 3)
	if d := Unified(old, new); strings.Count(d, "\n+changed") != 3 {
		t.Errorf("diff:\n%s", d)
	}
	// Texts with nothing in common are shown whole, without searching for long.
	other := strings.ReplaceAll(old, "x", "y")
	if d := Unified(old, other); strings.Count(d, "\n-") != 200000-1 || patch(old, d) != other {
		t.Errorf("a diff of unrelated texts is not the whole of both")
	}
}

// FuzzUnified checks that Unified's hunks, applied to the old text, give the new one.
func FuzzUnified(f *testing.F) {
	f.Add("{\n  \"mcpServers\": {}\n}\n", "{\n  \"mcpServers\": {\"x\": {}}\n}\n")
	f.Add("a\nb\nc", "a\nc\nd\n")
	f.Fuzz(func(t *testing.T, old, new string) {
		if got := patch(old, Unified(old, new)); got != new {
			t.Fatalf("patching %q with its diff gives %q, want %q", old, got, new)
		}
	})
}

// patch applies a diff made by Unified.
func patch(old, diff string) string {
	if diff == "" {
		return old
	}
	a := splitLines(old)
	var out strings.Builder
	at := 0
	lines := strings.SplitAfter(diff, "\n")
	var last *string // the line "\ No newline" refers to
	for _, l := range lines {
		if l == "" {
			continue
		}
		switch l[0] {
		case '@':
			var aStart, aLen int
			rng := strings.Fields(l)[1][1:]
			if s, n, ok := strings.Cut(rng, ","); ok {
				aStart, aLen = atoi(s), atoi(n)
			} else {
				aStart, aLen = atoi(rng), 1
			}
			if aLen > 0 {
				aStart--
			}
			for ; at < aStart; at++ {
				out.WriteString(a[at])
			}
			last = nil
		case ' ':
			out.WriteString(a[at])
			at++
			last = nil
		case '-':
			at++
			last = nil
		case '+':
			s := l[1:]
			out.WriteString(s)
			last = &s
		case '\\':
			if last != nil {
				// The added line had no new line: take back the one written.
				str := strings.TrimSuffix(out.String(), "\n")
				out.Reset()
				out.WriteString(str)
			}
		}
	}
	for ; at < len(a); at++ {
		out.WriteString(a[at])
	}
	return out.String()
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}
