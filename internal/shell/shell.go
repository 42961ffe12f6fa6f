// Package shell analyses a shell command line into the commands it would run and what each does.
package shell

import (
	"fmt"
	"strings"
	"sync"

	"github.com/moatdev/moat/internal/call"
	"mvdan.cc/sh/v3/syntax"
)

// MaxInput is the largest line Analyze parses, in bytes. A larger line is reported, not
// parsed: a hook must answer quickly, and no agent writes a megabyte of shell.
const MaxInput = 1 << 20

// maxNesting bounds how deeply brackets may nest in a line that is parsed. The parser's time
// grows faster than the input with nesting (10,000 nested `$(` take about 30 ms), while
// commands that people and agents write nest a few levels. A line nested this deep with a
// command at every level is still within maxAnalysedCommands.
const maxNesting = maxAnalysedCommands - 1

// Finding ids this package reports.
const (
	findParseError      = "shell.parse-error"
	findTooDeep         = "shell.too-deep"
	findTooComplex      = "shell.too-complex"
	findTooLarge        = "input.too-large"
	findOpaque          = "analysis.opaque"
	findNulByte         = "evasion.nul-byte"
	findDynamicCommand  = "evasion.dynamic-command"
	findComputedCode    = "evasion.computed-code"
	findObfuscatedExec  = "evasion.obfuscated-exec"
	findEncodedCommand  = "evasion.encoded-command"
	findLogTamper       = "evasion.log-tamper"
	findRecursiveDelete = "destructive.fs.recursive-delete"
	findDiskWipe        = "destructive.disk.wipe"
	findForkBomb        = "destructive.fork-bomb"
	findForcePush       = "destructive.git.force-push"
	findResetHard       = "destructive.git.reset-hard"
	findGitClean        = "destructive.git.clean"
	findGitDiscard      = "destructive.git.discard"
	findStashDrop       = "destructive.git.stash-drop"
	findBranchDelete    = "destructive.git.branch-delete"
	findHistoryRewrite  = "destructive.git.history-rewrite"
	findDBDrop          = "destructive.db.drop"
	findDBUnbounded     = "destructive.db.unbounded-write"
	findInfraDelete     = "destructive.infra.delete"
	findPayment         = "destructive.payment"
	findHTTPDelete      = "destructive.http.delete"
	findCredentialsRead = "credentials.read"
	findEnvDump         = "credentials.env-dump"
	findSecretEnv       = "credentials.secret-env"
	findExfiltration    = "exfiltration.network"
	findDNSExfil        = "exfiltration.dns"
	findPipeToShell     = "rce.pipe-to-shell"
	findDownloadExec    = "rce.download-exec"
	findReverseShell    = "rce.reverse-shell"
	findRemoteExec      = "remote.exec"
	findSudo            = "privilege.sudo"
	findSetuid          = "privilege.setuid"
	findContainerEscape = "privilege.container-escape"
	findNamespace       = "privilege.namespace"
	findAccount         = "privilege.account"
	findWorldWritable   = "permissions.world-writable"
	findCron            = "persistence.cron"
	findShellRC         = "persistence.shell-rc"
	findService         = "persistence.service"
	findSSHKeys         = "persistence.ssh-keys"
	findToolConfig      = "persistence.tool-config"
	findGitHooks        = "persistence.git-hooks"
	findRedisConfig     = "persistence.redis-config"
	findRegistry        = "supply-chain.registry-change"
	findDirectURL       = "supply-chain.direct-url"
	findLookalike       = "supply-chain.lookalike-name"
	findNetScan         = "network.scan"
	findRawSocket       = "network.raw-socket"
	findControlPlane    = "network.control-plane"
)

// findingIDs lists every id the package reports, so that a test keeps them catalogued.
var findingIDs = []string{
	findParseError, findTooDeep, findTooComplex, findTooLarge, findOpaque, findNulByte, findDynamicCommand, findComputedCode, findObfuscatedExec,
	findEncodedCommand, findLogTamper, findRecursiveDelete, findDiskWipe, findForkBomb, findForcePush,
	findResetHard, findGitClean, findGitDiscard, findStashDrop, findBranchDelete, findHistoryRewrite,
	findDBDrop, findDBUnbounded, findInfraDelete, findHTTPDelete, findCredentialsRead, findEnvDump,
	findSecretEnv, findExfiltration, findDNSExfil, findPipeToShell, findDownloadExec, findReverseShell,
	findRemoteExec, findSudo, findSetuid, findContainerEscape, findContainerHost, findContainerAPI, findNamespace, findAccount,
	findWorldWritable, findCron, findShellRC, findService, findSSHKeys, findToolConfig, findGitHooks, findRedisConfig,
	findRegistry, findDirectURL, findLookalike, findNetScan, findRawSocket, findExhaustion, findPasswordArg, findRecon,
	findSecurityOff, findShutdown, findKillAll, findSecretShown, findEnvLoad, findStoreFill, findUpload, findCloudMetadata,
}

