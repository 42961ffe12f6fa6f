package mcpconfig

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/moatdev/moat/internal/textedit"
)

// Remote servers run through moat's stdio bridge.
//
// A remote (Streamable HTTP) server's entry becomes a stdio entry: the agent starts
// `moat mcp proxy --name NAME --stdio --upstream-env MOAT_MCP_UPSTREAM` as it would any
// local server, and moat speaks HTTP to the real server as its client, deciding every
// message. The server's URL and headers go to the bridge in one environment variable,
// as JSON; ${NAME} in them is expanded by the bridge from its own environment, so a
// variable the agent leaves alone still works:
//
//	"sentry": {"type": "http", "url": "https://mcp.sentry.dev/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}}
//	"sentry": {"type": "stdio", "command": "/bin/moat",
//	  "args": ["mcp", "proxy", "--name", "sentry", "--stdio", "--upstream-env", "MOAT_MCP_UPSTREAM"],
//	  "env": {"MOAT_MCP_UPSTREAM": "{\"url\":\"https://mcp.sentry.dev/mcp\",\"headers\":{\"Authorization\":\"Bearer ${TOKEN}\"}}",
//	          "MOAT_MCP_ORIGINAL": "{\"type\": \"http\", \"url\": …}"}}
//
// Where the original lives. A stdio entry keeps its original in place (wrap.go); a
// remote one cannot, since a url or headers left beside the command would make the
// entry say two things (Codex refuses an entry with both). So the entry's original
// text, from its opening brace to its closing one (for Codex, from the table's first
// key to the end of its last value), is kept byte for byte in a second variable of the
// entry's env, MOAT_MCP_ORIGINAL, which the bridge ignores. The file alone is then
// enough to restore the entry, with no backup and no state kept elsewhere: the backup
// is the second line of defence, not the first.
//
// A copy goes stale when the entry is edited after wrapping: restoring it would undo
// the edit. Unwrap therefore wraps the copy again and restores it only when that gives
// the entry as it now is. The two are compared by value, not by text, so that a client
// that reformats the file (Claude Code rewrites ~/.claude.json) has not "edited" it;
// an entry that was really changed is left as it is, with the reason.
//
// Keys the bridge cannot honour are never dropped: an entry that signs in some other
// way (OAuth settings, a headers helper) or has a key moat does not know is skipped,
// with the reason. Keys that mean the same to a stdio server (timeouts, tool filters)
// are carried over, as written.

const (
	// upstreamEnv is the variable that tells the bridge where the server is.
	upstreamEnv = "MOAT_MCP_UPSTREAM"
	// originalEnv keeps the entry as it was before moat wrapped it.
	originalEnv = "MOAT_MCP_ORIGINAL"
)

// authKeys are keys of the clients' remote entries that make the client sign in by
// itself, which moat's bridge cannot do for it.
var authKeys = []string{
	"oauth", "auth", "authProviderType", "headersHelper", "targetAudience", "targetServiceAccount", // JSON clients
	"scopes", "oauth_resource", // Codex
}

// bridgeArgs are moat's arguments that run the bridge for the server name.
func bridgeArgs(name string) []string {
	return []string{"mcp", "proxy", "--name", name, "--stdio", "--upstream-env", upstreamEnv}
}

// isBridge reports whether moat's arguments argv run the bridge.
func isBridge(argv []string) bool {
	if len(argv) < 2 || argv[0] != "mcp" || argv[1] != "proxy" {
		return false
	}
	stdio, env := false, false
	for _, a := range argv[2:] {
		if a == "--" {
			break
		}
		stdio = stdio || a == "--stdio"
		env = env || a == "--upstream-env" || strings.HasPrefix(a, "--upstream-env=")
	}
	return stdio && env
}

// header is one HTTP header for the bridge to send.
type header struct{ name, value string }

// span is where the part of the entry v that the bridge rewrites lies in its text: a
// JSON object whole; a TOML table's keys and values, not its header.
func (c Client) span(v *value) (int, int) {
	if c.TOML {
		return v.KeyStarts[0], v.Elems[len(v.Elems)-1].End
	}
	return v.Start, v.End
}

