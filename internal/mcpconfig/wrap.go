package mcpconfig

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/moatdev/moat/internal/textedit"
)

// How Unwrap gives back exactly what Wrap changed.
//
// For a stdio server, moat keeps no copy of the original entry, neither beside it in the
// file nor in a file of its own. A key moat added to an entry ("moat": {"original": …})
// would be refused by clients that check their entries (Claude Code validates them with
// a schema, Codex's serde structs may deny unknown fields), and a copy kept elsewhere
// goes stale the moment the user edits the entry (adds an env variable to the wrapped
// server), so that restoring it would undo their edit.
//
// Instead Wrap's edit is its own record. It never rewrites a value; it only inserts
// before the original bytes, and replaces the command with moat's path, having first
// copied the command's text, byte for byte, into the inserted arguments:
//
//	"command": "npx",         "args": ["-y", "srv"]
//	"command": "/bin/moat",   "args": ["mcp", "proxy", "--name", "fs", "--", "npx", "-y", "srv"]
//
// Unwrap takes the command's text back from the element after "--" and cuts out exactly
// what was inserted. Where the inserted text goes depends on the original layout, and
// each layout's insertion is recognisably different from the others', so the cut is
// exact:
//
//   - args whose first element (or a comment before it) starts on a new line: the
//     prefix gets a line of its own, with the same white space before it.
//   - any other non-empty args: the prefix, then ", ", right after "[".
//   - empty args: the prefix alone, right after "[".
//   - no args at all: a new args member right after the command, on a line of its own
//     when the command has one, its elements separated by "," without a space. That
//     spelling is what tells it apart from args the user wrote as [].
//
// When something else rewrote the file in between (Claude Code re-serialises
// ~/.claude.json), the inserted text no longer matches any layout. Unwrap then still
// restores the command and arguments, by their values: it removes the elements up to the
// original command and keeps the file's new layout, and its Change says so.
//
// A remote server's entry cannot be kept in place that way: it becomes a stdio entry
// that runs moat's bridge, and carries a copy of its original text in an environment
// variable the client accepts like any other, checked against the entry before it is
// restored so that a stale copy never undoes an edit (see bridge.go).

// Options tune Wrap and the file functions.
type Options struct {
	// DryRun makes WrapFile and UnwrapFile compute the new text and write nothing.
	DryRun bool
	// Skip names servers Wrap leaves as they are, reported as skipped: a remote server
	// the agent signs in to by itself, which the bridge cannot, or any the user wants
	// left alone.
	Skip []string
	// StdioOnly makes Wrap leave every remote server as it is, reported as skipped.
	StdioOnly bool
}

const reasonAsked = "left as it is, as asked"

// Change is what Wrap or Unwrap did, or declined to do, with one server entry.
type Change struct {
	// Where names the object or table that holds the server, such as "mcpServers",
	// `projects["/src/app"].mcpServers` or "mcp_servers".
	Where string
	// Server is the server's name: its key, decoded. It is the name moat's proxy is
	// given, exactly.
	Server string
	// Line is the line of the entry in the text given to Wrap or Unwrap.
	Line int
	// HTTP says the entry is a remote server, given by a URL.
	HTTP bool
	// Already says Wrap found the entry running through moat and left it alone.
	Already bool
	// Skipped says the entry was left as it is: moat cannot edit it safely, or was
	// asked to leave it (Options.Skip, Options.StdioOnly).
	Skipped bool
	// Reason says why an entry was skipped. For an entry Unwrap restored from a file
	// reformatted since it was wrapped, it says that the layout was not restored; for a
	// remote server Wrap wrapped, it may say what to look out for.
	Reason string

	unwrap bool
}

func (c Change) String() string {
	s := c.Where
	if c.Server != "" {
		s = step(c.Where, c.Server, false)
	}
	if c.Line > 0 {
		s += fmt.Sprintf(" (line %d)", c.Line)
	}
	switch {
	case c.Skipped:
		return s + ": skipped: " + c.Reason
	case c.Already:
		return s + ": already runs through moat"
	case c.unwrap && c.Reason != "":
		return s + ": restored; " + c.Reason
	case c.unwrap:
		return s + ": restored"
	case c.HTTP && c.Reason != "":
		return s + ": wrapped (HTTP, through moat's stdio bridge); " + c.Reason
	case c.HTTP:
		return s + ": wrapped (HTTP, through moat's stdio bridge)"
	}
	return s + ": wrapped"
}

const reasonLayout = "the file was reformatted since moat wrapped it, so the arguments keep its new layout"

