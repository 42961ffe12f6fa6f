package oneliner

import (
	"encoding/base64"
	"regexp"
	"strings"
	"sync"
	"unicode/utf16"
)

// PowerShell (pwsh -Command, powershell -EncodedCommand) is a shell: its code is
// statements of commands and arguments. It is read as such: each statement is split into
// words, variables assigned literals are folded, and each command is looked up in a table
// of cmdlets and their aliases (cmdlets.go) that says what it does: deletes, writes,
// copies, moves, runs code, downloads. A command that is neither a cmdlet moat knows nor a
// .NET call it knows is run as a program: it is handed to the shell analysis as a command
// line, which judges it as any other program. A cmdlet moat has no entry for, and code
// that runs a computed string, are opaque.

// PowerShell is the language of pwsh and powershell.
const PowerShell Lang = "powershell"

// DecodePowerShell decodes the value of -EncodedCommand: base64 of UTF-16LE text.
func DecodePowerShell(b64 string) (string, bool) {
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(b64))
	if err != nil || len(b)%2 != 0 {
		return "", false
	}
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = uint16(b[2*i]) | uint16(b[2*i+1])<<8
	}
	return string(utf16.Decode(u)), true
}

// psWord is a word of a PowerShell statement: its text as written, its folded value when
// static, and whether it is a parameter name (-Recurse).
type psWord struct {
	text   string
	val    string
	static bool
	param  bool
	block  bool // a { script block }
}

type psState struct {
	vars map[string]string
	r    *Result
	// downloads says an earlier stage of the pipeline downloads: … | iex runs it.
	downloads bool
	// listed is what an earlier stage of the pipeline lists (Get-ChildItem PATH), which
	// a Remove-Item with no path of its own deletes, item by item: nil when none did.
	listed   *Delete
	depth    int
	nest     int             // expressions being folded inside each other
	codeSeen int             // .NET calls that make code from a string, read so far
	funcs    map[string]bool // functions the code defines: calling one runs no program
	// nativeAt is the index in r.Shell of the program the previous stage of the
	// pipeline ran, or -1: a program piped from it is the same shell pipeline (curl … |
	// sh), for the shell analysis to follow the data through.
	nativeAt int
}

// maxPSNest bounds the groups folded inside each other: (('a')) is 'a', a thousand levels
// are not worth reading.
const maxPSNest = 8

func inspectPowerShell(code string, r *Result, depth int) {
	st := &psState{vars: map[string]string{}, r: r, depth: depth, funcs: map[string]bool{}, nativeAt: -1}
	if forkBombPS(code) {
		r.add(findForkBomb, code)
	}
	st.statements(code)
}

// maxPSStatements bounds the statements read.
const maxPSStatements = 256

// statements splits code into pipelines of commands, blocks flattened, and reads each.
func (st *psState) statements(code string) {
	var stage []psWord
	count := 0
	flush := func(piped bool) {
		if len(stage) > 0 && count < maxPSStatements {
			count++
			st.command(stage, piped)
		}
		stage = nil
	}
	prevPiped := false
	for i := 0; i < len(code); {
		c := code[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case c == '\n' || c == ';' || c == '{' || c == '}':
			flush(prevPiped)
			prevPiped = false
			if c == '\n' || c == ';' {
				st.listed = nil // a new statement; a block's stays in its pipeline
			}
			if c == '{' && len(stage) == 0 {
				// A block's statements are read in place; the block itself is code.
			}
			i++
		case c == '|' && i+1 < len(code) && code[i+1] == '|', c == '&' && i+1 < len(code) && code[i+1] == '&':
			flush(prevPiped)
			prevPiped = false
			st.listed = nil
			i += 2
		case c == '|':
			flush(prevPiped)
			prevPiped = true
			i++
		case c == '#':
			for i < len(code) && code[i] != '\n' {
				i++
			}
		default:
			w, n := st.word(code[i:])
			if n == 0 {
				n = 1
			}
			stage = append(stage, w)
			i += n
		}
	}
	flush(prevPiped)
}