// bridge is the edit that turns the remote entry v, in text, into a stdio entry running
// moat's bridge for the server name, and a note for the user; or the reason the entry
// cannot be wrapped.
func (c Client) bridge(text string, sx syntax, v *value, name, moat string) (ed edit, note, reason string) {
	fail := func(format string, args ...any) (edit, string, string) {
		return edit{}, "", fmt.Sprintf(format, args...)
	}
	u, r := c.remoteURL(v)
	if u == nil || len(v.Elems) == 0 {
		return fail("it has no %s", remoteKeys(c.remotes))
	}
	keys := make(map[string]bool, len(v.Keys))
	for _, k := range v.Keys {
		if keys[k] {
			return fail("it gives %s more than once", k)
		}
		keys[k] = true
	}
	for _, other := range c.remotes {
		if other.key != r.key && keys[other.key] {
			return fail("it has both %s and %s", r.key, other.key)
		}
	}
	if reason := c.transport(text, sx, v, r); reason != "" {
		return fail("%s", reason)
	}
	var carried []int
	for i, k := range v.Keys {
		switch {
		case k == r.key || slices.Contains(c.bridged, k):
		case slices.Contains(c.carried, k):
			carried = append(carried, i)
		case c.TOML && k == "bearer_token":
			return fail("Codex refuses a bearer_token written in its config (bearer_token_env_var names a variable instead)")
		case slices.Contains(authKeys, k):
			return fail("it signs in with %s, which moat's bridge cannot do", k)
		default:
			return fail("it has %s, which moat does not know how to carry into a stdio entry", k)
		}
	}
	target, ok := stringOf(text, sx, u)
	if !ok || target == "" {
		return fail("its %s is not a string", r.key)
	}
	if !strings.Contains(target, "$") {
		// A URL with variables is checked by the bridge once they are expanded.
		if p, err := url.Parse(target); err != nil || p.Scheme != "http" && p.Scheme != "https" || p.Host == "" {
			return fail("its %s is not an http or https URL", r.key)
		}
	}
	if c.TOML && strings.Contains(target, "${") {
		return fail("Codex uses its %s as written, and moat's bridge would expand the ${…} in it", r.key)
	}
	headers, envVars, reason := c.headers(text, sx, v)
	if reason != "" {
		return fail("%s", reason)
	}
	start, end := c.span(v)
	orig := text[start:end]
	if !utf8.ValidString(orig) {
		return fail("it holds bytes that are not UTF-8, which moat could not keep to restore it")
	}
	t, _ := v.Member("type")
	typed := c.typedStdio && t != nil
	var repl string
	if c.TOML {
		repl = tomlStdio(text, v, moat, name, upstream(target, headers), orig, envVars, carried)
	} else {
		repl = jsonStdio(text, v, typed, moat, name, upstream(target, headers), orig, carried)
	}
	if len(headers) == 0 {
		note = "it sends no credentials of its own: if the agent signs in to it (OAuth), the bridge cannot, and the server will refuse it"
	}
	return edit{Start: start, End: end, Text: repl}, note, ""
}

// transport is the reason the entry v, whose URL is given by r, is not for the bridge,
// or "" when it is Streamable HTTP.
func (c Client) transport(text string, sx syntax, v *value, r remote) string {
	if r.fixed != "" {
		if r.fixed == "http" {
			return ""
		}
		return fmt.Sprintf("it uses the %q transport; moat's bridge speaks Streamable HTTP only", r.fixed)
	}
	t, _ := v.Member("type")
	if t == nil {
		switch r.untyped {
		case "http":
			return ""
		case "":
			return fmt.Sprintf("it has a %s but no type, which %s rejects", r.key, c.Name)
		}
		return fmt.Sprintf("it uses the %q transport (a %s without \"type\": \"http\"); moat's bridge speaks Streamable HTTP only", r.untyped, r.key)
	}
	ts, ok := stringOf(text, sx, t)
	if !ok {
		return "its type is not a string"
	}
	switch ts {
	case "http", "streamable-http", "streamableHttp":
		return ""
	}
	return fmt.Sprintf("it uses the %q transport; moat's bridge speaks Streamable HTTP only", ts)
}