// entry is one server entry found in a file.
type entry struct {
	where, name string
	pos         int    // where the entry's key (JSON) or table header (TOML) starts
	val         *value // an object; for TOML, the table's keys and values
	skip        string // a reason to leave the entry, found while looking for it
	// subtable names a table of a TOML server's own ([mcp_servers.NAME.env]), the
	// first one, if it has any.
	subtable string
}

// edit replaces text[Start:End] with Text.
type edit = textedit.Edit

// syntax is what differs between the JSON and TOML files when moat edits an entry.
type syntax interface {
	unquote(raw string) (string, bool)
	// addArgs is the edit that gives an entry with no args the args list (a bracketed
	// array), placed after the command.
	addArgs(text string, cmdKey int, cmd *value, list string) edit
	// removeAddedArgs is the edit that undoes addArgs, if args is where addArgs puts it.
	removeAddedArgs(text string, cmdKey int, cmd *value, argsKey int, args *value) (edit, bool)
	// skipSpace returns where the white space and comments from pos end.
	skipSpace(text string, pos int) int
}

// Wrap returns text with every server entry moat can wrap running through moat's
// proxy, moatPath being the absolute path of the moat binary, and a Change for every
// server entry in the text. Everything else in text is kept byte for byte. Wrap is
// idempotent. A text that does not parse gives a *ParseError.
func (c Client) Wrap(text, moatPath string, opts Options) (string, []Change, error) {
	if !isAbs(moatPath) || !isMoat(moatPath) {
		// The path is how Unwrap and a second Wrap know an entry is moat's.
		return "", nil, fmt.Errorf("moat's path must be absolute and name a file called moat, not %q", moatPath)
	}
	entries, sx, err := c.entries(text)
	if err != nil {
		return "", nil, err
	}
	var edits []edit
	changes := []Change{}
	for _, e := range entries {
		ed, ch := c.wrapEntry(text, e, sx, moatPath, opts)
		edits = append(edits, ed...)
		changes = append(changes, ch)
	}
	out, err := apply(text, edits)
	if err != nil {
		return "", nil, err
	}
	return out, changes, nil
}

// Unwrap returns text with every entry that runs through moat's proxy restored, and a
// Change for each. Entries moat did not wrap are not reported.
func (c Client) Unwrap(text string) (string, []Change, error) {
	entries, sx, err := c.entries(text)
	if err != nil {
		return "", nil, err
	}
	var edits []edit
	changes := []Change{}
	for _, e := range entries {
		ed, ch, ok := c.unwrapEntry(text, e, sx)
		if ok {
			edits = append(edits, ed...)
			changes = append(changes, ch)
		}
	}
	out, err := apply(text, edits)
	if err != nil {
		return "", nil, err
	}
	return out, changes, nil
}

func (c Client) entries(text string) ([]entry, syntax, error) {
	if c.TOML {
		es, err := tomlEntries(text)
		return es, tomlSyntax{}, err
	}
	es, err := c.jsonEntries(text)
	return es, jsonSyntax{}, err
}

