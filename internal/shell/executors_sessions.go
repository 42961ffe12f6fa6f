package shell

import (
	"cmp"
	"regexp"
	"strings"
	"sync"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/shell/oneliner"
)

// Programs that run commands in a session of their own or for each of their inputs: tmux
// and screen start windows running a command and type keys into them; GNU parallel runs a
// command line for each input; xargs -I puts each input where its replacement string is.

// tmuxCode is where a tmux command takes a shell command.
type tmuxCode uint8

const (
	tmuxNone     tmuxCode = iota
	tmuxTrailing          // its operands, joined, are a shell command line (new-window CMD)
	tmuxFirst             // its first operand is one (if-shell CMD TMUX-COMMAND…)
	tmuxKeys              // its operands are keys typed into a pane (send-keys)
	tmuxFiles             // its operands are files of tmux commands (source-file)
	tmuxLater             // its operands after the first are a tmux command run later (set-hook, bind-key)
	tmuxLast              // its last operand is a tmux command (confirm-before, command-prompt)
	tmuxSave              // its last operand is a file it writes (save-buffer)
)

// tmuxCommand is a tmux command that runs code: its name, its alias, its options that take
// a value, and where its code is.
type tmuxCmd struct {
	name, alias string
	values      string
	code        tmuxCode
}

