package planted

import (
	"fmt"
	"strings"
)

// terraformCode finds the commands a Terraform configuration runs on this machine:
// a local-exec provisioner's command, run by terraform apply, and an external data
// source's program, run by every terraform plan. Interpolations (${var.x}) are values
// only Terraform knows, read as an unknown variable. A command run by another
// interpreter, or one moat cannot read, is opaque.
func terraformCode(text string, x *extraction) {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		var attr string
		switch {
		case strings.HasPrefix(t, `provisioner "local-exec"`):
			attr = "command"
		case strings.HasPrefix(t, `data "external"`):
			attr = "program"
		default:
			continue
		}
		where := fmt.Sprintf("line %d (%s)", i+1, strings.TrimSpace(strings.TrimSuffix(t, "{")))
		depth := strings.Count(t, "{") - strings.Count(t, "}")
		code, found, read, interpreter := "", false, false, ""
		j := i + 1
		for ; j < len(lines) && depth > 0; j++ {
			l := strings.TrimSpace(lines[j])
			name, val, ok := strings.Cut(l, "=")
			switch strings.TrimSpace(name) {
			case attr:
				if ok {
					found = true
					code, read, j = hclValue(strings.TrimSpace(val), lines, j)
					continue
				}
			case "interpreter":
				if ok {
					interpreter = nonShell(strings.TrimSpace(val))
				}
			}
			depth += strings.Count(l, "{") - strings.Count(l, "}")
		}
		i = j - 1
		switch {
		case !found:
		case !read:
			x.opaque(where, "a "+attr+" moat cannot read")
		case interpreter != "":
			x.opaque(where, "local-exec runs its command with "+interpreter)
		default:
			x.shell(where, code)
		}
	}
}

// nonShell returns the interpreter a local-exec names when it is not a POSIX shell ("" for
// bash, sh, zsh, dash): its command is then code moat does not read as a shell line.
func nonShell(val string) string {
	words, ok := hclStrings(val)
	if !ok || len(words) == 0 {
		return val
	}
	switch base := words[0][strings.LastIndexByte(words[0], '/')+1:]; base {
	case "bash", "sh", "zsh", "dash":
		return ""
	}
	return words[0]
}

// hclValue reads a command value starting at val on lines[at]: a quoted string, a
// heredoc (<<EOT or <<-EOT, to its terminator line), or a list of strings (a program's
// argv, joined as a shell command line). It returns the text, whether it could be
// read, and the index of its last line.
func hclValue(val string, lines []string, at int) (string, bool, int) {
	switch {
	case strings.HasPrefix(val, `"`):
		s, _, ok := hclString(val)
		return interpolations(s), ok, at
	case strings.HasPrefix(val, "<<"):
		tag := strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(val, "<<"), "-"))
		var body []string
		for j := at + 1; j < len(lines); j++ {
			if strings.TrimSpace(lines[j]) == tag {
				return interpolations(strings.Join(body, "\n")), true, j
			}
			body = append(body, lines[j])
		}
		return "", false, len(lines) - 1
	case strings.HasPrefix(val, "["):
		words, ok := hclStrings(val)
		if !ok {
			return "", false, at
		}
		quoted := make([]string, len(words))
		for i, w := range words {
			quoted[i] = "'" + strings.ReplaceAll(interpolations(w), "'", `'\''`) + "'"
		}
		return strings.Join(quoted, " "), true, at
	}
	return "", false, at
}

// hclString reads the double-quoted string at the start of s, with its escapes, and
// returns it and the length of s it took, closing quote included.
func hclString(s string) (string, int, bool) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			return b.String(), i + 1, true
		case '\\':
			if i+1 == len(s) {
				return "", 0, false
			}
			i++
			b.WriteByte(escaped(s[i]))
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, false
}

// hclStrings reads a one-line list of quoted strings: ["bash", "-c", "…"].
func hclStrings(s string) ([]string, bool) {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "[") || !strings.HasSuffix(s, "]") {
		return nil, false
	}
	s = strings.TrimSpace(s[1 : len(s)-1])
	var out []string
	for s != "" {
		if !strings.HasPrefix(s, `"`) {
			return nil, false
		}
		w, n, ok := hclString(s)
		if !ok {
			return nil, false
		}
		out = append(out, w)
		s = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s[n:]), ","))
	}
	return out, true
}

// interpolations replaces Terraform's ${…} with an unknown shell variable, and $${ (a
// literal ${) with ${.
func interpolations(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case strings.HasPrefix(s[i:], "$${"):
			b.WriteString("${")
			i += 2
		case strings.HasPrefix(s[i:], "${"):
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				b.WriteString(s[i:])
				return b.String()
			}
			b.WriteString("${TF_VALUE}")
			i += end
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}
