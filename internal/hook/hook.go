// Package hook speaks the hook protocols of the coding agents: it turns the JSON an agent
// sends before (or after) a tool runs into moat's canonical events, and moat's answers
// back into what that agent expects on stdout, stderr and the exit status; and it reads
// moat's own requests (`moat check --stdin`, moat.go) beside them. It decides nothing
// itself; the caller evaluates the policy.
package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/moatdev/moat/internal/agent"
	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/hookpayload"
)

// MaxPayload is the largest hook payload read. A larger one is not evaluated: it fails
// (closed, unless the policy says open), since part of a call cannot be judged.
const MaxPayload = hookpayload.MaxPayload

// Kind is what a hook event is about.
type Kind int

const (
	// Unknown is an event that could not be read: a malformed payload or an event moat
	// does not handle.
	Unknown Kind = iota
	// PreTool is a tool call about to run: the event moat decides.
	PreTool
	// PostTool is a tool's result, read for prompt injection and secrets.
	PostTool
	// Prompt is a prompt the user is submitting, read for Unicode smuggling.
	Prompt
)

// Event is one hook invocation, read.
type Event struct {
	Kind Kind
	Name string    // the agent's name for the event ("PreToolUse")
	Call call.Call // the tool call, for PreTool and PostTool
	// Calls, when set, are the several calls one tool call stands for (Codex's
	// apply_patch, one per file); Call is then the first.
	Calls []call.Call
	// Text is what PostTool and Prompt events carry: the tool's output, the prompt.
	Text string
	// Cwd is the working directory the agent reported, absolute, or "" if none.
	Cwd string
	// Mode is the permission mode the agent reported (Claude Code's permission_mode:
	// "default", "bypassPermissions", …), or "" when it reports none. It says whether an
	// ask will reach the user.
	Mode string
	// Unattended, when set, says why nobody can answer an ask in the environment the
	// agent gave its hook (see NonInteractive): every ask is then a deny.
	Unattended string
}

// ToolCalls returns the calls a tool event asks moat to decide.
func (ev Event) ToolCalls() []call.Call {
	if len(ev.Calls) > 0 {
		return ev.Calls
	}
	return []call.Call{ev.Call}
}

// Answer is moat's verdict on an event, which an Adapter renders.
type Answer struct {
	Verdict call.Verdict // for PreTool: allow, audit, ask or deny
	// Defer, with a verdict that lets the call run, says moat has no opinion: the answer
	// is the agent's own form of silence, so that the agent's permission system (its
	// prompts, rules and modes) decides as it would without moat.
	Defer  bool
	Reason string // why; for the model or the user, as the agent shows it
	// Context is text for the model about a tool's output or a prompt (a warning that
	// it holds injected instructions).
	Context string
	// Block stops a PostTool result or a Prompt from reaching the model.
	Block bool
	// Notice is for the user rather than the model (a project policy that moat is
	// ignoring), shown where the agent has a channel to the user and dropped elsewhere.
	Notice string
}

// Output is what a hook process writes and how it exits.
type Output struct {
	Stdout []byte
	Stderr string
	Code   int
}

// Adapter is one agent's hook protocol.
type Adapter interface {
	Agent() call.Agent
	// Parse reads a payload. getenv gives the hook process's environment (for the
	// project directory the agent exports). An error leaves ev with whatever could be
	// read, for Fail.
	Parse(payload []byte, getenv func(string) string) (Event, error)
	// AskHolds reports whether an ask answered to ev is known to reach the user, and if
	// not, why not: an ask the agent drops, or answers itself, must be sent as a deny.
	AskHolds(ev Event) (bool, string)
	// Render answers an event that was read and decided. An Ask where AskHolds said no is
	// rendered as a deny.
	Render(ev Event, a Answer) Output
	// Fail answers an event moat could not decide (unreadable payload, unknown event,
	// invalid policy, internal error): blocked when failing closed, let through with a
	// visible warning when the policy says fail: open.
	Fail(ev Event, reason string, open bool) Output
}

// Adapters lists the agents whose hook protocol moat speaks: one per hooked agent of the
// agent registry (internal/agent), in its order. The protocol is code; which agents are
// hooked, and their names, are the registry's (a test ties the two).
var Adapters = []Adapter{claudeCode{}, cursor{}, windsurf{}, geminiCLI{}, codex{}}

