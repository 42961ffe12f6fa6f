package call

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// ArgType is the JSON type a native argument must have. The zero ArgType is no type, so
// an argument declared without one is caught by the table's test rather than accepting
// anything.
type ArgType int

const (
	// TypeString is a JSON string.
	TypeString ArgType = iota + 1
	// TypeNumber is a JSON number.
	TypeNumber
	// TypeBool is true or false.
	TypeBool
	// TypeObject is a JSON object.
	TypeObject
	// TypeStrings is an array of strings (not empty when it is a target: a list of
	// paths that names none is read as nothing).
	TypeStrings
	// TypeEdits is an array of edit objects whose old_string and new_string, when
	// present, are strings.
	TypeEdits
	// TypeJSONObject is an object, or a string that holds one (Cursor documents
	// beforeMCPExecution's tool_input as a JSON string and sometimes sends the object).
	TypeJSONObject
)

func (t ArgType) String() string {
	switch t {
	case TypeString:
		return "a string"
	case TypeNumber:
		return "a number"
	case TypeBool:
		return "a boolean"
	case TypeObject:
		return "an object"
	case TypeStrings:
		return "an array of strings"
	case TypeEdits:
		return "an array of edits"
	case TypeJSONObject:
		return "an object or a JSON string holding one"
	}
	return fmt.Sprintf("ArgType(%d)", int(t))
}

// Arg declares one argument of a native tool: the names an agent sends it under, the
// canonical key it becomes, its type and whether it must be there.
type Arg struct {
	// Names are the keys the argument arrives under: its documented name first, then
	// the aliases other versions of the agent use (Cursor's target_file beside
	// file_path, Gemini CLI's absolute_path). The canonical key As is accepted too, so
	// that moat's own callers (check --args, the daemon protocol) may use it. Two of
	// these names in one call are an error: moat would have to guess which one the
	// agent acts on.
	Names []string
	// As is where the value goes: a canonical key (ArgPath, ArgCommand, …), AsCwd for
	// the working directory, one of the AsMCP… parts of an MCP call that arrives as a
	// hook event, or "" to keep it under its first name.
	As   string
	Type ArgType
	// Required arguments must be present.
	Required bool
	// URLs marks a text that holds the URL the call fetches (Gemini CLI's web_fetch
	// takes its URLs inside its prompt): exactly one distinct URL must be found in it,
	// since moat decides one fetch per call.
	URLs bool
	// Sent marks a text the tool sends off the machine as it is (a web search's query,
	// which the search engine receives and keeps): a secret in it leaves.
	Sent bool
}

// Where an argument goes when it is not one of the call's canonical arguments.
const (
	// AsCwd is the working directory the call runs in.
	AsCwd = "(cwd)"
	// AsMCPServer, AsMCPTool and AsMCPArgs are the server, the tool and the arguments of
	// an MCP call carried by a hook event (Windsurf's pre_mcp_tool_use).
	AsMCPServer = "(mcp server)"
	AsMCPTool   = "(mcp tool)"
	AsMCPArgs   = "(mcp arguments)"
)

// Target reports whether an argument names what the call acts on: a path, a command, a
// URL, a working directory or an MCP tool. Such an argument is never null, nor (but for
// a command, which then runs nothing) empty, since moat would then decide a call about
// nothing while the agent acts on something.
func (a Arg) Target() bool {
	switch a.As {
	case ArgPath, ArgPaths, ArgCommand, ArgURL, AsCwd, AsMCPServer, AsMCPTool, AsMCPArgs:
		return true
	}
	return false
}

// Example is a value of the argument's type as an agent sends it (a path where a path
// goes, a command where a command goes): the table's own sample, which the tests of
// Canonicalize and of the hook adapters build their cases and fuzz seeds from.
func (a Arg) Example() any {
	switch a.Type {
	case TypeString:
		switch {
		case a.URLs:
			return "summarise https://example.com/page"
		case a.As == ArgPath || a.As == AsCwd:
			return "/w/a"
		case a.As == ArgCommand || a.Names[0] == "command":
			return "ls"
		case a.As == ArgURL:
			return "https://example.com/"
		}
		return "x"
	case TypeNumber:
		return json.Number("1")
	case TypeBool:
		return true
	case TypeObject:
		return map[string]any{"a": json.Number("1")}
	case TypeStrings:
		return []any{"/w/a"}
	case TypeEdits:
		return []any{map[string]any{"old_string": "a", "new_string": "b"}}
	case TypeJSONObject:
		return `{"a":1}`
	}
	return nil
}