var tmuxCommands = sync.OnceValue(func() []tmuxCmd {
	return []tmuxCmd{
		{"new-session", "new", "cefFnstxy", tmuxTrailing},
		{"new-window", "neww", "ceFnt", tmuxTrailing},
		{"split-window", "splitw", "celtFp", tmuxTrailing},
		{"respawn-pane", "respawnp", "cet", tmuxTrailing},
		{"respawn-window", "respawnw", "cet", tmuxTrailing},
		{"run-shell", "run", "cdt", tmuxTrailing},
		{"pipe-pane", "pipep", "t", tmuxTrailing},
		{"display-popup", "popup", "bcdehsStTwxy", tmuxTrailing},
		{"if-shell", "if", "t", tmuxFirst},
		{"send-keys", "send", "cNt", tmuxKeys},
		{"source-file", "source", "t", tmuxFiles},
		{"set-hook", "", "t", tmuxLater},
		{"bind-key", "bind", "NT", tmuxLater},
		{"confirm-before", "confirm", "cpt", tmuxLast},
		{"command-prompt", "", "IptT", tmuxLast},
		{"save-buffer", "saveb", "b", tmuxSave},
		// The other commands, so that an abbreviation resolves as tmux resolves it (display is
		// display-message, not display-popup).
		{"attach-session", "attach", "", tmuxNone}, {"break-pane", "breakp", "", tmuxNone}, {"capture-pane", "capturep", "", tmuxNone},
		{"choose-buffer", "", "", tmuxNone}, {"choose-client", "", "", tmuxNone}, {"choose-tree", "", "", tmuxNone},
		{"clear-history", "clearhist", "", tmuxNone}, {"clear-prompt-history", "clearphist", "", tmuxNone}, {"clock-mode", "", "", tmuxNone},
		{"copy-mode", "", "", tmuxNone}, {"customize-mode", "", "", tmuxNone}, {"delete-buffer", "deleteb", "", tmuxNone},
		{"detach-client", "detach", "", tmuxNone}, {"display-menu", "menu", "", tmuxNone}, {"display-message", "display", "", tmuxNone},
		{"display-panes", "displayp", "", tmuxNone}, {"find-window", "findw", "", tmuxNone}, {"has-session", "has", "", tmuxNone},
		{"join-pane", "joinp", "", tmuxNone}, {"kill-pane", "killp", "", tmuxNone}, {"kill-server", "", "", tmuxNone},
		{"kill-session", "", "", tmuxNone}, {"kill-window", "killw", "", tmuxNone}, {"last-pane", "lastp", "", tmuxNone},
		{"last-window", "last", "", tmuxNone}, {"link-window", "linkw", "", tmuxNone}, {"list-buffers", "lsb", "", tmuxNone},
		{"list-clients", "lsc", "", tmuxNone}, {"list-commands", "lscm", "", tmuxNone}, {"list-keys", "lsk", "", tmuxNone},
		{"list-panes", "lsp", "", tmuxNone}, {"list-sessions", "ls", "", tmuxNone}, {"list-windows", "lsw", "", tmuxNone},
		{"load-buffer", "loadb", "", tmuxNone}, {"lock-client", "lockc", "", tmuxNone}, {"lock-server", "lock", "", tmuxNone},
		{"lock-session", "locks", "", tmuxNone}, {"move-pane", "movep", "", tmuxNone}, {"move-window", "movew", "", tmuxNone},
		{"next-layout", "nextl", "", tmuxNone}, {"next-window", "next", "", tmuxNone}, {"paste-buffer", "pasteb", "", tmuxNone},
		{"previous-layout", "prevl", "", tmuxNone}, {"previous-window", "prev", "", tmuxNone}, {"refresh-client", "refresh", "", tmuxNone},
		{"rename-session", "rename", "", tmuxNone}, {"rename-window", "renamew", "", tmuxNone}, {"resize-pane", "resizep", "", tmuxNone},
		{"resize-window", "resizew", "", tmuxNone}, {"rotate-window", "rotatew", "", tmuxNone}, {"select-layout", "selectl", "", tmuxNone},
		{"select-pane", "selectp", "", tmuxNone}, {"select-window", "selectw", "", tmuxNone}, {"send-prefix", "", "", tmuxNone},
		{"server-access", "", "", tmuxNone}, {"set-buffer", "setb", "", tmuxNone}, {"set-environment", "setenv", "", tmuxNone},
		{"set-option", "set", "", tmuxNone}, {"set-window-option", "setw", "", tmuxNone}, {"show-buffer", "showb", "", tmuxNone},
		{"show-environment", "showenv", "", tmuxNone}, {"show-hooks", "", "", tmuxNone}, {"show-messages", "showmsgs", "", tmuxNone},
		{"show-options", "show", "", tmuxNone}, {"show-prompt-history", "showphist", "", tmuxNone}, {"show-window-options", "showw", "", tmuxNone},
		{"start-server", "start", "", tmuxNone}, {"suspend-client", "suspendc", "", tmuxNone}, {"swap-pane", "swapp", "", tmuxNone},
		{"swap-window", "swapw", "", tmuxNone}, {"switch-client", "switchc", "", tmuxNone}, {"unbind-key", "unbind", "", tmuxNone},
		{"unlink-window", "unlinkw", "", tmuxNone}, {"wait-for", "wait", "", tmuxNone},
	}
})

// tmuxKeyNames are the names tmux gives keys that are not text; Enter and its spellings
// submit the line typed so far.
var tmuxKeyNames = sync.OnceValue(func() map[string]bool {
	keys := map[string]bool{}
	for _, k := range []string{"space", "tab", "btab", "bspace", "escape", "up", "down", "left", "right", "home", "end",
		"npage", "pagedown", "pgdn", "ppage", "pageup", "pgup", "ic", "insert", "dc", "delete", "any",
		"f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8", "f9", "f10", "f11", "f12"} {
		keys[k] = true
	}
	return keys
})

var tmuxEnter = []string{"enter", "kpenter", "c-m", "c-j", "^m", "^j"}

// tmuxFormat finds #(CMD) in a tmux format, which runs CMD through the shell.
var tmuxFormat = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`#\(([^)]*)\)`)
})

