package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/moatdev/moat/internal/atomicfile"
	"github.com/moatdev/moat/internal/bundle"
	"github.com/moatdev/moat/internal/didyoumean"
	"github.com/moatdev/moat/internal/policy/source"
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
		Long: `Setup writes moat's hook entries into each agent's settings file, so that the agent asks
moat before every tool call.

Agents: ` + strings.Join(names, ", ") + `. Without AGENT, every agent that is
installed (its settings directory exists in your home) is set up; --all sets up all
of them.

--scope user (the default) edits the settings in your home, and the hooks name this
moat by its absolute path: agents run hooks with the PATH they were started with, which
for an editor started from a desktop need not hold the directory moat is in.
--scope project edits the project's (.claude/settings.json, .cursor/hooks.json,
.windsurf/hooks.json, .gemini/settings.json, .codex/hooks.json under the repository
root), which the team shares: there the hooks run "moat hook AGENT", the moat on the
PATH of whoever runs the agent, never this machine's path.

Codex runs only the hooks its user has trusted (its /hooks review). For the hooks it
writes, setup records that trust in ~/.codex/config.toml as the review does
([hooks.state."FILE:EVENT:I:J"] trusted_hash = ...), and --uninstall removes it.

The files are edited in place: moat's entries are added where they are missing, hooks
that run another moat are made to run this one, and nothing else in the file changes.
Running setup twice changes nothing. Before a file is changed it is copied to moat's
state directory, under backups/ at the file's own absolute path plus .moat-backup
(e.g. ~/.local/state/moat/backups/home/you/.claude/settings.json.moat-backup), never next
to the file. --uninstall removes exactly moat's entries; --dry-run shows the changes
without making them.`,
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
		return nil, usageError(errors.New("give agent names or --all, not both"))
	}
	var out []setup.Agent
	for _, name := range args {
		ag, ok := setup.ForAgent(name)
		if !ok {
			return nil, usageError(fmt.Errorf("unknown agent %q%s (moat sets up %s)", name, didyoumean.Hint(name, strings.Split(agentNames(), ", ")), agentNames()))
		}
		out = append(out, ag)
	}
	if len(args) > 0 {
		return out, nil
	}
	for _, ag := range setup.Agents {
		if all || isDir(filepath.Join(home, ag.ConfigDir())) {
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
		return usageError(fmt.Errorf("--scope must be user or project, not %q", o.scope))
	}
	home := a.env.Getenv("HOME")
	if home == "" {
		return &exitCode{code: exitError, err: errors.New("HOME is not set")}
	}
	d, err := a.dirs()
	if err != nil {
		return &exitCode{code: exitError, err: err}
	}
	targets, err := a.setupTargets(o.all, args, home)
	if err != nil {
		return err // a usage error, or an error (markErrors)
	}
	moat, err := a.moatPath()
	if err != nil {
		return &exitCode{code: exitError, err: err}
	}
	// The user's hooks run the hook client when it was installed beside moat.
	moat = setup.HookProgram(moat)
	project := ""
	if scope == setup.Project {
		cwd, err := a.cwd()
		if err != nil {
			return err
		}
		project = source.RepoRoot(cwd)
		if project == "" {
			project = cwd
		}
		// The project's settings are shared: they name moat, not this machine's path
		// to it.
		moat = setup.PortableCommand
		if !o.uninstall {
			fmt.Fprintf(a.env.Stdout, "project scope: the hooks run `%s hook AGENT`, the moat on the PATH of whoever runs the agent; everyone who works on %s needs moat on PATH\n", moat, project)
		}
	}
	e := setupEdit{a: a, o: o, state: d.State}
	failed := false
	for _, ag := range targets {
		if err := e.agent(ag, ag.File(scope, home, project), filepath.Join(home, ag.TrustFile()), moat); err != nil {
			fmt.Fprintf(a.env.Stderr, "moat: %s: %v\n", ag.Agent, err)
			failed = true
		}
	}
	if failed {
		return &exitCode{code: exitError}
	}
	return nil
}

// setupEdit edits the agents' settings for one run of setup.
type setupEdit struct {
	a     *app
	o     setupOptions
	state string // moat's state directory, where the backups go
}