// word reads one word: a quoted string, a (…) or $(…) group, a [type]::Member(…) call, or
// bare text up to a blank or an operator.
func (st *psState) word(s string) (psWord, int) {
	switch s[0] {
	case '\'':
		var b strings.Builder
		for i := 1; i < len(s); i++ {
			if s[i] == '\'' {
				if i+1 < len(s) && s[i+1] == '\'' {
					b.WriteByte('\'')
					i++
					continue
				}
				return psWord{text: s[:i+1], val: b.String(), static: true}, i + 1
			}
			b.WriteByte(s[i])
		}
		return psWord{text: s}, len(s)
	case '"':
		var b strings.Builder
		static := true
		for i := 1; i < len(s); i++ {
			switch c := s[i]; {
			case c == '`' && i+1 < len(s):
				i++
				b.WriteByte(s[i])
			case c == '"':
				return psWord{text: s[:i+1], val: b.String(), static: static}, i + 1
			case c == '$' && i+1 < len(s) && (isIdent(s[i+1]) || s[i+1] == '{'):
				j := i + 1
				for j < len(s) && (isNameByte(s[j]) || s[j] == ':') {
					j++
				}
				if v, ok := st.variable(s[i+1 : j]); ok {
					b.WriteString(v)
				} else {
					static = false
				}
				i = j - 1
			case c == '$' && i+1 < len(s) && s[i+1] == '(':
				static = false
				b.WriteByte(c)
			default:
				b.WriteByte(c)
			}
		}
		return psWord{text: s}, len(s)
	}
	n := psWordEnd(s)
	text := s[:n]
	w := psWord{text: text}
	switch {
	case strings.HasPrefix(text, "-") && len(text) > 1 && isIdent(text[1]):
		w.param, w.val, w.static = true, text, true
	case strings.HasPrefix(text, "$"):
		// $HOME, $env:HOME, $HOME/.claude/settings.json
		j := 1
		for j < len(text) && (isNameByte(text[j]) || text[j] == ':') {
			j++
		}
		if v, ok := st.variable(text[1:j]); ok && !strings.ContainsAny(text[j:], "$([{@`") {
			rest := text[j:]
			if v == "~" {
				// $env:USERPROFILE\.ssh\id_rsa: Windows separates a path's names with
				// backslashes, which PowerShell takes as slashes.
				rest = strings.ReplaceAll(rest, "\\", "/")
			}
			w.val, w.static = v+rest, true
		}
	case strings.HasPrefix(text, "(") && strings.HasSuffix(text, ")"):
		w.val, w.static = st.expr(text[1 : len(text)-1])
	case !strings.ContainsAny(text, "$([{@`"):
		w.val, w.static = text, true
	}
	return w, n
}

// psWordEnd returns the length of the bare word at the start of s, with its brackets.
func psWordEnd(s string) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '(' || c == '[' || c == '{' && depth > 0:
			depth++
		case c == ')' || c == ']' || c == '}' && depth > 0:
			depth--
			if depth < 0 {
				return max(i, 1)
			}
		case c == '\'' || c == '"':
			if depth > 0 {
				end := strings.IndexByte(s[i+1:], c)
				if end < 0 {
					return len(s)
				}
				i += end + 1
			} else if i > 0 {
				return i
			}
		case depth == 0 && (c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '|' || c == '{' || c == '}' || c == '\r'):
			return max(i, 1)
		}
	}
	return len(s)
}

// variable returns the value of a variable: one assigned a literal, or the home directory.
func (st *psState) variable(name string) (string, bool) {
	name = strings.Trim(strings.ToLower(name), "{}")
	switch name {
	case "home", "env:home", "env:userprofile":
		return "~", true
	}
	v, ok := st.vars[name]
	return v, ok
}