// tmuxArgs reads tmux's command line: -c CMD runs CMD, -f FILE reads a configuration of
// tmux commands, and then come tmux commands separated by ";" words.
func (a *analyzer) tmuxArgs(x *execCall) bool {
	global := executorOptions()["tmux"].short
	end := optionEnd(x.rest, global, nil)
	// Only the options before the command are tmux's own: split-window -c DIR is not -c CMD.
	_, _, opts := parseOptions("tmux", x.rest[:end], nil, nil, nil)
	for _, o := range opts {
		if !o.hasValue {
			continue
		}
		switch o.name {
		case "c":
			a.nestedWord(x.at, o.val, x.cwd)
			return true
		case "f":
			a.codeFile(x.at, o.val, x.cwd, "tmux -f")
		}
	}
	for _, w := range x.rest {
		if w.dynamic {
			continue
		}
		for _, m := range tmuxFormat().FindAllStringSubmatch(w.lit, -1) {
			a.shellText(x.at, m[1], x.cwd)
		}
	}
	a.tmuxCommandList(x.at, x.rest[end:], x.cwd, 0)
	return true
}

// tmuxCommandList reads tmux commands separated by ";" words.
func (a *analyzer) tmuxCommandList(at int, words []arg, cwd dir, depth int) {
	for len(words) > 0 {
		end := len(words)
		for i, w := range words {
			if !w.dynamic && w.lit == ";" {
				end = i
				break
			}
		}
		a.tmuxCommand(at, words[:end], cwd, depth)
		if end == len(words) {
			return
		}
		words = words[end+1:]
	}
}

// lookupTmux resolves a tmux command by its name, its alias or a unique prefix of its name.
func lookupTmux(name string) (tmuxCmd, bool) {
	var found tmuxCmd
	n := 0
	for _, c := range tmuxCommands() {
		if c.name == name || c.alias != "" && c.alias == name {
			return c, true
		}
		if strings.HasPrefix(c.name, name) {
			found = c
			n++
		}
	}
	return found, n == 1
}

// tmuxCommand reads one tmux command.
func (a *analyzer) tmuxCommand(at int, words []arg, cwd dir, depth int) {
	if len(words) == 0 || depth > 4 {
		return
	}
	if words[0].dynamic {
		a.opaque(at, "tmux runs a command computed at run time: "+shorten(words[0].lit))
		return
	}
	cmd, ok := lookupTmux(words[0].lit)
	if !ok {
		return
	}
	args := words[1:]
	start := optionEnd(args, cmd.values, nil)
	flags := ""
	for _, w := range args[:start] {
		if !w.dynamic && strings.HasPrefix(w.lit, "-") {
			flags += w.lit[1:]
		}
	}
	ops := args[start:]
	carrier := "tmux " + cmd.name
	switch cmd.code {
	case tmuxTrailing:
		if len(ops) == 0 {
			return
		}
		if cmd.name == "run-shell" && strings.Contains(flags, "C") {
			a.tmuxString(at, ops[0], cwd, depth)
			return
		}
		a.nestedWord(at, joinArgs(ops), cwd)
	case tmuxFirst:
		if len(ops) == 0 {
			return
		}
		if !strings.Contains(flags, "F") {
			a.nestedWord(at, ops[0], cwd)
		}
		for _, o := range ops[1:] {
			a.tmuxString(at, o, cwd, depth)
		}
	case tmuxFiles:
		for _, o := range ops {
			a.codeFile(at, o, cwd, carrier)
		}
	case tmuxLater:
		switch {
		case len(ops) == 2:
			a.tmuxString(at, ops[1], cwd, depth)
		case len(ops) > 2:
			a.tmuxCommandList(at, ops[1:], cwd, depth+1)
		}
	case tmuxLast:
		if len(ops) > 0 {
			a.tmuxString(at, ops[len(ops)-1], cwd, depth)
		}
	case tmuxSave:
		if len(ops) > 0 && ops[len(ops)-1].lit != "-" {
			a.fileAccess(at, call.Write, ops[len(ops)-1].lit, cwd)
		}
	case tmuxKeys:
		if strings.Contains(flags, "X") {
			return // copy-mode commands, not keys
		}
		a.typedKeys(at, ops, strings.Contains(flags, "l"), strings.Contains(flags, "H"), cwd, carrier)
	}
}

