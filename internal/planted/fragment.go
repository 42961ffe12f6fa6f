package planted

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// An agent's edit replaces a piece of a file. When moat cannot apply it (the file is not
// on disk, or the text it replaces is not there), all it has is the new piece: a few lines
// of YAML, JSON or a JavaScript object, cut from their place in the file, which the
// kind's reader, made for whole files, often finds nothing in (a pre-commit hook's entry
// without the repos list above it, a CI step without its job). The piece's commands are
// then read where any of the formats moat reads keeps them: the values of the keys that
// name commands in those formats.

// commandKeys are the keys whose values are commands in the formats of the files kinds
// read: CI steps and scripts, pre-commit entries, Compose and Kubernetes commands, dev
// container lifecycle commands, deployment platforms' build and start commands, tools'
// exec settings, and npm's lifecycle scripts, which run on install. Keys that name a
// command in one format but data in another (build, test, start, install) are left out.
var commandKeys = map[string]bool{
	"run": true, "script": true, "before_script": true, "after_script": true, "before_install": true,
	"command": true, "commands": true, "cmd": true, "entry": true, "exec": true, "entrypoint": true,
	"postCreateCommand": true, "postStartCommand": true, "postAttachCommand": true, "onCreateCommand": true,
	"updateContentCommand": true, "initializeCommand": true, "buildCommand": true, "startCommand": true,
	"preDeployCommand": true, "release_command": true, "postdeploy": true, "init_hook": true,
	"preinstall": true, "postinstall": true, "prepare": true, "prepublish": true, "prepublishOnly": true,
	"prepack": true, "postpack": true, "preuninstall": true, "postuninstall": true,
}

// maxFragmentLines bounds the lines of a piece read this way: an edit is a few lines, and
// a larger text is read by the kind's reader as a whole file would be.
const maxFragmentLines = 400

// PieceCode returns the code in text, the new text of an edit that moat could not apply
// to the file: what the kind's reader finds in it, or, when it finds nothing, the
// commands held by command keys (commandKeys), each as a shell line run where the kind's
// code runs.
func (f File) PieceCode(text string) []Code {
	codes := f.Extract(text)
	if f.GitConfig || slices.ContainsFunc(codes, func(c Code) bool { return c.Lang != Interp }) {
		return codes
	}
	// Code of a language moat reads (a JavaScript configuration) is kept, and its
	// command keys read as well: command: 'curl … | sh' in a piece of playwright.config.ts
	// is a string to JavaScript, and a command to the tool that reads it.
	for _, root := range f.pieceRoots {
		// A piece cut from under a root (a service of a Compose file, pyproject.toml's
		// build requirements) is read there: a TOML piece below the table's header, a
		// YAML one indented below the key.
		var whole string
		if tomlPiece(text) {
			whole = "[" + root + "]\n" + text
		} else {
			body := text
			if leastIndent(text) == 0 {
				body = indentLines(text, "  ")
			}
			whole = root + ":\n" + body
		}
		if rooted := f.Extract(whole); len(rooted) > 0 {
			return append(codes, rooted...)
		}
	}
	if f.Declarative {
		// A declarative file's commands run in the containers it declares, with what the
		// rest of the file gives them: not read from a piece.
		return codes
	}
	lines := strings.Split(text, "\n")
	if len(lines) > maxFragmentLines {
		return codes
	}
	add := func(key, cmd string) {
		if cmd = strings.TrimSpace(cmd); cmd != "" {
			codes = append(codes, Code{Lang: Shell, Text: cmd, Where: key + " (in the edit)", Host: f.Host})
		}
	}
	for i := 0; i < len(lines); i++ {
		key, value, indent, ok := keyLine(lines[i])
		if !ok || !commandKeys[key] {
			continue
		}
		switch {
		case value == "" || value == "|" || value == ">" || strings.HasPrefix(value, "|") || strings.HasPrefix(value, ">"):
			// A block below the key: a YAML block scalar (run: |) or a list of commands.
			var block []string
			j := i + 1
			for ; j < len(lines); j++ {
				l := lines[j]
				if strings.TrimSpace(l) == "" {
					block = append(block, "")
					continue
				}
				if indentOf(l) <= indent && !strings.HasPrefix(strings.TrimSpace(l), "- ") || indentOf(l) < indent {
					break
				}
				block = append(block, l)
			}
			i = j - 1
			if value == "" {
				for _, l := range block {
					if item, ok := strings.CutPrefix(strings.TrimSpace(l), "- "); ok {
						add(key, unquoteScalar(item))
					}
				}
				continue
			}
			add(key, dedent(block))
		case strings.HasPrefix(value, "["):
			var argv []string
			if json.Unmarshal([]byte(strings.TrimSuffix(value, ",")), &argv) == nil && len(argv) > 0 {
				words := make([]string, len(argv))
				for k, w := range argv {
					words[k] = shellQuote(w)
				}
				add(key, strings.Join(words, " "))
			}
		default:
			add(key, unquoteScalar(value))
		}
	}
	return codes
}

