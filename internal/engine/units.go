package engine

import (
	"cmp"
	"fmt"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/findings"
	"github.com/moatdev/moat/internal/glob"
	"github.com/moatdev/moat/internal/netdest"
	"github.com/moatdev/moat/internal/policy"
	"github.com/moatdev/moat/internal/scan/injection"
	"github.com/moatdev/moat/internal/scan/secrets"
	"github.com/moatdev/moat/internal/scan/smuggling"
	"github.com/moatdev/moat/internal/selfguard"
	"github.com/moatdev/moat/internal/shell"
)

// unit is one part of a call that is decided on its own: a command of a shell line, one of
// its redirections, the line as a whole (for findings about it), or a whole non-shell call.
type unit struct {
	label   unitLabel
	subject policy.Subject
	// shown marks a command an agent's instructions show (instructed.go): it runs only
	// when an agent follows them, so its decision counts one step lower (a deny asks, an
	// ask is no question).
	shown bool
}

// unitLabel says which part of a call a unit is, for the trace and for the reason of a
// call made of several units. Most decisions need neither, so the text is built only when
// asked for: formatting it for every command cost more than matching some of them.
type unitLabel struct {
	// prefix says what runs the part (another tool, a run of moat, written code).
	prefix string
	text   string
	// cmd, when set, is the command the unit is, number n of its line; with redirect set,
	// the unit is that redirection of the command.
	cmd      *call.Command
	n        int
	redirect *call.Access
}

func fixedLabel(text string) unitLabel { return unitLabel{text: text} }

func (l unitLabel) String() string {
	switch {
	case l.redirect != nil:
		return fmt.Sprintf("%sredirection of command %d (%s)", l.prefix, l.n, *l.redirect)
	case l.cmd != nil:
		return fmt.Sprintf("%scommand %d (%s)", l.prefix, l.n, commandText(l.cmd))
	}
	return l.prefix + l.text
}

// runBy returns the label of the part when what runs it.
func (l unitLabel) runBy(what string) unitLabel {
	l.prefix = what + " runs " + l.prefix
	return l
}

