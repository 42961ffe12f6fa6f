// Package approval is moat's queue of approvals: asks that could not reach the user wait
// there, bound to the exact call, until the user approves or denies them with moat's
// commands, and a grant lets the identical call through once or for its session.
package approval

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/moatdev/moat/internal/call"
)

// keyVersion is mixed into every hash, so that a change of what is hashed never lets a
// grant made under the old form match a call under the new one.
const keyVersion = "moat-approval-v1"

// keyedCall is what binds an approval to a call: everything the policy decided it by.
// The project is left out: it is derived from the directory.
type keyedCall struct {
	Agent   string         `json:"agent"`
	Session string         `json:"session"`
	Cwd     string         `json:"cwd"`
	Class   string         `json:"class"`
	Tool    string         `json:"tool"`
	Args    map[string]any `json:"args"`
	Server  string         `json:"mcp_server,omitempty"`
	MCPTool string         `json:"mcp_tool,omitempty"`
}

// Key is the hex SHA-256 of the canonical JSON of the calls of one event (encoding/json
// writes map keys sorted, so equal calls hash alike): a call that differs in any argument,
// its directory, its session or its agent has another key.
func Key(calls []call.Call) (string, error) {
	keyed := make([]keyedCall, len(calls))
	for i, c := range calls {
		k := keyedCall{Agent: string(c.Agent), Session: c.Session, Cwd: c.Cwd, Class: string(c.Class), Tool: c.Tool, Args: c.Args}
		if c.MCP != nil {
			k.Server, k.MCPTool = c.MCP.Server, c.MCP.Tool
		}
		keyed[i] = k
	}
	data, err := json.Marshal(keyed)
	if err != nil {
		return "", fmt.Errorf("hashing the call for its approval: %w", err)
	}
	h := sha256.New()
	h.Write([]byte(keyVersion))
	h.Write([]byte{0})
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil)), nil
}

// maxRendered bounds the text kept to show a call in the list of approvals.
const maxRendered = 400

// Render is how the list of approvals shows a call: its MCP tool, command, path or URL,
// or its tool with its arguments. The text is not redacted here: the caller redacts.
func Render(c call.Call) string {
	var s string
	switch {
	case c.MCP != nil:
		args, _ := json.Marshal(c.Args)
		s = c.MCP.String() + " " + string(args)
	default:
		for _, key := range []string{call.ArgCommand, call.ArgPath, call.ArgURL, call.ArgPattern} {
			if v, ok := c.Args[key].(string); ok && v != "" {
				s = c.Tool + ": " + v
				break
			}
		}
		if s == "" {
			args, _ := json.Marshal(c.Args)
			s = c.Tool + " " + string(args)
		}
	}
	s = strings.ToValidUTF8(s, "�")
	if len([]rune(s)) > maxRendered {
		s = string([]rune(s)[:maxRendered-1]) + "…"
	}
	return s
}
