package cli

import (
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/call"
)

func TestBuildCall(t *testing.T) {
	tests := []struct {
		name    string
		o       checkOptions
		args    []string
		class   call.Class
		key     string
		value   string
		wantErr string
	}{
		{"one argument is a line", checkOptions{}, []string{"ls; rm -rf ~"}, call.Shell, "command", "ls; rm -rf ~", ""},
		{"several arguments are quoted words", checkOptions{}, []string{"rm", "-rf", "~", "a b"}, call.Shell, "command", `rm -rf '~' 'a b'`, ""},
		{"tool with positional path", checkOptions{tool: "Read"}, []string{"/etc/hosts"}, call.FileRead, "path", "/etc/hosts", ""},
		{"glob pattern that is a path", checkOptions{tool: "Glob"}, []string{"/etc/*.conf"}, call.FileSearch, "pattern", "/etc/*.conf", ""},
		{"tool with args", checkOptions{tool: "Read", args: `{"file_path":"/etc/hosts"}`}, nil, call.FileRead, "path", "/etc/hosts", ""},
		{"both", checkOptions{tool: "Read", args: `{"file_path":"/a"}`}, []string{"/b"}, "", "", "", "given twice"},
		{"bad args", checkOptions{tool: "Read", args: `[1]`}, nil, "", "", "", "--args must be a JSON object"},
		{"nothing", checkOptions{}, nil, "", "", "", "nothing to check"},
		{"unknown agent", checkOptions{agent: "claude"}, []string{"ls"}, "", "", "", `unknown agent "claude"`},
		{"two paths", checkOptions{tool: "Read"}, []string{"/a", "/b"}, "", "", "", "take one positional argument"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := buildCall(tt.o, tt.args, "/w")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Class != tt.class || c.String(tt.key) != tt.value || c.Cwd != "/w" {
				t.Errorf("got %+v", c)
			}
			if tt.o.tool == "Glob" {
				if paths, _ := c.Args[call.ArgPaths].([]any); len(paths) != 1 || paths[0] != tt.value {
					t.Errorf("a Glob pattern that is a path must be a path the search reads: %v", c.Args)
				}
			}
		})
	}
}