// keyLine splits a line of YAML, JSON or a JavaScript object literal into its key (quotes
// and a list item's dash taken off), the value's text after the colon and the key's
// indentation.
func keyLine(line string) (key, value string, indent int, ok bool) {
	t := strings.TrimSpace(line)
	if t == "" || t[0] == '#' || strings.HasPrefix(t, "//") {
		return "", "", 0, false
	}
	indent = indentOf(line)
	if rest, ok := strings.CutPrefix(t, "- "); ok {
		t = strings.TrimSpace(rest)
		indent += 2
	}
	var k string
	switch {
	case t[0] == '"' || t[0] == '\'':
		end := strings.IndexByte(t[1:], t[0])
		if end < 0 {
			return "", "", 0, false
		}
		k, t = t[1:end+1], t[end+2:]
	default:
		i := strings.IndexByte(t, ':')
		if i <= 0 {
			return "", "", 0, false
		}
		k, t = t[:i], t[i:]
	}
	t = strings.TrimSpace(t)
	if !strings.HasPrefix(t, ":") || strings.ContainsAny(k, " \t{}[]") {
		return "", "", 0, false
	}
	return k, strings.TrimSpace(t[1:]), indent, true
}

// unquoteScalar returns a scalar's text: a JSON or YAML double-quoted string unescaped,
// a single-quoted one with ” read as ', a plain one as written (a trailing comma of
// JSON or JavaScript, and a YAML comment, taken off).
func unquoteScalar(v string) string {
	v = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), ","))
	if len(v) >= 2 {
		switch {
		case v[0] == '"' && v[len(v)-1] == '"':
			if s, err := strconv.Unquote(v); err == nil {
				return s
			}
			return v[1 : len(v)-1]
		case v[0] == '\'' && v[len(v)-1] == '\'':
			return strings.ReplaceAll(v[1:len(v)-1], "''", "'")
		case v[0] == '`' && v[len(v)-1] == '`':
			return v[1 : len(v)-1]
		}
	}
	if i := strings.Index(v, " #"); i >= 0 {
		v = v[:i]
	}
	return v
}

func indentOf(l string) int { return len(l) - len(strings.TrimLeft(l, " \t")) }

// leastIndent returns the least indentation of text's lines that are not blank.
func leastIndent(text string) int {
	least := -1
	for l := range strings.Lines(text) {
		if strings.TrimSpace(l) != "" && (least < 0 || indentOf(l) < least) {
			least = indentOf(l)
		}
	}
	return max(least, 0)
}

// indentLines puts prefix before each line of text that is not blank.
func indentLines(text, prefix string) string {
	var b strings.Builder
	for l := range strings.Lines(text) {
		if strings.TrimSpace(l) != "" {
			b.WriteString(prefix)
		}
		b.WriteString(l)
	}
	return b.String()
}

// dedent joins lines, taking off the indentation they share.
func dedent(lines []string) string {
	least := -1
	for _, l := range lines {
		if strings.TrimSpace(l) != "" && (least < 0 || indentOf(l) < least) {
			least = indentOf(l)
		}
	}
	var b strings.Builder
	for _, l := range lines {
		if len(l) >= least && least > 0 {
			l = l[least:]
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}