// expr folds an expression: literals and variables joined by +, Join-Path, the home
// folder, and base64 decoded from a literal.
func (st *psState) expr(s string) (string, bool) {
	if st.nest >= maxPSNest {
		return "", false
	}
	st.nest++
	defer func() { st.nest-- }()
	s = strings.TrimSpace(s)
	if m := psDecode().FindStringSubmatch(s); m != nil && len(m[0]) == len(s) {
		b, err := base64.StdEncoding.DecodeString(m[2])
		if err != nil {
			return "", false
		}
		out := string(b)
		if strings.EqualFold(m[1], "Unicode") {
			if d, ok := DecodePowerShell(m[2]); ok {
				out = d
			}
		}
		st.r.add(findEncoded, out)
		return out, true
	}
	if strings.HasPrefix(strings.ToLower(s), "join-path ") {
		var parts []string
		for rest := strings.TrimSpace(s[len("join-path "):]); rest != ""; rest = strings.TrimSpace(rest) {
			w, n := st.word(rest)
			rest = rest[n:]
			if w.param {
				continue
			}
			if !w.static {
				return "", false
			}
			parts = append(parts, w.val)
		}
		if len(parts) == 0 {
			return "", false
		}
		return strings.Join(parts, "/"), true
	}
	if strings.EqualFold(s, "[Environment]::GetFolderPath('UserProfile')") || strings.EqualFold(s, "[System.Environment]::GetFolderPath('UserProfile')") {
		return "~", true
	}
	var b strings.Builder
	for _, part := range strings.Split(s, "+") {
		part = strings.TrimSpace(part)
		if part == "" {
			return "", false
		}
		w, n := st.word(part)
		if n != len(part) || !w.static || w.param {
			return "", false
		}
		b.WriteString(w.val)
	}
	return b.String(), true
}

