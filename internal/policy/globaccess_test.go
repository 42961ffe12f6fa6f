package policy

import (
	"testing"

	"github.com/moatdev/moat/internal/call"
)

func TestEntriesOf(t *testing.T) {
	for _, tt := range []struct {
		glob  string
		cover string // "" when the glob is judged by its literal prefix
	}{
		{"/w/build/*", "/w/build/\x00entry"},
		{"/w/*", "/w/\x00entry"},
		{"/w/**/*.pyc", "/w/\x00entry"},
		{"/w/*/node_modules", "/w/\x00entry/node_modules"},
		{"/w/packages/*/dist", "/w/packages/\x00entry/dist"},
		// The literal segments after a wildcard are kept, so that an exclusion of
		// **/.git still names */.git (a bug: rm -rf */.git was allowed as build/* is).
		{"/w/*/.git", "/w/\x00entry/.git"},
		{"/w/*/.git/hooks", "/w/\x00entry/.git/hooks"},
		{"/w/**/build", "/w/\x00entry/build"},
		{"/w/**/.git", "/w/\x00entry/.git"},
		// Wildcards that may name hidden entries, and "**" alone, are not entries.
		{"/w/.*", ""},
		{"/w/*/.*", ""},
		{"/w/[.]git", ""},
		{"/w/**", ""},
		{"/w/build", ""},
	} {
		got, ok := entriesOf(call.Access{Kind: call.Delete, Path: tt.glob, Glob: tt.glob != "/w/build"})
		if !ok {
			got = ""
		}
		if got != tt.cover {
			t.Errorf("entriesOf(%q) = %q, want %q", tt.glob, got, tt.cover)
		}
	}
}

func TestEmptied(t *testing.T) {
	for glob, want := range map[string]string{
		"/w/*":     "/w",
		"/w/b/?*":  "/w/b",
		"/w/b/**":  "/w/b",
		"/*":       "/",
		"/w/*.o":   "",
		"/w/a*":    "",
		"/w/*/x":   "",
		"/w/.*":    "",
		"/w/[!.]*": "",
		"/w/build": "",
		"/w/*/*":   "",
		"/w/??*":   "",
	} {
		if got := emptied(call.Access{Kind: call.Delete, Path: glob, Glob: glob != "/w/build"}); got != want {
			t.Errorf("emptied(%q) = %q, want %q", glob, got, want)
		}
	}
}