// ForAgent returns the adapter of the agent named name.
func ForAgent(name string) (Adapter, bool) {
	row, ok := agent.Lookup(name)
	if !ok || row.Guard != agent.Hooked {
		return nil, false
	}
	i := slices.IndexFunc(Adapters, func(a Adapter) bool { return string(a.Agent()) == row.Name })
	if i < 0 {
		return nil, false
	}
	return Adapters[i], true
}

// canonical turns an agent's tool call into moat's. A tool moat has no model of is still
// decided, by its native name (class other); a known tool with arguments it cannot read
// is an error.
func canonical(agent call.Agent, name string, input map[string]any) (call.Call, error) {
	c, err := call.Canonicalize(agent, name, input)
	if err != nil {
		if _, known := call.LookupTool(agent, name); known {
			return c, err
		}
		if _, mcp := call.ParseMCPName(agent, name); mcp {
			return c, err
		}
		return call.CanonicalizeOther(agent, name, input), nil
	}
	return c, nil
}

// projectDir returns the first absolute directory among dirs, cleaned, or "".
func projectDir(dirs ...string) string {
	for _, d := range dirs {
		if filepath.IsAbs(d) {
			return filepath.Clean(d)
		}
	}
	return ""
}

// within resolves dir, a working directory an agent gave with a tool call, against base,
// the event's: dir when absolute, base joined with it when relative, base when empty.
func within(base, dir string) string {
	switch {
	case dir == "":
		return base
	case filepath.IsAbs(dir):
		return filepath.Clean(dir)
	}
	return filepath.Join(base, dir)
}

// readPayload checks a payload's size and decodes it, returning its fields and the event
// name under nameKey.
func readPayload(payload []byte, nameKey string) (map[string]any, string, error) {
	if len(payload) > MaxPayload {
		return nil, "", fmt.Errorf("hook payload of %d bytes; at most %d are read", len(payload), MaxPayload)
	}
	m, err := decodeObject(payload)
	if err != nil {
		return nil, "", err
	}
	name, _ := m[nameKey].(string)
	if name == "" {
		return m, "", fmt.Errorf("hook payload without %s", nameKey)
	}
	return m, name, nil
}

// absDir returns v cleaned if it is an absolute path, else "".
func absDir(v any) string {
	if s, _ := v.(string); filepath.IsAbs(s) {
		return filepath.Clean(s)
	}
	return ""
}

// eventKind names one hook event an agent sends and what it is about.
type eventKind struct {
	name string
	kind Kind
}

// claudeShaped is what readClaudeShaped reads from a tool event.
type claudeShaped struct {
	fields  map[string]any
	tool    string
	input   map[string]any
	session string
}

// readClaudeShaped reads a payload in the shape Claude Code's hooks defined and Gemini
// CLI and Codex follow: hook_event_name, cwd and session_id, with tool_name and
// tool_input for tool events and prompt for prompt events. events are the ones the agent
// handles; any other is an error naming them. For a prompt event the prompt is ev.Text
// and the returned fields are nil.
func readClaudeShaped(payload []byte, agent string, events []eventKind) (Event, claudeShaped, error) {
	ev := Event{}
	m, name, err := readPayload(payload, "hook_event_name")
	if err != nil {
		return ev, claudeShaped{}, err
	}
	ev.Name, ev.Cwd = name, absDir(m["cwd"])
	ev.Mode, _ = m["permission_mode"].(string)
	names := make([]string, len(events))
	for i, e := range events {
		names[i] = e.name
		if e.name == name {
			ev.Kind = e.kind
		}
	}
	switch ev.Kind {
	case Unknown:
		handled := strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
		return ev, claudeShaped{}, fmt.Errorf("unknown %s hook event %q (moat handles %s)", agent, name, handled)
	case Prompt:
		prompt, ok := m["prompt"].(string)
		if !ok {
			return ev, claudeShaped{}, fmt.Errorf("%s payload without a prompt", name)
		}
		ev.Text = prompt
		return ev, claudeShaped{}, nil
	}
	if ev.Cwd == "" {
		return ev, claudeShaped{}, errors.New("hook payload without an absolute cwd")
	}
	tool, input, err := toolFields(m, name)
	if err != nil {
		return ev, claudeShaped{}, err
	}
	session, _ := m["session_id"].(string)
	if ev.Kind == PostTool {
		ev.Text = text(m["tool_response"])
	}
	return ev, claudeShaped{fields: m, tool: tool, input: input, session: session}, nil
}

