package shell

import (
	"strings"

	"github.com/moatdev/moat/internal/shell/oneliner"
)

// A web framework's command line runs code handed to it inside the application, with
// the project's settings and its database: rails runner CODE, manage.py shell -c CODE,
// and a console fed by the line (echo 'Order.destroy_all' | rails console, manage.py
// shell <<EOF … EOF). That code is read as the interpreter of its language would be
// given it; a database console (rails dbconsole, manage.py dbshell) runs SQL, read as
// psql's is. A console the line feeds nothing is the user's to type into.

// frameworkEntry is one such way in.
type frameworkEntry struct {
	subs string        // the subcommands, separated by |
	lang oneliner.Lang // "" for SQL
	// operand says the code is the last operand (rails runner CODE); a file of the
	// project's (rails runner script/backfill.rb) is the project's code, as its tasks are.
	operand bool
	// options are the options whose value is the code (manage.py shell -c, tinker
	// --execute).
	options []string
}

// frameworkEntries returns the ways in of a framework's program: rails (bin/rails),
// Django's manage.py and django-admin, flask, Laravel's artisan.
func frameworkEntries(program string) []frameworkEntry {
	switch program {
	case "rails":
		return []frameworkEntry{
			{subs: "runner|r", lang: oneliner.Ruby, operand: true},
			{subs: "console|c", lang: oneliner.Ruby},
			{subs: "dbconsole|db"},
		}
	case "manage.py", "django-admin":
		return []frameworkEntry{
			{subs: "shell|shell_plus", lang: oneliner.Python, options: []string{"-c", "--command"}},
			{subs: "dbshell"},
		}
	case "flask":
		return []frameworkEntry{{subs: "shell", lang: oneliner.Python}}
	case "artisan":
		return []frameworkEntry{
			{subs: "tinker", lang: oneliner.PHP, options: []string{"--execute"}},
			{subs: "db"},
		}
	}
	return nil
}

// frameworkCode analyses the code a framework's command runs in the application. The
// program may be an interpreter running the framework's script (python manage.py,
// php artisan).
func (a *analyzer) frameworkCode(at int, rest []arg, cwd dir) {
	prog := a.meta[at].prog
	words := rest
	if _, interp := oneliner.Lookup(prog); interp {
		i := 0
		for i < len(words) && !words[i].dynamic && strings.HasPrefix(words[i].lit, "-") {
			i++
		}
		if i == len(words) || words[i].dynamic {
			return
		}
		prog, words = baseName(words[i].lit), words[i+1:]
	}
	entries := frameworkEntries(prog)
	if len(entries) == 0 {
		return
	}
	// The subcommand is the first word (rails's environment option, -e, comes after it).
	if len(words) == 0 {
		return
	}
	if words[0].dynamic {
		// rails "$SUB" 'system("…")': a subcommand known only at run time may be the one
		// that runs its operand as code. Alone, or with options only, it is a task of the
		// project's.
		for _, x := range words[1:] {
			if x.dynamic || !strings.HasPrefix(x.lit, "-") {
				a.opaque(at, prog+" runs a subcommand known only at run time, which may run "+shorten(x.lit)+" as code")
				return
			}
		}
		return
	}
	sub, args := words[0].lit, words[1:]
	for _, e := range entries {
		if !containsString(strings.Split(e.subs, "|"), sub) {
			continue
		}
		if code, ok := frameworkCodeArg(e, args); ok {
			switch {
			case code.dynamic:
				a.codeFromWord(at, code, execInterp, e.lang)
			case e.operand && strings.HasSuffix(code.lit, ".rb") && !strings.ContainsAny(code.lit, " ;()"):
				// A script file: the project's, or code moat cannot read.
				a.codeFile(at, code, cwd, "rails runner")
			default:
				a.inspect(at, e.lang, code.lit, cwd)
			}
			return
		}
		if e.operand {
			return
		}
		m := &a.meta[at]
		if e.lang == "" {
			// The statements dataflow reads (flow.go), and the client's own commands
			// (psql's \! runs a shell command).
			m.dbStdin = langSQL
			if text, known, _ := a.stdinText(at); known {
				a.dbScript(at, "psql", text, cwd)
			}
			return
		}
		m.execStdin, m.lang = execInterp, e.lang
		return
	}
}

// frameworkCodeArg returns the code an entry takes from its arguments: the last operand,
// or the value of one of its options.
func frameworkCodeArg(e frameworkEntry, args []arg) (arg, bool) {
	if e.operand {
		// The last operand, past the environment option's value (rails runner -e
		// production CODE, rails runner CODE -e production).
		var code arg
		found := false
		for i := 0; i < len(args); i++ {
			x := args[i]
			switch {
			case !x.dynamic && (x.lit == "-e" || x.lit == "--environment"):
				i++
			case !x.dynamic && strings.HasPrefix(x.lit, "-"):
			default:
				code, found = x, true
			}
		}
		return code, found
	}
	for i, x := range args {
		if x.dynamic {
			continue
		}
		for _, o := range e.options {
			if v, ok := strings.CutPrefix(x.lit, o+"="); ok && strings.HasPrefix(o, "--") {
				x.lit = v
				return x, true
			}
			if x.lit == o && i+1 < len(args) {
				return args[i+1], true
			}
		}
	}
	return arg{}, false
}
