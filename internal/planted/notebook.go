package planted

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/moatdev/moat/internal/shell/oneliner"
)

// maxNotebookCells bounds the cells read from one notebook.
const maxNotebookCells = 512

// notebookCode finds the shell commands of a Jupyter notebook's code cells, which run
// when the cell does, in the notebook's directory: IPython's `!cmd` and `!!cmd` lines,
// the line magics %system and %sx, and whole cells under %%bash, %%sh or %%script
// SHELL; %%script with an interpreter moat reads (%%script python3, %%perl, %%ruby) is
// that interpreter's code. The cells' Python is the project's source, as a .py file
// is. The text is a notebook (JSON with cells) or, from an edit of one cell, the cell's
// source itself. IPython fills in {expr} and $name from Python before the shell runs
// the line: {expr} is a value moat does not know.
func notebookCode(text string, x *extraction) {
	var nb struct {
		Cells []struct {
			Type   string          `json:"cell_type"`
			Source json.RawMessage `json:"source"`
		} `json:"cells"`
	}
	if err := json.Unmarshal([]byte(text), &nb); err != nil || nb.Cells == nil {
		if strings.HasPrefix(strings.TrimSpace(text), "{") && strings.Contains(text, `"cells"`) {
			x.opaque("notebook", "a notebook moat cannot read as JSON")
			return
		}
		cellCode(text, "cell", x)
		return
	}
	for i, c := range nb.Cells {
		if i >= maxNotebookCells {
			x.opaque("notebook", "more cells than moat reads in one notebook")
			return
		}
		if c.Type != "code" {
			continue
		}
		src, ok := notebookSource(c.Source)
		if !ok {
			x.opaque(fmt.Sprintf("cells[%d]", i), "a cell whose source moat cannot read")
			continue
		}
		cellCode(src, fmt.Sprintf("cells[%d]", i), x)
	}
}

// notebookSource returns a cell's source: a string, or a list of strings to join.
func notebookSource(raw json.RawMessage) (string, bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	var lines []string
	if json.Unmarshal(raw, &lines) == nil {
		return strings.Join(lines, ""), true
	}
	return "", len(raw) == 0 || string(raw) == "null"
}

// cellCode finds the shell code of one cell's source.
func cellCode(src, where string, x *extraction) {
	first, body, _ := strings.Cut(strings.TrimLeft(src, " \t\r\n"), "\n")
	if magic, ok := strings.CutPrefix(strings.TrimSpace(first), "%%"); ok {
		fields := strings.Fields(magic)
		name := ""
		if len(fields) > 0 {
			name = fields[0]
		}
		script := name == "script"
		if script {
			// %%script PROGRAM [options]: the cell is PROGRAM's code.
			name = ""
			for _, f := range fields[1:] {
				if !strings.HasPrefix(f, "-") {
					name = f
					break
				}
			}
		}
		switch name = strings.TrimSuffix(pathBase(name), ".exe"); name {
		case "writefile":
			// %%writefile [-a] FILE writes the cell into FILE: judged as the shell
			// write of that text, a startup file or a Makefile included.
			x.shell(where+" (%%"+magic+")", writefileCode(fields[1:], body))
			return
		case "bash", "sh", "zsh", "dash", "ksh", "system":
			x.shell(where+" (%%"+magic+")", ipythonExpanded(body))
			return
		case "":
		default:
			if in, ok := oneliner.Lookup(name); ok {
				x.interp(in.Lang, where+" (%%"+magic+")", body)
				return
			}
			if script || cellMagicRunsProgram(name) {
				x.opaque(where, "a cell run by "+name+", which moat cannot read")
				return
			}
		}
	}
	for line := range strings.Lines(src) {
		l := strings.TrimSpace(line)
		var cmd string
		switch {
		case strings.HasPrefix(l, "!"):
			cmd = strings.TrimPrefix(strings.TrimPrefix(l, "!"), "!")
		case strings.HasPrefix(l, "%system ") || strings.HasPrefix(l, "%sx "):
			_, cmd, _ = strings.Cut(l, " ")
		default:
			// x = !cmd and x = %sx cmd: the output of a command, assigned.
			m := ipythonAssigned().FindStringSubmatch(l)
			if m == nil {
				continue
			}
			cmd = m[1]
		}
		x.shell(where+" (IPython runs it)", ipythonExpanded(cmd))
	}
}

// writefileCode is the shell code that writes what %%writefile [-a|--append] FILE
// writes: the cell's body into FILE, appended with -a.
func writefileCode(args []string, body string) string {
	redirect, file := ">", ""
	for _, a := range args {
		switch a {
		case "-a", "--append":
			redirect = ">>"
		default:
			file = a
		}
	}
	delim := "MOAT_CELL_END"
	for strings.Contains(body, delim) {
		delim += "_"
	}
	return "cat " + redirect + " " + shellQuote(file) + " <<'" + delim + "'\n" + body + "\n" + delim + "\n"
}

// cellMagicRunsProgram reports whether a cell magic hands the cell to a program: those
// IPython and its extensions define for interpreters.
func cellMagicRunsProgram(name string) bool {
	switch name {
	case "perl", "ruby", "python", "python2", "python3", "pypy", "pypy3", "node", "js", "javascript", "powershell", "pwsh":
		return true
	}
	return false
}

// ipythonAssigned matches `name = !cmd` and `name = %sx cmd`, capturing the command.
var ipythonAssigned = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_, ]*=\s*(?:!|%sx\s+|%system\s+)(.+)$`)
})

// ipythonBraces matches IPython's {expr} in a shell line, filled in from Python.
var ipythonBraces = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{[^{}\s][^{}]*\}`) })

// ipythonExpanded stands for each {expr} with a value moat does not know.
func ipythonExpanded(cmd string) string {
	return ipythonBraces().ReplaceAllLiteralString(cmd, "${IPYTHON_EXPR}")
}

func pathBase(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}
