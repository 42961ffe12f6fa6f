package doctor

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/moatdev/moat/internal/mcpconfig"
	"github.com/moatdev/moat/internal/selfguard"
	"github.com/moatdev/moat/internal/setup"
)

// checkHooks reports, for every agent moat can set up, whether moat's hooks are in its
// settings (the user's and the project's) for every event moat uses, and whether the
// moat they run exists.
func checkHooks(in Inputs) []Finding {
	var out []Finding
	for _, ag := range setup.Agents {
		out = append(out, checkAgent(in, ag))
	}
	if f, ok := checkOldBackups(in); ok {
		out = append(out, f)
	}
	return out
}

// checkOldBackups finds the backups earlier versions of setup left beside a project's
// settings files, in the repository, where they may be committed with this machine's
// path to moat. Setup now keeps them in the state directory.
func checkOldBackups(in Inputs) (Finding, bool) {
	if in.Project == "" {
		return Finding{}, false
	}
	var found []string
	for _, ag := range setup.Agents {
		old := ag.File(setup.Project, in.Dirs.Home, in.Project) + ".moat-backup"
		if exists(old) && !slices.Contains(found, old) {
			found = append(found, old)
		}
	}
	if len(found) == 0 {
		return Finding{}, false
	}
	quoted := make([]string, len(found))
	for i, p := range found {
		quoted[i] = shellQuote(p)
	}
	return Finding{
		ID:      "setup.backups",
		Status:  Warn,
		Message: fmt.Sprintf("backups of settings files lie in the repository %s, where they may be committed: %s (moat setup now keeps its backups in %s)", in.Project, strings.Join(found, ", "), filepath.Join(in.Dirs.State, "backups")),
		Fix:     "rm " + strings.Join(quoted, " "),
	}, true
}

func checkAgent(in Inputs, ag setup.Agent) Finding {
	name := string(ag.Agent)
	f := Finding{ID: "hooks." + name}
	installed := isDir(filepath.Join(in.Dirs.Home, ag.ConfigDir()))
	files := []string{ag.File(setup.User, in.Dirs.Home, "")}
	if in.Project != "" {
		files = append(files, ag.File(setup.Project, in.Dirs.Home, in.Project))
	}
	covered := map[string]bool{}
	var commands []string
	var where, untrusted []string
	portable := false
	for _, file := range files {
		data, err := os.ReadFile(file)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			f.Status, f.Message = Fail, fmt.Sprintf("cannot read %s: %v", file, err)
			f.Fix = "make the file readable, then run `moat setup " + name + "`"
			return f
		}
		got, err := ag.Installed(string(data))
		if err != nil {
			f.Status, f.Message = Fail, fmt.Sprintf("%s cannot be read as settings (%v), so %s may ignore it, moat's hooks with it", file, err, name)
			f.Fix = "repair the file, then run `moat setup " + name + "`"
			return f
		}
		if len(got) > 0 {
			where = append(where, file)
		}
		for ev := range got {
			covered[ev] = true
		}
		commands = append(commands, hookBinaries(string(data), name)...)
		portable = portable || hasPortableHook(string(data), name)
		if len(got) > 0 && ag.TrustFile() != "" {
			bad, err := untrustedHooks(in, ag, file, string(data))
			if err != nil {
				f.Status, f.Message = Fail, fmt.Sprintf("cannot tell whether %s trusts moat's hooks in %s: %v", name, file, oneLine(err.Error()))
				f.Fix = "moat setup " + name + scopeFlag(in, file)
				return f
			}
			for _, ev := range bad {
				untrusted = append(untrusted, fmt.Sprintf("%s in %s", ev, file))
			}
			if len(bad) > 0 && f.Fix == "" {
				f.Fix = "moat setup " + name + scopeFlag(in, file) + "   # records the trust, as " + name + "'s /hooks review does"
			}
		}
	}
	var missing []string
	for _, ev := range ag.Events {
		if !covered[ev] {
			missing = append(missing, ev)
		}
	}
	switch {
	case !installed && len(covered) == 0:
		f.Status, f.Message = OK, fmt.Sprintf("%s is not installed (no ~/%s)", name, ag.ConfigDir())
		return f
	case len(covered) == 0:
		f.Status = Fail
		f.Message = fmt.Sprintf("%s is installed, but moat's hooks are not in %s: its tool calls are not checked", name, strings.Join(files, " or "))
		f.Fix = "moat setup " + name
		return f
	case len(missing) > 0:
		f.Status = Fail
		f.Message = fmt.Sprintf("moat's hooks for %s are missing for %s in %s", name, strings.Join(missing, ", "), strings.Join(where, " and "))
		f.Fix = "moat setup " + name
		return f
	}
	if len(untrusted) > 0 {
		// The agent skips an untrusted hook without a word: nothing is checked.
		f.Status = Fail
		f.Message = fmt.Sprintf("moat's hooks for %s are installed but not trusted: %s will not run them (%s)", name, name, strings.Join(untrusted, "; "))
		return f
	}
	f.Fix = ""
	if portable && !onPath(in, setup.PortableCommand) {
		f.Status = Fail
		f.Message = fmt.Sprintf("the project's hooks for %s run `moat hook %s`, the moat on PATH, but there is none on PATH: the hook fails on every call", name, name)
		f.Fix = fmt.Sprintf("ln -s %s ~/.local/bin/moat   # or add %s to the PATH %s starts with", shellQuote(in.Executable), shellQuote(dirOf(in.Executable)), name)
		return f
	}
	// The hooks name moat by its absolute path: one that has moved or gone makes the
	// agent's hook fail, which most agents treat as no objection.
	slices.Sort(commands)
	commands = slices.Compact(commands)
	for _, bin := range commands {
		switch {
		case !isExecutable(bin):
			f.Status = Fail
			f.Message = fmt.Sprintf("moat's hooks for %s run %s, which is not an executable file: the hook fails on every call, and %s carries on regardless", name, bin, name)
			f.Fix = fmt.Sprintf("moat setup --uninstall %s && moat setup %s", name, name)
			return f
		case setup.IsClient(bin) && !clientOf(bin, in.Executable):
			f.Status = Warn
			f.Message = fmt.Sprintf("moat's hooks for %s run %s, not the hook client of this moat (%s)", name, bin, selfguard.ClientPath(in.Executable))
			f.Fix = fmt.Sprintf("moat setup %s   # with the moat you want the hooks to run", name)
			return f
		case !setup.IsClient(bin) && !sameFile(resolve(bin), in.Executable):
			f.Status = Warn
			f.Message = fmt.Sprintf("moat's hooks for %s run %s, not this moat (%s)", name, bin, in.Executable)
			f.Fix = fmt.Sprintf("moat setup --uninstall %s && moat setup %s   # with the moat you want the hooks to run", name, name)
			return f
		}
	}
	f.Status = OK
	f.Message = fmt.Sprintf("moat's hooks for %s are in %s for %s", name, strings.Join(where, " and "), strings.Join(ag.Events, ", "))
	if ag.TrustFile() != "" {
		f.Message += ", and " + name + " trusts them"
	}
	return f
}

