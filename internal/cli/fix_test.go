package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/call"
)

func TestRecordCall(t *testing.T) {
	tests := []struct {
		name    string
		rec     audit.Record
		want    call.Call
		wantErr string
	}{
		{"shell", audit.Record{Agent: "codex", Session: "s", Class: "shell", Tool: "shell", Args: map[string]any{"command": "ls"}, Cwd: "/w", Rule: "default"},
			call.Call{Agent: call.Codex, Session: "s", Class: call.Shell, Tool: "shell", Args: map[string]any{"command": "ls"}, Cwd: "/w"}, ""},
		{"mcp", audit.Record{Class: "mcp", Tool: "mcp__gh__delete_repo", MCP: "mcp:gh/delete_repo", Args: map[string]any{"repo": "x"}, Cwd: "/w", Rule: "r"},
			call.Call{Class: call.MCP, Tool: "mcp__gh__delete_repo", MCP: &call.MCPTarget{Server: "gh", Tool: "delete_repo"}, Args: map[string]any{"repo": "x"}, Cwd: "/w"}, ""},
		{"no arguments", audit.Record{Class: "web.fetch", Tool: "WebFetch", Cwd: "/w", Rule: "r"},
			call.Call{Class: call.WebFetch, Tool: "WebFetch", Args: map[string]any{}, Cwd: "/w"}, ""},
		{"failure", audit.Record{Class: "shell", Cwd: "/w", Failure: true, Reason: "policy did not load"}, call.Call{}, "could not decide"},
		{"output scan", audit.Record{Class: "web.fetch", Cwd: "/w", Rule: "output-scan"}, call.Call{}, "not the decision on a call"},
		{"clipped", audit.Record{Class: "shell", Cwd: "/w", Rule: "r", Clipped: "40000 bytes"}, call.Call{}, "cut short"},
		{"mcp without target", audit.Record{Class: "mcp", Cwd: "/w", Rule: "r"}, call.Call{}, "names no server"},
		{"relative cwd", audit.Record{Class: "shell", Cwd: "w", Rule: "r"}, call.Call{}, "not absolute"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := recordCall(tt.rec)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want one saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			gj, _ := json.Marshal(got)
			wj, _ := json.Marshal(tt.want)
			if !bytes.Equal(gj, wj) {
				t.Errorf("got %s\nwant %s", gj, wj)
			}
		})
	}
}

func TestFixTarget(t *testing.T) {
	tests := []struct {
		to   string
		was  call.Verdict
		want call.Verdict
	}{
		{"", call.Deny, call.Allow},
		{"", call.Ask, call.Allow},
		{"", call.Allow, call.Ask},
		{"", call.Audit, call.Ask},
		{"deny", call.Allow, call.Deny},
		{"audit", call.Ask, call.Audit},
	}
	for _, tt := range tests {
		if got, err := fixTarget(tt.to, tt.was); err != nil || got != tt.want {
			t.Errorf("fixTarget(%q, %s) = %s, %v; want %s", tt.to, tt.was, got, err, tt.want)
		}
	}
	if _, err := fixTarget("maybe", call.Allow); err == nil {
		t.Error("fixTarget accepted --to maybe")
	}
}

// fixEnv is a fake HOME with a repository to work in, for running moat in this process.
func fixEnv(t *testing.T) (Env, *bytes.Buffer, *bytes.Buffer, string) {
	t.Helper()
	home := t.TempDir()
	project := filepath.Join(home, "proj")
	if err := os.MkdirAll(filepath.Join(project, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"HOME": home, "PATH": "/usr/bin:/bin", "MOAT_DAEMON": "off"}
	var out, errOut bytes.Buffer
	return Env{
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut,
		Getenv: func(k string) string { return vars[k] }, Getwd: func() (string, error) { return project, nil },
		Now: time.Now, Executable: func() (string, error) { return "/usr/local/bin/moat", nil },
	}, &out, &errOut, home
}

// TestFixCommand runs moat fix in this process on a recorded call: the proposal, the
// choice of record, and the usage errors.
func TestFixCommand(t *testing.T) {
	env, out, errOut, home := fixEnv(t)
	if code := Main([]string{"check", "--record", "--", "sudo make install"}, env); code != exitAsk {
		t.Fatalf("check --record: exit %d: %s", code, errOut)
	}
	if code := Main([]string{"check", "--record", "--", "ls"}, env); code != 0 {
		t.Fatalf("check --record: exit %d: %s", code, errOut)
	}
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"fix"}, exitError, "name one record"},
		{[]string{"fix", "1", "--last"}, exitError, "name one record"},
		{[]string{"fix", "x"}, exitError, "give the record's number"},
		{[]string{"fix", "1", "--to", "maybe"}, exitUsage, "--to must be"},
		{[]string{"fix", "3"}, exitError, "no record 3"},
		// The last call, ls, was allowed: the natural flip asks about it.
		{[]string{"fix", "--last"}, 0, `record 2: shell: ls`},
		{[]string{"fix", "1"}, 0, `command: "sudo make install"`},
		{[]string{"fix", "1", "--to", "ask"}, exitError, "already decides this call ask"},
	} {
		out.Reset()
		errOut.Reset()
		code := Main(tt.args, env)
		if code != tt.code || !strings.Contains(out.String()+errOut.String(), tt.want) {
			t.Errorf("moat %s: exit %d, want %d and %q:\n%s%s", strings.Join(tt.args, " "), code, tt.code, tt.want, out, errOut)
		}
	}
	if _, err := os.Stat(filepath.Join(home, ".config", "moat", "moat.yaml")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("moat fix without --write wrote the user policy: %v", err)
	}
}

func TestDecidedUnder(t *testing.T) {
	tests := []struct{ recorded, now, want string }{
		{"embedded:recommended", "embedded:recommended", ""},
		{"", "/p/moat.yaml", ""},
		{"/p/moat.yaml (as you trusted it, sha256 0123456789ab)", "/p/moat.yaml (as you trusted it, sha256 ba9876543210)", ""},
		{"embedded:recommended", "/h/.config/moat/moat.yaml", "embedded:recommended"},
		{"/p/moat.yaml (as you trusted it, sha256 0123456789ab)", "/h/.config/moat/moat.yaml", "/p/moat.yaml (as you trusted it, sha256 0123456789ab)"},
	}
	for _, tt := range tests {
		if got := decidedUnder(tt.recorded, tt.now); got != tt.want {
			t.Errorf("decidedUnder(%q, %q) = %q, want %q", tt.recorded, tt.now, got, tt.want)
		}
	}
}