func (c Client) wrapEntry(text string, e entry, sx syntax, moat string, opts Options) ([]edit, Change) {
	ch := Change{Where: e.where, Server: e.name, Line: lineOf(text, e.pos)}
	skip := func(format string, args ...any) ([]edit, Change) {
		ch.Skipped, ch.Reason = true, fmt.Sprintf(format, args...)
		return nil, ch
	}
	if e.skip != "" {
		return skip("%s", e.skip)
	}
	if e.name != "" && slices.Contains(opts.Skip, e.name) {
		return skip(reasonAsked)
	}
	v := e.val
	if v.Kind != '{' {
		return skip("the entry is not an object")
	}
	cmd, ncmd := v.Member("command")
	urlVal, rem := c.remoteURL(v)
	switch {
	case ncmd > 1:
		return skip("it gives command more than once")
	case cmd != nil && urlVal != nil:
		return skip("it has both a command and a %s", rem.key)
	case cmd == nil && urlVal == nil:
		if len(c.remotes) == 0 {
			return skip("it has no command")
		}
		return skip("it has neither a command nor a %s", remoteKeys(c.remotes))
	case urlVal != nil:
		ch.HTTP = true
		if opts.StdioOnly {
			return skip(reasonAsked)
		}
		if e.subtable != "" {
			return skip("its %s is written as a table of its own ([mcp_servers.%s.%s]); moat wraps a remote server written in one table",
				e.subtable, e.name, e.subtable)
		}
		ed, note, reason := c.bridge(text, sx, v, e.name, moat)
		if reason != "" {
			return skip("%s", reason)
		}
		ch.Reason = note
		return []edit{ed}, ch
	}

	command, ok := stringOf(text, sx, cmd)
	if !ok {
		return skip("its command is not a string")
	}
	if command == "" {
		return skip("its command is empty")
	}
	if t, _ := v.Member("type"); t != nil {
		if ts, ok := stringOf(text, sx, t); !ok || ts != "stdio" {
			return skip("its type is %s, not stdio, yet it has a command", text[t.Start:t.End])
		}
	}
	args, nargs := v.Member("args")
	if nargs > 1 {
		return skip("it gives args more than once")
	}
	if args != nil {
		if args.Kind != '[' {
			return skip("its args is not an array")
		}
		for _, a := range args.Elems {
			if _, ok := stringOf(text, sx, a); !ok {
				return skip("its args hold %s, which is not a string", text[a.Start:a.End])
			}
		}
	}
	if _, ok := wrappedArgs(text, sx, command, args); ok {
		ch.Already = true
		ch.HTTP = isBridge(argsOf(text, sx, args))
		return nil, ch
	}

	prefix := []string{textedit.Quote("mcp"), textedit.Quote("proxy"), textedit.Quote("--name"), textedit.Quote(e.name), textedit.Quote("--"), text[cmd.Start:cmd.End]}
	edits := []edit{{Start: cmd.Start, End: cmd.End, Text: textedit.Quote(moat)}}
	switch {
	case args == nil:
		edits = append(edits, sx.addArgs(text, keyOf(v, cmd), cmd, "["+strings.Join(prefix, ",")+"]"))
	case len(args.Elems) == 0:
		edits = append(edits, edit{Start: args.Start + 1, End: args.Start + 1, Text: strings.Join(prefix, ", ")})
	default:
		in := args.Start + 1
		if ws := leadingBlanks(text[in:args.Elems[0].Start]); strings.Contains(ws, "\n") {
			edits = append(edits, edit{Start: in, End: in, Text: ws + strings.Join(prefix, ", ") + ","})
		} else {
			edits = append(edits, edit{Start: in, End: in, Text: strings.Join(prefix, ", ") + ", "})
		}
	}
	return edits, ch
}

func (c Client) unwrapEntry(text string, e entry, sx syntax) ([]edit, Change, bool) {
	ch := Change{Where: e.where, Server: e.name, Line: lineOf(text, e.pos), unwrap: true}
	v := e.val
	if e.skip != "" || v.Kind != '{' {
		return nil, ch, false
	}
	cmd, ncmd := v.Member("command")
	args, nargs := v.Member("args")
	if ncmd != 1 || nargs != 1 || args.Kind != '[' {
		return nil, ch, false
	}
	command, ok := stringOf(text, sx, cmd)
	if !ok {
		return nil, ch, false
	}
	for _, a := range args.Elems {
		if _, ok := stringOf(text, sx, a); !ok {
			return nil, ch, false
		}
	}
	k, ok := wrappedArgs(text, sx, command, args)
	if !ok {
		return nil, ch, false
	}
	if argv := argsOf(text, sx, args); k < 0 && isBridge(argv) {
		return c.unwrapBridge(text, e, sx, command, argv, ch)
	}
	if k < 0 {
		ch.Skipped, ch.Reason = true, "it runs through moat, but moat cannot tell which command it wraps"
		return nil, ch, true
	}
	el := args.Elems
	edits := []edit{{Start: cmd.Start, End: cmd.End, Text: text[el[k+1].Start:el[k+1].End]}}
	if ed, ok := exactArgs(text, sx, v, cmd, args, k); ok {
		return append(edits, ed), ch, true
	}
	ch.Reason = reasonLayout
	if len(el) > k+2 {
		return append(edits, edit{Start: el[0].Start, End: el[k+2].Start, Text: ""}), ch, true
	}
	return append(edits, edit{Start: args.Start, End: args.End, Text: "[]"}), ch, true
}

