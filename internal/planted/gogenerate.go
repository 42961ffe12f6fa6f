package planted

import (
	"strconv"
	"strings"
)

// maxGoGenerate bounds the directives read from one Go file.
const maxGoGenerate = 256

// goGenerateCode finds the commands of a Go file's //go:generate directives, which
// `go generate` runs in the file's directory: a directive is a line that starts with
// "//go:generate " and holds a command and its arguments, split at blanks, a
// double-quoted word being a Go string. go generate runs no shell, so each word is one
// argument; "-command NAME WORDS…" defines NAME as WORDS for the rest of the file; $NAME
// stands for an environment variable or one of go generate's own ($GOFILE, $GOPACKAGE…).
func goGenerateCode(text string, x *extraction) {
	aliases := map[string][]string{}
	n := 0
	for line := range strings.Lines(text) {
		rest, ok := strings.CutPrefix(line, "//go:generate")
		if !ok || rest == "" || rest[0] != ' ' && rest[0] != '\t' {
			continue
		}
		if n++; n > maxGoGenerate {
			x.opaque("//go:generate", "more directives than moat reads in one file")
			return
		}
		words, ok := goGenerateWords(strings.TrimRight(rest, "\r\n"))
		if !ok {
			// go generate stops at a directive it cannot split; what it would have run is
			// no longer known for certain, so the directive is not read as harmless.
			x.opaque("//go:generate", "a directive go generate cannot split")
			continue
		}
		if len(words) == 0 {
			continue
		}
		if words[0] == "-command" {
			if len(words) >= 3 {
				aliases[words[1]] = words[2:]
			}
			continue
		}
		if alias, ok := aliases[words[0]]; ok {
			words = append(append([]string(nil), alias...), words[1:]...)
		}
		shellWords := make([]string, len(words))
		for i, w := range words {
			shellWords[i] = goGenerateShellWord(w)
		}
		x.shell("//go:generate (go generate runs it)", strings.Join(shellWords, " "))
	}
}

// goGenerateWords splits a directive's text as go generate does: blank-separated words,
// a word starting with a double quote being a Go string literal.
func goGenerateWords(line string) ([]string, bool) {
	var words []string
	for {
		line = strings.TrimLeft(line, " \t")
		if line == "" {
			return words, true
		}
		if line[0] != '"' {
			i := strings.IndexAny(line, " \t")
			if i < 0 {
				i = len(line)
			}
			words = append(words, line[:i])
			line = line[i:]
			continue
		}
		end := -1
		for i := 1; i < len(line) && end < 0; i++ {
			switch line[i] {
			case '\\':
				i++
			case '"':
				end = i
			}
		}
		if end < 0 {
			return nil, false
		}
		word, err := strconv.Unquote(line[:end+1])
		if err != nil {
			return nil, false
		}
		words = append(words, word)
		line = line[end+1:]
		if line != "" && line[0] != ' ' && line[0] != '\t' {
			return nil, false
		}
	}
}

// goGenerateShellWord is one argument of a directive as a shell word: its text quoted,
// go generate's own variables put in (the file and package names standing for any file
// of the package), any other $NAME or ${NAME} left as a shell variable, whose value
// comes from the environment as it does for go generate.
func goGenerateShellWord(w string) string {
	if w != "" && strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./=:,+@%-") == "" {
		return w
	}
	var b strings.Builder
	b.WriteByte('"')
	literal := func(s string) {
		for i := 0; i < len(s); i++ {
			if strings.IndexByte("\\\"$`", s[i]) >= 0 {
				b.WriteByte('\\')
			}
			b.WriteByte(s[i])
		}
	}
	for i := 0; i < len(w); {
		if w[i] != '$' || i+1 == len(w) {
			literal(w[i : i+1])
			i++
			continue
		}
		name, j := "", i+1
		if w[j] == '{' {
			k := strings.IndexByte(w[j:], '}')
			if k < 0 {
				literal(w[i:])
				break
			}
			name, j = w[j+1:j+k], j+k+1
		} else {
			for j < len(w) && isCMakeIdent(w[j]) {
				j++
			}
			name = w[i+1 : j]
		}
		switch name {
		case "":
			literal(w[i:j])
		case "GOFILE":
			literal("generate.go")
		case "GOPACKAGE":
			literal("main")
		case "GOLINE":
			literal("1")
		case "GOOS":
			literal("linux")
		case "GOARCH":
			literal("amd64")
		case "DOLLAR":
			literal("$")
		default:
			b.WriteString("${" + name + "}")
		}
		i = j
	}
	b.WriteByte('"')
	return b.String()
}