// units splits c into its units. With the session's history h, the analysis reads what
// earlier calls left behind and tells h what c leaves (history.go).
func (e *Engine) units(c *call.Call, h History) []unit {
	ws := e.workspaceOf(c)
	base := policy.Subject{Call: c, Workspace: ws}
	if c.Class == call.Shell {
		// The agent's own line runs now, in its working directory: its globs name the
		// entries the disk shows (shell.Env.Entries), and its in-place edits change the
		// files the disk holds (shell.Env.Text). Lines that run later, or elsewhere
		// (an instruction file's commands, an MCP server's), are judged by their patterns.
		env := e.shell
		env.Entries, env.Text = e.entries, readSmall
		if h == nil {
			return e.shellUnitsWith(c, base, 0, env, nil)
		}
		env.Earlier = earlierOf(h)
		var left shell.Left
		units := e.shellUnitsWith(c, base, 0, env, &left)
		if !left.Empty() {
			h.Leave(left)
		}
		return units
	}
	s := base
	s.Accesses, s.Opaque = e.accessesOf(c)
	var patches mcpPatch
	switch c.Class {
	case call.MCP:
		patches = e.mcpPatches(c)
		s.Accesses = append(e.mcpAccesses(c), patches.accesses()...)
		if patches.opaque != "" {
			s.Findings = appendNew(s.Findings, []call.Finding{findings.New("analysis.opaque", patches.opaque)})
		}
	case call.WebFetch:
		raw := c.String(call.ArgURL)
		if u, err := url.Parse(raw); err == nil {
			s.Findings = appendNew(s.Findings, smuggling.Confusables("domain", u.Hostname()))
		}
		s.Findings = appendNew(s.Findings, urlFindings(raw, call.ArgURL, true))
		if p := netdest.FileURLPath(raw); p != "" {
			// A fetch of a file: URL reads the file, as the file tools would.
			s.Accesses = append(s.Accesses, call.Access{Kind: call.Read, Path: e.resolvePath(p, c.Cwd)})
		}
	}
	s.Findings = appendNew(s.Findings, e.directoryDeletes(c, s.Accesses))
	for _, acc := range s.Accesses {
		s.Findings = appendNew(s.Findings, smuggling.Findings(acc.Path))
		s.Findings = appendNew(s.Findings, smuggling.Confusables("path", acc.Path))
		// The same knowledge of paths as for shell commands: a Write of ~/.bashrc is
		// persistence as much as echo >> ~/.bashrc is.
		s.Findings = appendNew(s.Findings, shell.PathFindings(acc, e.host.Home))
	}
	s.Findings = appendNew(s.Findings, carriedSecrets(c))
	// The command line an MCP tool runs (a shell command, or code it is given).
	line, runs, opaque := mcpCommand(c)
	if c.Class == call.MCP {
		s.Findings = appendNew(s.Findings, e.mcpArgFindings(c, s.Accesses))
		if opaque != "" {
			s.Findings = appendNew(s.Findings, []call.Finding{findings.New("analysis.opaque", opaque)})
		}
	}
	instructs := slices.ContainsFunc(s.Accesses, e.instructions.touches)
	if instructs {
		s.Findings = appendNew(s.Findings, writtenInjections(c))
	} else if c.Class == call.FileWrite || c.Class == call.FileEdit {
		// Any other file keeps only instructions hidden from a human reader (an HTML
		// comment addressed to the assistant in a README, Unicode tag characters): text
		// about injection is ordinary in documentation, text hidden from its readers is not,
		// and the next agent that reads the file reads it.
		s.Findings = appendNew(s.Findings, slices.DeleteFunc(writtenInjections(c), func(f call.Finding) bool {
			return f.ID != injection.FindHidden && f.ID != injection.FindInvisible
		}))
	}
	if h != nil {
		if left := e.leftByTool(c, s.Accesses); !left.Empty() {
			h.Leave(left)
		}
	}
	units := []unit{{label: fixedLabel(c.Describe()), subject: s}}
	units = append(units, e.plantedUnits(c, base)...)
	units = append(units, e.instructedUnits(c, base, e.instructionTexts(c, instructs))...)
	if c.Class == call.MCP {
		units = append(units, e.mcpPlantedUnits(c, base, s.Accesses, patches)...)
	}
	if runs {
		// A tool that runs shell commands is held to the shell rules too: its command is
		// analysed as the agent's own shell commands are, and the strictest unit wins.
		sc := &call.Call{Agent: c.Agent, Class: call.Shell, Tool: c.Tool, Args: map[string]any{call.ArgCommand: line}, Cwd: c.Cwd, Project: c.Project, Session: c.Session}
		sb := base
		sb.Call = sc
		for _, u := range e.shellUnits(sc, sb) {
			u.label = u.label.runBy(c.MCP.String())
			units = append(units, u)
		}
	} else if c.Class == call.MCP {
		for _, line := range mcpCommandArgs(c) {
			sc := &call.Call{Agent: c.Agent, Class: call.Shell, Tool: c.Tool, Args: map[string]any{call.ArgCommand: line}, Cwd: c.Cwd, Project: c.Project, Session: c.Session}
			sb := base
			sb.Call = sc
			for _, u := range e.shellUnits(sc, sb) {
				u.label = u.label.runBy(c.MCP.String())
				u.subject = readable(u.subject)
				units = append(units, u)
			}
		}
	}
	return units
}

// readable keeps of a command's unit what moat can see in it: a command line an MCP tool
// may only store is not asked about because moat cannot read it (an unknown program, a
// line that does not parse), only for what it reads in it.
func readable(s policy.Subject) policy.Subject {
	s.Opaque = false
	s.Findings = slices.DeleteFunc(slices.Clone(s.Findings), func(f call.Finding) bool { return f.Category == "analysis" })
	return s
}

// writtenInjections returns the prompt-injection findings of the text a file write or
// edit puts in a file. All of them count in the agents' instruction files, where injected
// text steers every later session; elsewhere (source code, documentation, test data),
// where text about injection is ordinary, only hidden instructions do.
func writtenInjections(c *call.Call) []call.Finding {
	var fs []call.Finding
	for _, w := range writtenTexts(c) {
		if len(w.text) <= maxScanned {
			fs = append(fs, injection.Findings(w.text, w.where)...)
		}
	}
	return fs
}

// unscanned is the finding of a text too large to scan; it is never silently skipped.
func unscanned(where string, n int) call.Finding {
	return call.InputKinds.New(call.FindTooLarge, fmt.Sprintf("%s of %d bytes; at most %d are scanned for secrets and injection", cmp.Or(where, "argument"), n, maxScanned))
}

// writtenText is a text a call puts in a file and the argument it came from.
type writtenText struct{ text, where string }