// agent installs or removes moat's hooks in the agent's settings file, and for agents
// that run only trusted hooks, records or removes the trust in them too. file is the
// settings file as the agent names it; trustFile is where the agent records trust.
func (e setupEdit) agent(ag setup.Agent, file, trustFile, moat string) error {
	w := e.a.env.Stdout
	old, exists, err := readSettings(file)
	if err != nil {
		return err
	}
	var text, retargeted string
	var events []string
	switch {
	case e.o.uninstall && !exists:
		fmt.Fprintf(w, "%s: %s does not exist; nothing to remove\n", ag.Agent, file)
	case e.o.uninstall:
		text, events, err = ag.Uninstall(old)
	default:
		var moved []string
		text, events, err = ag.Install(old, moat)
		if err == nil {
			text, moved, err = ag.Retarget(text, moat)
		}
		moved = slices.DeleteFunc(moved, func(ev string) bool { return slices.Contains(events, ev) })
		if len(moved) > 0 {
			retargeted = fmt.Sprintf("made moat's hooks for %s run %s", strings.Join(moved, ", "), ag.Command(moat))
		}
	}
	if err != nil {
		return fmt.Errorf("cannot edit %s: %w; it was left as it is", file, err)
	}
	if exists || !e.o.uninstall {
		if err := e.write(ag, file, old, text, exists, events, retargeted); err != nil {
			return err
		}
	}
	if ag.TrustFile() == "" {
		return nil
	}
	if err := e.trust(ag, file, trustFile, old, text); err != nil {
		if e.o.uninstall {
			return err
		}
		return fmt.Errorf("%w\n  %s will not run moat's hooks until you trust them: start %s, type /hooks and trust the hooks that run `moat hook %s`", err, ag.Agent, ag.Agent, ag.Agent)
	}
	return nil
}

// write replaces file's text old with text, saying what changed, after copying old to
// the backup directory. With --dry-run it shows the change instead.
func (e setupEdit) write(ag setup.Agent, file, old, text string, exists bool, events []string, retargeted string) error {
	w := e.a.env.Stdout
	if text == old {
		state := "moat's hooks are already in"
		if e.o.uninstall {
			state = "no moat hooks in"
		}
		fmt.Fprintf(w, "%s: %s %s\n", ag.Agent, state, file)
		return nil
	}
	var did, would []string
	switch {
	case e.o.uninstall:
		did = append(did, "removed moat's hooks for "+strings.Join(events, ", ")+" from")
		would = append(would, "would remove moat's hooks for "+strings.Join(events, ", ")+" from")
	case len(events) > 0:
		did = append(did, "added moat's hooks for "+strings.Join(events, ", ")+" to")
		would = append(would, "would add moat's hooks for "+strings.Join(events, ", ")+" to")
	}
	if retargeted != "" {
		did = append(did, retargeted+" in")
		would = append(would, "would have "+retargeted+" in")
	}
	if e.o.dryRun {
		fmt.Fprintf(w, "%s: %s %s:\n%s", ag.Agent, strings.Join(would, "; "), file, proposedDiff(file, old, text))
		return nil
	}
	if err := e.replace(file, old, text, exists); err != nil {
		return err
	}
	fmt.Fprintf(w, "%s: %s %s\n", ag.Agent, strings.Join(did, "; "), file)
	if ag.Note != "" && !e.o.uninstall {
		fmt.Fprintf(w, "%s: %s\n", ag.Agent, ag.Note)
	}
	return nil
}

