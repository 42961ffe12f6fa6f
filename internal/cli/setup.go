package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/moatdev/moat/internal/atomicfile"
	"github.com/moatdev/moat/internal/discover"
	"github.com/moatdev/moat/internal/setup"
)

type setupOptions struct {
	all, uninstall, dryRun bool
	scope                  string
}

func newSetupCmd(a *app) *cobra.Command {
	var o setupOptions
	names := make([]string, len(setup.Agents))
	for i, ag := range setup.Agents {
		names[i] = string(ag.Agent)
	}
	cmd := &cobra.Command{
		Use:   "setup [AGENT...|--all] [--scope user|project] [--uninstall] [--dry-run]",
		Short: "Write moat's hooks into the agents' settings (or take them out)",
		Long: `Setup writes moat's hook entries, with the absolute path of this moat binary, into each
agent's settings file, so that the agent asks moat before every tool call.

Agents: ` + strings.Join(names, ", ") + `. Without AGENT, every agent that is
installed (its settings directory exists in your home) is set up; --all sets up all
of them.

--scope user (the default) edits the settings in your home; --scope project edits the
project's (.claude/settings.json, .cursor/hooks.json, .windsurf/hooks.json,
.gemini/settings.json, .codex/hooks.json under the repository root).

The files are edited in place: moat's entries are added where they are missing and
nothing else in the file changes. Running setup twice changes nothing. Before a file is
changed it is copied to FILE.moat-backup. --uninstall removes exactly moat's entries;
--dry-run shows the changes without making them.`,
		Example: `  moat setup                 # every installed agent, user settings
  moat setup claude-code codex --dry-run
  moat setup --all --scope project
  moat setup --uninstall claude-code`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.setup(o, args)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.all, "all", false, "set up every agent moat knows, installed or not")
	f.StringVar(&o.scope, "scope", string(setup.User), "whose settings to edit: user or project")
	f.BoolVar(&o.uninstall, "uninstall", false, "remove moat's hook entries instead of adding them")
	f.BoolVar(&o.dryRun, "dry-run", false, "show what would change, change nothing")
	return cmd
}

