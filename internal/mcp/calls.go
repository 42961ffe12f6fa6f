package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"

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