// ExampleArgs are arguments the tool accepts, made of each argument's Example: every
// declared argument, or only the required ones.
func (nt NativeTool) ExampleArgs(all bool) map[string]any {
	args := map[string]any{}
	for _, a := range nt.Args {
		if all || a.Required {
			args[a.Names[0]] = a.Example()
		}
	}
	return args
}

// key is the key the argument is kept under in the call's arguments.
func (a Arg) key() string {
	if a.As != "" {
		return a.As
	}
	return a.Names[0]
}

// ExtraKeys says what happens to the keys of a call that its tool does not declare.
type ExtraKeys int

const (
	// ExtraUnlessNamed keeps an undeclared key as data, unless its name says it holds a
	// path, a command or a URL (targetWords): that is an error, because a target moat
	// does not read must not pass as data. Agents add fields to their tools often, so
	// this is the zero value and the default.
	ExtraUnlessNamed ExtraKeys = iota
	// ExtraKept keeps every undeclared key, whatever its name: for tools of class
	// other, decided by native name, whose arguments moat reads as data only.
	ExtraKept
	// ExtraRefused makes any undeclared key an error: for events whose arguments the
	// hook adapter assembles itself from the payload's documented fields.
	ExtraRefused
)

// targetWords are the words that, in an argument's name, say it holds a path, a command
// or a URL: a key made of words (target_file, filePath, command_line, workingDirectory)
// with one of them among its words is such a key. Sorted, for a binary search; a slice
// rather than a map, so that it costs nothing at start-up.
var targetWords = []string{
	"argv", "cmd", "cmdline", "command", "commandline", "commands", "cwd",
	"dest", "destination", "dir", "directories", "directory", "dirs", "document",
	"endpoint", "exec", "file", "filename", "filenames", "filepath", "files", "folder", "folders",
	"host", "href", "link", "location", "notebook", "path", "pathname", "paths", "pwd",
	"script", "shell", "target", "uri", "uris", "url", "urls", "workdir",
}

// NamesTarget reports whether an argument's name says it holds a path, a command or a
// URL: whether one of its words (split at '_', '-', '.', spaces and case changes) is
// one of targetWords.
func NamesTarget(key string) bool {
	for _, w := range keyWords(key) {
		if _, found := slices.BinarySearch(targetWords, w); found {
			return true
		}
	}
	return false
}

// keyWords splits a key into lower-case words: "target_file" and "targetFile" both give
// target, file.
func keyWords(key string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	runes := []rune(key)
	for i, r := range runes {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r) && i > 0 && (unicode.IsLower(runes[i-1]) || i+1 < len(runes) && unicode.IsLower(runes[i+1])):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
	}
	flush()
	return words
}

// ArgError is a native tool's argument that moat cannot read: missing, of the wrong type,
// given under two names, or unknown with a name that says it is a target.
type ArgError struct {
	Agent Agent
	Tool  string
	Key   string
	Msg   string
}

func (e *ArgError) Error() string {
	if e.Key == "" {
		return fmt.Sprintf("%s: %s", e.Tool, e.Msg)
	}
	return fmt.Sprintf("%s argument %q: %s", e.Tool, e.Key, e.Msg)
}

// nativeArgs is a call's arguments as its tool's declaration reads them.
type nativeArgs struct {
	args               map[string]any // under canonical keys, or native ones kept
	cwd                string
	mcpServer, mcpTool string
	mcpArgs            map[string]any
}