// Env is where a line runs.
type Env struct {
	Cwd  string // absolute working directory
	Home string // absolute home directory
	// Project is the absolute root of the project the agent works in (Cwd or above it);
	// empty means Cwd. Code under it is the project's, which the agent can read anyway.
	Project string
	// Temp are the temporary directories ($temp): files there are a line's scratch, not
	// the user's (trees.go).
	Temp []string
	// Vars are environment variables whose value is known before the line runs, such as
	// TMPDIR. Any other variable is unknown, except IFS, which bash always resets.
	Vars map[string]string
	// Sensitive reports whether an access touches a file that holds credentials. Dataflow
	// uses it to tell secret data from other data; nil means no file is sensitive.
	Sensitive func(call.Access) bool
	// SecretsWithin names a file below the directory dir that holds credentials as the
	// disk shows it now (a project's .env), or "" when it finds none. Dataflow asks it only
	// for a tree whose files leave for the network (trees.go): whether a tree holds such a
	// file is known only by looking. nil means nothing is looked at.
	SecretsWithin func(dir string) string
	// Protected reports whether an access reaches a file self-protection guards (moat's
	// files, the agents' hook settings): a program whose file effects moat does not model
	// is opaque when it is given one. nil means none is.
	Protected func(call.Access) bool
	// Wrappers are programs the policy declares as running the program named in their
	// arguments, besides the built-in ones (sudo, env, nice…).
	Wrappers map[string]Wrapper
	// Text returns the text of the file p as the disk shows it now, and false when it
	// cannot be read or is too large. With it, an in-place edit (sed -i) of a file that
	// tools run later, by the agent's own line, is judged by the file it leaves
	// (planted.go); nil means files are not read, and an edit is judged by the text it
	// inserts.
	Text func(p string) (string, bool)
	// Before holds the text that files had before the line, by path, where the caller knows
	// it (an agent's edit of a file on disk): code a file already carried is not planted
	// again by writing it back (internal/planted).
	Before map[string]string
	// Pieces are the files, by path, whose written text is a piece of the file rather than
	// its whole: an agent's edit that could not be applied to the file on disk, judged by
	// its new text alone (planted.File.PieceCode).
	Pieces map[string]bool
	// RealPath returns the path p names on this machine through symbolic links (p's own,
	// or a directory's above it, dangling ones included), and whether that differs from p:
	// a write to a link to ~/.bashrc writes ~/.bashrc. nil means paths are taken as
	// written.
	RealPath func(p string) (string, bool)
	// Entries lists the names in the directory dir as the disk shows them now, or reports
	// false when it cannot be read or holds too many entries to list. With it, the globs
	// of a line that runs now are resolved to the entries they name (globmatch.go); nil
	// means every glob is judged by what its pattern can name, as for code run later.
	Entries func(dir string) ([]string, bool)
	// Earlier is what the earlier calls of the agent's session left behind (earlier.go):
	// with it, a download, a script or a secret read in an earlier call completes a chain
	// in this line as it would earlier in the line, and the analysis says what this line
	// leaves behind (Analysis.Left). nil means no session history.
	Earlier *Earlier
}

// Wrapper says how to find the program a wrapper runs: skip the wrapper's options and the
// values of those that take one, then NAME=value words when Assigns is set, then Operands
// leading operands.
type Wrapper struct {
	ValueShort string   // short options that take a value
	ValueLong  []string // long options that take a value
	Assigns    bool
	Operands   int
}

// maxAnalysedCommands bounds how many commands one line may hold to be analysed, counting
// the commands of the code it hands to other programs (sh -c, docker run … sh -c, $(…)
// followed for dataflow) as it is analysed. A command costs from a few to some tens of
// microseconds (a container's command is analysed again with its mounts), and the hook
// must answer within milliseconds; no agent writes hundreds of commands on one line, and
// a longer line is reported (and asked about), not guessed. The bound keeps the worst
// line of 64 KiB within a small multiple of what parsing it costs.
const maxAnalysedCommands = 256

// maxSeparators bounds the bytes that can start a command (see separators) in a line that
// is parsed at all. It is looser than maxAnalysedCommands: a here-document's lines count
// too (cat > script.sh <<EOF … EOF writes a script, it runs none of it).
const maxSeparators = 4000

// maxAnalysedWords bounds the words of the commands of one line, for the same reason: a
// command line of more than 8,192 words is not one a person or an agent types.
const maxAnalysedWords = 8192

