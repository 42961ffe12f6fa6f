package engine

import (
	"slices"
	"testing"

	"github.com/moatdev/moat/internal/call"
)

func TestMCPAccessKind(t *testing.T) {
	for _, tt := range []struct {
		tool string
		want call.AccessKind
	}{
		{"read_text_file", call.Read},
		{"read_multiple_files", call.Read},
		{"list_directory", call.Read},
		{"get_file_info", call.Read},
		{"search_files", call.Read},
		{"write_file", call.Write},
		{"edit_file", call.Write},
		{"create_directory", call.Write},
		{"move_file", call.Write},
		{"moveFile", call.Write},
		{"deleteEntry", call.Delete},
		{"remove-path", call.Delete},
		{"resources/read", call.Read},
		{"reader", call.Read},   // a word, not a verb inside a word
		{"settings", call.Read}, // "set" inside a word does not count
		{"writeup_get", call.Read},
	} {
		if got := mcpAccessKind(tt.tool); got != tt.want {
			t.Errorf("mcpAccessKind(%q) = %v, want %v", tt.tool, got, tt.want)
		}
	}
}

func TestNameWords(t *testing.T) {
	for in, want := range map[string][]string{
		"read_text_file":   {"read", "text", "file"},
		"moveFile":         {"move", "file"},
		"getHTTPHeaders":   {"get", "http", "headers"},
		"DeleteDBInstance": {"delete", "db", "instance"},
		"s3:DeleteObject":  {"s3", "delete", "object"},
		"v2Delete":         {"v2", "delete"},
		"delete-entry.v2":  {"delete", "entry", "v2"},
		"":                 nil,
	} {
		if got := nameWords(in); !slices.Equal(got, want) {
			t.Errorf("nameWords(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMCPAccesses(t *testing.T) {
	e := newEngine(t, "version: 1\ndefault: allow\n")
	home := testHost().Home
	for _, tt := range []struct {
		name string
		tool string
		args map[string]any
		want []call.Access
	}{
		{"a path", "read_text_file", map[string]any{"path": "~/.ssh/id_rsa"},
			[]call.Access{{Kind: call.Read, Path: home + "/.ssh/id_rsa"}}},
		{"a list of paths, relative ones from the working directory", "read_multiple_files", map[string]any{"paths": []any{"/etc/passwd", "notes.txt"}},
			[]call.Access{{Kind: call.Read, Path: "/etc/passwd"}, {Kind: call.Read, Path: "/work/p/notes.txt"}}},
		{"a move deletes its source and writes its destination", "move_file", map[string]any{"source": "/work/p/a", "destination": "/work/p/b"},
			[]call.Access{{Kind: call.Delete, Path: "/work/p/a", Recursive: true}, {Kind: call.Write, Path: "/work/p/b"}}},
		{"a rename too", "renameFile", map[string]any{"oldPath": "~/.ssh/id_rsa", "path": "/tmp/k"},
			[]call.Access{{Kind: call.Delete, Path: home + "/.ssh/id_rsa", Recursive: true}, {Kind: call.Write, Path: "/tmp/k"}}},
		{"a copy reads its source", "copy_file", map[string]any{"src": "~/.aws/credentials", "dest": "notes.txt"},
			[]call.Access{{Kind: call.Read, Path: home + "/.aws/credentials"}, {Kind: call.Write, Path: "/work/p/notes.txt"}}},
		{"a file: URI", "resources/read", map[string]any{"uri": "file:///etc/shadow"},
			[]call.Access{{Kind: call.Read, Path: "/etc/shadow"}}},
		{"an https URI is no path", "resources/read", map[string]any{"uri": "https://example.com/x"}, nil},
		{"arguments that are not paths", "create_issue", map[string]any{"title": "/etc/passwd"}, nil},
		{"a file tool's path under another name", "open_file", map[string]any{"location": "~/.ssh/id_rsa", "mode": "r"},
			[]call.Access{{Kind: call.Read, Path: home + "/.ssh/id_rsa"}}},
		{"a file: URL under another name", "read_resource", map[string]any{"resource": "file:///etc/shadow"},
			[]call.Access{{Kind: call.Read, Path: "/etc/shadow"}}},
		{"an API route is no path", "read_route", map[string]any{"route": "/v1/users"}, nil},
		{"text that starts with a path is no path", "edit_file_comment", map[string]any{"comment": "/etc/passwd is world-readable"}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := call.Call{Class: call.MCP, MCP: &call.MCPTarget{Server: "fs", Tool: tt.tool}, Args: tt.args, Cwd: "/work/p"}
			if got := e.mcpAccesses(&c); !slices.EqualFunc(got, tt.want, call.Access.Equal) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestMCPShellCommand(t *testing.T) {
	for _, tt := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"execute_command", map[string]any{"command": "ls -la"}, "ls -la"},
		{"run_terminal_command", map[string]any{"command": "id"}, "id"},
		{"shell_exec", map[string]any{"cmd": "whoami"}, "whoami"},
		{"bash", map[string]any{"script": "make test"}, "make test"},
		{"runCommand", map[string]any{"commandLine": "npm test"}, "npm test"},
		{"create_issue", map[string]any{"command": "rm -rf /"}, ""},  // not a tool that runs commands
		{"execute_command", map[string]any{"query": "select 1"}, ""}, // no command argument
		{"execute_command", map[string]any{"command": 7}, ""},
		// Tools that wrap a command-line program run it with the command they are given.
		{"call_aws", map[string]any{"cli_command": "aws s3 rb s3://prod --force"}, "aws s3 rb s3://prod --force"},
		{"aws_cli", map[string]any{"command": "s3 rb s3://prod --force"}, "aws s3 rb s3://prod --force"},
		{"kubectl", map[string]any{"command": "delete ns prod"}, "kubectl delete ns prod"},
		{"gcloud_cli", map[string]any{"command": "/usr/bin/gcloud projects delete p"}, "/usr/bin/gcloud projects delete p"},
		// A tool that runs commands runs them as given, wherever it runs them.
		{"docker_exec", map[string]any{"command": "ls /app"}, "ls /app"},
		{"git_status", map[string]any{"repo_path": "."}, ""},
		// A command given as a list of words.
		{"run_gcloud_command", map[string]any{"args": []any{"projects", "delete", "my prod"}}, "gcloud projects delete 'my prod'"},
		{"kubectl_exec", map[string]any{"command": "ls /"}, "ls /"},
		{"gcloud", map[string]any{"args": []any{"projects", "delete", "prod"}}, "gcloud projects delete prod"},
		{"execute_command", map[string]any{"command": []any{"rm", "-rf", "/"}}, "rm -rf /"},
		{"execute_command", map[string]any{"command": []any{"rm", 1}}, ""},
	} {
		c := call.Call{Class: call.MCP, MCP: &call.MCPTarget{Server: "s", Tool: tt.tool}, Args: tt.args}
		got, ok := mcpShellCommand(&c)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("mcpShellCommand(%s %v) = %q, %v; want %q", tt.tool, tt.args, got, ok, tt.want)
		}
	}
}