// tmuxString reads a tmux command given as one string (if-shell's commands).
func (a *analyzer) tmuxString(at int, w arg, cwd dir, depth int) {
	if w.dynamic {
		a.opaque(at, "tmux runs a command computed at run time: "+shorten(w.lit))
		return
	}
	var words []arg
	for _, f := range strings.Fields(w.lit) {
		words = append(words, arg{lit: strings.Trim(f, `'"`)})
	}
	a.tmuxCommandList(at, words, cwd, depth+1)
}

// typedKeys analyses keys typed into a pane as the shell there reads them: text, and Enter
// where a line ends. Typed text not yet submitted is judged too: a later Enter runs it. A
// line submitted after keys moat cannot follow (a variable, Up, Tab) is opaque.
func (a *analyzer) typedKeys(at int, keys []arg, literal, hex bool, cwd dir, carrier string) {
	var b strings.Builder
	unknown, submitted := false, false
	for _, k := range keys {
		if k.dynamic || hex {
			unknown = true
			continue
		}
		lower := strings.ToLower(k.lit)
		switch {
		case literal:
			b.WriteString(k.lit)
		case contains(tmuxEnter, lower):
			b.WriteByte('\n')
			submitted = submitted || unknown
		case lower == "space":
			b.WriteByte(' ')
		case tmuxKeyNames()[lower] || len(k.lit) > 2 && (k.lit[1] == '-' && strings.IndexByte("CMScms", k.lit[0]) >= 0) || len(k.lit) == 2 && k.lit[0] == '^':
			unknown = true // a control key: what the line becomes is not known
		default:
			b.WriteString(k.lit)
		}
	}
	if submitted {
		a.opaque(at, carrier+" submits keys whose effect moat cannot follow")
	}
	a.shellText(at, b.String(), cwd)
}

// screenArgs reads screen's command line: a program and its arguments to run in a new
// window, -c FILE a configuration of screen commands, -X COMMAND a command sent to a
// running session (stuff types text into it).
func (a *analyzer) screenArgs(x *execCall) bool {
	attach := false
	for i := 0; i < len(x.rest); i++ {
		w := x.rest[i]
		if w.dynamic || !strings.HasPrefix(w.lit, "-") || w.lit == "-" {
			if attach {
				return true // screen -r SESSION
			}
			if !w.dynamic && strings.HasPrefix(w.lit, "/dev/") {
				return true // screen /dev/ttyUSB0 115200: a terminal on a serial line, no command
			}
			a.command(x.rest[i:], nil, nil)
			return true
		}
		switch strings.ToLower(w.lit) {
		case "-x":
			if w.lit == "-X" {
				a.screenCommand(x.at, x.rest[i+1:], x.cwd, 0)
				return true
			}
		case "-logfile":
			i++
			continue
		case "-ls", "-list", "-wipe", "-v", "-version", "-help", "--help", "-q":
			return true
		}
		s := w.lit
		detach, fresh := false, false
		for j := 1; j < len(s); j++ {
			c := s[j]
			switch c {
			case 'X':
				a.screenCommand(x.at, x.rest[i+1:], x.cwd, 0)
				return true
			case 'r', 'R', 'x':
				attach = true
			case 'd', 'D':
				detach = true
			case 'm':
				fresh = true
			case 'S', 'c', 'e', 'h', 'p', 't', 'T':
				v := arg{lit: s[j+1:]}
				if j+1 == len(s) && i+1 < len(x.rest) {
					i++
					v = x.rest[i]
				}
				if c == 'c' {
					a.codeFile(x.at, v, x.cwd, "screen -c")
				}
				j = len(s)
			}
		}
		if detach && !fresh {
			attach = true
		}
	}
	return true
}