var psDecode = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^\[(?:System\.)?Text\.Encoding\]::(UTF8|ASCII|Unicode)\.GetString\(\s*\[(?:System\.)?Convert\]::FromBase64String\(\s*['"]([A-Za-z0-9+/=]+)['"]\s*\)\s*\)$`)
})

// command reads one command of a pipeline.
func (st *psState) command(words []psWord, piped bool) {
	native := st.nativeAt
	st.nativeAt = -1
	if !piped {
		native = -1
	}
	first := words[0]
	// $x = 'value', $x += 'more'
	if strings.HasPrefix(first.text, "$") && len(words) >= 3 && (words[1].text == "=" || words[1].text == "+=") {
		name := strings.ToLower(strings.TrimPrefix(first.text, "$"))
		rhs := joinTexts(words[2:])
		v, ok := st.expr(rhs)
		switch {
		case ok && words[1].text == "=":
			if _, seen := st.vars[name]; seen {
				delete(st.vars, name)
			} else {
				st.vars[name] = v
			}
		case ok:
			if old, seen := st.vars[name]; seen {
				st.vars[name] = old + v
			}
		default:
			delete(st.vars, name)
		}
		st.dotnet(rhs)
		return
	}
	if first.text == "&" || first.text == "." {
		if len(words) < 2 {
			return
		}
		if words[1].block {
			return
		}
		if !words[1].static {
			// & ([scriptblock]::Create('…')): the block's code is read where it is made.
			before := st.codeSeen
			st.dotnet(joinTexts(words[1:]))
			if st.codeSeen == before {
				st.r.Opaque = append(st.r.Opaque, "runs a command named at run time: "+shorten(joinTexts(words)))
			}
			return
		}
		words = words[1:]
		first = words[0]
	}
	if !first.static || strings.HasPrefix(first.text, "[") || strings.HasPrefix(first.text, "(") {
		st.dotnet(joinTexts(words))
		return
	}
	if first.text[0] == '\'' || first.text[0] == '"' {
		return // a value, written to the pipeline
	}
	name := strings.ToLower(first.val)
	if name == "function" || name == "filter" {
		if len(words) > 1 {
			st.funcs[strings.ToLower(words[1].val)] = true
		}
		return
	}
	if st.funcs[name] {
		return // its body is read where it is defined
	}
	c, known := cmdlets()[name]
	if !known {
		switch {
		case psKeywords()[name]:
			st.dotnet(joinTexts(words))
			return
		case strings.Contains(name, "-") && !strings.ContainsAny(name, "/.\\"):
			if verb, _, _ := strings.Cut(name, "-"); readOnlyVerbs()[verb] {
				return
			}
			st.r.Opaque = append(st.r.Opaque, "a PowerShell command moat has no entry for: "+shorten(first.val))
			return
		}
		// A program: the shell analysis judges it.
		st.native(words, native, piped)
		return
	}
	pos, named := psArgs(words[1:])
	get := func(names ...string) (psWord, bool) {
		for _, n := range names {
			if w, ok := named[n]; ok {
				return w, true
			}
		}
		return psWord{}, false
	}
	path := func(idx int, names ...string) (psWord, bool) {
		if w, ok := get(names...); ok {
			return w, true
		}
		if idx < len(pos) {
			return pos[idx], true
		}
		return psWord{}, false
	}
	recursive := hasSwitch(words[1:], "recurse", "r")
	switch c {
	case psRemove:
		w, ok := path(0, "path", "literalpath")
		if !ok && piped {
			// Get-ChildItem ~ -Recurse | Remove-Item: it deletes what the pipeline lists.
			if st.listed == nil {
				st.r.Opaque = append(st.r.Opaque, "deletes what the pipeline names: "+shorten(joinTexts(words)))
				return
			}
			st.r.Deletes = append(st.r.Deletes, *st.listed)
			return
		}
		if !ok {
			return
		}
		if !w.static {
			st.r.Opaque = append(st.r.Opaque, "deletes a path computed at run time: "+shorten(joinTexts(words)))
			return
		}
		st.r.Deletes = append(st.r.Deletes, Delete{Path: w.val, Recursive: recursive})
	case psWrite:
		w, ok := path(0, "path", "literalpath", "filepath")
		if !ok {
			return
		}
		st.write(w, words)
	case psNewItem:
		w, ok := path(0, "path", "name")
		if !ok {
			return
		}
		st.write(w, words)
	case psCopy, psMove, psRename:
		src, ok1 := path(0, "path", "literalpath")
		dst, ok2 := path(1, "destination", "newname")
		if !ok1 || !ok2 {
			return
		}
		if c == psRename && dst.static && src.static && !strings.Contains(dst.val, "/") {
			if i := strings.LastIndexByte(src.val, '/'); i >= 0 {
				dst.val = src.val[:i+1] + dst.val
			}
		}
		if c != psCopy {
			if !src.static {
				st.r.Opaque = append(st.r.Opaque, "moves a path computed at run time: "+shorten(joinTexts(words)))
			} else {
				st.r.Deletes = append(st.r.Deletes, Delete{Path: src.val, Recursive: true})
			}
		} else if src.static {
			st.r.Reads = append(st.r.Reads, src.val)
		}
		st.write(dst, words)
	case psRead:
		if w, ok := path(0, "path", "literalpath"); ok && w.static {
			if strings.EqualFold(w.val, "env:") || strings.HasPrefix(strings.ToLower(w.val), "env:\\") && len(w.val) <= 5 {
				st.r.add(findEnvDump, joinTexts(words))
				return
			}
			st.r.Reads = append(st.r.Reads, w.val)
		}
	case psList:
		w, ok := path(0, "path", "literalpath")
		if ok && w.static && strings.EqualFold(strings.TrimRight(w.val, "\\/"), "env:") {
			st.r.add(findEnvDump, joinTexts(words))
		}
		// What it lists: the entries of its path matching -Filter or -Include, at any
		// depth with -Recurse.
		entries := "*"
		if f, ok := get("filter", "include"); ok && f.static && f.val != "" {
			entries = f.val
		}
		if recursive {
			entries = "**/" + entries
		}
		switch {
		case !ok:
			st.listed = &Delete{Path: ".", Recursive: true, Entries: entries}
		case w.static:
			st.listed = &Delete{Path: w.val, Recursive: true, Entries: entries}
		default:
			st.listed = nil // computed: a Remove-Item after it is opaque
		}
	case psEval:
		st.eval(words, pos, piped)
	case psStart:
		w, ok := path(0, "filepath")
		if !ok {
			return
		}
		if !w.static {
			st.r.add(findDynamic, joinTexts(words))
			return
		}
		line := w.val
		if a, ok := path(1, "argumentlist", "args"); ok {
			if !a.static {
				st.r.add(findDynamic, joinTexts(words))
				return
			}
			line += " " + a.val
		}
		st.r.Shell = append(st.r.Shell, line)
	case psWeb:
		st.r.Network = true
		st.downloads = true
		if u, ok := path(0, "uri", "url"); ok && u.static {
			if m := urlHost().FindStringSubmatch(u.val); m != nil {
				st.r.URLHosts = append(st.r.URLHosts, strings.ToLower(m[1]))
			}
		}
		if m, ok := get("method"); ok && m.static && !strings.EqualFold(m.val, "get") {
			st.r.Sends = true
		}
		if _, ok := get("body", "infile"); ok {
			st.r.Sends = true
		}
		if f, ok := get("infile"); ok && f.static {
			st.r.Reads = append(st.r.Reads, f.val) // the file is the request's body
		}
		if o, ok := get("outfile"); ok {
			st.write(o, words)
		}
	case psDiskWipe:
		st.r.add(findDiskWipe, joinTexts(words))
	case psBlock:
		for _, w := range words[1:] {
			if w.block {
				st.statements(strings.Trim(w.text, "{}"))
			}
		}
	}
}

func (st *psState) write(w psWord, words []psWord) {
	if !w.static {
		st.r.Opaque = append(st.r.Opaque, "writes a path computed at run time: "+shorten(joinTexts(words)))
		return
	}
	st.r.Writes = append(st.r.Writes, w.val)
}

// eval: Invoke-Expression CODE runs CODE; … | iex runs what the pipeline prints.
func (st *psState) eval(words []psWord, pos []psWord, piped bool) {
	if len(pos) == 0 {
		if piped && st.downloads {
			st.r.add(findPipeToShell, joinTexts(words))
		} else if piped {
			st.r.Opaque = append(st.r.Opaque, "runs what the pipeline prints: "+shorten(joinTexts(words)))
		}
		return
	}
	code := pos[0]
	switch {
	case code.static && st.depth < maxDepth:
		inspectPowerShell(code.val, st.r, st.depth+1)
	case psDownload().MatchString(code.text):
		st.r.add(findPipeToShell, code.text)
	default:
		st.r.computed("runs code computed at run time: " + shorten(joinTexts(words)))
	}
}

// native hands a program and its static words to the shell analysis: piped from the
// program at index from of r.Shell, as that pipeline's next stage; piped from what a
// download cmdlet fetched into a shell or an interpreter, as a download run.
func (st *psState) native(words []psWord, from int, piped bool) {
	if piped && st.downloads && from < 0 && codeReaders()[strings.ToLower(strings.TrimSuffix(words[0].val, ".exe"))] {
		st.r.add(findPipeToShell, joinTexts(words))
	}
	var b strings.Builder
	for i, w := range words {
		if !w.static {
			st.r.add(findDynamic, joinTexts(words))
			return
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		if w.text == w.val && strings.HasPrefix(w.val, "~") && !strings.ContainsAny(w.val, " \t'\"$`;&|<>()*?[]{}#!") {
			b.WriteString(w.val) // a bare ~ is the home directory for programs too
			continue
		}
		b.WriteString(joinArgv([]string{w.val}))
	}
	if from >= 0 && from < len(st.r.Shell) {
		st.r.Shell[from] += " | " + b.String()
		st.nativeAt = from
		return
	}
	st.r.Shell = append(st.r.Shell, b.String())
	st.nativeAt = len(st.r.Shell) - 1
}

// codeReaders are the programs that run what they read on their standard input as code.
var codeReaders = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "fish": true, "pwsh": true, "powershell": true,
		"cmd": true, "python": true, "python3": true, "node": true, "perl": true, "ruby": true, "php": true, "lua": true}
})