// headers reads the headers of the remote entry v, and for Codex the variables they
// name, which Codex passes to a stdio server only when its env_vars list them.
func (c Client) headers(text string, sx syntax, v *value) (hs []header, envVars []string, reason string) {
	seen := map[string]bool{}
	add := func(name, val string) string {
		switch {
		case !isToken(name):
			return fmt.Sprintf("its header name %q is not one HTTP allows", name)
		case seen[strings.ToLower(name)]:
			return fmt.Sprintf("it gives the header %s more than once", name)
		case strings.ContainsAny(val, "\r\n\x00"):
			return fmt.Sprintf("its header %s holds a line break", name)
		}
		seen[strings.ToLower(name)] = true
		hs = append(hs, header{name, val})
		return ""
	}
	table := func(key string, each func(name, val string) string) string {
		t, _ := v.Member(key)
		if t == nil {
			return ""
		}
		if t.Kind != '{' {
			if c.TOML {
				return fmt.Sprintf("its %s is not a table of headers", key)
			}
			return fmt.Sprintf("its %s is not an object of headers", key)
		}
		for i, name := range t.Keys {
			val, ok := stringOf(text, sx, t.Elems[i])
			if !ok {
				return fmt.Sprintf("its header %s is not a string", name)
			}
			if r := each(name, val); r != "" {
				return r
			}
		}
		return ""
	}
	if !c.TOML {
		return hs, nil, table("headers", add)
	}
	// Codex: a bearer token and env_http_headers name variables; http_headers are
	// literal, so a ${…} in them must stay literal, which the bridge would not keep.
	variable := func(name, envVar string) string {
		if !isEnvName(envVar) {
			return fmt.Sprintf("its %s names %q, which is not an environment variable's name", name, envVar)
		}
		if !slices.Contains(envVars, envVar) {
			envVars = append(envVars, envVar)
		}
		return add(name, "${"+envVar+"}")
	}
	if b, _ := v.Member("bearer_token_env_var"); b != nil {
		envVar, ok := stringOf(text, sx, b)
		if !ok {
			return nil, nil, "its bearer_token_env_var is not a string"
		}
		if !isEnvName(envVar) {
			return nil, nil, fmt.Sprintf("its bearer_token_env_var %q is not an environment variable's name", envVar)
		}
		envVars = append(envVars, envVar)
		if r := add("Authorization", "Bearer ${"+envVar+"}"); r != "" {
			return nil, nil, r
		}
	}
	if r := table("http_headers", func(name, val string) string {
		if strings.Contains(val, "${") {
			return fmt.Sprintf("Codex sends the header %s as written, and moat's bridge would expand the ${…} in it", name)
		}
		return add(name, val)
	}); r != "" {
		return nil, nil, r
	}
	if r := table("env_http_headers", variable); r != "" {
		return nil, nil, r
	}
	return hs, envVars, ""
}

// upstream is the JSON the bridge reads from MOAT_MCP_UPSTREAM. Its strings are
// written by quote, whose escapes are JSON's, so that an agent that expands ${…} in
// env values finds them as they were written in the entry.
func upstream(target string, headers []header) string {
	var b strings.Builder
	b.WriteString(`{"url":` + textedit.Quote(target))
	if len(headers) > 0 {
		b.WriteString(`,"headers":{`)
		for i, h := range headers {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(textedit.Quote(h.name) + ":" + textedit.Quote(h.value))
		}
		b.WriteByte('}')
	}
	b.WriteByte('}')
	return b.String()
}

// jsonStdio writes the stdio entry that replaces the JSON object v: on one line when v
// was on one, otherwise a member a line, indented as v's first member was.
func jsonStdio(text string, v *value, typed bool, moat, name, up, orig string, carried []int) string {
	args := make([]string, 0, 7)
	for _, a := range bridgeArgs(name) {
		args = append(args, textedit.Quote(a))
	}
	var members []string
	if typed {
		members = append(members, `"type": "stdio"`)
	}
	members = append(members, `"command": `+textedit.Quote(moat), `"args": [`+strings.Join(args, ", ")+`]`)
	envPair := [2]string{textedit.Quote(upstreamEnv) + ": " + textedit.Quote(up), textedit.Quote(originalEnv) + ": " + textedit.Quote(orig)}
	obj := text[v.Start:v.End]
	if !strings.Contains(obj, "\n") {
		members = append(members, `"env": {`+envPair[0]+", "+envPair[1]+"}")
		for _, i := range carried {
			members = append(members, text[v.KeyStarts[i]:v.Elems[i].End])
		}
		return "{" + strings.Join(members, ", ") + "}"
	}
	nl := "\n"
	if strings.Contains(obj, "\r\n") {
		nl = "\r\n"
	}
	closing, ok := lineIndent(text, v.End-1)
	if !ok {
		// The closing brace ends a line of members: indent as the line the object
		// starts on.
		line := text[strings.LastIndexByte(text[:v.Start], '\n')+1:]
		closing = line[:len(line)-len(strings.TrimLeft(line, " \t"))]
	}
	unit := "  "
	if strings.Contains(closing, "\t") {
		unit = "\t"
	}
	inner := closing + unit
	if ind, ok := lineIndent(text, v.KeyStarts[0]); ok && len(ind) > len(closing) && strings.HasPrefix(ind, closing) {
		inner, unit = ind, ind[len(closing):]
	}
	members = append(members, `"env": {`+nl+inner+unit+envPair[0]+","+nl+inner+unit+envPair[1]+nl+inner+"}")
	for _, i := range carried {
		members = append(members, text[v.KeyStarts[i]:v.Elems[i].End])
	}
	return "{" + nl + inner + strings.Join(members, ","+nl+inner) + nl + closing + "}"
}