// readArgs reads args as the tool declares them. Every declared argument that is present
// has its type, each required one is present, none arrives under two names, and the
// undeclared keys are handled as nt.Extra says. The caller's maps are not changed.
func (nt NativeTool) readArgs(args map[string]any) (nativeArgs, error) {
	out := nativeArgs{args: make(map[string]any, len(args))}
	fail := func(key, format string, v ...any) (nativeArgs, error) {
		return nativeArgs{}, &ArgError{Agent: nt.Agent, Tool: nt.Name, Key: key, Msg: fmt.Sprintf(format, v...)}
	}
	declared := make(map[string]bool, len(nt.Args)*2)
	for _, a := range nt.Args {
		names := a.Names
		if a.As != "" && !slices.Contains(names, a.As) && slices.Contains(ArgKeys[nt.Class], a.As) {
			names = append(slices.Clip(names), a.As)
		}
		var found string
		var v any
		for _, n := range names {
			declared[n] = true
			x, ok := args[n]
			if !ok {
				continue
			}
			if found != "" {
				return fail(n, "given twice, also as %q: moat will not guess which one %s acts on", found, nt.Agent)
			}
			found, v = n, x
		}
		if found == "" {
			if a.Required {
				return fail(a.Names[0], "missing")
			}
			continue
		}
		if v == nil && !a.Target() && !a.Required {
			// An optional option sent as null is the option left out.
			continue
		}
		val, why := a.Type.read(v)
		if why != "" {
			return fail(found, "%s, not %s", why, describe(v))
		}
		// An empty command runs nothing (sh -c '' is a no-op the guarded shell sees), so
		// it is read as what it is; an empty path or URL would be read as nothing while
		// the agent resolves it to something (the working directory, say).
		if a.Target() && a.As != ArgCommand {
			if msg := emptyTarget(val); msg != "" {
				return fail(found, "%s", msg)
			}
		}
		switch a.As {
		case AsCwd:
			out.cwd = val.(string)
		case AsMCPServer:
			out.mcpServer = val.(string)
		case AsMCPTool:
			out.mcpTool = val.(string)
		case AsMCPArgs:
			out.mcpArgs = val.(map[string]any)
		default:
			out.args[a.key()] = val
		}
		if a.URLs {
			urls := urlsIn(val.(string))
			switch len(urls) {
			case 0:
				return fail(found, "names no http(s) URL: moat cannot tell what %s would fetch", nt.Name)
			case 1:
				if _, set := out.args[ArgURL]; set {
					return fail(found, "names a URL, and the call gives one elsewhere too")
				}
				out.args[ArgURL] = urls[0]
			default:
				return fail(found, "names %d URLs (%s, …): moat decides one fetch per call, so fetch them one at a time", len(urls), urls[0])
			}
		}
	}
	extra := make([]string, 0, len(args))
	for k := range args {
		if !declared[k] {
			extra = append(extra, k)
		}
	}
	slices.Sort(extra) // the error names the same key every time
	for _, k := range extra {
		switch {
		case nt.Extra == ExtraRefused:
			return fail(k, "not an argument of %s", nt.Name)
		case nt.Extra == ExtraUnlessNamed && NamesTarget(k):
			return fail(k, "not an argument moat knows %s to take, and its name says it is a path, command or URL, which moat will not pass unread", nt.Name)
		}
		if _, clash := out.args[k]; clash {
			return fail(k, "clashes with the canonical argument of the same name")
		}
		out.args[k] = args[k]
	}
	return out, nil
}

// read checks that v has type t and returns it in the form calls hold: []any for arrays,
// a map for a JSON object given as a string. why is "" when v has the type.
func (t ArgType) read(v any) (val any, why string) {
	switch t {
	case TypeString:
		if s, ok := v.(string); ok {
			return s, ""
		}
	case TypeNumber:
		switch v.(type) {
		case json.Number, float64, float32, int, int64, int32, uint, uint64, uint32:
			return v, ""
		}
	case TypeBool:
		if b, ok := v.(bool); ok {
			return b, ""
		}
	case TypeObject:
		if m, ok := v.(map[string]any); ok {
			return m, ""
		}
	case TypeStrings:
		list, ok := stringList(v)
		if !ok {
			break
		}
		return list, ""
	case TypeEdits:
		list, ok := v.([]any)
		if !ok {
			break
		}
		for i, e := range list {
			m, ok := e.(map[string]any)
			if !ok {
				return nil, fmt.Sprintf("edit %d must be an object", i+1)
			}
			if _, o := m["old_string"]; o {
				if _, c := m[ArgOld]; c {
					return nil, fmt.Sprintf("edit %d gives old_string and old", i+1)
				}
			}
			if _, o := m["new_string"]; o {
				if _, c := m[ArgNew]; c {
					return nil, fmt.Sprintf("edit %d gives new_string and new", i+1)
				}
			}
			for _, k := range []string{"old_string", "new_string", ArgOld, ArgNew} {
				if x, set := m[k]; set {
					if _, ok := x.(string); !ok {
						return nil, fmt.Sprintf("edit %d: %s must be a string", i+1, k)
					}
				}
			}
		}
		return list, ""
	case TypeJSONObject:
		switch x := v.(type) {
		case map[string]any:
			return x, ""
		case string:
			var m map[string]any
			d := json.NewDecoder(strings.NewReader(x))
			d.UseNumber()
			if err := d.Decode(&m); err != nil || m == nil || d.More() {
				return nil, "must be a JSON object or a string holding one"
			}
			return m, ""
		}
	default:
		return nil, fmt.Sprintf("has no declared type (%v)", t)
	}
	return nil, "must be " + t.String()
}

