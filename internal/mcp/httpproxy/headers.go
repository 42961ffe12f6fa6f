package httpproxy

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"

	"github.com/moatdev/moat/internal/mcp"
	"github.com/moatdev/moat/internal/mcp/jsonrpc"
)

// codeHeaderMismatch is MCP 2026-07-28's error for HTTP headers that disagree with the
// body they come with.
const codeHeaderMismatch = -32020

// modernVersion is the first revision whose requests carry Mcp-Method and Mcp-Name.
const modernVersion = "2026-07-28"

// headerMismatch says how the MCP headers of a POST disagree with its body, or returns
// "". The policy decides on the body, but a server or a gateway behind moat may route or
// authorize on the headers: a tools/call of delete_everything headed Mcp-Name: echo
// would be judged as one call and treated as another, so it goes nowhere.
func headerMismatch(h http.Header, f jsonrpc.Frame) string {
	for _, k := range []string{"Mcp-Method", "Mcp-Name", "Mcp-Protocol-Version"} {
		if len(h.Values(k)) > 1 {
			return k + " is given more than once"
		}
	}
	hMethod, hasMethod := h["Mcp-Method"]
	hName, hasName := h["Mcp-Name"]
	if f.Batch {
		if hasMethod || hasName {
			return "a batch has no single method or name for Mcp-Method and Mcp-Name to give"
		}
		return ""
	}
	m := f.Messages[0]
	if m.Kind == jsonrpc.Response {
		return ""
	}
	version := h.Get("Mcp-Protocol-Version")
	if meta := jsonrpc.ProtocolVersion(m.Params); meta != "" && version != "" && meta != version {
		return fmt.Sprintf("MCP-Protocol-Version %q, but the body's _meta says %q", version, meta)
	}
	modern := version >= modernVersion && m.Kind == jsonrpc.Request
	switch {
	case hasMethod:
		v, ok := headerValue(hMethod[0])
		if !ok || v != m.Method {
			return fmt.Sprintf("Mcp-Method %q, but the body's method is %q", hMethod[0], m.Method)
		}
	case modern:
		return "Mcp-Method is missing"
	}
	if m.Kind != jsonrpc.Request || !mcp.Decided(m.Method) {
		return ""
	}
	name, ok := bodyName(m.Method, m.Params)
	if !ok {
		return "" // the Proxy refuses a request without its name
	}
	switch {
	case hasName:
		v, ok := headerValue(hName[0])
		if !ok || v != name {
			return fmt.Sprintf("Mcp-Name %q, but the body names %q", hName[0], name)
		}
	case modern:
		return "Mcp-Name is missing"
	}
	return ""
}

// bodyName is what Mcp-Name must say for a request: the tool's or prompt's name, or the
// resource's uri. Keys match exactly, as mcp.CallOf reads them: encoding/json would also
// take "Name" for "name".
func bodyName(method string, params json.RawMessage) (string, bool) {
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil {
		return "", false
	}
	key := "name"
	if method == mcp.MethodResourcesRead {
		key = "uri"
	}
	var s string
	if json.Unmarshal(p[key], &s) != nil {
		return "", false
	}
	return s, true
}

// headerValue decodes a header value that is not plain ASCII, which MCP sends as
// =?base64?…?=.
func headerValue(v string) (string, bool) {
	inner, ok := strings.CutPrefix(v, "=?base64?")
	if !ok {
		return v, true
	}
	inner, ok = strings.CutSuffix(inner, "?=")
	if !ok {
		return v, true
	}
	b, err := base64.StdEncoding.DecodeString(inner)
	if err != nil {
		return "", false
	}
	return string(b), true
}

// loopbackHost reports whether a Host header (or an address) names this machine.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// loopbackOrigin reports whether an Origin header is a page served from this machine. A
// page elsewhere must not drive the agent's tools through the user's browser.
func loopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.User != nil || (u.Path != "" && u.Path != "/") {
		return false
	}
	return loopbackHost(u.Host)
}