// exactArgs is the edit that undoes Wrap's insertion into args, if args holds it as
// Wrap wrote it (see the top of this file). k is the index of the "--" element.
func exactArgs(text string, sx syntax, v, cmd, args *value, k int) (edit, bool) {
	el := args.Elems
	if k != 4 || len(el) < 6 || text[el[2].Start:el[2].End] != textedit.Quote("--name") ||
		text[el[0].Start:el[0].End] != textedit.Quote("mcp") || text[el[1].Start:el[1].End] != textedit.Quote("proxy") ||
		text[el[4].Start:el[4].End] != textedit.Quote("--") {
		return edit{}, false
	}
	seps := func(sep string) bool {
		for i := range 5 {
			if text[el[i].End:el[i+1].Start] != sep {
				return false
			}
		}
		return true
	}
	in, x := args.Start+1, el[5]
	if seps(",") && len(el) == 6 && el[0].Start == in && x.End+1 == args.End {
		return sx.removeAddedArgs(text, keyOf(v, cmd), cmd, keyOf(v, args), args)
	}
	if !seps(", ") {
		return edit{}, false
	}
	switch {
	case el[0].Start == in && len(el) == 6 && strings.HasPrefix(text[sx.skipSpace(text, x.End):], "]"):
		// Nothing but space and comments after the command: Wrap never writes a
		// trailing comma there, and cutting before one would leave "[,]".
		return edit{Start: in, End: x.End, Text: ""}, true
	case el[0].Start == in && strings.HasPrefix(text[x.End:], ", "):
		return edit{Start: in, End: x.End + 2, Text: ""}, true
	case len(el) > 6:
		ws := text[in:el[0].Start]
		if isBlank(ws) && strings.Contains(ws, "\n") && text[x.End] == ',' && leadingBlanks(text[x.End+1:el[6].Start]) == ws {
			return edit{Start: in, End: x.End + 1, Text: ""}, true
		}
	}
	return edit{}, false
}

// wrappedArgs reports whether command and args run a server through moat's proxy, and
// the index in args of the "--" that ends moat's own arguments (-1 when there is none
// to find).
func wrappedArgs(text string, sx syntax, command string, args *value) (int, bool) {
	if !isMoat(command) || args == nil || len(args.Elems) < 2 {
		return 0, false
	}
	argv := argsOf(text, sx, args)
	if argv[0] != "mcp" || argv[1] != "proxy" {
		return 0, false
	}
	for i := 2; i < len(argv); {
		switch a := argv[i]; {
		case a == "--":
			if i+1 >= len(argv) {
				return -1, true
			}
			return i, true
		case a == "--name" || a == "--agent" || a == "--policy" || a == "--upstream" || a == "--upstream-env" || a == "--listen":
			// The proxy's flags that take a value (internal/cli/mcp.go).
			i += 2
		case a == "--stdio" || a == "--allow-remote":
			i++
		case strings.HasPrefix(a, "--") && strings.Contains(a, "="):
			i++
		default:
			return -1, true
		}
	}
	return -1, true
}

// isMoat reports whether a command names a moat binary.
func isMoat(command string) bool {
	base := strings.ToLower(command[strings.LastIndexAny(command, `/\`)+1:])
	return base == "moat" || base == "moat.exe"
}

// isAbs accepts Windows paths on every system, since the text may be for a Windows
// client edited elsewhere.
func isAbs(p string) bool {
	return filepath.IsAbs(p) || strings.HasPrefix(p, "/") ||
		len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') || strings.HasPrefix(p, `\\`)
}

// leadingBlanks is the white space s starts with.
func leadingBlanks(s string) string {
	return s[:len(s)-len(strings.TrimLeft(s, " \t\r\n"))]
}

func isBlank(s string) bool {
	return strings.Trim(s, " \t\r\n") == ""
}

func stringOf(text string, sx syntax, v *value) (string, bool) {
	if v == nil || v.Kind != '"' {
		return "", false
	}
	return sx.unquote(text[v.Start:v.End])
}

// argsOf decodes the elements of args, which the caller has checked are strings.
func argsOf(text string, sx syntax, args *value) []string {
	argv := make([]string, len(args.Elems))
	for i, a := range args.Elems {
		argv[i], _ = stringOf(text, sx, a)
	}
	return argv
}

// remoteURL is the value that gives the URL of a remote entry, and its key.
func (c Client) remoteURL(v *value) (*value, remote) {
	for _, r := range c.remotes {
		if u, _ := v.Member(r.key); u != nil {
			return u, r
		}
	}
	return nil, remote{}
}

// keyOf is where the key of member m of object v starts.
func keyOf(v, m *value) int {
	for i, e := range v.Elems {
		if e == m {
			return v.KeyStarts[i]
		}
	}
	return m.Start
}

func remoteKeys(rs []remote) string {
	keys := make([]string, len(rs))
	for i, r := range rs {
		keys[i] = r.key
	}
	return strings.Join(keys, " or ")
}

// apply makes the edits to text. Edits of different entries cannot overlap, nor can
// those of one entry; should that ever be wrong, the text is refused, not garbled.
func apply(text string, edits []edit) (string, error) { return textedit.Apply(text, edits) }