// dotnet reads the .NET calls of an expression statement.
func (st *psState) dotnet(s string) {
	for _, c := range dotnetCalls() {
		for _, loc := range findAll(c.re, s) {
			args := splitTop(callText(s, loc[1]))
			for _, i := range c.op.writes {
				if i < len(args) {
					if v, ok := st.expr(args[i]); ok {
						st.r.Writes = append(st.r.Writes, v)
					} else {
						st.r.Opaque = append(st.r.Opaque, "writes a path computed at run time: "+shorten(s))
					}
				}
			}
			for _, i := range c.op.deletes {
				if i < len(args) {
					if v, ok := st.expr(args[i]); ok {
						st.r.Deletes = append(st.r.Deletes, Delete{Path: v, Recursive: c.op.recursive})
					} else {
						st.r.Opaque = append(st.r.Opaque, "deletes a path computed at run time: "+shorten(s))
					}
				}
			}
			if c.exec {
				var argv []string
				for _, a := range args {
					v, ok := st.expr(a)
					if !ok {
						st.r.add(findDynamic, s)
						argv = nil
						break
					}
					argv = append(argv, v)
				}
				if len(argv) > 0 {
					st.r.Shell = append(st.r.Shell, strings.Join(argv, " "))
				}
			}
			if c.code {
				st.codeSeen++
				if len(args) > 0 {
					if v, ok := st.expr(args[0]); ok && st.depth < maxDepth {
						inspectPowerShell(v, st.r, st.depth+1)
					} else if psDownload().MatchString(args[0]) {
						st.r.add(findPipeToShell, s)
					} else {
						st.r.computed("runs code computed at run time: " + shorten(s))
					}
				}
			}
			if c.network {
				st.r.Network = true
				st.downloads = true
			}
			if c.envDump {
				st.r.add(findEnvDump, shorten(s))
			}
		}
	}
	if psDownload().MatchString(s) {
		st.r.Network = true
		st.downloads = true
	}
}

