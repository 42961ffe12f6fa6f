// Package setup writes moat's hooks into the agents' settings files and takes them out
// again, editing the files as text so that nothing else in them changes.
package setup

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/moatdev/moat/internal/agent"
	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/selfguard"
	"github.com/moatdev/moat/internal/textedit"
)

// Scope says whose settings are edited: the user's, or one project's.
type Scope string

const (
	User    Scope = "user"
	Project Scope = "project"
)

// Agent describes what moat writes into an agent's hook settings. Where the settings
// are is the agent registry's (internal/agent), which the $agent-config path set is made
// from too: a file setup edits is a file self-protection guards.
type Agent struct {
	Agent call.Agent
	// Events are the hook events moat registers for.
	Events []string
	// entry returns moat's entry for an event, as JSON text.
	entry func(command, event string) string
	// created are the members a settings file moat creates starts with (Cursor's
	// "version": 1), as JSON text by key.
	created [][2]string
	// Note is said to the user after installing.
	Note string
}

// row returns the agent's row of the registry. Every agent setup knows has one: a test
// walks them.
func (a Agent) row() agent.Agent {
	r, _ := agent.Lookup(string(a.Agent))
	return r
}

// ConfigDir is the directory, under the home and slash separated, whose presence says
// the agent is installed.
func (a Agent) ConfigDir() string { return a.row().Dir }

// UserFile is the user's settings file, relative to the home and slash separated.
func (a Agent) UserFile() string { return a.row().File(agent.Hooks, agent.Home, runtime.GOOS) }

// ProjectFile is the project's settings file, relative to the project's root and slash
// separated.
func (a Agent) ProjectFile() string {
	return a.row().File(agent.Hooks, agent.Project, runtime.GOOS)
}

// TrustFile, relative to the home and slash separated, is where the agent records which
// hooks the user trusted, for agents that run only trusted hooks (Codex); empty for the
// others.
func (a Agent) TrustFile() string {
	return a.row().File(agent.HookTrust, agent.Home, runtime.GOOS)
}

// Agents lists the agents moat can set up.
var Agents = []Agent{
	{
		Agent:  call.ClaudeCode,
		Events: []string{"PreToolUse", "PostToolUse", "UserPromptSubmit"},
		entry:  matcherEntry("*"),
	},
	{
		Agent:   call.Cursor,
		Events:  []string{"beforeShellExecution", "beforeMCPExecution", "beforeReadFile", "preToolUse", "beforeSubmitPrompt"},
		entry:   func(command, _ string) string { return jsonObject("command", command, "failClosed", true) },
		created: [][2]string{{"version", "1"}},
	},
	{
		Agent:  call.Windsurf,
		Events: []string{"pre_run_command", "pre_read_code", "pre_write_code", "pre_mcp_tool_use", "pre_user_prompt"},
		entry:  func(command, _ string) string { return jsonObject("command", command, "show_output", true) },
	},
	{
		Agent:  call.GeminiCLI,
		Events: []string{"BeforeTool", "AfterTool", "BeforeAgent"},
		entry:  matcherEntry(".*"),
	},
	{
		Agent:  call.Codex,
		Events: []string{"PreToolUse", "UserPromptSubmit"},
		entry:  matcherEntry(".*"),
	},
}

// ForAgent returns the setup of the agent named name.
func ForAgent(name string) (Agent, bool) {
	for _, a := range Agents {
		if string(a.Agent) == name {
			return a, true
		}
	}
	return Agent{}, false
}

// File returns the settings file of the agent for scope, given the home and project
// directories.
func (a Agent) File(scope Scope, home, project string) string {
	if scope == Project {
		return filepath.Join(project, a.ProjectFile())
	}
	return filepath.Join(home, a.UserFile())
}

// Command is the hook command moat writes for the agent to run program: moat itself
// (`moat hook AGENT`) or the hook client beside it (`moat-hook AGENT`, see selfguard.ClientPath),
// named by absolute path (or, in a project's shared settings, by the bare name moat),
// quoted for the shell if it needs to be.
func (a Agent) Command(program string) string {
	quoted := program
	if strings.ContainsAny(program, " \t'\"\\$`") {
		quoted = "'" + strings.ReplaceAll(program, "'", `'\''`) + "'"
	}
	if IsClient(program) {
		return quoted + " " + string(a.Agent)
	}
	return quoted + " hook " + string(a.Agent)
}

// HookProgram returns what the user's hooks should run for the moat binary at moat: the
// hook client beside it when that is an executable file, else moat itself.
func HookProgram(moat string) string {
	client := selfguard.ClientPath(moat)
	st, err := os.Stat(client)
	if err != nil || !st.Mode().IsRegular() {
		return moat
	}
	// Windows has no executable bit: the .exe name is what makes a file run.
	if runtime.GOOS != "windows" && st.Mode().Perm()&0o111 == 0 {
		return moat
	}
	return client
}