// setupTargets resolves which agents setup works on.
func (a *app) setupTargets(all bool, args []string, home string) ([]setup.Agent, error) {
	if all && len(args) > 0 {
		return nil, errors.New("give agent names or --all, not both")
	}
	var out []setup.Agent
	for _, name := range args {
		ag, ok := setup.ForAgent(name)
		if !ok {
			return nil, fmt.Errorf("unknown agent %q (moat sets up %s)", name, agentNames())
		}
		out = append(out, ag)
	}
	if len(args) > 0 {
		return out, nil
	}
	for _, ag := range setup.Agents {
		if all || isDir(filepath.Join(home, ag.ConfigDir)) {
			out = append(out, ag)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no agent found in %s (looked for %s); name the agents to set up, or use --all", home, agentDirs())
	}
	return out, nil
}

func (a *app) setup(o setupOptions, args []string) error {
	scope := setup.Scope(o.scope)
	if scope != setup.User && scope != setup.Project {
		return &exitCode{code: exitError, err: fmt.Errorf("--scope must be user or project, not %q", o.scope)}
	}
	home := a.env.Getenv("HOME")
	if home == "" {
		return &exitCode{code: exitError, err: errors.New("HOME is not set")}
	}
	targets, err := a.setupTargets(o.all, args, home)
	if err != nil {
		return &exitCode{code: exitError, err: err}
	}
	moat, err := a.moatPath()
	if err != nil {
		return &exitCode{code: exitError, err: err}
	}
	project := ""
	if scope == setup.Project {
		cwd, err := a.cwd()
		if err != nil {
			return err
		}
		project = discover.RepoRoot(cwd)
		if project == "" {
			project = cwd
		}
	}
	w := a.env.Stdout
	failed := false
	for _, ag := range targets {
		file := ag.File(scope, home, project)
		if real, err := filepath.EvalSymlinks(file); err == nil {
			// A settings file kept elsewhere and linked (dotfiles) is edited where it
			// is, and the link stays a link.
			file = real
		}
		old, err := os.ReadFile(file)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(a.env.Stderr, "moat: %s: %v\n", ag.Agent, err)
			failed = true
			continue
		}
		exists := err == nil
		var text string
		var events []string
		if o.uninstall {
			if !exists {
				fmt.Fprintf(w, "%s: %s does not exist; nothing to remove\n", ag.Agent, file)
				continue
			}
			text, events, err = ag.Uninstall(string(old))
		} else {
			text, events, err = ag.Install(string(old), moat)
		}
		if err != nil {
			fmt.Fprintf(a.env.Stderr, "moat: %s: cannot edit %s: %v; it was left as it is\n", ag.Agent, file, err)
			failed = true
			continue
		}
		if text == string(old) {
			state := "moat's hooks are already in"
			if o.uninstall {
				state = "no moat hooks in"
			}
			fmt.Fprintf(w, "%s: %s %s\n", ag.Agent, state, file)
			continue
		}
		verb := "added moat's hooks for " + strings.Join(events, ", ") + " to"
		if o.uninstall {
			verb = "removed moat's hooks for " + strings.Join(events, ", ") + " from"
		}
		if o.dryRun {
			would := "would add moat's hooks for " + strings.Join(events, ", ") + " to"
			if o.uninstall {
				would = "would remove moat's hooks for " + strings.Join(events, ", ") + " from"
			}
			fmt.Fprintf(w, "%s: %s %s:\n%s", ag.Agent, would, file, lineDiff(string(old), text))
			continue
		}
		if exists {
			if err := atomicfile.WriteFile(file+".moat-backup", old, 0o600); err != nil {
				fmt.Fprintf(a.env.Stderr, "moat: %s: cannot back up %s: %v; it was left as it is\n", ag.Agent, file, err)
				failed = true
				continue
			}
		}
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			fmt.Fprintf(a.env.Stderr, "moat: %s: %v\n", ag.Agent, err)
			failed = true
			continue
		}
		perm := fs.FileMode(0o644)
		if st, err := os.Stat(file); err == nil {
			perm = st.Mode().Perm()
		}
		if err := atomicfile.WriteFile(file, []byte(text), perm); err != nil {
			fmt.Fprintf(a.env.Stderr, "moat: %s: cannot write %s: %v\n", ag.Agent, file, err)
			failed = true
			continue
		}
		fmt.Fprintf(w, "%s: %s %s\n", ag.Agent, verb, file)
		if ag.Note != "" && !o.uninstall {
			fmt.Fprintf(w, "%s: %s\n", ag.Agent, ag.Note)
		}
	}
	if failed {
		return &exitCode{code: exitError}
	}
	return nil
}