// trust records, in trustFile, the agent's trust in moat's hooks of hooksFile (whose
// text was old and is now text), or on --uninstall removes the records of the hooks it
// removed.
func (e setupEdit) trust(ag setup.Agent, hooksFile, trustFile, old, text string) error {
	w := e.a.env.Stdout
	cfg, exists, err := readSettings(trustFile)
	if err != nil {
		return err
	}
	var out string
	if e.o.uninstall {
		hooks, err := setup.CodexHooks(hooksFile, old)
		if err != nil {
			return fmt.Errorf("cannot read the hooks of %s: %w", hooksFile, err)
		}
		keys := make([]string, len(hooks))
		for i, h := range hooks {
			keys[i] = h.Key
		}
		out, err = setup.RemoveCodexTrust(cfg, keys)
		if err != nil {
			return fmt.Errorf("cannot edit %s: %w; it was left as it is", trustFile, err)
		}
	} else {
		hooks, err := setup.CodexHooks(hooksFile, text)
		if err != nil {
			return fmt.Errorf("cannot read the hooks of %s: %w", hooksFile, err)
		}
		out, err = setup.RecordCodexTrust(cfg, hooks)
		if err != nil {
			return fmt.Errorf("cannot record %s's trust in moat's hooks in %s: %w; it was left as it is", ag.Agent, trustFile, err)
		}
	}
	switch {
	case out == cfg && e.o.uninstall:
		return nil
	case out == cfg:
		fmt.Fprintf(w, "%s: %s already trusts moat's hooks (%s)\n", ag.Agent, ag.Agent, trustFile)
		return nil
	case e.o.dryRun:
		fmt.Fprintf(w, "%s: would have changed %s's trust in moat's hooks in %s:\n%s", ag.Agent, ag.Agent, trustFile, proposedDiff(trustFile, cfg, out))
		return nil
	}
	if e.o.uninstall && strings.TrimSpace(out) == "" {
		// Nothing but moat's trust was in the file, which setup created: it goes, which
		// to Codex is the same as empty.
		out = ""
	}
	if err := e.replace(trustFile, cfg, out, exists); err != nil {
		return err
	}
	if out == "" {
		if err := os.Remove(trustFile); err != nil {
			return err
		}
	}
	if e.o.uninstall {
		fmt.Fprintf(w, "%s: removed %s's trust in moat's hooks from %s\n", ag.Agent, ag.Agent, trustFile)
	} else {
		fmt.Fprintf(w, "%s: recorded %s's trust in moat's hooks in %s, as its /hooks review does (it runs no hook it does not trust)\n", ag.Agent, ag.Agent, trustFile)
	}
	if !e.o.uninstall && filepath.Dir(filepath.Dir(hooksFile)) != filepath.Dir(filepath.Dir(trustFile)) {
		fmt.Fprintf(w, "%s: %s reads %s only in a project you trust in %s\n", ag.Agent, ag.Agent, hooksFile, ag.Agent)
	}
	return nil
}

// readSettings reads a settings file; one that does not exist reads as empty. A file
// kept elsewhere and linked (dotfiles) is read where it is.
func readSettings(file string) (text string, exists bool, err error) {
	data, err := os.ReadFile(file)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", false, nil
	case err != nil:
		return "", false, err
	}
	return string(data), true, nil
}