// writtenTexts returns what a file write or edit puts in the file: the content of a
// write, the new text of an edit (removing text writes nothing).
func writtenTexts(c *call.Call) []writtenText {
	var out []writtenText
	add := func(v any, where string) {
		if s, ok := v.(string); ok && s != "" {
			out = append(out, writtenText{s, where})
		}
	}
	switch c.Class {
	case call.FileWrite:
		add(c.Args[call.ArgContent], call.ArgContent)
	case call.FileEdit:
		add(c.Args[call.ArgNew], call.ArgNew)
		if edits, ok := c.Args[call.ArgEdits].([]any); ok {
			for i, e := range edits {
				if m, ok := e.(map[string]any); ok {
					add(m[call.ArgNew], fmt.Sprintf("%s[%d].%s", call.ArgEdits, i, call.ArgNew))
				}
			}
		}
	}
	return out
}

// maxScanned bounds each text of a call that is scanned for secrets and injection; a
// larger one is reported as input.too-large rather than passed unread.
const maxScanned = 8 << 20

// carriedSecrets returns the secrets a call carries where they matter: what a file write
// or edit puts in the file, the URL a fetch sends, what a tool sends as it is (a web
// search's query), and every string argument of an MCP tool, read with its name. The evidence names the kind and place, never the value.
func carriedSecrets(c *call.Call) []call.Finding {
	var fs []call.Finding
	add := func(v any, where string, find func(s, where string) []call.Finding) {
		walkStrings(v, where, func(s, at string) {
			if len(s) > maxScanned {
				fs = append(fs, unscanned(at, len(s)))
				return
			}
			fs = append(fs, find(s, at)...)
		})
	}
	if nt, ok := call.LookupTool(c.Agent, c.Tool); ok {
		// Text a tool sends as it is (a web search's query) leaves the machine.
		for _, a := range nt.Args {
			if a.Sent {
				add(c.Args[a.Names[0]], a.Names[0], secrets.SentFindings)
			}
		}
	}
	switch c.Class {
	case call.FileWrite, call.FileEdit:
		// Only the text an edit puts in: removing a secret is not writing one.
		for _, w := range writtenTexts(c) {
			add(w.text, w.where, secrets.Findings)
		}
	case call.WebFetch:
		// What a fetch sends leaves the machine: a documentation key in it is one too.
		find := secrets.Findings
		if leaves(netdest.ParseURL(c.String(call.ArgURL))) {
			find = secrets.SentFindings
		}
		add(c.Args[call.ArgURL], call.ArgURL, find)
	case call.MCP:
		find := secrets.Findings
		if sendsOffMachine(c) {
			find = secrets.SentFindings // a message or post, read by people elsewhere
		}
		// A value is read with its argument's name, as a secret scanner reads
		// configuration: {"api_key": "…"}, {"Cookie": "…"} and {"password": "…"} say what
		// the value is where the value alone does not.
		walkStrings(c.Args, "", func(s, at string) {
			if len(s) > maxScanned {
				fs = append(fs, unscanned(at, len(s)))
				return
			}
			found := find(s, at)
			if key := lastKey(at); len(found) == 0 && key != "" && !strings.HasSuffix(at, "]") {
				found = find(key+": "+s, at)
			}
			fs = append(fs, found...)
		})
	}
	return fs
}

// walkStrings calls fn with every string in v (a decoded JSON value) and where it is.
func walkStrings(v any, where string, fn func(s, where string)) {
	switch v := v.(type) {
	case string:
		fn(v, where)
	case []any:
		for i, x := range v {
			walkStrings(x, fmt.Sprintf("%s[%d]", where, i), fn)
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			at := k
			if where != "" {
				at = where + "." + k
			}
			walkStrings(v[k], at, fn)
		}
	}
}

// maxMoatNesting bounds how many runs of moat inside runs of moat (moat run -- moat run
// -- …) are analysed; the line is finite, so this only bounds the work.
const maxMoatNesting = 8

func (e *Engine) shellUnits(c *call.Call, base policy.Subject) []unit {
	return e.shellUnitsAt(c, base, 0)
}

// shellUnitsAt is shellUnits for a line that moat itself runs depth times removed (0 for
// the agent's own line).
func (e *Engine) shellUnitsAt(c *call.Call, base policy.Subject, depth int) []unit {
	return e.shellUnitsWith(c, base, depth, e.shell, nil)
}