// IsClient reports whether program, a path as a hook command names it, is the hook
// client. Both separators are read, so that a setting written on Windows is recognised
// anywhere.
func IsClient(program string) bool {
	base := program[strings.LastIndexAny(program, `/\`)+1:]
	if strings.HasSuffix(strings.ToLower(base), ".exe") {
		base = base[:len(base)-len(".exe")]
	}
	return base == selfguard.HookClient
}

// matcherEntry returns the entry of agents that group hooks under a tool matcher
// (Claude Code takes "*" for every tool; Gemini CLI and Codex read it as a regular
// expression). Prompt events have no matcher.
func matcherEntry(matcher string) func(command, event string) string {
	return func(command, event string) string {
		hooks := `"hooks": [` + jsonObject("type", "command", "command", command) + `]`
		if event == "UserPromptSubmit" || event == "BeforeAgent" {
			return "{" + hooks + "}"
		}
		return `{"matcher": ` + jsonString(matcher) + ", " + hooks + "}"
	}
}

// jsonObject writes an object of key/value pairs on one line, in the order given.
func jsonObject(kv ...any) string {
	var b strings.Builder
	b.WriteString("{")
	for i := 0; i+1 < len(kv); i += 2 {
		if i > 0 {
			b.WriteString(", ")
		}
		v, _ := json.Marshal(kv[i+1])
		fmt.Fprintf(&b, "%s: %s", jsonString(kv[i].(string)), v)
	}
	b.WriteString("}")
	return b.String()
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// isMoatEntry reports whether an entry of a hook array is moat's for the agent: one
// that runs `moat hook AGENT` or the hook client.
func (a Agent) isMoatEntry(elem string) bool {
	if strings.Contains(elem, "moat") && strings.Contains(elem, " hook "+string(a.Agent)+`"`) {
		return true
	}
	if !strings.Contains(elem, selfguard.HookClient) {
		return false
	}
	n, err := parseJSON(elem)
	return err == nil && n != nil && a.runsClient(elem, n)
}

// runsClient reports whether a string in n is a hook command that runs the hook client
// for the agent.
func (a Agent) runsClient(text string, n *node) bool {
	if n.Kind == '"' {
		s, ok := textedit.UnquoteJSON(text[n.Start:n.End])
		return ok && isClientCommand(s, string(a.Agent))
	}
	for _, e := range n.Elems {
		if a.runsClient(text, e) {
			return true
		}
	}
	return false
}

// Retarget returns text with every moat hook command of the agent that runs another
// program than program (see Command) made to run program, and the events whose hooks it
// changed. Setup run again after moat has moved, in a project whose settings still name
// one machine's moat, or once the hook client is installed beside moat (or removed),
// so leaves the hooks running the program it was asked for, in either form.
func (a Agent) Retarget(text, program string) (string, []string, error) {
	command := a.Command(program)
	var changed []string
	for _, ev := range a.Events {
		root, err := parseJSON(text)
		if err != nil {
			return "", nil, err
		}
		if root == nil || root.Kind != '{' {
			return text, changed, nil
		}
		hooks := member(root, "hooks")
		if hooks == nil || hooks.Kind != '{' {
			return text, changed, nil
		}
		arr := member(hooks, ev)
		if arr == nil || arr.Kind != '[' {
			continue
		}
		var spans [][2]int
		for _, e := range arr.Elems {
			if a.isMoatEntry(text[e.Start:e.End]) {
				spans = append(spans, a.staleCommands(text, e, command)...)
			}
		}
		// From the last to the first, so that the earlier spans stay where they are.
		for i := len(spans) - 1; i >= 0; i-- {
			text = text[:spans[i][0]] + jsonString(command) + text[spans[i][1]:]
		}
		if len(spans) > 0 {
			changed = append(changed, ev)
		}
	}
	return text, changed, nil
}

// staleCommands returns the spans of the strings in n that are moat hook commands of the
// agent other than command.
func (a Agent) staleCommands(text string, n *node, command string) [][2]int {
	if n.Kind == '"' {
		s, ok := textedit.UnquoteJSON(text[n.Start:n.End])
		if ok && s != command && isMoatCommand(s, string(a.Agent)) {
			return [][2]int{{n.Start, n.End}}
		}
		return nil
	}
	var out [][2]int
	for _, e := range n.Elems {
		out = append(out, a.staleCommands(text, e, command)...)
	}
	return out
}

// Installed reports, for each of the agent's events, whether text (a settings file)
// holds moat's hook.
func (a Agent) Installed(text string) (map[string]bool, error) {
	root, err := parseJSON(text)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	if root == nil || root.Kind != '{' {
		return out, nil
	}
	hooks := member(root, "hooks")
	for _, ev := range a.Events {
		if hooks == nil || hooks.Kind != '{' {
			continue
		}
		if arr := member(hooks, ev); arr != nil && arr.Kind == '[' {
			for _, e := range arr.Elems {
				if a.isMoatEntry(text[e.Start:e.End]) {
					out[ev] = true
				}
			}
		}
	}
	return out, nil
}

// Install returns text with moat's hook entry, running program (see Command), added for
// every event that lacks one in either form, and the events it added. The rest of the
// text is kept byte for byte.
func (a Agent) Install(text, program string) (string, []string, error) {
	command := a.Command(program)
	if strings.TrimSpace(text) == "" {
		text = "{}\n"
		for _, kv := range a.created {
			root, _ := parseJSON(text)
			text = appendMember(text, root, kv[0], kv[1])
		}
	}
	var added []string
	for _, ev := range a.Events {
		root, err := parseJSON(text)
		if err != nil {
			return "", nil, err
		}
		if root.Kind != '{' {
			return "", nil, errNotObject
		}
		hooks := member(root, "hooks")
		if hooks == nil {
			text = appendMember(text, root, "hooks", "{}")
			if root, err = parseJSON(text); err != nil {
				return "", nil, err
			}
			hooks = member(root, "hooks")
		}
		if hooks.Kind != '{' {
			return "", nil, fmt.Errorf(`"hooks" is not an object`)
		}
		arr := member(hooks, ev)
		if arr == nil {
			text = appendMember(text, hooks, ev, "[]")
			if root, err = parseJSON(text); err != nil {
				return "", nil, err
			}
			arr = member(member(root, "hooks"), ev)
		}
		if arr.Kind != '[' {
			return "", nil, fmt.Errorf("hooks.%s is not an array", ev)
		}
		present := false
		for _, e := range arr.Elems {
			present = present || a.isMoatEntry(text[e.Start:e.End])
		}
		if present {
			continue
		}
		text = appendElement(text, arr, a.entry(command, ev))
		added = append(added, ev)
	}
	return text, added, nil
}

// Uninstall returns text without moat's hook entries, and the events it removed them
// from. An event left with no hooks is removed, and so is a "hooks" object left empty,
// so that installing and uninstalling gives back the file as it was (an empty "hooks"
// object the user wrote before is the one thing that does not come back).
func (a Agent) Uninstall(text string) (string, []string, error) {
	var removed []string
	for _, ev := range a.Events {
		for {
			root, err := parseJSON(text)
			if err != nil {
				return "", nil, err
			}
			if root == nil || root.Kind != '{' {
				return text, removed, nil
			}
			hooks := member(root, "hooks")
			if hooks == nil || hooks.Kind != '{' {
				return text, removed, nil
			}
			i := indexOf(hooks.Keys, ev)
			if i < 0 || hooks.Elems[i].Kind != '[' {
				break
			}
			arr := hooks.Elems[i]
			j := -1
			for k, e := range arr.Elems {
				if a.isMoatEntry(text[e.Start:e.End]) {
					j = k
					break
				}
			}
			if j < 0 {
				break
			}
			if len(removed) == 0 || removed[len(removed)-1] != ev {
				removed = append(removed, ev)
			}
			if len(arr.Elems) == 1 {
				// The event had only moat's hook: the event goes, and "hooks" with it if
				// it was the last.
				if len(hooks.Elems) == 1 {
					text = removeItem(text, root, indexOf(root.Keys, "hooks"))
				} else {
					text = removeItem(text, hooks, i)
				}
				continue
			}
			text = removeItem(text, arr, j)
		}
	}
	return text, removed, nil
}

func indexOf(keys []string, key string) int {
	for i, k := range keys {
		if k == key {
			return i
		}
	}
	return -1
}

// PortableCommand is the moat that setup names in a project's shared settings: the bare
// name, found on PATH by whoever runs the agent, since an absolute path is one machine's
// and the file is the whole team's. In the user's own settings setup names the absolute
// path of the moat it ran as instead: agents run hooks with the PATH they were started
// with, which for a desktop application need not hold the user's ~/.local/bin or ~/go/bin.
const PortableCommand = "moat"

// BackupPath is where setup keeps the copy of file it makes before changing it: under
// moat's state directory, at a path made from file's absolute path, so that no backup is
// left in a repository (where it could be committed, with this machine's paths), and
// every settings file has its own.
func BackupPath(stateDir, file string) string {
	vol := filepath.VolumeName(file)
	rest := strings.TrimLeft(file[len(vol):], `/\`)
	if vol != "" {
		// C: becomes a directory C; a UNC \\host\share becomes host/share.
		vol = strings.Trim(strings.ReplaceAll(vol, ":", ""), `/\`)
		rest = filepath.Join(vol, rest)
	}
	return filepath.Join(stateDir, "backups", rest+agent.BackupSuffix)
}
