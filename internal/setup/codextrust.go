package setup

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/moatdev/moat/internal/textedit"
)

// Codex runs a command hook from a hooks.json only once the user has trusted it: its
// /hooks review writes, into the user's ~/.codex/config.toml,
//
//	[hooks.state."<hooks.json path>:<event label>:<group index>:<handler index>"]
//	trusted_hash = "sha256:<hex>"
//
// and an untrusted hook, or one whose hash no longer matches, is skipped without a word.
// Only the user's own config layer may hold this state (Codex ignores it in project and
// managed layers). The hash is over a normalized identity of the handler, not over its
// text: Codex serializes {event_name, matcher, hooks: [handler]} through TOML (which drops
// absent fields), sorts every object's keys, writes compact JSON and takes its SHA-256
// (codex-rs/hooks/src/engine/discovery.rs, codex-rs/config/src/fingerprint.rs). The
// handler is normalized to type "command", its command, its timeout (600 when absent, at
// least 1), async and statusMessage when present. Checked against the real Codex 0.169.0,
// whose app-server answers hooks/list with each hook's key and currentHash (see
// TestCodexTrustWithRealCodex).
//
// moat setup records this trust for the hooks it writes itself, since running setup is the
// user's consent to exactly those hooks; it never trusts a hook it did not write.

// codexEvents are the events of a Codex hooks.json whose hooks moat can name in trust
// records: the label Codex keys them by, and whether Codex keeps the group's matcher (it
// drops the matcher of events that match nothing, and so must the hash). Events whose
// handling has changed between Codex versions are left out.
var codexEvents = []struct {
	name, label string
	matcher     bool
}{
	{"PreToolUse", "pre_tool_use", true},
	{"PermissionRequest", "permission_request", true},
	{"PostToolUse", "post_tool_use", true},
	{"SessionStart", "session_start", true},
	{"UserPromptSubmit", "user_prompt_submit", false},
	{"Stop", "stop", false},
}

// codexDefaultTimeout is the timeout, in seconds, Codex gives a hook that names none.
const codexDefaultTimeout = 600

// CodexHook is one of moat's hooks in a Codex hooks.json, as Codex's trust review sees it.
type CodexHook struct {
	Event string // the hooks.json event, such as PreToolUse
	// Key names the hook in config.toml's [hooks.state]: the hooks.json path, the event's
	// label, the group's index in the event's array and the handler's in the group.
	Key string
	// Hash is the trusted_hash that makes Codex run the hook as it is now.
	Hash string
}

// codexHandler is a command handler of a Codex hooks.json.
type codexHandler struct {
	Type          string  `json:"type"`
	Command       string  `json:"command"`
	Timeout       *uint64 `json:"timeout"`
	Async         bool    `json:"async"`
	StatusMessage *string `json:"statusMessage"`
}

// CodexHooks returns moat's hooks in text, the Codex hooks.json at file, with the keys
// and hashes Codex's trust review gives them. file must be the path Codex reads the file
// by (its config folder joined with hooks.json), links not resolved, as the key holds it.
func CodexHooks(file, text string) ([]CodexHook, error) {
	root, err := parseJSON(text)
	if err != nil || root == nil || root.Kind != '{' {
		return nil, err
	}
	hooks := member(root, "hooks")
	if hooks == nil || hooks.Kind != '{' {
		return nil, nil
	}
	var out []CodexHook
	for _, ev := range codexEvents {
		groups := member(hooks, ev.name)
		if groups == nil || groups.Kind != '[' {
			continue
		}
		for gi, g := range groups.Elems {
			if g.Kind != '{' {
				continue
			}
			var matcher *string
			if m := member(g, "matcher"); ev.matcher && m != nil && m.Kind == '"' {
				s, ok := textedit.UnquoteJSON(text[m.Start:m.End])
				if !ok {
					return nil, fmt.Errorf("%s: a matcher of %s is not a valid string", file, ev.name)
				}
				matcher = &s
			}
			handlers := member(g, "hooks")
			if handlers == nil || handlers.Kind != '[' {
				continue
			}
			for hi, h := range handlers.Elems {
				var hd codexHandler
				if err := json.Unmarshal([]byte(text[h.Start:h.End]), &hd); err != nil {
					continue // not one of moat's, which are plain JSON
				}
				if hd.Type != "command" || !isMoatCommand(hd.Command, "codex") {
					continue
				}
				out = append(out, CodexHook{
					Event: ev.name,
					Key:   fmt.Sprintf("%s:%s:%d:%d", file, ev.label, gi, hi),
					Hash:  codexHookHash(ev.label, matcher, hd),
				})
			}
		}
	}
	return out, nil
}

