package shell

import (
	"regexp"
	"strings"
	"sync"

	"github.com/moatdev/moat/internal/call"
)

// Scripts in a program's own small language that can run commands and write files: sed's
// e and w commands, sqlite3's dot-commands, psql's backslash commands and mysql's client
// commands. The statements themselves are sqlscan's (datastores.go); this file reads what
// runs a shell command, loads code or writes a file.

// sedArgs reads sed's scripts: -e SCRIPT, --expression=SCRIPT, or the first operand when
// neither -e nor -f is given; -f FILE is a script moat cannot read. --sandbox makes sed
// refuse e, r and w.
func (a *analyzer) sedArgs(x *execCall) bool {
	var scripts []arg
	given := false
	for i := 0; i < len(x.rest); i++ {
		w := x.rest[i]
		if w.dynamic || !strings.HasPrefix(w.lit, "-") || w.lit == "-" {
			continue
		}
		if w.lit == "--" {
			break
		}
		if long, ok := strings.CutPrefix(w.lit, "--"); ok {
			name, val, has := strings.Cut(long, "=")
			switch uniquePrefix(name, sedLongOptions) {
			case "sandbox":
				return true
			case "expression", "file":
				given = true
				v := arg{lit: val}
				if !has {
					if i+1 >= len(x.rest) {
						continue
					}
					i++
					v = x.rest[i]
				}
				if uniquePrefix(name, sedLongOptions) == "file" {
					a.sedFile(x, v)
				} else {
					scripts = append(scripts, v)
				}
			case "line-length":
				if !has {
					i++
				}
			}
			continue
		}
		s := w.lit
		for j := 1; j < len(s); j++ {
			c := s[j]
			if c == 'i' {
				break // -i[SUFFIX]: the rest of the word is the suffix
			}
			if c != 'e' && c != 'f' && c != 'l' {
				continue
			}
			v := arg{lit: s[j+1:]}
			if j+1 == len(s) {
				if i+1 >= len(x.rest) {
					break
				}
				i++
				v = x.rest[i]
			}
			switch c {
			case 'e':
				given = true
				scripts = append(scripts, v)
			case 'f':
				given = true
				a.sedFile(x, v)
			}
			break
		}
	}
	if !given && len(x.ops) > 0 {
		script := x.ops[0]
		if !script.dynamic && script.lit == "" && len(x.ops) > 1 {
			script = x.ops[1] // BSD sed -i '' SCRIPT: the empty word is -i's suffix
		}
		scripts = append(scripts, script)
	}
	for _, s := range scripts {
		if s.dynamic {
			// Values of the environment as data (s/VERSION/$VERSION/) leave the script's
			// commands as written; anything else is a script moat cannot read.
			if shape, ok := a.sedShape(s.word); ok && sedShapeData(shape) {
				a.sedScript(x.at, strings.ReplaceAll(shape, string(rune(shapeMark)), "x"), x.cwd)
				continue
			}
			a.opaque(x.at, "sed runs a script computed at run time: "+shorten(s.lit))
			continue
		}
		a.sedScript(x.at, s.lit, x.cwd)
	}
	return true
}

// sedLongOptions are GNU sed's long options, which may be abbreviated.
var sedLongOptions = []string{"expression", "file", "line-length", "null-data", "zero-terminated", "quiet", "silent",
	"regexp-extended", "in-place", "separate", "sandbox", "unbuffered", "posix", "debug", "follow-symlinks", "binary",
	"help", "version"}

// sedFile judges a file of sed commands, and standard input given as one.
func (a *analyzer) sedFile(x *execCall, f arg) {
	if !f.dynamic && (f.lit == "-" || f.lit == "/dev/stdin") {
		a.opaque(x.at, "sed reads its script on standard input")
		return
	}
	a.codeFile(x.at, f, x.cwd, "sed -f")
}