// maxDepth is how many times code inside code is analysed (sh -c "sh -c '…'", eval, an
// interpreter running a shell); deeper code is reported, not analysed.
const maxDepth = 8

// Analysis is what a line would do.
type Analysis struct {
	Commands []call.Command // every command the line would run, in source order
	Findings []call.Finding // findings about the line as a whole (parse error, too large)
	// Left is what the line leaves behind for the later calls of the session; it is
	// followed only when Env.Earlier is set.
	Left Left
}

// Analyze parses line as bash and returns every command it would run, with their flags,
// operands, path accesses and findings. It never fails: a line that cannot be analysed
// yields a finding that says why, and no commands. Paths are resolved against env; a Cwd
// or Home that is not absolute is treated as unknown.
func Analyze(line string, env Env) Analysis {
	sh := &shared{env: env, budget: 4*len(line) + 1<<16, interp: maxInterpreterLine}
	r := analyze(line, absolute(env.Cwd), sh, 0, nil)
	return r.Analysis
}

// shared is what every level of nested analysis of one line shares.
type shared struct {
	env    Env
	budget int // bytes nested code may still parse
	interp int // bytes of interpreter code the line may still inspect (code.go)
	// program is set while a source file the project keeps is read (planted.go): it may
	// be as large as maxProgramCode, and is judged unit by unit (oneliner.Units).
	program bool
	// aliases are the aliases the line defines, by name, with their text; expanding are
	// those whose text is being analysed, which bash does not expand again inside it.
	aliases map[string]string
	// remote counts the levels of code being analysed that run on another machine (ssh
	// HOST CMD): its directories are not this project's.
	remote int
	// commands counts the commands emitted at every level of the line, for
	// maxAnalysedCommands.
	commands int
	// braceFields counts the fields brace expansion produced at every level, for
	// maxLineBraceFields.
	braceFields int
	// functions are the shell functions the line defines: code the analyser reads where
	// it is defined, so that calling one runs no unknown program.
	functions map[string]bool
	expanding []string
	// secretInput, while the code of a credential helper is analysed, says that what its
	// commands read on their standard input is the credentials (flow.go's inOf).
	secretInput bool
	// secretFiles are the files of decrypted secrets a runner hands its command, at
	// every level of the line (sops exec-file's {}: catalog.go).
	secretFiles map[string]bool
	// elsewhere counts the levels of code being analysed that run on a CI runner or a
	// platform's builder (planted.Host.Elsewhere): a file named at run time there is that
	// machine's, and what is written to one is not shown to anyone.
	elsewhere int
	// discarded counts the levels of those that run on a machine discarded after the job
	// (planted.Discarded): what they plant in its files outside the checkout, named by
	// checkout when known, runs in that job alone. The checkout's own files may be
	// pushed back.
	discarded int
	checkout  string
	// projectPrograms are the programs the tool running planted code finds among the
	// project's dependencies (npm scripts' node_modules/.bin): the project's own
	// tooling, as node_modules/.bin/NAME is.
	projectPrograms []string
	// mounts, while the command of a container is analysed, translate its paths into the
	// host's (container.go); nil otherwise.
	mounts mounts
	// heldSecrets remembers Env.SecretsWithin's answers for the line, by directory: a
	// tree sent by several commands, or judged at several sinks, is looked at once.
	heldSecrets map[string]string
	// fetched are the trees the line fetched from the network so far, and worktrees the
	// worktrees of the project's repository it added (fetched.go).
	fetched   []fetchedTree
	worktrees []string
	// copies are the files the line made copies or links of a known program (cp
	// /bin/rm ./x), by absolute path, with the program's name (links.go).
	copies map[string]string
	// containers are the containers the line starts with a name, whose mounts a later
	// docker exec of the same line finds (container.go).
	containers map[string]container
	// writes are the paths each level's commands wrote, for the compose files a later
	// command reads (container.go).
	writes map[*analyzer]*writeIndex
}

// parsers keeps bash parsers between lines: a parser is 2 KiB of buffers that every line,
// and every line nested in one, would otherwise allocate and clear. Parse resets a parser
// before it reads, so one holds nothing of the line it parsed last that a later parse sees.
var parsers = sync.Pool{New: func() any {
	return syntax.NewParser(syntax.KeepComments(false), syntax.Variant(syntax.LangBash))
}}

// result is an analysis and what dataflow needs from it when it is nested in another.
type result struct {
	Analysis
	out taint // what the code writes to its standard output
}