// toolFields returns the tool_name and the tool_input object of a tool event.
func toolFields(m map[string]any, event string) (string, map[string]any, error) {
	name, _ := m["tool_name"].(string)
	if name == "" {
		return "", nil, fmt.Errorf("%s payload without tool_name", event)
	}
	input, ok := m["tool_input"].(map[string]any)
	if !ok {
		return "", nil, fmt.Errorf("%s payload: tool_input of %s is not an object", event, name)
	}
	return name, input, nil
}

// decodeObject decodes a JSON object keeping numbers as json.Number, so that arguments
// pass through unchanged.
func decodeObject(data []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("malformed hook payload: %w", err)
	}
	if m == nil {
		return nil, fmt.Errorf("malformed hook payload: not a JSON object")
	}
	if dec.More() {
		return nil, fmt.Errorf("malformed hook payload: more than one JSON value")
	}
	return m, nil
}

// text returns the string v holds, or v encoded as JSON: tool results arrive as strings
// or as structured objects, and both are read as text.
func text(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// mustJSON encodes v, which is always a map of strings and maps built here.
func mustJSON(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Unreachable for the values built in this package; a deny is still written.
		return []byte(`{"decision":"block","reason":"moat: internal error encoding its answer"}` + "\n")
	}
	return b.Bytes()
}

// NoAsk turns an ask that cannot reach anyone into a deny whose reason says why, and how
// to allow the call: a question nobody sees must not become a silent allow (an agent
// that drops it) or a silent stall (an agent that waits for it).
func NoAsk(a Answer, why string) Answer {
	a.Verdict = call.Deny
	a.Reason = fmt.Sprintf("%s. It needs your approval, which cannot be asked for here: %s. To allow it, run it yourself, or add an allow rule for it to your moat policy (`moat check --explain` shows the rule that asked), and try again", strings.TrimRight(a.Reason, ". "), why)
	return a
}

// settleAsk is the answer ad gives to ev: a, with an ask that ad's agent would not put
// to the user turned into a deny.
func settleAsk(ad Adapter, ev Event, a Answer) Answer {
	if a.Verdict != call.Ask {
		return a
	}
	if ev.Unattended != "" {
		return NoAsk(a, ev.Unattended)
	}
	if ok, why := ad.AskHolds(ev); !ok {
		return NoAsk(a, why)
	}
	return a
}

// deferred reports whether a is moat's silence: a call it lets run with no opinion.
func (a Answer) deferred() bool { return a.Defer && a.Verdict.Permissive() }

// withNotice adds a user-visible notice to an answer object under key, creating the
// object when there is none.
func withNotice(out map[string]any, key, notice string) map[string]any {
	if notice == "" {
		return out
	}
	if out == nil {
		out = map[string]any{}
	}
	out[key] = notice
	return out
}

// jsonOutput is an answer object on stdout, or nothing at all for a nil one.
func jsonOutput(out map[string]any) Output {
	if out == nil {
		return Output{}
	}
	return Output{Stdout: mustJSON(out)}
}

// Environment variables that say whether anyone is there to answer an ask.
const (
	// EnvNonInteractive, set to 1 or true, makes every ask a deny; set to 0 or false, it
	// says a person is there even when CI is set.
	EnvNonInteractive = "MOAT_NONINTERACTIVE"
	// EnvCI is set to true by CI systems; agents pass their environment on to hooks.
	EnvCI = "CI"
)

// NonInteractive reports why nobody can answer an ask in the environment getenv
// describes, or "" when somebody may.
func NonInteractive(getenv func(string) string) string {
	switch strings.ToLower(getenv(EnvNonInteractive)) {
	case "1", "true", "yes":
		return EnvNonInteractive + " is set: nobody is there to answer"
	case "0", "false", "no":
		return ""
	}
	for _, name := range []string{EnvCI, "GITHUB_ACTIONS"} {
		switch strings.ToLower(getenv(name)) {
		case "1", "true", "yes":
			return "this is a non-interactive run (" + name + " is set)"
		}
	}
	return ""
}
