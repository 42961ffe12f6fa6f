package notify

import "testing"

func TestClean(t *testing.T) {
	for _, tc := range []struct {
		in    string
		limit int
		want  string
	}{
		{"plain", 10, "plain"},
		{"exactly 10", 10, "exactly 10"},
		{"eleven char", 10, "eleven ch…"},
		{"  lead\n\ttrail \r\n", 20, "lead trail"},
		{"zero\u200bwidth\u2066bidi", 40, "zero width bidi"},
		{"bad \xff byte", 40, "bad byte"},
		{"ééééé", 3, "éé…"},
	} {
		if got := clean(tc.in, tc.limit); got != tc.want {
			t.Errorf("clean(%q, %d) = %q, want %q", tc.in, tc.limit, got, tc.want)
		}
	}
}