// analyze parses line as code run at the given depth of nesting, in the working directory
// cwd (unknown when not known), with the positional parameters params ($0, $1…) when it is
// the code of sh -c.
func analyze(line string, cwd value, sh *shared, depth int, params map[string]string) result {
	if len(line) > MaxInput {
		return lineFinding(findTooLarge, fmt.Sprintf("shell command of %d bytes; at most %d are analysed", len(line), MaxInput))
	}
	// The bounds below are of the code to parse: a quoted here-document's body is text,
	// read as the line is read, not code (a source file an agent writes, judged as the
	// cat > FILE <<'EOF' that writes it).
	code := withoutQuotedBodies(line)
	if d := nesting(code); d > maxNesting {
		return lineFinding(findTooDeep, fmt.Sprintf("brackets nest %d deep; at most %d are analysed", d, maxNesting))
	}
	if n := separators(code); n > maxSeparators {
		// Checked before parsing, which alone would cost more than the answer may.
		return lineFinding(findTooComplex, fmt.Sprintf("%d command separators; lines of at most %d are analysed", n, maxSeparators))
	}
	p := parsers.Get().(*syntax.Parser)
	f, err := p.Parse(strings.NewReader(line), "")
	parsers.Put(p)
	if err != nil {
		return lineFinding(findParseError, err.Error())
	}
	if n, words := size(f); n > maxAnalysedCommands {
		return lineFinding(findTooComplex, fmt.Sprintf("%d commands; lines of at most %d commands are analysed", n, maxAnalysedCommands))
	} else if words > maxAnalysedWords {
		return lineFinding(findTooComplex, fmt.Sprintf("%d words; lines of at most %d words are analysed", words, maxAnalysedWords))
	}
	a := newAnalyzer(line, cwd, sh, depth, f, params)
	a.run()
	a.resolveGlobs()
	var res result
	if len(a.cmds) > 0 {
		res.Commands = a.cmds
	}
	if i := strings.IndexByte(line, 0); i >= 0 {
		// The parser drops NUL bytes, as bash does reading a script from standard input;
		// bash -c cannot receive them, and other readers stop at the first one.
		res.Findings = append(res.Findings, newFinding(findNulByte, fmt.Sprintf("NUL byte at offset %d", i)))
	}
	res.out = a.lineOut()
	if depth == 0 {
		res.Left = a.leaves
	}
	a.release()
	return res
}

func lineFinding(id, evidence string) result {
	return result{Analysis: Analysis{Findings: []call.Finding{newFinding(id, evidence)}}}
}

// withoutQuotedBodies returns s without the bodies of its quoted here-documents (<<'EOF',
// <<"EOF", <<\EOF), whose text the shell does not expand; s itself when it has none.
func withoutQuotedBodies(s string) string {
	if !strings.Contains(s, "<<") {
		return s
	}
	var b strings.Builder
	rest := s
	for {
		i := strings.Index(rest, "<<")
		if i < 0 || strings.HasPrefix(rest[i:], "<<<") {
			if i < 0 {
				break
			}
			b.WriteString(rest[:i+3])
			rest = rest[i+3:]
			continue
		}
		op := rest[i+2:]
		tabs := strings.HasPrefix(op, "-")
		op = strings.TrimLeft(strings.TrimPrefix(op, "-"), " \t")
		var delim string
		switch {
		case strings.HasPrefix(op, "'") || strings.HasPrefix(op, `"`):
			end := strings.IndexByte(op[1:], op[0])
			if end < 0 {
				b.WriteString(rest)
				return b.String()
			}
			delim = op[1 : end+1]
		case strings.HasPrefix(op, `\`):
			end := strings.IndexAny(op[1:], " \t\n;|&<>()")
			if end < 0 {
				end = len(op) - 1
			}
			delim = op[1 : end+1]
		}
		nl := strings.IndexByte(rest[i:], '\n')
		if delim == "" || nl < 0 {
			b.WriteString(rest[:i+2])
			rest = rest[i+2:]
			continue
		}
		b.WriteString(rest[:i+nl+1])
		body := rest[i+nl+1:]
		rest = ""
		for body != "" {
			line, after, _ := strings.Cut(body, "\n")
			if tabs {
				line = strings.TrimLeft(line, "\t")
			}
			if line == delim {
				rest = body
				break
			}
			body = after
		}
		if rest == "" {
			break // a body without its end runs to the end of the line
		}
	}
	b.WriteString(rest)
	return b.String()
}

// separators counts the bytes that can start or separate commands: ; | & newlines,
// backquotes and the ( of $(.
func separators(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ';', '|', '&', '\n', '`':
			n++
		case '(':
			if i > 0 && s[i-1] == '$' {
				n++
			}
		}
	}
	return n
}

// nesting returns how deeply brackets nest in s, counting every bracket, quoted or not: an
// upper bound on the nesting of the syntax tree that costs one pass over the bytes.
func nesting(s string) int {
	depth, deepest := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '{', '[':
			depth++
			deepest = max(deepest, depth)
		case ')', '}', ']':
			depth = max(depth-1, 0)
		}
	}
	return deepest
}