// sedScript reads a sed script as far as it runs commands (e COMMAND, s///e) or reads and
// writes files (r, R, w, W, s///w).
func (a *analyzer) sedScript(at int, s string, cwd dir) {
	for i := 0; i < len(s); {
		if next, skipped := skipSedAddress(s, i); skipped {
			i = next
			continue
		}
		c := s[i]
		i++
		switch c {
		case ':':
			// A label ends at a newline or, for GNU sed, a semicolon: :a;N;$!ba
			for i < len(s) && s[i] != ';' && s[i] != '\n' {
				i++
			}
		case '#', 'a', 'i', 'c':
			// Comments, labels and text: to the end of the line (a\ continues on the next).
			i = sedTextEnd(s, i)
		case 'b', 't', 'T', 'q', 'Q', 'l', 'L', 'v':
			for i < len(s) && s[i] != ';' && s[i] != '\n' && s[i] != '}' {
				i++
			}
		case 'r', 'R':
			f, next := sedLine(s, i)
			a.sedFileAccess(at, call.Read, f, cwd)
			i = next
		case 'w', 'W':
			f, next := sedLine(s, i)
			a.sedFileAccess(at, call.Write, f, cwd)
			i = next
		case 'e':
			cmd, next := sedLine(s, i)
			i = next
			if strings.TrimSpace(cmd) == "" {
				a.opaque(at, "sed's e command runs the text it reads as a shell command")
				continue
			}
			a.shellText(at, cmd, cwd)
		case 's', 'y':
			if i >= len(s) {
				return
			}
			delim := s[i]
			pat, rest := cutDelimited(s[i+1:], delim)
			repl, rest := cutDelimited(rest, delim)
			i = len(s) - len(rest)
			if c == 'y' {
				continue
			}
			exec := false
			for i < len(s) && s[i] != ';' && s[i] != '\n' && s[i] != '}' {
				if s[i] == 'e' {
					exec = true
				}
				if s[i] == 'w' {
					f, next := sedLine(s, i+1)
					a.sedFileAccess(at, call.Write, f, cwd)
					i = next
					break
				}
				i++
			}
			repl = strings.ReplaceAll(repl, `\`+string(delim), string(delim))
			if exec {
				// s///e runs the pattern space once replaced: the replacement, written out, is
				// part of the command; the rest of it is the text sed reads.
				if !strings.ContainsAny(repl, `&\`) {
					a.shellText(at, repl, cwd)
				}
				if !(pat == ".*" || pat == "^.*$" || pat == "^.*") || strings.ContainsAny(repl, `&\`) {
					a.opaque(at, "sed's s///e runs text it reads as a shell command: s"+string(delim)+shorten(pat)+string(delim)+shorten(repl))
				}
			}
		case '=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F':
		default:
			return // sed would reject the script
		}
	}
}

// sedLine returns the rest of the line of a sed script from s[i], and where the next
// line starts.
func sedLine(s string, i int) (string, int) {
	end := strings.IndexByte(s[i:], '\n')
	if end < 0 {
		return s[i:], len(s)
	}
	return s[i : i+end], i + end + 1
}

// sedTextEnd returns where the text of a sed command that takes the rest of its line
// (a comment, a, i, c) ends: after its line, and the lines a trailing \ continues it on.
func sedTextEnd(s string, i int) int {
	for {
		line, next := sedLine(s, i)
		i = next
		if !strings.HasSuffix(line, `\`) || i >= len(s) {
			return i
		}
	}
}

// skipSedAddress skips, at s[i], what comes between a sed script's commands: blanks,
// separators, braces and negation, a line number or $, and an address's regular
// expression (/re/ with its flags, or \cREc). It reports false at a command's letter.
func skipSedAddress(s string, i int) (int, bool) {
	c := s[i]
	switch {
	case c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '{' || c == '}' || c == '!' || c == ',':
		return i + 1, true
	case c >= '0' && c <= '9' || c == '$' || c == '~' || c == '+':
		return i + 1, true
	case c == '/':
		_, rest := cutDelimited(s[i+1:], '/')
		i = len(s) - len(rest)
		for i < len(s) && (s[i] == 'I' || s[i] == 'M') {
			i++
		}
		return i, true
	case c == '\\' && i+1 < len(s):
		_, rest := cutDelimited(s[i+2:], s[i+1])
		return len(s) - len(rest), true
	}
	return i, false
}

func (a *analyzer) sedFileAccess(at int, kind call.AccessKind, f string, cwd dir) {
	f = strings.TrimLeft(f, " \t")
	if f == "/dev/stdout" || f == "/dev/stderr" || f == "/dev/stdin" {
		return
	}
	a.fileAccess(at, kind, f, cwd)
}

// dbMeta is what a command of a database shell does outside the database.
type dbMeta uint8

const (
	dbRunsShell  dbMeta = iota + 1 // runs its argument as a shell command line
	dbWritesFile                   // writes the file it names, or pipes into a command (|CMD)
	dbReadsFile                    // reads the file it names, or the output of a command (|CMD)
	dbRunsFile                     // runs the file it names as a script
	dbLoads                        // loads native code from the file it names
	dbOpaque                       // runs what moat cannot see (psql's \gexec runs a query's results)
)

// dbCommand is a client command: its name, the shortest abbreviation the client accepts,
// and what it does.
type dbCommand struct {
	name string
	min  int
	does dbMeta
}

// dbCommands are, per client, its commands that run programs or touch files. sqlite3's
// start with a dot and may be abbreviated; psql's and mysql's backslash forms are spelled
// out; mysql's long names are words at the start of a statement.
var dbCommands = sync.OnceValue(func() map[string][]dbCommand {
	return map[string][]dbCommand{
		"sqlite3": {
			{".shell", 3, dbRunsShell}, {".system", 3, dbRunsShell}, {".output", 2, dbWritesFile}, {".once", 3, dbWritesFile},
			{".log", 4, dbWritesFile}, {".backup", 2, dbWritesFile}, {".save", 4, dbWritesFile}, {".trace", 3, dbWritesFile},
			{".read", 2, dbRunsFile}, {".load", 3, dbLoads}, {".import", 3, dbReadsFile}, {".restore", 4, dbReadsFile},
		},
		"psql": {
			{`\!`, 2, dbRunsShell}, {`\o`, 2, dbWritesFile}, {`\out`, 4, dbWritesFile}, {`\g`, 2, dbWritesFile},
			{`\gx`, 3, dbWritesFile}, {`\w`, 2, dbWritesFile}, {`\write`, 6, dbWritesFile}, {`\i`, 2, dbRunsFile},
			{`\include`, 8, dbRunsFile}, {`\ir`, 3, dbRunsFile}, {`\include_relative`, 17, dbRunsFile},
			{`\lo_export`, 10, dbWritesFile}, {`\lo_import`, 10, dbReadsFile}, {`\gexec`, 6, dbOpaque},
		},
		"mysql": {
			{`\!`, 2, dbRunsShell}, {"system", 6, dbRunsShell}, {`\P`, 2, dbRunsShell}, {"pager", 5, dbRunsShell},
			{`\T`, 2, dbWritesFile}, {"tee", 3, dbWritesFile}, {`\.`, 2, dbRunsFile}, {"source", 6, dbRunsFile},
		},
	}
})

// copyProgram finds COPY … TO/FROM PROGRAM 'CMD' (the server runs CMD) and psql's \copy …
// program 'CMD' (psql runs it).
var copyProgram = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?is)\bcopy\b[^;]*?\b(?:to|from)\s+program\s+'((?:[^']|'')*)'`)
})

// loadExtension finds SQLite's load_extension('FILE'), which loads native code.
var loadExtension = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\bload_extension\s*\(\s*'([^']*)'`)
})

