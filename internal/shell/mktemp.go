package shell

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// mktempName is the file name GNU and BSD mktemp make when given no template.
const mktempName = "tmp.XXXXXXXXXX"

// mktempPath returns the path $(mktemp WORDS) prints, with its random part left as the
// template's X's: a file (or with -d a directory) that mktemp has just created, so that
// writing to it overwrites nothing that was there. Where it lands follows GNU mktemp:
// with no template, or with -t, -p DIR or --tmpdir[=DIR], in DIR, else $TMPDIR, else /tmp;
// a template alone is relative to the working directory. A form it cannot read (an
// unknown option, a template without three trailing X's, an unknown $TMPDIR it needs) gives
// false, and the substitution stays unknown.
func (a *analyzer) mktempPath(words []string) (string, bool) {
	var template, dir string
	inTmp, suffix := false, ""
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch {
		case w == "-d" || w == "--directory" || w == "-q" || w == "--quiet" || w == "-u" || w == "--dry-run":
		case w == "-t":
			inTmp = true
		case w == "--tmpdir":
			inTmp = true
		case strings.HasPrefix(w, "--tmpdir="):
			inTmp, dir = true, strings.TrimPrefix(w, "--tmpdir=")
		case w == "-p" && i+1 < len(words):
			inTmp, dir = true, words[i+1]
			i++
		case strings.HasPrefix(w, "-p") && len(w) > 2:
			inTmp, dir = true, w[2:]
		case strings.HasPrefix(w, "--suffix="):
			suffix = strings.TrimPrefix(w, "--suffix=")
		case w == "--":
			if i+1 < len(words) {
				template = words[i+1]
			}
			i = len(words)
		case strings.HasPrefix(w, "-"):
			return "", false
		case template == "":
			template = w
		default:
			return "", false
		}
	}
	if template == "" {
		template, inTmp = mktempName, true
	} else if !strings.HasSuffix(template, "XXX") || strings.Contains(suffix, "/") {
		return "", false
	}
	template += suffix
	if !inTmp {
		if path.IsAbs(template) {
			return path.Clean(template), true
		}
		cwd := a.cwd()
		if !cwd.known {
			return "", false
		}
		return path.Join(cwd.path, template), true
	}
	if strings.Contains(template, "/") {
		return "", false // with a directory, GNU mktemp wants a bare name
	}
	if dir == "" {
		t, _ := a.st.get("TMPDIR")
		switch _, bound := a.st.latest["TMPDIR"]; {
		case t.known && t.s != "":
			dir = t.s
		case !t.known && bound:
			return "", false // the line sets it to something moat cannot see
		default:
			dir = "/tmp" // unset or empty, or not known before the line: the default
		}
	}
	if !path.IsAbs(dir) {
		cwd := a.cwd()
		if !cwd.known {
			return "", false
		}
		dir = path.Join(cwd.path, dir)
	}
	return path.Join(dir, template), true
}

// isMktemp reports whether the substitution is one plain mktemp command.
func isMktemp(cs *syntax.CmdSubst) bool {
	if len(cs.Stmts) != 1 {
		return false
	}
	ce, ok := cs.Stmts[0].Cmd.(*syntax.CallExpr)
	return ok && len(ce.Args) > 0 && ce.Args[0].Lit() == "mktemp"
}
