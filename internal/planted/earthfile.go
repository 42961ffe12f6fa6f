package planted

import (
	"fmt"
	"strings"
)

// An Earthfile is a Dockerfile in targets: each target (a line NAME: and the commands
// indented below it) builds in a container of its own, from its FROM or the base recipe
// (the commands before the first target), and its RUN commands run there, discarded
// afterwards. A target whose commands include LOCALLY runs the RUN commands after it on
// this machine, in the Earthfile's directory; so do the functions (FUNCTION, or the older
// COMMAND) such a target calls with DO, whose commands run where their caller's do. A
// function of another repository called from such a target runs code moat has not read
// here.

// earthfileCode finds the commands of an Earthfile.
func earthfileCode(text string, x *extraction) {
	type block struct {
		name      string
		function  bool
		local     bool // LOCALLY was met
		calls     bool // DO is met after LOCALLY
		scripts   []earthScript
		remoteDos []string
	}
	var blocks []*block
	lines := strings.Split(text, "\n")
	imports := map[string]string{} // IMPORT's aliases, and what each names
	cur := &block{name: "base recipe"}
	blocks = append(blocks, cur)
	var script strings.Builder
	first := 0
	flush := func() {
		if script.Len() > 0 {
			cur.scripts = append(cur.scripts, earthScript{text: script.String(), line: first, local: cur.local})
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
		if strings.HasSuffix(ins.name, ":") && ins.args == "" {
			flush()
			cur = &block{name: strings.TrimSuffix(strings.TrimSpace(lines[ins.line-1]), ":")}
			blocks = append(blocks, cur)
			continue
		}
		switch ins.name {
		case "FUNCTION", "COMMAND":
			cur.function = true
		case "FROM":
			flush()
		case "LOCALLY":
			flush()
			cur.local = true
		case "RUN":
			if ins.heredoc != "" {
				add(ins.heredoc)
			} else {
				add(dockerCommand(earthlyFlags(ins.flagged)))
			}
		case "IF", "ELSE":
			// IF CONDITION and ELSE IF CONDITION run the condition as a command.
			cond := earthlyFlags(strings.TrimPrefix(ins.args, "IF "))
			if ins.name == "IF" || strings.HasPrefix(ins.args, "IF ") {
				add(dockerCommand(cond))
			}
		case "ENV", "ARG":
			for _, kv := range dockerAssignments(earthlyFlags(ins.args)) {
				add("export " + kv)
			}
		case "IMPORT":
			// IMPORT [--allow-privileged] REF [AS ALIAS]: ALIAS defaults to REF's last element.
			f := strings.Fields(earthlyFlags(ins.args))
			if len(f) > 0 {
				alias := f[0][strings.LastIndexByte(f[0], '/')+1:]
				if len(f) >= 3 && f[1] == "AS" {
					alias = f[2]
				}
				imports[alias] = f[0]
			}
		case "DO":
			ref, _, _ := strings.Cut(earthlyFlags(ins.args), " ")
			if cur.local {
				cur.calls = true
				if earthlyRemote(ref, imports) {
					cur.remoteDos = append(cur.remoteDos, ref)
				}
			}
		}
	}
	flush()
	// A function's commands run here when a target that runs here calls one.
	localCalls := false
	for _, b := range blocks {
		localCalls = localCalls || b.calls
	}
	for _, b := range blocks {
		for _, s := range b.scripts {
			x.host = Discarded
			where := fmt.Sprintf("%s: RUN from line %d (earthly runs it in a build container)", b.name, s.line)
			if s.local || b.function && localCalls {
				x.host = Here
				where = fmt.Sprintf("%s: RUN from line %d (earthly runs it on this machine)", b.name, s.line)
			}
			x.shell(where, s.text)
		}
		for _, ref := range b.remoteDos {
			x.opaque(b.name+": DO "+ref, "runs on this machine the commands of a function from another repository, which moat has not read")
		}
	}
	x.host = Here
}

// earthScript is the RUN commands of a target between two of its FROM or LOCALLY
// commands, and where they run.
type earthScript struct {
	text  string
	line  int
	local bool
}

// earthlyValueFlags are the flags of Earthly's commands that take the next word as their
// value when it is not joined by =.
var earthlyValueFlags = map[string]bool{"--secret": true, "--mount": true, "--network": true, "--oidc": true, "--platform": true, "--sep": true}

// earthlyFlags drops a command's own flags (--push, --no-cache, --privileged, --secret
// NAME, --mount=…) from its arguments.
func earthlyFlags(args string) string {
	for strings.HasPrefix(args, "--") {
		flag, rest, _ := strings.Cut(args, " ")
		args = strings.TrimSpace(rest)
		if earthlyValueFlags[flag] {
			_, rest, _ = strings.Cut(args, " ")
			args = strings.TrimSpace(rest)
		}
	}
	return args
}

// earthlyRemote reports whether a reference to a target or function (+build,
// ./lib+fn, github.com/org/repo+fn, ALIAS+fn of an IMPORT) names another repository:
// one whose path before + is neither the file's own nor a directory on this machine.
func earthlyRemote(ref string, imports map[string]string) bool {
	at, _, found := strings.Cut(ref, "+")
	if !found || at == "" {
		return false
	}
	if imported, ok := imports[at]; ok && imported != at {
		return earthlyRemote(imported+"+", nil)
	}
	return !strings.HasPrefix(at, "./") && !strings.HasPrefix(at, "../") && !strings.HasPrefix(at, "/") && at != "." && at != ".."
}