// stringList returns v as []any when it is an array of strings.
func stringList(v any) ([]any, bool) {
	switch list := v.(type) {
	case []any:
		for _, e := range list {
			if _, ok := e.(string); !ok {
				return nil, false
			}
		}
		return list, true
	case []string:
		out := make([]any, len(list))
		for i, s := range list {
			out[i] = s
		}
		return out, true
	}
	return nil, false
}

// emptyTarget says why a target's value names nothing, or "".
func emptyTarget(v any) string {
	switch x := v.(type) {
	case string:
		if strings.TrimSpace(x) == "" {
			return "is empty"
		}
	case []any:
		if len(x) == 0 {
			return "is an empty list"
		}
		for i, e := range x {
			if s, _ := e.(string); strings.TrimSpace(s) == "" {
				return fmt.Sprintf("element %d is empty", i+1)
			}
		}
	}
	return ""
}

// describe names the JSON type of a decoded value, for messages.
func describe(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number, float64, float32, int, int64, int32, uint, uint64, uint32:
		return "a number"
	case map[string]any:
		return "an object"
	case []any, []string:
		return "an array"
	}
	return fmt.Sprintf("%T", v)
}

// urlsIn returns the distinct http(s) URLs in text, in order.
func urlsIn(text string) []string {
	var urls []string
	for _, u := range urlInText().FindAllString(text, -1) {
		if !slices.Contains(urls, u) {
			urls = append(urls, u)
		}
	}
	return urls
}

// classNeeds are, per class, the canonical keys of which a call must have one, whatever
// the agent: a file call that names no file, a shell call without a command or a fetch
// without a URL would be decided about nothing. (A search without a path searches the
// working directory.)
var classNeeds = []struct {
	class Class
	keys  []string
}{
	{Shell, []string{ArgCommand}},
	{FileRead, []string{ArgPath, ArgPaths}},
	{FileWrite, []string{ArgPath}},
	{FileEdit, []string{ArgPath}},
	{FileDelete, []string{ArgPath}},
	{WebFetch, []string{ArgURL}},
}

// classArgs declares the canonical arguments of each class, for calls named by their
// class (`moat check --tool shell`, policy tests, the daemon protocol).
var classArgs = []struct {
	class Class
	args  []Arg
}{
	{Shell, []Arg{{Names: []string{ArgCommand}, As: ArgCommand, Type: TypeString}}},
	{FileRead, []Arg{{Names: []string{ArgPath}, As: ArgPath, Type: TypeString}, {Names: []string{ArgPaths}, As: ArgPaths, Type: TypeStrings}}},
	{FileWrite, []Arg{
		{Names: []string{ArgPath}, As: ArgPath, Type: TypeString},
		{Names: []string{ArgContent}, As: ArgContent, Type: TypeString},
	}},
	{FileEdit, []Arg{
		{Names: []string{ArgPath}, As: ArgPath, Type: TypeString},
		{Names: []string{ArgOld}, As: ArgOld, Type: TypeString},
		{Names: []string{ArgNew}, As: ArgNew, Type: TypeString},
		{Names: []string{ArgEdits}, As: ArgEdits, Type: TypeEdits},
	}},
	{FileDelete, []Arg{{Names: []string{ArgPath}, As: ArgPath, Type: TypeString}}},
	{FileSearch, []Arg{
		{Names: []string{ArgPattern}, As: ArgPattern, Type: TypeString},
		{Names: []string{ArgPath}, As: ArgPath, Type: TypeString},
		{Names: []string{ArgPaths}, As: ArgPaths, Type: TypeStrings},
	}},
	{WebFetch, []Arg{{Names: []string{ArgURL}, As: ArgURL, Type: TypeString}}},
}

// needKeys returns the keys of which a call of class must have one (see classNeeds).
func needKeys(class Class) []string {
	for _, n := range classNeeds {
		if n.class == class {
			return n.keys
		}
	}
	return nil
}

// argsOfClass returns the canonical arguments of class (see classArgs).
func argsOfClass(class Class) []Arg {
	for _, a := range classArgs {
		if a.class == class {
			return a.args
		}
	}
	return nil
}

// needs returns an error when c lacks every key its class needs one of.
func needs(c *Call) error {
	keys := needKeys(c.Class)
	if len(keys) == 0 {
		return nil
	}
	for _, k := range keys {
		if _, ok := c.Args[k]; ok {
			return nil
		}
	}
	return &ArgError{Agent: c.Agent, Tool: c.Tool, Msg: fmt.Sprintf("a %s call needs its %s, and none was given", c.Class, strings.Join(keys, " or "))}
}
