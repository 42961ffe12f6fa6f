package planted

import (
	"encoding/json"
	"fmt"
	"strings"
)

// A Dockerfile's RUN instructions run when the image is built (docker build, compose up
// --build, a platform's builder), in a build container discarded afterwards; its CMD and
// ENTRYPOINT run wherever the image is started, a server that stays. Each stage's RUN
// commands are read as one script, in order, with its ENV and ARG values and its ADD of
// a URL (a download into the image) in place, so that a file downloaded by ADD and run
// by a later RUN is seen as run from the network. The script runs in the project's
// directory: a WORKDIR is where COPY put the project's files, and its relative paths
// are theirs; the build container's own paths are the discarded machine's.

// dockerfileCode finds the commands of a Dockerfile (or Containerfile).
func dockerfileCode(text string, x *extraction) {
	var script strings.Builder
	first := 0 // the line of the stage's first instruction
	flush := func() {
		if script.Len() > 0 {
			x.host = Discarded
			x.shell(fmt.Sprintf("RUN from line %d (docker build runs it)", first), script.String())
			script.Reset()
		}
		first = 0
	}
	for ins := range dockerInstructions(text) {
		add := func(line string) {
			if first == 0 {
				first = ins.line
			}
			script.WriteString(line + "\n")
		}
		switch ins.name {
		case "FROM":
			flush() // a new stage: a new build container
		case "RUN":
			if ins.heredoc != "" {
				add(ins.heredoc)
			} else {
				add(dockerCommand(ins.args))
			}
		case "ENV", "ARG":
			for _, kv := range dockerAssignments(ins.args) {
				add("export " + kv)
			}
		case "ADD":
			// ADD URL DEST downloads into the image, as curl would.
			words := strings.Fields(ins.args)
			if len(words) >= 2 && (strings.HasPrefix(words[0], "http://") || strings.HasPrefix(words[0], "https://")) {
				dest := words[len(words)-1]
				if strings.HasSuffix(dest, "/") {
					dest += baseName(words[0])
				}
				add("curl -fsSL -o " + shellQuote(dest) + " " + shellQuote(words[0]))
			}
		case "CMD", "ENTRYPOINT":
			if cmd := dockerCommand(ins.args); cmd != "" {
				x.host = Kept
				x.shell(fmt.Sprintf("%s at line %d (runs where the image is started)", ins.name, ins.line), cmd)
			}
		}
	}
	flush()
	x.host = Here
}

// dockerInstruction is one instruction of a Dockerfile: its name in upper case, its
// arguments with continuation lines joined, and the body of a RUN here-document.
type dockerInstruction struct {
	name, args, heredoc string
	// flagged is a RUN's arguments with its flags, which args leaves out: another
	// reader of the syntax (earthfile.go) knows flags of its own.
	flagged string
	line    int
}

// dockerInstructions yields a Dockerfile's instructions: comments and blank lines are
// skipped, a line ending in the escape character (\, or ` after # escape=`) continues
// on the next, and RUN <<EOF … EOF holds the lines up to its delimiter.
func dockerInstructions(text string) func(func(dockerInstruction) bool) {
	return func(yield func(dockerInstruction) bool) {
		lines := strings.Split(text, "\n")
		escape := `\`
		for i := 0; i < len(lines); i++ {
			l := strings.TrimSpace(strings.TrimSuffix(lines[i], "\r"))
			if i == 0 || strings.HasPrefix(l, "#") {
				if d, ok := strings.CutPrefix(strings.ReplaceAll(l, " ", ""), "#escape="); ok && (d == "`" || d == `\`) {
					escape = d
				}
			}
			if l == "" || strings.HasPrefix(l, "#") {
				continue
			}
			start := i + 1
			var b strings.Builder
			for strings.HasSuffix(l, escape) && i+1 < len(lines) {
				b.WriteString(strings.TrimSpace(strings.TrimSuffix(l, escape)) + " ")
				i++
				l = strings.TrimSpace(strings.TrimSuffix(lines[i], "\r"))
				for strings.HasPrefix(l, "#") && i+1 < len(lines) {
					i++ // a comment inside a continued instruction
					l = strings.TrimSpace(strings.TrimSuffix(lines[i], "\r"))
				}
			}
			b.WriteString(l)
			name, args, _ := strings.Cut(b.String(), " ")
			ins := dockerInstruction{name: strings.ToUpper(name), args: strings.TrimSpace(args), line: start}
			if ins.name == "RUN" {
				ins.flagged = ins.args
				ins.args = dockerRunFlags(ins.args)
				if delim, ok := heredocDelimiter(ins.args); ok {
					var body strings.Builder
					for i+1 < len(lines) {
						i++
						if strings.TrimSpace(strings.TrimSuffix(lines[i], "\r")) == delim {
							break
						}
						body.WriteString(lines[i] + "\n")
					}
					ins.heredoc = body.String()
				}
			}
			if !yield(ins) {
				return
			}
		}
	}
}

// dockerRunFlags drops RUN's own flags (--mount=…, --network=…, --security=…).
func dockerRunFlags(args string) string {
	for strings.HasPrefix(args, "--") {
		_, rest, _ := strings.Cut(args, " ")
		args = strings.TrimSpace(rest)
	}
	return args
}

// heredocDelimiter reads RUN <<EOF (or <<-EOF, <<"EOF"): the delimiter of the body that
// follows the instruction's line.
func heredocDelimiter(args string) (string, bool) {
	rest, ok := strings.CutPrefix(args, "<<")
	if !ok {
		return "", false
	}
	rest = strings.TrimPrefix(rest, "-")
	word, _, _ := strings.Cut(rest, " ")
	word = strings.Trim(word, `"'`)
	return word, word != ""
}

// dockerCommand returns the command line of a RUN, CMD or ENTRYPOINT: its shell form as
// written, or its exec form (a JSON array) as the words quoted.
func dockerCommand(args string) string {
	if !strings.HasPrefix(args, "[") {
		return args
	}
	var words []string
	if json.Unmarshal([]byte(args), &words) != nil {
		return args // not JSON: Docker runs it as a shell command line
	}
	return quoteWords(words)
}

// dockerAssignments reads ENV and ARG: KEY=VALUE pairs, quoted as in the shell, are the
// export of them as written; ENV's older KEY VALUE is one pair; an ARG without a value
// is set at build time (--build-arg), unknown here, and sets nothing.
func dockerAssignments(args string) []string {
	k, v, ok := strings.Cut(args, " ")
	switch {
	case !strings.Contains(args, "="):
		if ok && strings.TrimSpace(v) != "" {
			return []string{k + "=" + shellQuote(strings.TrimSpace(v))}
		}
		return nil
	case ok && !strings.Contains(k, "="):
		return []string{k + "=" + shellQuote(strings.TrimSpace(v))}
	}
	return []string{args}
}

// baseName is the last path segment of a URL, without its query.
func baseName(u string) string {
	u, _, _ = strings.Cut(u, "?")
	return u[strings.LastIndexByte(u, '/')+1:]
}