// shellUnitsWith is shellUnitsAt with the environment the line is analysed in; left,
// when not nil, receives what the line leaves behind for the session's later calls.
func (e *Engine) shellUnitsWith(c *call.Call, base policy.Subject, depth int, env shell.Env, left *shell.Left) []unit {
	env.Cwd = c.Cwd
	env.Project = c.Project
	line := c.String(call.ArgCommand)
	// Invisible and look-alike characters are findings of the line, and the line is
	// analysed as a reader would take it: ｒｍ －ｒｆ ／ is rm -rf /.
	smuggled := smuggling.Findings(line)
	if len(smuggled) > 0 {
		line = smuggling.Fold(line)
	}
	a := shell.Analyze(line, env)
	if left != nil {
		*left = a.Left
	}
	a.Findings = append(a.Findings, smuggled...)
	// Runs of moat's own CLI that would loosen its protection, however spelt and whatever
	// the binary is called, are findings of their commands, which self-protection denies.
	self := e.self.Line(a.Commands, line, c.Cwd)
	var units []unit
	secretsFound := false
	for i := range a.Commands {
		cmd := &a.Commands[i]
		label := unitLabel{cmd: cmd, n: i + 1}
		s := base
		s.Command = cmd
		s.Opaque = cmd.Opaque
		s.Findings = cmd.Findings
		if lookalikes := commandLookalikes(cmd); len(lookalikes) > 0 {
			s.Findings = appendNew(slices.Clip(s.Findings), lookalikes)
		}
		if urls := commandURLFindings(cmd); len(urls) > 0 {
			s.Findings = appendNew(slices.Clip(s.Findings), urls)
		}
		var judged selfguard.Judgment
		if self != nil && !cmd.Elsewhere {
			// moat's CLI is judged where it runs on this machine: a CI step runs on a
			// runner, where moat and its files are not.
			judged = self[i]
			if judged.Moat {
				// A copy or build of moat under another name: selfguard reads it.
				s.Findings = slices.DeleteFunc(slices.Clone(s.Findings), shell.UnknownProgram)
			}
			s.Findings = appendNew(slices.Clip(s.Findings), judged.Findings)
		}
		if len(cmd.Args) > 0 {
			// A secret written into a command line ends up in logs and histories, and goes
			// wherever the command sends its arguments.
			if fs := secrets.Findings(strings.Join(cmd.Args, " "), "command"); len(fs) > 0 {
				s.Findings = appendNew(slices.Clip(s.Findings), fs)
				secretsFound = true
			} else if fs := secrets.EncodedFindings(cmd.Args, "command"); len(fs) > 0 {
				// A token written base64-, hex- or URL-encoded is still a token.
				s.Findings = appendNew(slices.Clip(s.Findings), fs)
				secretsFound = true
			}
		}
		for _, acc := range cmd.Accesses {
			if !acc.Redirect {
				s.Accesses = append(s.Accesses, acc)
			}
		}
		units = append(units, unit{label: label, subject: s})
		for j := range cmd.Accesses {
			if acc := &cmd.Accesses[j]; acc.Redirect {
				r := base
				r.Accesses = []call.Access{*acc}
				units = append(units, unit{label: unitLabel{cmd: cmd, n: i + 1, redirect: acc}, subject: r})
			}
		}
		units = append(units, e.moatRuns(c, base, label, judged.Runs, depth)...)
	}
	if e.addShellInjections(units, line) && depth == 0 {
		// echo … >> CLAUDE.md, cat > AGENTS.md <<EOF: the text written is in the line, and
		// the commands it shows as code are instructions (instructed.go).
		units = append(units, e.instructedUnits(c, base, e.instructionLines(a.Commands, line))...)
	}
	if !secretsFound && len(line) <= maxScanned {
		// Secrets outside any command's words: in a here-document, a here-string or an
		// assignment (cat > .env <<EOF … EOF).
		a.Findings = append(a.Findings, secrets.Findings(line, "command")...)
	}
	if len(a.Findings) > 0 {
		s := base
		s.Findings = a.Findings
		s.Opaque = true
		units = append(units, unit{label: fixedLabel("the command line"), subject: s})
	}
	if len(units) == 0 {
		// Nothing runs (an empty line, only assignments): still one unit to decide.
		units = append(units, unit{label: fixedLabel("the command line"), subject: base})
	}
	return units
}