func joinTexts(words []psWord) string {
	var b strings.Builder
	for i, w := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w.text)
	}
	return b.String()
}

// psArgs splits a command's words into positional arguments and named parameters (by
// lower-case name, without the dash); -Name:value is one word.
func psArgs(words []psWord) ([]psWord, map[string]psWord) {
	var pos []psWord
	named := map[string]psWord{}
	for i := 0; i < len(words); i++ {
		w := words[i]
		if !w.param {
			pos = append(pos, w)
			continue
		}
		name := strings.ToLower(strings.TrimPrefix(w.text, "-"))
		if n, v, ok := strings.Cut(name, ":"); ok {
			named[n] = psWord{text: v, val: v, static: true}
			continue
		}
		if psSwitch(name) || i+1 >= len(words) || words[i+1].param {
			continue
		}
		named[name] = words[i+1]
		i++
	}
	return pos, named
}

// psSwitch reports whether the parameter name (lower case, no dash) is a switch, spelled
// out or abbreviated to two letters or more (-fo for -Force), which takes no value.
func psSwitch(name string) bool {
	if psSwitches()[name] {
		return true
	}
	if len(name) < 2 {
		return false
	}
	for s := range psSwitches() {
		if len(s) > len(name) && strings.HasPrefix(s, name) {
			return true
		}
	}
	return false
}

func hasSwitch(words []psWord, names ...string) bool {
	for _, w := range words {
		if !w.param {
			continue
		}
		n := strings.ToLower(strings.TrimPrefix(w.text, "-"))
		n, _, _ = strings.Cut(n, ":")
		for _, x := range names {
			if n == x || len(n) >= 2 && strings.HasPrefix(x, n) {
				return true // -rec, -Recu: PowerShell takes any unambiguous prefix
			}
		}
	}
	return false
}

// forkBombPS reports a process started on every turn of an endless loop, or a function
// that pipes itself into itself (function b { b | b }; b).
func forkBombPS(code string) bool {
	lower := strings.ToLower(code)
	if psEndless().MatchString(lower) && psSpawn().MatchString(lower) {
		return true
	}
	for _, m := range psFunction().FindAllStringSubmatch(lower, maxCalls) {
		name := regexp.QuoteMeta(m[1])
		if re, err := regexp.Compile(`\b` + name + `\s*\|\s*` + name + `\b`); err == nil && re.MatchString(m[2]) {
			return true
		}
	}
	return false
}

var (
	psEndless = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`while\s*\(\s*(\$true|1)\s*\)|for\s*\(\s*;\s*;\s*\)|do\s*\{[^}]*\}\s*while\s*\(\s*(\$true|1)\s*\)`)
	})
	psSpawn = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b(start-process|saps|start-job|start|invoke-command)\b|\bpwsh\b|\bpowershell\b|process\]::start`)
	})
	psFunction = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`function\s+([\w-]+)\s*\{([^}]*)\}`)
	})
	psDownload = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(invoke-webrequest|iwr|invoke-restmethod|irm|downloadstring|downloadfile|downloaddata|net\.webclient|curl|wget)\b`)
	})
)