// psqlVariable finds psql's variable interpolation (:name, :'name', :"name"), which makes
// the text of a backslash command known only at run time.
var psqlVariable = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`:['"]?[A-Za-z_]`)
})

// dbShellArgs reads the scripts a database shell is given: psql -c, mysql -e, sqlite3's
// operands after the database and its -cmd, and the text on its standard input when the
// line shows it. Files of statements it is told to run (psql -f, sqlite3 -init) are code
// moat cannot read.
func (a *analyzer) dbShellArgs(x *execCall) bool {
	client := x.prog
	if client == "mariadb" {
		client = "mysql"
	}
	var scripts []arg
	switch client {
	case "sqlite3":
		scripts = a.sqliteArgs(x)
	case "psql":
		for _, o := range x.opts {
			if !o.hasValue {
				continue
			}
			switch o.name {
			case "c", "command":
				scripts = append(scripts, o.val)
			case "f", "file":
				if o.val.dynamic || o.val.lit != "-" {
					a.codeFile(x.at, o.val, x.cwd, "psql -f")
				}
			case "o", "output", "L", "log-file":
				a.dbTarget(x.at, dbWritesFile, o.val, x.cwd, "psql -"+o.name)
			}
		}
	case "mysql":
		for _, o := range x.opts {
			if !o.hasValue {
				continue
			}
			switch o.name {
			case "e", "execute", "init-command":
				scripts = append(scripts, o.val)
			case "pager":
				a.nestedWord(x.at, o.val, x.cwd)
			case "tee":
				a.dbTarget(x.at, dbWritesFile, o.val, x.cwd, "mysql --tee")
			}
		}
	}
	for _, s := range scripts {
		if s.dynamic {
			if strings.ContainsAny(s.lit, `.\`) || strings.Contains(strings.ToLower(s.lit), "system") {
				a.opaque(x.at, x.prog+" runs commands computed at run time: "+shorten(s.lit))
			}
			continue
		}
		a.dbScript(x.at, client, s.lit, x.cwd)
	}
	if text, known, _ := a.stdinText(x.at); known {
		a.dbScript(x.at, client, text, x.cwd)
	}
	return true
}

// sqliteArgs reads sqlite3's command line, whose options are words with one dash
// (-cmd, -init), and returns the scripts it runs: -cmd values and the operands after the
// database. -safe makes it refuse the commands that run programs or touch files.
func (a *analyzer) sqliteArgs(x *execCall) []arg {
	var scripts []arg
	db := false
	for i := 0; i < len(x.rest); i++ {
		w := x.rest[i]
		if !w.dynamic && strings.HasPrefix(w.lit, "-") && len(w.lit) > 1 && !db {
			name := strings.TrimLeft(w.lit, "-")
			switch name {
			case "safe":
				return nil
			case "cmd", "init", "separator", "newline", "nullvalue", "vfs", "mmap", "pagecache", "lookaside", "heap", "maxsize", "escape":
				if i+1 < len(x.rest) {
					i++
					switch name {
					case "cmd":
						scripts = append(scripts, x.rest[i])
					case "init":
						a.codeFile(x.at, x.rest[i], x.cwd, "sqlite3 -init")
					}
				}
			}
			continue
		}
		if !db {
			db = true
			continue
		}
		scripts = append(scripts, w)
	}
	return scripts
}

// dbScript reads one script of a database shell, line by line, for its client commands.
func (a *analyzer) dbScript(at int, client, script string, cwd dir) {
	for _, m := range copyProgram().FindAllStringSubmatch(script, -1) {
		a.shellText(at, strings.ReplaceAll(m[1], "''", "'"), cwd)
	}
	for _, m := range loadExtension().FindAllStringSubmatch(script, -1) {
		a.codeFile(at, arg{lit: m[1]}, cwd, client+" load_extension")
	}
	for _, line := range strings.Split(script, "\n") {
		if client == "mysql" {
			for _, stmt := range strings.Split(line, ";") {
				a.dbLine(at, client, strings.TrimSpace(stmt), cwd)
			}
			continue
		}
		a.dbLine(at, client, strings.TrimSpace(line), cwd)
	}
}

// dbLine reads one line of a client's commands.
func (a *analyzer) dbLine(at int, client, line string, cwd dir) {
	for line != "" {
		start := 0
		if client == "psql" {
			// psql's backslash commands may follow a statement on its line: select 1 \g f
			start = strings.IndexByte(line, '\\')
			if start < 0 {
				return
			}
		}
		word := line[start:]
		n := 1
		if word[0] == '\\' && len(word) > 1 && !isIdentByte(word[1]) {
			n = 2 // \! and \.
		} else {
			for n < len(word) && (isIdentByte(word[n]) || word[n] == '.') {
				n++
			}
		}
		name, args := word[:n], word[n:]
		cmd, ok := lookupDBCommand(client, name)
		if !ok {
			if client != "psql" {
				return
			}
			line = args
			continue
		}
		if client == "psql" && cmd.does != dbRunsShell {
			// psql's arguments end at the next backslash command.
			if k := strings.Index(args, `\`); k >= 0 {
				args, line = args[:k], args[k:]
			} else {
				line = ""
			}
		} else {
			line = ""
		}
		a.dbCommandArgs(at, client, cmd, strings.TrimSpace(args), cwd)
	}
}

func lookupDBCommand(client, name string) (dbCommand, bool) {
	for _, c := range dbCommands()[client] {
		if client == "sqlite3" {
			if len(name) >= c.min && strings.HasPrefix(c.name, name) {
				return c, true
			}
			continue
		}
		if strings.EqualFold(name, c.name) {
			return c, true
		}
	}
	return dbCommand{}, false
}

// dbCommandArgs applies what one client command does with its arguments.
func (a *analyzer) dbCommandArgs(at int, client string, cmd dbCommand, args string, cwd dir) {
	carrier := client + " " + cmd.name
	switch cmd.does {
	case dbRunsShell:
		if client == "psql" && psqlVariable().MatchString(args) {
			a.opaque(at, carrier+" runs a command with psql variables, known only at run time: "+shorten(args))
		}
		if args == "" {
			if cmd.name != "pager" && cmd.name != `\P` {
				a.opaque(at, carrier+" opens a shell the agent can type into")
			}
			return
		}
		a.shellText(at, args, cwd)
	case dbOpaque:
		a.opaque(at, carrier+" runs statements computed at run time")
	default:
		fields := strings.Fields(args)
		// Options of the command (.once -x, .output --bom) come first; the file is last
		// (.backup ?DB? FILE, \lo_export OID FILE).
		for len(fields) > 0 && strings.HasPrefix(fields[0], "-") {
			fields = fields[1:]
		}
		if len(fields) == 0 {
			return
		}
		target := fields[len(fields)-1]
		if cmd.does == dbReadsFile && cmd.name == ".import" {
			target = fields[0]
		}
		if i := strings.IndexByte(args, '|'); i >= 0 && (cmd.does == dbWritesFile || cmd.does == dbReadsFile || cmd.does == dbRunsFile) {
			a.pipeCommand(at, args[i+1:], cmd.does == dbWritesFile || cmd.does == dbRunsFile, cwd, carrier)
			return
		}
		a.dbTarget(at, cmd.does, arg{lit: strings.Trim(target, `'"`)}, cwd, carrier)
	}
}

// dbTarget applies what a client does to the file it names.
func (a *analyzer) dbTarget(at int, does dbMeta, f arg, cwd dir, carrier string) {
	if f.dynamic {
		a.opaque(at, carrier+" names a file computed at run time: "+shorten(f.lit))
		return
	}
	if rest, ok := strings.CutPrefix(f.lit, "|"); ok {
		a.pipeCommand(at, rest, does == dbWritesFile, cwd, carrier)
		return
	}
	switch does {
	case dbWritesFile:
		a.fileAccess(at, call.Write, f.lit, cwd)
	case dbReadsFile:
		a.fileAccess(at, call.Read, f.lit, cwd)
	case dbRunsFile, dbLoads:
		a.codeFile(at, f, cwd, carrier)
	}
}

// dbPiped reads the client commands of the text piped into a database shell, once
// dataflow knows it (echo '.shell CMD' | sqlite3 db).
func (a *analyzer) dbPiped(at int, text string) {
	client := a.meta[at].prog
	if client == "mariadb" {
		client = "mysql"
	}
	if _, ok := dbCommands()[client]; ok {
		a.dbScript(at, client, text, a.cwdAt(at))
	}
}

// pipeCommand analyses a command a client pipes its output into (.once |CMD, \o |CMD) or
// reads from (.read |CMD). Output written into a shell or an interpreter is run as code:
// query results moat cannot read.
func (a *analyzer) pipeCommand(at int, code string, writes bool, cwd dir, carrier string) {
	a.shellText(at, code, cwd)
	if writes && runsItsInput(arg{lit: code}) {
		a.opaque(at, carrier+" writes query results into "+shorten(code)+", which runs them")
	}
}
