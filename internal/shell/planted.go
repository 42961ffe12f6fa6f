package shell

import (
	"strings"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/planted"
)

// plantedText judges text the command at i writes into a file that tools run later
// without asking (a Makefile, package.json, a git hook, a CI workflow, a startup file:
// internal/planted): the code the file carries is analysed as if it ran, in the
// directory it would run in, and the findings of its commands name the file. A write
// whose text the line does not show is opaque: moat cannot tell what it plants.
func (a *analyzer) plantedText(i int, file string, kind planted.File, t fileText, home string) {
	if !t.known && !t.partial {
		a.opaque(i, "writes "+file+", a "+kind.Kind+" whose commands tools run later, with text moat cannot read")
		return
	}
	cwd := dir{path: kind.RunDir(file, home), known: true}
	for _, code := range kind.Extract(t.text) {
		first := len(a.cmds)
		switch {
		case code.Opaque != "":
			a.opaque(i, file+" "+code.Where+": "+code.Opaque)
			continue
		case code.Lang == planted.Interp:
			a.inspect(i, code.Interp, code.Text, cwd)
		default:
			a.nested(i, code.Text, cwd, false)
		}
		prefix := file + " " + code.Where + ": "
		for k := first; k < len(a.cmds); k++ {
			fs := a.cmds[k].Findings
			for j := range fs {
				fs[j].Evidence = prefix + fs[j].Evidence
			}
		}
	}
}

// plantedShadow appends the finding of a write that puts a program on PATH under the name
// of a common program, which then runs in its place.
func plantedShadow(dst []call.Finding, acc call.Access, home string) []call.Finding {
	if acc.Kind != call.Write {
		return dst
	}
	if prog, ok := planted.Shadow(acc.Path, home); ok && !hasFinding(dst, planted.FindShadow) {
		dst = append(dst, call.NewFinding(planted.FindShadow, "writes "+acc.Path+", which runs in place of "+prog+" for every program that looks "+prog+" up on PATH"))
	}
	return dst
}

// packageScriptCode finds the scripts a package manager's command stores in package.json
// (npm pkg set scripts.NAME=CODE, npm set-script NAME CODE): code that npm runs later,
// a lifecycle script on the next install without being named.
func packageScriptCode(a *analyzer, v *view) string {
	ops := v.raw
	if len(ops) < 2 || ops[0].dynamic {
		return ""
	}
	add := func(name string, code arg) {
		a.later = append(a.later, codeRef{code: code, kind: codeShell, carrier: "scripts." + name + " in package.json", direct: true})
	}
	switch ops[0].lit {
	case "pkg":
		if ops[1].dynamic || ops[1].lit != "set" {
			return ""
		}
		for _, o := range ops[2:] {
			key, val, ok := strings.Cut(o.lit, "=")
			name, isScript := strings.CutPrefix(key, "scripts.")
			if !ok || !isScript {
				if strings.HasPrefix(key, "scripts") && o.dynamic {
					add(key, o)
				}
				continue
			}
			code := o
			if !o.dynamic {
				code = arg{lit: val}
			}
			add(name, code)
		}
	case "set-script":
		if len(ops) >= 3 {
			add(ops[1].lit, ops[2])
		}
	}
	return ""
}
