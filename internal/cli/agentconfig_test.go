package cli

import (
	"context"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/agent"
	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/decide"
	"github.com/moatdev/moat/internal/mcpconfig"
	"github.com/moatdev/moat/internal/policy/source"
	"github.com/moatdev/moat/internal/setup"
)

// editedFile is a file one of moat's commands writes, and which command.
type editedFile struct {
	path, by string
}

// editedFiles lists every file `moat setup` and `moat mcp wrap` write for every agent and
// client, as those commands compute them: each agent's user and project settings, Codex's
// trust file, every client's MCP files on this system and on the others the code knows
// them for, and the backups both keep.
func editedFiles(t *testing.T, home, project, state string) []editedFile {
	t.Helper()
	var out []editedFile
	add := func(path, by string) {
		out = append(out, editedFile{path, by})
	}
	for _, ag := range setup.Agents {
		for _, scope := range []setup.Scope{setup.User, setup.Project} {
			f := ag.File(scope, home, project)
			by := "moat setup " + string(ag.Agent) + " (" + string(scope) + ")"
			if f == home || f == project {
				t.Errorf("%s: no settings file", by)
				continue
			}
			add(f, by)
			add(setup.BackupPath(state, f), by+", backup")
		}
		if ag.TrustFile() != "" {
			f := filepath.Join(home, ag.TrustFile())
			by := "moat setup " + string(ag.Agent) + " (hook trust)"
			add(f, by)
			add(setup.BackupPath(state, f), by+", backup")
		}
	}
	systems := []string{runtime.GOOS, "linux", "darwin", "windows", "freebsd"}
	for _, c := range mcpconfig.Clients {
		for _, goos := range systems {
			files := c.Files(home, project, goos)
			if len(files) == 0 {
				t.Errorf("moat mcp wrap %s: no file on %s", c.Name, goos)
			}
			for _, f := range files {
				by := "moat mcp wrap " + c.Name + " (" + goos + ")"
				add(f, by)
				add(f+mcpconfig.BackupSuffix, by+", backup")
			}
		}
	}
	return out
}

// TestEditedFilesAreProtected is the tie between the commands that edit the agents'
// configuration and self-protection: every file setup or mcp wrap writes, for every agent
// and client, must be one that an agent cannot write, edit or delete, whatever the policy
// (here one that allows everything). A file moat edits but does not protect is a switch
// the agent can turn moat off with.
func TestEditedFilesAreProtected(t *testing.T) {
	home := t.TempDir()
	project := filepath.Join(home, "work", "app")
	a, _, _ := testApp(home)
	d, err := a.dirs()
	if err != nil {
		t.Fatal(err)
	}
	svc := a.local(nil)
	l, err := svc.Compile(source.Source{Name: filepath.Join(project, source.ProjectFile), Data: []byte("version: 1\ndefault: allow\n")}, d)
	if err != nil {
		t.Fatal(err)
	}
	files := editedFiles(t, home, project, d.State)
	if len(files) < 40 {
		t.Fatalf("only %d edited files: the walk lost some", len(files))
	}
	ctx := context.Background()
	for _, f := range files {
		quoted := "'" + strings.ReplaceAll(f.path, "'", `'\''`) + "'"
		calls := []struct {
			tool string
			args map[string]any
		}{
			{"Write", map[string]any{"file_path": f.path, "content": "{}\n"}},
			{"Edit", map[string]any{"file_path": f.path, "old_string": "moat", "new_string": "true"}},
			{"Bash", map[string]any{"command": "echo '{}' > " + quoted}},
			{"Bash", map[string]any{"command": "rm -f " + quoted}},
		}
		for _, tc := range calls {
			c, err := call.Canonicalize(call.ClaudeCode, tc.tool, tc.args)
			if err != nil {
				t.Fatal(err)
			}
			c.Cwd, c.Project = project, project
			res, err := svc.Decide(ctx, decide.CallRequest{Policy: l.Key(), Calls: []call.Call{c}})
			if err != nil {
				t.Fatal(err)
			}
			dec := res.Decision
			if dec.Verdict != call.Deny || !strings.HasPrefix(dec.Rule, "self-protection.") {
				t.Errorf("%s writes %s, but %s %v is %s (rule %s): add it to the agent registry (internal/agent)",
					f.by, f.path, tc.tool, tc.args, dec.Verdict, dec.Rule)
			}
		}
	}
}

// TestEditorsReadTheRegistry keeps setup and mcp wrap on the registry: every agent setup
// knows and every client mcp wrap knows has a row, with the files they need.
func TestEditorsReadTheRegistry(t *testing.T) {
	for _, ag := range setup.Agents {
		row, ok := agent.Lookup(string(ag.Agent))
		if !ok {
			t.Errorf("setup agent %s has no row in the agent registry", ag.Agent)
			continue
		}
		if row.Dir == "" || ag.UserFile() == "" || ag.ProjectFile() == "" {
			t.Errorf("setup agent %s: the registry lacks its directory or hook files", ag.Agent)
		}
		for _, root := range []agent.Root{agent.Home, agent.Project} {
			if n := len(row.Files(agent.Hooks, root, runtime.GOOS)); n != 1 {
				t.Errorf("setup agent %s: %d hook files of one root, want 1", ag.Agent, n)
			}
		}
	}
	for _, c := range mcpconfig.Clients {
		row, ok := agent.Lookup(c.Name)
		if !ok {
			t.Errorf("mcp wrap client %s has no row in the agent registry", c.Name)
			continue
		}
		if len(row.Files(agent.MCP, agent.Home, runtime.GOOS)) == 0 {
			t.Errorf("mcp wrap client %s: the registry lists no user MCP file", c.Name)
		}
	}
	// And the other way: a row whose files an editor is meant to rewrite is known to it.
	for _, row := range agent.All() {
		for _, p := range row.Places {
			switch p.Role {
			case agent.Hooks, agent.HookTrust:
				if _, ok := setup.ForAgent(row.Name); !ok {
					t.Errorf("registry row %s has hook files but setup does not know the agent", row.Name)
				}
			case agent.MCP:
				if !slices.ContainsFunc(mcpconfig.Clients, func(c mcpconfig.Client) bool { return c.Name == row.Name }) {
					t.Errorf("registry row %s has MCP files but mcp wrap does not know the client", row.Name)
				}
			}
		}
	}
}