// clientOf reports whether the hook client at client is that of the moat at exe: the
// file beside exe, or a client beside a file that is exe (a link or another name of it).
func clientOf(client, exe string) bool {
	client = resolve(client)
	if sameFile(client, selfguard.ClientPath(exe)) {
		return true
	}
	moat := filepath.Join(filepath.Dir(client), "moat"+strings.TrimPrefix(filepath.Base(client), selfguard.HookClient))
	return sameFile(moat, exe)
}

// untrustedHooks returns the events whose moat hook in file (with text) the agent will
// not run, each with why when it is not simply untrusted.
func untrustedHooks(in Inputs, ag setup.Agent, file, text string) ([]string, error) {
	cfg, err := os.ReadFile(filepath.Join(in.Dirs.Home, ag.TrustFile()))
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	trust, err := ag.HookTrust(file, text, string(cfg))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, ev := range ag.Events {
		switch t, ok := trust[ev]; {
		case !ok || t == setup.Trusted:
		case t == setup.Untrusted:
			out = append(out, ev)
		default:
			out = append(out, fmt.Sprintf("%s: %s", ev, t))
		}
	}
	return out, nil
}

func onPath(in Inputs, name string) bool {
	_, err := in.LookPath(name)
	return err == nil
}

// scopeFlag is the setup flag that edits file: --scope project for the project's.
func scopeFlag(in Inputs, file string) string {
	if in.Project != "" && strings.HasPrefix(file, in.Project+string(filepath.Separator)) {
		return " --scope project"
	}
	return ""
}

// hasPortableHook reports whether text holds a moat hook of the agent that names moat
// without a path, as project-scope setup writes it, for the agent to find on PATH.
func hasPortableHook(text, agent string) bool {
	return strings.Contains(text, `"`+setup.PortableCommand+" hook "+agent+`"`)
}