// isMoatCommand reports whether a hook command runs `moat hook AGENT` or the hook
// client for the agent.
func isMoatCommand(command, agent string) bool {
	return strings.Contains(command, "moat") && strings.HasSuffix(command, " hook "+agent) ||
		isClientCommand(command, agent)
}

// HookPrograms returns the programs that the agent's moat hooks in text (a settings
// file) run, in either form (see Command), unquoted, in the order the file has them.
func (a Agent) HookPrograms(text string) ([]string, error) {
	root, err := parseJSON(text)
	if err != nil || root == nil {
		return nil, err
	}
	var out []string
	var walk func(n *node)
	walk = func(n *node) {
		if n.Kind != '"' {
			for _, e := range n.Elems {
				walk(e)
			}
			return
		}
		s, ok := textedit.UnquoteJSON(text[n.Start:n.End])
		if !ok || !isMoatCommand(s, string(a.Agent)) {
			return
		}
		program, ok := strings.CutSuffix(s, " hook "+string(a.Agent))
		if !ok || isClientCommand(s, string(a.Agent)) {
			program = strings.TrimSuffix(s, " "+string(a.Agent))
		}
		out = append(out, unquoteShell(program))
	}
	walk(root)
	return out, nil
}

// unquoteShell undoes Command's quoting of a program.
func unquoteShell(program string) string {
	if len(program) >= 2 && program[0] == '\'' && program[len(program)-1] == '\'' {
		return strings.ReplaceAll(program[1:len(program)-1], `'\''`, "'")
	}
	return program
}

// isClientCommand reports whether a hook command runs the hook client for the agent, as
// Command writes it: `CLIENT AGENT`, CLIENT quoted for the shell if it needed to be.
func isClientCommand(command, agent string) bool {
	program, ok := strings.CutSuffix(command, " "+agent)
	if !ok {
		return false
	}
	if len(program) >= 2 && program[0] == '\'' && program[len(program)-1] == '\'' {
		program = unquoteShell(program)
	} else if strings.ContainsAny(program, " \t") {
		// Unquoted, the program ends at the first blank: a command that hands the
		// client to another program is not one setup wrote.
		return false
	}
	return IsClient(program)
}