// screenCommand reads a screen command: stuff TEXT types TEXT, exec and screen run a
// program, source reads a file of commands, eval runs each of its arguments.
func (a *analyzer) screenCommand(at int, words []arg, cwd dir, depth int) {
	if len(words) == 0 || depth > 4 {
		return
	}
	if words[0].dynamic {
		a.opaque(at, "screen runs a command computed at run time: "+shorten(words[0].lit))
		return
	}
	args := words[1:]
	switch words[0].lit {
	case "stuff":
		if len(args) == 0 {
			return
		}
		text := joinArgs(args)
		if text.dynamic {
			a.opaque(at, "screen stuff types text computed at run time: "+shorten(text.lit))
			return
		}
		a.shellText(at, screenUnescape(text.lit), cwd)
	case "exec":
		for len(args) > 0 && !args[0].dynamic && strings.ContainsAny(args[0].lit[:min(1, len(args[0].lit))], ".!|:") {
			args = args[1:] // the file-descriptor pattern
		}
		if len(args) > 0 {
			a.command(args, nil, nil)
		}
	case "screen":
		if i := optionEnd(args, "tThp", nil); i < len(args) {
			a.command(args[i:], nil, nil)
		}
	case "source":
		if len(args) > 0 {
			a.codeFile(at, args[0], cwd, "screen source")
		}
	case "eval":
		for _, w := range args {
			if w.dynamic {
				a.opaque(at, "screen eval runs a command computed at run time: "+shorten(w.lit))
				continue
			}
			var sub []arg
			for _, f := range strings.Fields(w.lit) {
				sub = append(sub, arg{lit: strings.Trim(f, `'"`)})
			}
			a.screenCommand(at, sub, cwd, depth+1)
		}
	}
}

// screenUnescape turns screen's string escapes into the characters they type: \n and \r,
// ^M and ^J, octal \015.
func screenUnescape(s string) string {
	r := strings.NewReplacer(`\n`, "\n", `\r`, "\n", `^M`, "\n", `^J`, "\n", `\015`, "\n", `\012`, "\n", `\\`, `\`)
	return r.Replace(s)
}

// parallelPlaceholder is a replacement string of GNU parallel: {}, {.}, {/}, {//}, {/.},
// {#}, {%} and their numbered forms.
var parallelPlaceholder = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\{[0-9]*(?:\.|/|//|/\.|#|%)?\}`)
})

// parallelArgs: parallel [OPTIONS] COMMAND ::: INPUTS runs COMMAND, a shell command line,
// once per input, put where a replacement string is or appended; without :::, the inputs
// are the lines of standard input, and without a command each input is a command line.
func (a *analyzer) parallelArgs(x *execCall) bool {
	vo := executorOptions()["parallel"]
	start := optionEnd(x.rest, vo.short, vo.long)
	replace := ""
	fromFile := false
	for _, o := range x.opts {
		switch o.name {
		case "I", "replace":
			if o.hasValue && !o.val.dynamic {
				replace = o.val.lit
			}
		case "a", "arg-file":
			fromFile = true
		}
	}
	var template, inputs []arg
	sep, files := false, false
	for _, w := range x.rest[start:] {
		if !w.dynamic && (w.lit == ":::" || w.lit == ":::+") {
			sep, files = true, false
			continue
		}
		if !w.dynamic && (w.lit == "::::" || w.lit == "::::+") {
			sep, files = true, true
			continue
		}
		switch {
		case !sep:
			template = append(template, w)
		case files:
			inputs = append(inputs, arg{lit: "(lines of " + w.lit + ")", dynamic: true})
		default:
			inputs = append(inputs, w)
		}
	}
	line := joinArgs(template)
	pipe := false
	for _, o := range x.opts {
		pipe = pipe || o.name == "pipe" || o.name == "pipepart"
	}
	if pipe {
		// parallel --pipe CMD feeds blocks of its standard input to CMD: a shell or an
		// interpreter there runs that input as code, which dataflow follows.
		if runsItsInput(line) {
			m := &a.meta[x.at]
			m.execStdin = execShell
			if in, ok := oneliner.Lookup(canonicalProgram(baseName(strings.Fields(line.lit)[0]))); ok {
				m.execStdin, m.lang = execInterp, in.Lang
			}
		}
		a.nestedWord(x.at, line, x.cwd)
		return true
	}
	if !sep {
		switch lines, ok := a.pipedLines(); {
		case fromFile:
			inputs = []arg{{lit: "(lines of the argument file)", dynamic: true}}
		case ok:
			inputs = lines
		default:
			inputs = a.xargsOperands(nil, strings.Fields)
		}
	}
	if len(template) == 0 {
		for _, in := range inputs {
			a.nestedWord(x.at, in, x.cwd)
		}
		return true
	}
	if line.dynamic {
		a.nestedWord(x.at, line, x.cwd)
		return true
	}
	n := min(len(inputs), maxUnrolledItems)
	if len(inputs) > n {
		inputs = append(inputs[:n:n], arg{lit: "(more inputs)", dynamic: true})
	}
	for _, in := range inputs {
		val := parallelValue(in)
		var code string
		switch {
		case replace != "" && strings.Contains(line.lit, replace):
			code = strings.ReplaceAll(line.lit, replace, val)
		case replace == "" && parallelPlaceholder().MatchString(line.lit):
			code = parallelPlaceholder().ReplaceAllLiteralString(line.lit, val)
		default:
			code = line.lit + " " + val
		}
		a.shellText(x.at, code, x.cwd)
	}
	return true
}