// tomlStdio writes the keys and values that replace those of the Codex table v, one a
// line, indented as its first key was. Codex passes a stdio server only a few of its
// variables (HOME, PATH, …) and those its env_vars name, so the variables the headers
// name are listed there.
func tomlStdio(text string, v *value, moat, name, up, orig string, envVars []string, carried []int) string {
	args := make([]string, 0, 7)
	for _, a := range bridgeArgs(name) {
		args = append(args, textedit.Quote(a))
	}
	lines := []string{
		"command = " + textedit.Quote(moat),
		"args = [" + strings.Join(args, ", ") + "]",
		"env = { " + upstreamEnv + " = " + tomlString(up) + ", " + originalEnv + " = " + textedit.Quote(orig) + " }",
	}
	if len(envVars) > 0 {
		names := make([]string, len(envVars))
		for i, n := range envVars {
			names[i] = textedit.Quote(n)
		}
		lines = append(lines, "env_vars = ["+strings.Join(names, ", ")+"]")
	}
	for _, i := range carried {
		lines = append(lines, text[v.KeyStarts[i]:v.Elems[i].End])
	}
	start, _ := (Client{TOML: true}).span(v)
	ind, ok := lineIndent(text, start)
	if !ok {
		ind = ""
	}
	nl := "\n"
	if strings.Contains(text, "\r\n") {
		nl = "\r\n"
	}
	return strings.Join(lines, nl+ind)
}

// tomlString writes s as a literal string when it can be one, which keeps the JSON of
// MOAT_MCP_UPSTREAM readable, and as a basic string otherwise.
func tomlString(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '\'' || c < 0x20 || c == 0x7f {
			return textedit.Quote(s)
		}
	}
	return "'" + s + "'"
}

// lineIndent is the text between the start of pos's line and pos, and whether it is
// only blanks.
func lineIndent(text string, pos int) (string, bool) {
	ind := text[strings.LastIndexByte(text[:pos], '\n')+1 : pos]
	return ind, strings.Trim(ind, " \t") == ""
}

// unwrapBridge restores the entry e, which runs moat's bridge with the arguments argv,
// from its MOAT_MCP_ORIGINAL, if wrapping that again gives the entry as it is now.
func (c Client) unwrapBridge(text string, e entry, sx syntax, moat string, argv []string, ch Change) ([]edit, Change, bool) {
	ch.HTTP = true
	leave := func(reason string) ([]edit, Change, bool) {
		ch.Skipped, ch.Reason = true, reason
		return nil, ch, true
	}
	v := e.val
	var orig string
	ok := false
	if env, n := v.Member("env"); n == 1 && env.Kind == '{' {
		if o, m := env.Member(originalEnv); m == 1 {
			orig, ok = stringOf(text, sx, o)
		}
	}
	if !ok {
		return leave("it runs moat's bridge, but its env has no " + originalEnv + " to restore it from")
	}
	name := e.name
	for i := 2; i < len(argv) && argv[i] != "--"; i++ {
		if n, ok := strings.CutPrefix(argv[i], "--name="); ok {
			name = n
			break
		}
		if argv[i] == "--name" && i+1 < len(argv) {
			name = argv[i+1]
			break
		}
	}
	ov, err := c.parseEntry(orig)
	if err != nil {
		return leave(originalEnv + " does not hold a server entry moat can read")
	}
	ed, _, reason := c.bridge(orig, sx, ov, name, moat)
	if reason != "" {
		return leave(originalEnv + " holds an entry moat would not wrap (" + reason + ")")
	}
	again, err := apply(orig, []edit{ed})
	if err != nil {
		return leave(err.Error())
	}
	if av, err := c.parseEntry(again); err != nil || canon(again, sx, av) != canon(text, sx, v) {
		return leave("it was changed since moat wrapped it, and restoring " + originalEnv +
			" would undo the change: edit it by hand, or restore the file from its " + BackupSuffix)
	}
	start, end := c.span(v)
	return []edit{{Start: start, End: end, Text: orig}}, ch, true
}