// codexHookHash is Codex's trust hash of a command handler: the SHA-256 of the canonical
// JSON of its normalized identity. Keys are written in sorted order.
func codexHookHash(label string, matcher *string, h codexHandler) string {
	timeout := uint64(codexDefaultTimeout)
	if h.Timeout != nil {
		timeout = max(*h.Timeout, 1)
	}
	var b strings.Builder
	b.WriteString(`{"event_name":`)
	b.WriteString(textedit.QuoteJSON(label))
	b.WriteString(`,"hooks":[{"async":`)
	b.WriteString(strconv.FormatBool(h.Async))
	b.WriteString(`,"command":`)
	b.WriteString(textedit.QuoteJSON(h.Command))
	if h.StatusMessage != nil {
		b.WriteString(`,"statusMessage":`)
		b.WriteString(textedit.QuoteJSON(*h.StatusMessage))
	}
	b.WriteString(`,"timeout":`)
	b.WriteString(strconv.FormatUint(timeout, 10))
	b.WriteString(`,"type":"command"}]`)
	if matcher != nil {
		b.WriteString(`,"matcher":`)
		b.WriteString(textedit.QuoteJSON(*matcher))
	}
	b.WriteString("}")
	sum := sha256.Sum256([]byte(b.String()))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// CodexHookState is what a Codex config.toml records about one hook.
type CodexHookState struct {
	TrustedHash string
	// Disabled is enabled = false: Codex skips the hook, trusted or not.
	Disabled bool
}

// Trust says whether Codex runs a hook.
type Trust string

const (
	Trusted   Trust = "trusted"
	Untrusted Trust = "untrusted"
	// Modified is a hook trusted once whose command or settings have changed since.
	Modified Trust = "modified"
	Disabled Trust = "disabled"
)

// Status is how Codex would treat hook h given the states of a config.toml.
func (h CodexHook) Status(states map[string]CodexHookState) Trust {
	st, ok := states[h.Key]
	switch {
	case ok && st.Disabled:
		return Disabled
	case !ok || st.TrustedHash == "":
		return Untrusted
	case st.TrustedHash != h.Hash:
		return Modified
	}
	return Trusted
}

var (
	hooksState      = []string{"hooks", "state"}
	errCodexTrustAt = errors.New("Codex's hook trust in this file is written in a form moat does not edit (an inline table or dotted keys)")
)

// CodexHookStates reads the [hooks.state] records of a Codex config.toml, by key. Records
// written as tables or dotted keys are read; those inside inline tables are not (their
// keys, which hold dots, cannot be told apart), and read as absent.
func CodexHookStates(text string) (map[string]CodexHookState, error) {
	doc, err := textedit.ParseTOML(text)
	if err != nil {
		return nil, err
	}
	out := map[string]CodexHookState{}
	for _, kv := range doc.KVs {
		full := fullPath(doc, kv)
		if len(full) != 4 || !slices.Equal(full[:2], hooksState) {
			continue
		}
		st := out[full[2]]
		raw := text[kv.Val.Start:kv.Val.End]
		switch {
		case full[3] == "trusted_hash" && kv.Val.Kind == '"':
			if s, ok := textedit.UnquoteTOML(raw); ok {
				st.TrustedHash = s
			}
		case full[3] == "enabled":
			st.Disabled = raw == "false"
		}
		out[full[2]] = st
	}
	return out, nil
}

// fullPath is the key path of kv from the document's root.
func fullPath(doc *textedit.TOMLDoc, kv textedit.TOMLKV) []string {
	if kv.Table < 0 {
		return kv.Path
	}
	return slices.Concat(doc.Tables[kv.Table].Path, kv.Path)
}

// RecordCodexTrust returns text, a Codex config.toml, with trusted_hash set for every
// hook as Codex's /hooks review sets it. A record that already holds the hash is left as
// it is; one with another hash has its value replaced; a missing one is added as a table
// at the end of the file. Everything else is kept byte for byte.
func RecordCodexTrust(text string, hooks []CodexHook) (string, error) {
	for _, h := range hooks {
		doc, err := textedit.ParseTOML(text)
		if err != nil {
			return "", err
		}
		want := append(slices.Clone(hooksState), h.Key)
		found := false
		for _, kv := range doc.KVs {
			full := fullPath(doc, kv)
			if !slices.Equal(full, append(slices.Clone(want), "trusted_hash")) {
				continue
			}
			found = true
			if s, ok := textedit.UnquoteTOML(text[kv.Val.Start:kv.Val.End]); !ok || s != h.Hash || kv.Val.Kind != '"' {
				text = text[:kv.Val.Start] + textedit.Quote(h.Hash) + text[kv.Val.End:]
			}
			break
		}
		if found {
			continue
		}
		table := -1
		for i, t := range doc.Tables {
			if !t.Array && slices.Equal(t.Path, want) {
				table = i
			}
		}
		if table < 0 && definedOtherwise(doc, want) {
			return "", errCodexTrustAt
		}
		nl := lineEnding(text)
		line := "trusted_hash = " + textedit.Quote(h.Hash) + nl
		if table >= 0 {
			// The table exists (the user disabled or enabled the hook): the record goes
			// on the line after its header.
			at := lineEnd(text, doc.Tables[table].End)
			if at == len(text) && !strings.HasSuffix(text, "\n") {
				text += nl
				at = len(text)
			}
			text = text[:at] + line + text[at:]
			continue
		}
		if text != "" && !strings.HasSuffix(text, "\n") {
			text += nl
		}
		if strings.TrimSpace(text) != "" {
			text += nl
		}
		text += "[hooks.state." + textedit.Quote(h.Key) + "]" + nl + line
	}
	return text, nil
}

// definedOtherwise reports whether text gives the table path want a value other than by
// a [table] header: an inline table or dotted keys, to which a header cannot be added.
func definedOtherwise(doc *textedit.TOMLDoc, want []string) bool {
	for _, kv := range doc.KVs {
		full := fullPath(doc, kv)
		n := min(len(full), len(want))
		if slices.Equal(full[:n], want[:n]) {
			return true
		}
	}
	for _, t := range doc.Tables {
		if t.Array && len(t.Path) <= len(want) && slices.Equal(t.Path, want[:len(t.Path)]) {
			return true
		}
	}
	return false
}

// RemoveCodexTrust returns text without the trusted_hash records of the hooks with the
// given keys, as moat setup --uninstall removes what setup added. A table left with
// nothing but its header goes too, with the blank line setup put before it; a table that
// holds more (enabled = false) keeps the rest.
func RemoveCodexTrust(text string, keys []string) (string, error) {
	for _, key := range keys {
		doc, err := textedit.ParseTOML(text)
		if err != nil {
			return "", err
		}
		want := append(slices.Clone(hooksState), key)
		for _, kv := range doc.KVs {
			if !slices.Equal(fullPath(doc, kv), append(slices.Clone(want), "trusted_hash")) {
				continue
			}
			start, end := kv.LineStart, lineEnd(text, kv.Val.End)
			if kv.Table >= 0 && onlyKV(doc, kv.Table) && slices.Equal(doc.Tables[kv.Table].Path, want) {
				t := doc.Tables[kv.Table]
				blockEnd := len(text)
				if kv.Table+1 < len(doc.Tables) {
					blockEnd = lineStartOf(text, doc.Tables[kv.Table+1].Start)
				}
				if strings.TrimSpace(text[t.End:kv.LineStart]) == "" && strings.TrimSpace(text[end:blockEnd]) == "" {
					// The table goes with the blank line setup put before it, or, first in
					// the file, the one after it.
					start = lineStartOf(text, t.Start)
					switch {
					case strings.HasSuffix(text[:start], "\n\n"):
						start--
					case strings.HasSuffix(text[:start], "\n\r\n"):
						start -= 2
					case start == 0 && strings.HasPrefix(text[end:], "\n"):
						end++
					case start == 0 && strings.HasPrefix(text[end:], "\r\n"):
						end += 2
					}
				}
			}
			text = text[:start] + text[end:]
			break
		}
	}
	return text, nil
}

// onlyKV reports whether table i of doc holds exactly one key.
func onlyKV(doc *textedit.TOMLDoc, i int) bool {
	n := 0
	for _, kv := range doc.KVs {
		if kv.Table == i {
			n++
		}
	}
	return n == 1
}

// lineEnd is where the line holding text[pos] ends, its new line included.
func lineEnd(text string, pos int) int {
	if i := strings.IndexByte(text[pos:], '\n'); i >= 0 {
		return pos + i + 1
	}
	return len(text)
}

func lineStartOf(text string, pos int) int { return strings.LastIndexByte(text[:pos], '\n') + 1 }

// lineEnding is the file's new line: \r\n if its first line ends so.
func lineEnding(text string) string {
	if i := strings.IndexByte(text, '\n'); i > 0 && text[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

// HookTrust says, for each event of the agent whose moat hook is in hooksText (the
// settings file hooksFile, named as the agent names it), whether the agent will run it,
// given trustText, the file where the agent records trust (empty if it does not exist).
// It returns nil for agents that run every hook in their settings.
func (a Agent) HookTrust(hooksFile, hooksText, trustText string) (map[string]Trust, error) {
	if a.TrustFile() == "" {
		return nil, nil
	}
	hooks, err := CodexHooks(hooksFile, hooksText)
	if err != nil {
		return nil, fmt.Errorf("reading the hooks of %s: %w", hooksFile, err)
	}
	states, err := CodexHookStates(trustText)
	if err != nil {
		return nil, fmt.Errorf("reading the trusted hooks of %s: %w", filepath.Join("~", a.TrustFile()), err)
	}
	out := map[string]Trust{}
	for _, h := range hooks {
		// An event with two moat hooks is as good as its best: one that runs suffices.
		if st := h.Status(states); out[h.Event] != Trusted {
			out[h.Event] = st
		}
	}
	return out, nil
}
