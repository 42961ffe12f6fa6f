package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/moatdev/moat/internal/call"
)

// Methods the proxy decides; every other message is relayed as it is.
const (
	MethodToolsCall     = "tools/call"
	MethodResourcesRead = "resources/read"
	MethodPromptsGet    = "prompts/get"
)

// Decided reports whether requests of method are decided by the policy.
func Decided(method string) bool {
	switch method {
	case MethodToolsCall, MethodResourcesRead, MethodPromptsGet:
		return true
	}
	return false
}

// paramMembers are, per decided method, the members its params may have, with their JSON
// types, in the protocol revisions from 2025-03-26 to 2026-07-28 (task is 2025-11-25's
// task-augmented call; inputResponses and requestState are 2026-07-28's retries). Any
// other member is refused: a server could read a misspelt one (argumnets, Arguments) as
// what moat did not decide, or a member moat does not know could change what the call
// does.
var paramMembers = map[string]map[string]string{
	MethodToolsCall:     {"name": "string", "arguments": "object", "_meta": "object", "task": "object", "inputResponses": "object", "requestState": "string"},
	MethodResourcesRead: {"uri": "string", "_meta": "object", "inputResponses": "object", "requestState": "string"},
	MethodPromptsGet:    {"name": "string", "arguments": "object", "_meta": "object", "inputResponses": "object", "requestState": "string"},
}

// checkParams refuses params with a member the method does not define, or one of another
// type. When several are wrong the error names the first in sorted order, so that it is
// always the same; params that are right cost no allocation.
func checkParams(method string, p map[string]any) error {
	members := paramMembers[method]
	var bad []string
	for k, v := range p {
		want, ok := members[k]
		switch v.(type) {
		case string:
			ok = ok && want == "string"
		case map[string]any:
			ok = ok && want == "object"
		case nil:
			// An optional object sent as null is read as absent: the official Go SDK
			// sends "arguments": null for a call without arguments.
			ok = ok && want == "object"
		default:
			ok = false
		}
		if !ok {
			bad = append(bad, k)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	slices.Sort(bad)
	k := bad[0]
	if want, ok := members[k]; ok {
		return fmt.Errorf("%s params: %q must be a JSON %s", method, k, want)
	}
	return fmt.Errorf("%s params have an unknown member %q (moat reads %s)", method, k, memberList(members))
}

func memberList(members map[string]string) string {
	names := make([]string, 0, len(members))
	for k := range members {
		names = append(names, k)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// CallOf turns a decided request of server into moat's canonical call. A tool call is the
// tool with its arguments (rules name it mcp:SERVER/TOOL); a resource read and a prompt
// request are named by their method (mcp:SERVER/resources/read with the uri,
// mcp:SERVER/prompts/get with the prompt's name and arguments). Params that do not have
// the shape the method requires are an error: such a request is refused, never relayed
// unread.
func CallOf(server, method string, params json.RawMessage) (call.Call, error) {
	var p map[string]any
	if len(params) > 0 {
		dec := json.NewDecoder(bytes.NewReader(params))
		dec.UseNumber()
		if err := dec.Decode(&p); err != nil {
			return call.Call{}, fmt.Errorf("%s params are not an object: %w", method, err)
		}
	}
	if err := checkParams(method, p); err != nil {
		return call.Call{}, err
	}
	c := call.Call{Class: call.MCP, Args: map[string]any{}}
	switch method {
	case MethodToolsCall:
		name, ok := p["name"].(string)
		if !ok || name == "" {
			return call.Call{}, fmt.Errorf("tools/call without a tool name")
		}
		c.MCP = &call.MCPTarget{Server: server, Tool: name}
		switch a := p["arguments"].(type) {
		case nil:
		case map[string]any:
			c.Args = a
		default:
			return call.Call{}, fmt.Errorf("tools/call %s: arguments are not an object", name)
		}
	case MethodResourcesRead:
		uri, ok := p["uri"].(string)
		if !ok || uri == "" {
			return call.Call{}, fmt.Errorf("resources/read without a uri")
		}
		c.MCP = &call.MCPTarget{Server: server, Tool: method}
		c.Args["uri"] = uri
	case MethodPromptsGet:
		name, ok := p["name"].(string)
		if !ok || name == "" {
			return call.Call{}, fmt.Errorf("prompts/get without a prompt name")
		}
		c.MCP = &call.MCPTarget{Server: server, Tool: method}
		c.Args["name"] = name
		if a, ok := p["arguments"]; ok {
			c.Args["arguments"] = a
		}
	default:
		return call.Call{}, fmt.Errorf("moat does not decide %s", method)
	}
	c.Tool = "mcp__" + server + "__" + c.MCP.Tool
	return c, nil
}