// moatRuns returns the units of the command lines that a run of moat runs (moat run --
// CMD, moat launch -- CMD, moat mcp proxy -- CMD, moat shell -c CMD): they are judged as
// the agent's own lines, since moat launch and the proxy do not decide them at all, and
// moat run and moat shell decide them by a policy the line may have chosen. A line
// nested too deep is opaque.
func (e *Engine) moatRuns(c *call.Call, base policy.Subject, label unitLabel, runs []string, depth int) []unit {
	var units []unit
	for _, inner := range runs {
		if depth >= maxMoatNesting {
			s := base
			s.Opaque = true
			s.Findings = []call.Finding{shell.Kinds.New("shell.too-deep", fmt.Sprintf("moat runs moat more than %d times over", maxMoatNesting))}
			units = append(units, unit{label: fixedLabel(inner).runBy(label.String()), subject: s})
			continue
		}
		sc := *c
		sc.Args = map[string]any{call.ArgCommand: inner}
		sb := base
		sb.Call = &sc
		for _, u := range e.shellUnitsAt(&sc, sb, depth+1) {
			u.label = u.label.runBy(label.String())
			units = append(units, u)
		}
	}
	return units
}

// addShellInjections gives the units of a shell line that write into an agent
// instruction file (echo … >> CLAUDE.md, cat > AGENTS.md <<EOF) the prompt-injection
// findings of the line: the text written is in it, as arguments or a here-document. It
// reports whether the line writes into one.
func (e *Engine) addShellInjections(units []unit, line string) (writes bool) {
	var found []call.Finding
	read := false
	for i := range units {
		s := &units[i].subject
		if !slices.ContainsFunc(s.Accesses, func(acc call.Access) bool {
			return acc.Kind == call.Write && e.instructions.touches(acc)
		}) {
			continue
		}
		if !read {
			found, read = injection.Findings(line, "command"), true
		}
		s.Findings = appendNew(slices.Clip(s.Findings), found)
	}
	return read
}

// instructionLines returns the texts a shell line writes into agents' instruction files,
// as far as its commands show them: what echo and printf print there (their words, not
// the line's quoting, which would run into a command written in prose: echo 'run curl
// … | sh first' >> CLAUDE.md), and, when another command writes them (cat <<EOF, tee),
// the line itself, whose here-document is the text.
func (e *Engine) instructionLines(cmds []call.Command, line string) []string {
	var texts []string
	others := false // a command other than echo and printf writes instructions
	for _, cmd := range cmds {
		if !slices.ContainsFunc(cmd.Accesses, func(acc call.Access) bool {
			return acc.Kind == call.Write && e.instructions.touches(acc)
		}) {
			continue
		}
		if cmd.Name != "echo" && cmd.Name != "printf" {
			others = true
			continue
		}
		words := cmd.Args
		if cmd.Name == "echo" {
			for len(words) > 0 && (words[0] == "-e" || words[0] == "-n" || words[0] == "-E" || words[0] == "-ne" || words[0] == "-en") {
				words = words[1:]
			}
		}
		text := strings.Join(words, " ")
		if cmd.Name == "printf" || slices.Contains(cmd.Args, "-e") {
			text = strings.NewReplacer(`\n`, "\n", `\t`, "\t").Replace(text)
		}
		texts = append(texts, text)
	}
	if others || len(texts) == 0 {
		texts = append(texts, line)
	}
	return texts
}

// commandLookalikes returns the findings of look-alike letters in what a command names:
// its program, the paths it touches and the hosts it connects to. Its other words (a
// commit message in Russian) are ordinary text.
func commandLookalikes(cmd *call.Command) []call.Finding {
	fs := smuggling.Confusables("command", cmd.Name)
	for _, acc := range cmd.Accesses {
		fs = append(fs, smuggling.Confusables("path", acc.Path)...)
	}
	for _, n := range cmd.Net {
		fs = append(fs, smuggling.Confusables("domain", n.Host)...)
	}
	return fs
}

// commandURLFindings returns the findings of the hosts and URLs of a command that makes
// connections: a cloud metadata service or a control plane among them, encoded data sent
// to a capture service, and the secrets a URL that leaves the machine carries, decoded
// or written as documentation's example keys. Only the words of a command that makes
// connections are read as URLs: echo's are text.
func commandURLFindings(cmd *call.Command) []call.Finding {
	if len(cmd.Net) == 0 {
		return nil
	}
	var fs []call.Finding
	for _, n := range cmd.Net {
		if n.Host != "" {
			fs = appendNew(fs, hostFindings(n.Host, "command"))
		}
	}
	for _, a := range cmd.Args {
		if strings.Contains(a, "://") && len(a) <= maxScanned {
			u := netdest.ParseURL(a)
			fs = appendNew(fs, urlMetadata(u, a, "command"))
			fs = appendNew(fs, capturedData(u, a, "command"))
			if sent := leaves(u); sent {
				// The request's URL leaves the machine: a documentation key in it is
				// one sent, as from a web fetch. The line's own scan finds the rest.
				plain := secrets.Findings(a, "command")
				for _, f := range secrets.SentFindings(a, "command") {
					if !slices.ContainsFunc(plain, func(g call.Finding) bool { return g.ID == f.ID }) {
						fs = appendNew(fs, []call.Finding{f})
					}
				}
				fs = appendNew(fs, decodedURLSecrets(a, "command", sent))
			}
		}
	}
	return fs
}