// replace writes text to file, whose text was old, after copying old to the backup
// directory. A file kept elsewhere and linked is written where it is, and the link
// stays a link.
func (e setupEdit) replace(file, old, text string, exists bool) error {
	if real, err := filepath.EvalSymlinks(file); err == nil {
		file = real
	}
	if exists {
		backup := setup.BackupPath(e.state, file)
		if err := os.MkdirAll(filepath.Dir(backup), 0o700); err != nil {
			return fmt.Errorf("cannot back up %s: %w; it was left as it is", file, err)
		}
		if err := atomicfile.WriteFile(backup, []byte(old), 0o600); err != nil {
			return fmt.Errorf("cannot back up %s: %w; it was left as it is", file, err)
		}
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	perm := fs.FileMode(0o644)
	if st, err := os.Stat(file); err == nil {
		perm = st.Mode().Perm()
	}
	if err := atomicfile.WriteFile(file, []byte(text), perm); err != nil {
		return fmt.Errorf("cannot write %s: %w", file, err)
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
	// Trust says, for agents that run only hooks their user trusted (Codex), per event,
	// whether the agent runs moat's hook: trusted, untrusted, modified or disabled.
	Trust map[string]setup.Trust `json:"trust,omitempty"`
	Error string                 `json:"error,omitempty"`
}

func (a *app) status(asJSON bool) error {
	home := a.env.Getenv("HOME")
	cwd, err := a.cwd()
	if err != nil {
		return err
	}
	project := source.RepoRoot(cwd)
	var agents []agentStatus
	for _, ag := range setup.Agents {
		st := agentStatus{Agent: string(ag.Agent), Installed: isDir(filepath.Join(home, ag.ConfigDir()))}
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
				if ag.TrustFile() != "" && err == nil {
					cfg, _, rerr := readSettings(filepath.Join(home, ag.TrustFile()))
					if rerr == nil {
						fs.Trust, rerr = ag.HookTrust(file, string(data), cfg)
					}
					if rerr != nil {
						fs.Error = rerr.Error()
					}
				}
			}
			st.Files = append(st.Files, fs)
		}
		agents = append(agents, st)
	}
	policy, notes := a.statusPolicy(cwd)
	trail := a.statusAudit()
	bundleSt, bundleErr := a.statusBundle()
	if bundleErr != nil {
		notes = append(notes, bundleErr.Error())
	}
	if asJSON {
		data, err := json.MarshalIndent(struct {
			Policy       string         `json:"policy"`
			PolicyNotes  []string       `json:"policy_notes,omitempty"`
			PolicyBundle *bundle.Status `json:"policy_bundle,omitempty"`
			Agents       []agentStatus  `json:"agents"`
			Audit        auditStatus    `json:"audit"`
		}{policy, notes, bundleSt, agents, trail}, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(a.env.Stdout, "%s\n", data)
		return err
	}
	w := a.env.Stdout
	fmt.Fprintf(w, "policy in %s: %s\n", cwd, policy)
	for _, n := range notes {
		fmt.Fprintf(w, "  %s\n", n)
	}
	if bundleSt != nil {
		writeBundleLines(w, "  ", *bundleSt)
	}
	fmt.Fprintln(w)
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
				if untrusted := untrustedEvents(f.Trust); len(untrusted) > 0 {
					line += "; installed but not trusted (" + strings.Join(untrusted, ", ") + "): " + st.Agent + " will not run it; run `moat setup " + st.Agent + "`"
				} else if len(f.Trust) > 0 {
					line += "; trusted by " + st.Agent
				}
				fmt.Fprintf(w, "  %-7s %s: %s\n", f.Scope, f.Path, line)
			}
		}
	}
	fmt.Fprintf(w, "\n%s\n", trail.statusLine())
	return nil
}

// statusPolicy names the policy the hooks apply in cwd, or why none can be loaded (a
// failure every hook answers closed), and notes about the project policies whose current
// content is not in force.
func (a *app) statusPolicy(cwd string) (string, []string) {
	src, d, err := a.findPolicyWarn("", cwd, "", func(string) {})
	var l *loaded
	if err == nil {
		l, err = a.compile(src, d)
	}
	if err != nil {
		return "invalid: " + err.Error() + " (the hooks fail closed)", nil
	}
	var notes []string
	for _, sk := range src.Skipped {
		notes = append(notes, sk.Why)
	}
	notes = append(notes, layerNotes(src, l)...)
	return src.Name, notes
}

// layerNotes says which policies decide together with src, and which of their settings
// the managed policy locks.
func layerNotes(src source.Source, l *loaded) []string {
	var notes []string
	for _, layer := range l.policy.Layers {
		if layer.Policy.Source != src.Name {
			notes = append(notes, fmt.Sprintf("decides together with the %s policy %s (the strictest decision stands)", layer.Kind, layer.Policy.Source))
		}
	}
	for _, o := range l.compiled.Overrides {
		notes = append(notes, o.String())
	}
	return notes
}

// untrustedEvents lists, sorted, the events whose moat hook the agent will not run, with
// why when it is not simply untrusted.
func untrustedEvents(trust map[string]setup.Trust) []string {
	var out []string
	for ev, t := range trust {
		switch t {
		case setup.Trusted:
		case setup.Untrusted:
			out = append(out, ev)
		default:
			out = append(out, ev+" "+string(t))
		}
	}
	slices.Sort(out)
	return out
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
		dirs[i] = "~/" + ag.ConfigDir()
	}
	return strings.Join(dirs, ", ")
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
