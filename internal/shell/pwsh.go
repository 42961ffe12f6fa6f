package shell

import (
	"strings"

	"github.com/moatdev/moat/internal/shell/oneliner"
)

// powershellCode: pwsh and powershell take one-dash, case-insensitive, abbreviable
// options. -Command (-c) takes the rest of the line as code (- for standard input),
// -EncodedCommand (-e, -enc, -ec) base64 of UTF-16LE code, -File (-f) a script; without
// any of them, a first operand is a script for pwsh and code for Windows PowerShell, and
// none at all reads code from standard input.
func (a *analyzer) powershellCode(at int, rest []arg, cwd dir) {
	in := oneliner.Interpreter{Lang: oneliner.PowerShell}
	m := &a.meta[at]
	for i := 0; i < len(rest); i++ {
		x := rest[i]
		name, isOpt := psOption(x)
		if !isOpt {
			if a.meta[at].prog == "pwsh" || strings.HasSuffix(strings.ToLower(x.lit), ".ps1") {
				a.scriptOperand(at, x, cwd, &in)
				return
			}
			a.powershellCommand(at, rest[i:], cwd)
			return
		}
		switch {
		case psAbbrev(name, "command", 1):
			if i+1 < len(rest) && !rest[i+1].dynamic && rest[i+1].lit == "-" {
				m.execStdin, m.lang = execInterp, in.Lang
				return
			}
			a.powershellCommand(at, rest[i+1:], cwd)
			return
		case psAbbrev(name, "encodedcommand", 1) || name == "ec" || name == "enc":
			if i+1 >= len(rest) {
				return
			}
			v := rest[i+1]
			if v.dynamic {
				a.codeFromWord(at, v, execInterp, in.Lang)
				return
			}
			code, ok := oneliner.DecodePowerShell(v.lit)
			c := &a.cmds[at]
			if !ok {
				c.Findings = appendFinding(c.Findings, findObfuscatedExec, "an -EncodedCommand that does not decode")
				return
			}
			c.Findings = appendFinding(c.Findings, findEncodedCommand, shorten(code))
			a.inspect(at, in.Lang, code, cwd)
			return
		case psAbbrev(name, "file", 1):
			if i+1 < len(rest) {
				if !rest[i+1].dynamic && rest[i+1].lit == "-" {
					m.execStdin, m.lang = execInterp, in.Lang
					return
				}
				a.scriptOperand(at, rest[i+1], cwd, &in)
			}
			return
		case psValueOption(name):
			i++
		}
	}
	m.execStdin, m.lang = execInterp, in.Lang
}

// powershellCommand inspects the words of -Command joined, as PowerShell joins them.
func (a *analyzer) powershellCommand(at int, words []arg, cwd dir) {
	if len(words) == 0 {
		return
	}
	line := joinArgs(words)
	if line.dynamic {
		for _, w := range words {
			if w.dynamic {
				a.codeFromWord(at, w, execInterp, oneliner.PowerShell)
				return
			}
		}
	}
	a.inspect(at, oneliner.PowerShell, line.lit, cwd)
}

// psOption returns the lower-case name of an option word (-NoProfile, /NoProfile).
func psOption(x arg) (string, bool) {
	if x.dynamic || len(x.lit) < 2 || x.lit[0] != '-' && x.lit[0] != '/' {
		return "", false
	}
	name, _, _ := strings.Cut(strings.ToLower(x.lit[1:]), ":")
	return strings.TrimPrefix(name, "-"), true
}

// psAbbrev reports whether name abbreviates full, at least min letters long.
func psAbbrev(name, full string, min int) bool {
	return len(name) >= min && strings.HasPrefix(full, name)
}

// psValueOption reports the options that take a value (-ExecutionPolicy Bypass).
func psValueOption(name string) bool {
	switch name {
	case "ep", "ex", "w", "wd", "of", "o", "if", "i", "v", "cnf", "sta", "mta":
		return name != "sta" && name != "mta"
	}
	for _, full := range []string{"executionpolicy", "windowstyle", "workingdirectory", "configurationname", "outputformat", "inputformat", "version", "psconsolefile", "settingsfile", "custompipename", "encodedarguments"} {
		if len(name) >= 3 && strings.HasPrefix(full, name) {
			return true
		}
	}
	return false
}

// cmdExeCode: cmd /c LINE (and /k) runs LINE, the rest of the command line; its other
// switches (/s, /q, /d, /v:on…) change how. The line is read as the PowerShell that does
// the same (oneliner.CmdToPowerShell). Without /c or /k, cmd reads commands from its
// standard input (the catalog's stdin=code).
func (a *analyzer) cmdExeCode(at int, rest []arg, cwd dir) {
	for i, x := range rest {
		if x.dynamic {
			a.codeFromWord(at, x, execInterp, oneliner.PowerShell)
			return
		}
		sw := strings.ToLower(x.lit)
		if !strings.HasPrefix(sw, "/") {
			return
		}
		if strings.HasPrefix(sw, "/c") || strings.HasPrefix(sw, "/k") {
			// cmd /cdir: the line may start in the switch's own word (no other switch of
			// cmd's starts with c or k).
			words := rest[i+1:]
			if len(x.lit) > 2 {
				words = append([]arg{{lit: x.lit[2:], word: x.word}}, words...)
			}
			line := joinArgs(words)
			if line.dynamic {
				a.codeFromWord(at, line, execInterp, oneliner.PowerShell)
				return
			}
			a.inspect(at, oneliner.PowerShell, oneliner.CmdToPowerShell(line.lit), cwd)
			return
		}
	}
}