// parseEntry reads the text of one entry as span gives it: a JSON object, or the keys
// and values of a TOML table.
func (c Client) parseEntry(text string) (*value, error) {
	if !c.TOML {
		v, err := parseJSON(text)
		if err != nil {
			return nil, err
		}
		if v == nil || v.Kind != '{' || strings.HasPrefix(text, "\uFEFF") {
			return nil, fmt.Errorf("not an object")
		}
		return v, nil
	}
	doc, err := parseTOML(text)
	if err != nil {
		return nil, err
	}
	if len(doc.Tables) > 0 || len(doc.KVs) == 0 || strings.HasPrefix(text, "\uFEFF") {
		return nil, fmt.Errorf("not the keys of one table")
	}
	v := &value{Kind: '{', Start: 0, End: len(text)}
	for _, kv := range doc.KVs {
		v.Keys = append(v.Keys, strings.Join(kv.Path, "."))
		v.KeyStarts = append(v.KeyStarts, kv.KeyStart)
		v.Elems = append(v.Elems, kv.Val)
	}
	return v, nil
}

// canon writes v as a text that two values have alike when they mean the same: strings
// decoded, numbers in one spelling, members in key order, comments and layout left out.
func canon(text string, sx syntax, v *value) string {
	var b strings.Builder
	var walk func(v *value)
	walk = func(v *value) {
		switch v.Kind {
		case '{':
			// Members in key order: a tool that writes keys sorted has not changed
			// what the entry means.
			order := make([]int, len(v.Keys))
			for i := range order {
				order[i] = i
			}
			slices.SortStableFunc(order, func(a, b int) int { return strings.Compare(v.Keys[a], v.Keys[b]) })
			b.WriteByte('{')
			for _, i := range order {
				b.WriteString(textedit.Quote(v.Keys[i]) + ":")
				walk(v.Elems[i])
				b.WriteByte(',')
			}
			b.WriteByte('}')
		case '[':
			b.WriteByte('[')
			for _, e := range v.Elems {
				walk(e)
				b.WriteByte(',')
			}
			b.WriteByte(']')
		case '"':
			s, ok := stringOf(text, sx, v)
			if !ok {
				s = "\x00" + text[v.Start:v.End]
			}
			b.WriteString(textedit.Quote(s))
		default:
			raw := text[v.Start:v.End]
			if f, err := strconv.ParseFloat(raw, 64); err == nil {
				raw = strconv.FormatFloat(f, 'g', -1, 64)
			}
			b.WriteString(raw)
		}
	}
	walk(v)
	return b.String()
}

// bridgeURL is the URL of the server that moat's bridge, run with the arguments argv
// and the environment env, reaches; "" when they do not say.
func bridgeURL(argv []string, env map[string]string) string {
	name := ""
	for i, a := range argv {
		if a == "--" {
			break
		}
		if v, ok := strings.CutPrefix(a, "--upstream-env="); ok {
			name = v
		} else if a == "--upstream-env" && i+1 < len(argv) {
			name = argv[i+1]
		}
	}
	var up struct {
		URL string `json:"url"`
	}
	if name == "" || json.Unmarshal([]byte(env[name]), &up) != nil {
		return ""
	}
	return up.URL
}

// isToken reports whether s is an HTTP header name (RFC 9110's token).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}

// isEnvName reports whether s can be named as ${s}: a letter or underscore, then
// letters, digits and underscores.
func isEnvName(s string) bool {
	if s == "" || '0' <= s[0] && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}
