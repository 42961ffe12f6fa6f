package shell

import "testing"

func TestLongOptionAbbreviations(t *testing.T) {
	for _, tc := range []struct{ prog, written, want string }{
		{"git", "forc", "force"},
		{"git", "force", "force"},
		{"git", "mirr", "mirror"},
		{"rm", "recur", "recursive"},
		{"curl", "upload-f", "upload-file"},
		{"git", "d", "d"},                 // ambiguous: delete, depth, date…
		{"git", "no-verify", "no-verify"}, // negations are written out
		{"frobnicate", "forc", "forc"},    // no table: nothing to resolve against
		{"git", "zzz", "zzz"},             // no option starts so
		{"docker", "volum", "volum"},      // volume and volumes
	} {
		if got := longOption(tc.prog, tc.written); got != tc.want {
			t.Errorf("%s --%s: got --%s, want --%s", tc.prog, tc.written, got, tc.want)
		}
	}
}