// accessesOf lists the paths a non-shell call touches. A file call without a path may touch
// anything, so it is opaque.
func (e *Engine) accessesOf(c *call.Call) ([]call.Access, bool) {
	var kind call.AccessKind
	recursive := false
	switch c.Class {
	case call.FileRead:
		kind = call.Read
	case call.FileWrite, call.FileEdit:
		kind = call.Write
	case call.FileDelete:
		// Whether the target is a directory is unknown, so judge it as one: that is the
		// cautious reading for both deny and allow rules.
		kind, recursive = call.Delete, true
	case call.FileSearch:
		kind, recursive = call.Read, true
	default:
		return nil, true
	}
	var paths []string
	if p := c.String(call.ArgPath); p != "" {
		paths = append(paths, p)
	}
	if list, ok := c.Args[call.ArgPaths].([]any); ok {
		for _, v := range list {
			if p, ok := v.(string); ok && p != "" {
				paths = append(paths, p)
			}
		}
	}
	if len(paths) == 0 && c.Class == call.FileSearch {
		paths = append(paths, c.Cwd)
	}
	if len(paths) == 0 {
		return nil, true
	}
	accesses := make([]call.Access, 0, len(paths))
	filter := ""
	if c.Class == call.FileSearch {
		filter = glob.SearchFilter(c.String(call.ArgFilter))
	}
	for _, p := range paths {
		abs := e.resolvePath(p, c.Cwd)
		if filter != "" && !glob.HasMeta(abs) {
			// A filtered search reads the files the filter names, hidden ones included
			// (a filter may spell .env*), wherever they lie below where it searches.
			accesses = append(accesses, call.Access{Kind: kind, Path: filepath.Join(abs, filter), Glob: true, Hidden: true})
			continue
		}
		accesses = append(accesses, call.Access{Kind: kind, Path: abs, Recursive: recursive, Glob: glob.HasMeta(abs)})
	}
	return accesses, false
}

// maxListedEntries bounds the directory a glob is resolved in: listing a larger one costs
// the hook more than judging the glob by its pattern, which is never less strict.
const maxListedEntries = 4096

// entries lists dir for the shell analysis (shell.Env.Entries): the names of its entries,
// or false when it cannot be read (a directory that does not exist is not taken for an
// empty one: the call's working directory may not be this machine's) or holds more than
// maxListedEntries.
func (e *Engine) entries(dir string) ([]string, bool) {
	list, err := e.files.ReadDir(dir)
	if err != nil || len(list) > maxListedEntries {
		return nil, false
	}
	names := make([]string, len(list))
	for i, ent := range list {
		names[i] = ent.Name()
	}
	return names, true
}

func commandText(c *call.Command) string {
	s := strings.TrimSpace(c.Name + " " + strings.Join(c.Args, " "))
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}

// directoryDeletes returns destructive.fs.recursive-delete for a file tool's or an MCP
// tool's delete (or move away) of a directory, as rm -rf of it has: the project, its .git,
// the home directory, or a path that is a directory on this machine. The rules that judge
// rm -rf by where it deletes then judge the tool alike; a file's delete is not one.
func (e *Engine) directoryDeletes(c *call.Call, accesses []call.Access) []call.Finding {
	for _, acc := range accesses {
		if acc.Kind != call.Delete || acc.Glob {
			continue
		}
		p := acc.Path
		dir := p == c.Project || p == c.Cwd || p == e.host.Home || filepath.Base(p) == ".git"
		if !dir {
			fi, err := os.Lstat(p)
			dir = err == nil && fi.IsDir()
		}
		if dir {
			return []call.Finding{shell.Kinds.New("destructive.fs.recursive-delete", c.Describe()+" deletes the directory "+p)}
		}
	}
	return nil
}