// parallelValue is an input of parallel as the shell that runs the command sees it: quoted
// when known, a pattern when it stands for the paths a find upstream prints, and an
// unknown variable when it is known only at run time.
func parallelValue(in arg) string {
	switch {
	case in.dynamic:
		return `"$MOAT_UNKNOWN_INPUT"`
	case in.glob:
		return strings.ReplaceAll(in.lit, " ", `\ `)
	}
	return shellQuote(in.lit)
}

// xargsInput adds to a command run by xargs the words it reads: appended, or with -I R
// (-i, --replace) put wherever R appears in a word, once per input.
func (a *analyzer) xargsInput(spec xargsSpec, rest []arg) []arg {
	if len(spec.argFiles) > 0 {
		// -a FILE: the words are in the file, not on standard input; unknown here.
		return append(rest, arg{lit: "$(cat " + spec.argFiles[0].lit + ")", dynamic: true})
	}
	if !spec.replaces {
		return a.xargsOperands(rest, spec.split)
	}
	r := spec.replace
	inputs := a.xargsOperands(nil, spec.split)
	if len(inputs) > maxUnrolledItems {
		inputs = append(inputs[:maxUnrolledItems:maxUnrolledItems], arg{lit: "(more input)", dynamic: true})
	}
	out := make([]arg, 0, len(rest)+len(inputs))
	for _, w := range rest {
		if w.dynamic || !strings.Contains(w.lit, r) {
			out = append(out, w)
			continue
		}
		for _, in := range inputs {
			if in.dynamic {
				out = append(out, arg{lit: strings.ReplaceAll(w.lit, r, in.lit), dynamic: true})
				continue
			}
			x := arg{lit: strings.ReplaceAll(w.lit, r, in.lit), glob: in.glob}
			if in.glob {
				x.pat = strings.ReplaceAll(escapeGlob(w.lit), escapeGlob(r), in.pat)
			}
			out = append(out, x)
		}
	}
	return out
}

// xargsSpec is what the options of an xargs say of how it reads its input.
type xargsSpec struct {
	// replace is -I R's R (-i, --replace: {}), when replaces.
	replace  string
	replaces bool
	// argFiles are the files -a (--arg-file) reads the items from, instead of standard
	// input.
	argFiles []arg
	// split splits the input into items: at blanks; at newlines with -I (each line is
	// one item); at NULs with -0; at the delimiter of -d.
	split func(string) []string
}