// hookBinaries returns the programs with an absolute path that the agent's moat hooks
// in text run: moat binaries, or hook clients (see setup.Agent.Command).
func hookBinaries(text, agent string) []string {
	ag, ok := setup.ForAgent(agent)
	if !ok {
		return nil
	}
	programs, err := ag.HookPrograms(text)
	if err != nil {
		return nil
	}
	var out []string
	for _, p := range programs {
		if filepath.IsAbs(p) {
			out = append(out, p)
		}
	}
	return out
}

// checkMCP reports, for every MCP configuration file that exists, which of its servers
// run through moat's proxy.
func checkMCP(in Inputs) []Finding {
	moat := in.Executable
	if base := strings.ToLower(filepath.Base(moat)); base != "moat" && base != "moat.exe" {
		moat = "/usr/local/bin/moat" // Wrap wants a path named moat; nothing is written
	}
	var out []Finding
	for _, c := range mcpconfig.Clients {
		for _, file := range c.Files(in.Dirs.Home, in.Project, in.GOOS) {
			data, err := os.ReadFile(file)
			if os.IsNotExist(err) {
				continue
			}
			scope := "user"
			if in.Project != "" && strings.HasPrefix(file, in.Project+string(filepath.Separator)) {
				scope = "project"
			}
			f := Finding{ID: "mcp." + c.Name + "." + scope}
			if err != nil {
				f.Status, f.Message = Warn, fmt.Sprintf("cannot read %s: %v", file, err)
				out = append(out, f)
				continue
			}
			_, changes, err := c.Wrap(string(data), moat, mcpconfig.Options{DryRun: true})
			if err != nil {
				f.Status, f.Message = Warn, fmt.Sprintf("cannot read the MCP servers of %s: %v", file, oneLine(err.Error()))
				out = append(out, f)
				continue
			}
			var gone []string
			for _, bin := range moatPaths(string(data)) {
				if !isExecutable(bin) && !slices.Contains(gone, bin) {
					gone = append(gone, bin)
				}
			}
			out = append(out, mcpFinding(f, c.Name, file, changes, gone))
		}
	}
	return out
}

// moatPathRE finds the quoted strings of a JSON or TOML file that name a moat binary.
var moatPathRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`"((?:[^"\\\n]|\\.)*[/\\]moat(?:\.exe)?)"`)
})

// moatPaths returns the absolute paths of moat binaries that text names, as the
// commands of wrapped MCP servers.
func moatPaths(text string) []string {
	var out []string
	for _, m := range moatPathRE().FindAllStringSubmatch(text, -1) {
		var p string
		if err := json.Unmarshal([]byte(`"`+m[1]+`"`), &p); err == nil && filepath.IsAbs(p) {
			out = append(out, p)
		}
	}
	return out
}

// mcpFinding sums up one MCP configuration file: the changes Wrap would make to it, and
// the moat binaries its wrapped servers run that are gone.
func mcpFinding(f Finding, client, file string, changes []mcpconfig.Change, gone []string) Finding {
	var wrapped, bare, skipped []string
	for _, ch := range changes {
		switch {
		case ch.Already:
			wrapped = append(wrapped, ch.Server)
		case ch.Skipped:
			skipped = append(skipped, fmt.Sprintf("%s (%s)", ch.Server, ch.Reason))
		default:
			bare = append(bare, ch.Server)
		}
	}
	switch {
	case len(changes) == 0:
		f.Status, f.Message = OK, fmt.Sprintf("%s configures no MCP server", file)
	case len(wrapped) > 0 && len(gone) > 0:
		f.Status = Warn
		f.Message = fmt.Sprintf("MCP servers in %s run through %s, which is not an executable file: the agent cannot start them", file, strings.Join(gone, ", "))
		f.Fix = fmt.Sprintf("moat mcp unwrap --agent %s && moat mcp wrap --agent %s", client, client)
	case len(bare) > 0:
		f.Status = Warn
		f.Message = fmt.Sprintf("%d of the %d MCP servers in %s do not run through moat's proxy: %s", len(bare), len(changes), file, strings.Join(bare, ", "))
		f.Fix = "moat mcp wrap --agent " + client
	case len(skipped) > 0:
		f.Status = Warn
		f.Message = fmt.Sprintf("%d of the %d MCP servers in %s cannot be wrapped by moat: %s", len(skipped), len(changes), file, strings.Join(skipped, "; "))
		f.Fix = "see `moat mcp wrap --help`"
	default:
		f.Status, f.Message = OK, fmt.Sprintf("the %d MCP servers in %s run through moat's proxy", len(wrapped), file)
	}
	return f
}