// moatPath is the absolute path of the running binary, links resolved, as hooks must
// name it: agents run hooks without the user's PATH.
func (a *app) moatPath() (string, error) {
	exe, err := a.env.Executable()
	if err != nil {
		return "", fmt.Errorf("finding the moat binary: %w", err)
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	return filepath.Abs(exe)
}

func newStatusCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status [--json]",
		Short: "Show, per agent, whether moat's hooks are installed and which policy applies",
		Long: `Status shows, for every agent moat knows: whether it is installed, whether moat's hook
is in its user and project settings for each event moat uses, and which policy moat
applies in the current directory.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.status(asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the status as JSON")
	return cmd
}

type agentStatus struct {
	Agent     string           `json:"agent"`
	Installed bool             `json:"installed"`
	Files     []settingsStatus `json:"settings"`
}

type settingsStatus struct {
	Scope  string          `json:"scope"`
	Path   string          `json:"path"`
	Exists bool            `json:"exists"`
	Hooks  map[string]bool `json:"hooks"`
	Error  string          `json:"error,omitempty"`
}

func (a *app) status(asJSON bool) error {
	home := a.env.Getenv("HOME")
	cwd, err := a.cwd()
	if err != nil {
		return err
	}
	project := discover.RepoRoot(cwd)
	var agents []agentStatus
	for _, ag := range setup.Agents {
		st := agentStatus{Agent: string(ag.Agent), Installed: isDir(filepath.Join(home, ag.ConfigDir))}
		scopes := []setup.Scope{setup.User}
		if project != "" {
			scopes = append(scopes, setup.Project)
		}
		for _, sc := range scopes {
			file := ag.File(sc, home, project)
			fs := settingsStatus{Scope: string(sc), Path: file, Hooks: map[string]bool{}}
			for _, ev := range ag.Events {
				fs.Hooks[ev] = false
			}
			if data, err := os.ReadFile(file); err == nil {
				fs.Exists = true
				got, err := ag.Installed(string(data))
				if err != nil {
					fs.Error = err.Error()
				}
				for ev := range got {
					fs.Hooks[ev] = true
				}
			}
			st.Files = append(st.Files, fs)
		}
		agents = append(agents, st)
	}
	policy := "unknown"
	if l, err := a.load("", cwd); err == nil {
		policy = l.source.Name
	} else {
		policy = "invalid: " + err.Error()
	}
	if asJSON {
		data, err := json.MarshalIndent(struct {
			Policy string        `json:"policy"`
			Agents []agentStatus `json:"agents"`
		}{policy, agents}, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(a.env.Stdout, "%s\n", data)
		return err
	}
	w := a.env.Stdout
	fmt.Fprintf(w, "policy in %s: %s\n\n", cwd, policy)
	for i, st := range agents {
		installed := "not installed"
		if st.Installed {
			installed = "installed"
		}
		fmt.Fprintf(w, "%s (%s)\n", st.Agent, installed)
		for _, f := range st.Files {
			switch {
			case !f.Exists:
				fmt.Fprintf(w, "  %-7s %s: no settings file\n", f.Scope, f.Path)
			case f.Error != "":
				fmt.Fprintf(w, "  %-7s %s: cannot be read: %s\n", f.Scope, f.Path, f.Error)
			default:
				var on, off []string
				for _, ev := range setup.Agents[i].Events {
					if f.Hooks[ev] {
						on = append(on, ev)
					} else {
						off = append(off, ev)
					}
				}
				line := "moat hooks: " + strings.Join(on, ", ")
				if len(on) == 0 {
					line = "no moat hooks"
				}
				if len(on) > 0 && len(off) > 0 {
					line += " (missing: " + strings.Join(off, ", ") + ")"
				}
				fmt.Fprintf(w, "  %-7s %s: %s\n", f.Scope, f.Path, line)
			}
		}
	}
	return nil
}

func agentNames() string {
	names := make([]string, len(setup.Agents))
	for i, ag := range setup.Agents {
		names[i] = string(ag.Agent)
	}
	return strings.Join(names, ", ")
}

func agentDirs() string {
	dirs := make([]string, len(setup.Agents))
	for i, ag := range setup.Agents {
		dirs[i] = "~/" + ag.ConfigDir
	}
	return strings.Join(dirs, ", ")
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// lineDiff shows, line by line, what turns old into new: lines only in old with "-",
// lines only in new with "+", a few lines of context around each change.
func lineDiff(old, new string) string {
	a, b := strings.Split(old, "\n"), strings.Split(new, "\n")
	// Longest common subsequence by dynamic programming: settings files are small.
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out strings.Builder
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			fmt.Fprintf(&out, "  %s\n", a[i])
			i++
			j++
		case j < len(b) && (i == len(a) || lcs[i][j+1] > lcs[i+1][j]):
			fmt.Fprintf(&out, "+ %s\n", b[j])
			j++
		default:
			fmt.Fprintf(&out, "- %s\n", a[i])
			i++
		}
	}
	return out.String()
}