// xargsOptions reads the options of the last xargs among a command's wrappers.
func xargsOptions(wrappers []arg) xargsSpec {
	spec := xargsSpec{split: strings.Fields}
	at := -1
	for i, w := range wrappers {
		if !w.dynamic && baseName(w.lit) == "xargs" {
			at = i
		}
	}
	if at < 0 {
		return spec
	}
	var delim string
	delimited := false
	values := wrappersTable("xargs").valueShort
	args := wrappers[at+1:]
	for i := 0; i < len(args); i++ {
		s := args[i].lit
		if args[i].dynamic || !strings.HasPrefix(s, "-") || s == "--" {
			break
		}
		if long, ok := strings.CutPrefix(s, "--"); ok {
			name, val, has := strings.Cut(long, "=")
			switch name {
			case "arg-file":
				if !has && i+1 < len(args) {
					i++
					spec.argFiles = append(spec.argFiles, args[i])
				} else if has {
					spec.argFiles = append(spec.argFiles, arg{lit: val})
				}
			case "replace":
				spec.replace, spec.replaces = "{}", true
				if has {
					spec.replace = val
				}
			case "null":
				delim, delimited = "\x00", true
			case "delimiter":
				if !has && i+1 < len(args) {
					i++
					val = args[i].lit
				}
				delim, delimited = xargsDelimiter(val), true
			}
			continue
		}
		for j := 1; j < len(s); j++ {
			c := s[j]
			var val string
			if strings.IndexByte(values+"i", c) >= 0 {
				// The option's value is the rest of the word, or the next word.
				switch {
				case j+1 < len(s):
					val = s[j+1:]
				case c != 'i' && i+1 < len(args) && !args[i+1].dynamic:
					i++
					val = args[i].lit
				}
				j = len(s)
			}
			switch c {
			case 'a':
				if val != "" {
					spec.argFiles = append(spec.argFiles, arg{lit: val})
				}
			case 'I':
				spec.replace, spec.replaces = val, val != ""
			case 'i':
				spec.replace, spec.replaces = cmp.Or(val, "{}"), true
			case '0':
				delim, delimited = "\x00", true
			case 'd':
				delim, delimited = xargsDelimiter(val), true
			}
		}
	}
	switch {
	case delimited:
		spec.split = func(text string) []string {
			items := strings.Split(text, delim)
			if n := len(items); n > 0 && items[n-1] == "" {
				items = items[:n-1]
			}
			return items
		}
	case spec.replaces:
		// -I reads one item per line, its leading blanks dropped.
		spec.split = func(text string) []string {
			var items []string
			for line := range strings.Lines(text) {
				if line = strings.TrimLeft(strings.TrimSuffix(line, "\n"), " \t"); line != "" {
					items = append(items, line)
				}
			}
			return items
		}
	}
	return spec
}

// xargsDelimiter is the character -d names: itself, or an escape (\n, \t, \0, \\).
func xargsDelimiter(v string) string {
	switch v {
	case "\\n":
		return "\n"
	case "\\t":
		return "\t"
	case "\\0":
		return "\x00"
	case "\\\\":
		return "\\"
	}
	return v
}

// wrappersTable returns the wrapper entry of a program.
func wrappersTable(name string) wrapper {
	return wrappers()[name]
}

// pipedLines returns the lines a single command upstream prints, when the line shows them
// (echo 'a b' | parallel): parallel takes one input per line, where xargs takes words.
func (a *analyzer) pipedLines() ([]arg, bool) {
	if len(a.pipes) == 0 {
		return nil, false
	}
	from := a.pipes[len(a.pipes)-1].from
	if from.end-from.start != 1 {
		return nil, false
	}
	up := &a.meta[from.start]
	if !up.out.known || up.out.t != 0 || up.pass {
		return nil, false
	}
	var out []arg
	for _, l := range strings.Split(up.out.text, "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, arg{lit: l})
		}
	}
	return out, len(out) > 0
}
