package shell

import (
	"slices"
	"strings"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/planted"
	"github.com/moatdev/moat/internal/shell/oneliner"
	"mvdan.cc/sh/v3/syntax"
)

// Dataflow: after the walk, what each command writes to its standard output is followed
// into what reads it (the next command of a pipeline, a command substitution, a process
// substitution), so that harmless halves can add up to a finding: a secret read piped into
// curl is exfiltration, a download piped into sh is remote code execution, base64 -d piped
// into sh is obfuscated execution (and when the payload is in the line, it is decoded and
// analysed as code).

// taint is what kind of data a stream carries.
type taint uint16

const (
	tSecret   taint = 1 << iota // credentials: a secret file or environment variable
	tEnvDump                    // the whole environment
	tDownload                   // fetched from the network
	tDecoded                    // passed through a decoder (base64 -d, xxd -r, rev…)
	tNetwork                    // read from a raw connection: a remote party controls it
	tShell                      // the output of an interactive shell
	tRemote                     // printed by a command run on another host (ssh HOST CMD)
	tEndless                    // never ends: yes, /dev/zero, seq inf (exhaustion.go)
	tTree                       // the files of a directory read whole (tar -c DIR): see trees.go
)

// flowVal is what flows through a stream: its kinds, and its text when it is known.
type flowVal struct {
	t      taint
	text   string
	known  bool
	substs []syntax.Node // command substitutions in a here-document
}

func (v flowVal) join(w flowVal) flowVal {
	return flowVal{t: v.t | w.t}
}

type span struct{ start, end int }

// runFile is a file a command runs as code: its script, a file it sources, or one a
// variable makes it source (BASH_ENV, ENV).
type runFile struct {
	path    string
	carrier string // what makes the command run it, for evidence: "source", "BASH_ENV"
	shell   bool   // the file is shell code, not the language of the interpreter running it
	// opaque says that the file is run only because the command was made to (sourced, or
	// named by a variable), so that not knowing its code makes the command opaque; a script
	// run as the command's own program is judged as running a program is.
	opaque bool
}

// pipeIn is the input of the right-hand side of a pipe: the commands of its left side.
type pipeIn struct {
	from   span
	stderr bool
}

// execKind says what a command runs the code it reads as.
type execKind uint8

const (
	execNone execKind = iota
	execShell
	execInterp
)

// cmdMeta is what dataflow needs to know about one command.
type cmdMeta struct {
	prog   string // canonical program name; "" when dynamic
	nested bool   // emitted by analysing code nested in another command
	at     int    // offset of the statement of the line it belongs to (globmatch.go)
	cwd    dir    // the working directory it runs in

	piped    bool // standard input comes from a pipe: in
	in       pipeIn
	ownStdin bool // standard input comes from a redirection, here-document or here-string
	stdin    flowVal

	stdoutRedirected bool   // standard output goes to a file, not to the pipe
	stdoutFile       string // that file, when known
	stdoutAppend     bool   // the file is appended to (>>), not replaced
	netRedirect      bool   // a redirection connects to /dev/tcp or /dev/udp

	out     flowVal // what the command produces of its own
	pass    bool    // standard input flows through to standard output
	bounds  bool    // reads a bounded part of its input (head -c 16): what it passes on ends
	xargs   bool    // run by xargs, once for each few words of its standard input
	decoder bool    // its output is decoded from its input
	decode  func(string) (string, bool)

	execStdin     execKind      // runs code read from standard input, or from codeSubsts
	lang          oneliner.Lang // for execInterp
	codeSubsts    []syntax.Node // substitutions whose output is the code run
	codeFromSubst bool
	interactive   bool   // a shell with -i
	script        string // a file it runs as code
	sourced       bool   // the script is sourced into the shell (source, .)
	runs          []runFile
	mounts        mounts // for a command run in a container: its mounts (container.go)

	substs []syntax.Node // substitutions in its words
	// viaVar maps the substitutions its words use through a variable (curl -d "$K" after
	// K=$(cat key)) to the word that expands the variable.
	viaVar      map[syntax.Node]*syntax.Word
	laterCode   []codeRef      // code an option or a variable hands to a program (git -c core.pager=…, GIT_SSH_COMMAND=…, tar --to-command=…)
	params      []arg          // its arguments, for sh -c CODE NAME ARGS…: the code's $0, $1…
	authWords   []*syntax.Word // words of options that carry credentials to their own service (curl -H, -u)
	authSpans   [][2]uint      // the extents of authWords, sorted, computed when first needed
	secretWords []*syntax.Word // words that read secret environment variables
	secretVars  []string       // the variable each of secretWords reads
	secretArgs  bool           // its words read secret environment variables
	secretRead  bool           // it reads a file that holds credentials (besides by redirection)
	netSink     bool           // sends its standard input over the network
	netArgs     bool           // a network command: its arguments go over the network
	sendsArgs   bool           // sends data given in its arguments (curl -d DATA)
	dns         bool           // a DNS lookup: the names it looks up go out
	uploads     []string       // files it sends
	filled      []string       // files it copies into a secret store (secretfill.go)
	uploadTrees bool           // the uploads may be directories, sent whole (scp -r, rsync)
	toService   bool           // uploads to a cloud or SaaS service (aws s3, rclone): its Net hosts are buckets and remotes, not machines
	trees       []string       // directories it reads whole, their files in its output or the files it writes (trees.go)
	downloads   []string       // files it downloads to
	saves       bool           // a download saved to a file, not printed
	dbStdin     queryLang      // reads database statements from standard input, in this language
	kubeStdin   bool           // reads a Kubernetes manifest from standard input (kubemanifest.go)
	kubePods    []string       // pod objects it makes from its arguments (kubectl run --overrides)
	envFiles    []syntax.Node  // substitutions env takes as assignments (env $(cat .env | xargs) CMD)

	// Where secrets the command prints end up (exposure.go).
	printsCredential bool   // a credential tool printing a credential
	credService      string // the service that credential is for, when known
	showsSecret      bool   // prints a secret environment variable (echo $TOKEN)
	shownVar         string // which, for the finding's evidence
	secretSink       bool   // keeps what it reads on standard input to itself (docker login --password-stdin)
	quiet            bool   // prints nothing of what it reads (grep -q, wc)
	stdoutNull       bool   // standard output goes to /dev/null

	// Data leaving for a destination the line chose (exfil.go).
	publishes    bool   // uploads files to a public or a stranger's destination (a gist, a file drop)
	pushesOut    string // pushes a repository to a remote the line added, or to a URL
	sftpStdin    bool   // sftp reading batch commands on standard input
	opaqueUpload bool   // sends a file named only at run time
	pushes       bool   // git push: sends the repository's committed files

	state    uint8 // outOf: 0 not computed, 1 in progress, 2 done
	produced flowVal
	result   flowVal
}

// flow runs dataflow over the commands the walk emitted.
func (a *analyzer) flow() {
	n := len(a.cmds)
	a.patchedFiles()
	a.inlineLinks()
	a.treeReads(n)
	a.taintFiles(n)
	for i := 0; i < n; i++ {
		if a.meta[i].nested {
			continue
		}
		a.sinks(i)
		a.exhaustionSinks(i)
	}
	got := a.downloadExec(n)
	written, order := a.writtenCode(n)
	a.exposures()
	if a.remembers() {
		for i := 0; i < n; i++ {
			a.sendsAfterSecret(i)
		}
		a.leaves = a.left(got, written, order)
	}
}

// inOf is what the command at i reads on its standard input.
func (a *analyzer) inOf(i int) flowVal {
	m := &a.meta[i]
	switch {
	case m.ownStdin:
		v := m.stdin
		for _, s := range v.substs {
			v.t |= a.substOut(s).t
		}
		return v
	case m.piped:
		return a.rangeOut(m.in.from)
	case a.sh.secretInput && a.depth > 0:
		// A credential helper's commands read the credentials git hands it.
		return flowVal{t: tSecret}
	}
	return flowVal{}
}

// rangeOut is what a group of commands writes: the union of their outputs, with the text
// known only when there is one command.
func (a *analyzer) rangeOut(s span) flowVal {
	var v flowVal
	count := 0
	for j := s.start; j < s.end && j < len(a.meta); j++ {
		if a.meta[j].nested {
			continue
		}
		o := a.outOf(j)
		if count == 0 {
			v = o
		} else {
			v = v.join(o)
		}
		count++
	}
	return v
}

func (a *analyzer) substOut(n syntax.Node) flowVal {
	s, ok := a.substs[n]
	if !ok {
		return flowVal{}
	}
	return a.rangeOut(s)
}

// outOf is what the command at i writes to its standard output.
func (a *analyzer) outOf(i int) flowVal {
	m := &a.meta[i]
	switch m.state {
	case 1:
		return flowVal{} // a cycle cannot happen in a line; be safe if it does
	case 2:
		return m.result
	}
	m.state = 1
	v := m.out
	for _, s := range m.substs {
		// echo "$(cat key)" prints what the substitution printed.
		v.t |= a.substOut(s).t &^ tDownload
	}
	if m.secretArgs && (m.prog == "echo" || m.prog == "printf") {
		v.t |= tSecret
	}
	if m.pass {
		in := a.inOf(i)
		v.t |= in.t
		if m.bounds || !passesEndless(m.prog) {
			v.t &^= tEndless &^ m.out.t
		}
		switch {
		case m.decode != nil && in.known:
			if text, ok := m.decode(in.text); ok {
				v.text, v.known = text, true
			}
		case m.decoder:
		case in.known && (m.prog == "cat" && len(a.cmds[i].Operands) == 0 || m.prog == "tee"):
			v.text, v.known = in.text, true
		}
	}
	if m.decoder {
		v.t |= tDecoded
	}
	if m.interactive || m.execStdin == execShell && !m.codeFromSubst {
		v.t |= tShell
	}
	m.produced = v
	if m.stdoutRedirected {
		v = flowVal{}
	}
	m.result = v
	m.state = 2
	return v
}

// sinks reports what flows into the command at i that makes a finding.
func (a *analyzer) sinks(i int) {
	m := &a.meta[i]
	var code flowVal
	hasCode := false
	switch {
	case m.codeFromSubst:
		for k, s := range m.codeSubsts {
			o := a.substOut(s)
			if k == 0 {
				code = o
			} else {
				code = code.join(o)
			}
		}
		hasCode = true
	case m.execStdin != execNone:
		code = a.inOf(i)
		hasCode = m.ownStdin || m.piped
	}
	if hasCode {
		a.runFlow(i, code)
	}
	in := a.inOf(i)
	c := &a.cmds[i]
	if m.netSink && in.t&(tSecret|tEnvDump) != 0 {
		*c = withFinding(*c, findExfiltration, "sends "+describeTaint(in.t)+" read earlier in the line to "+netHosts(c))
	} else if m.netSink && in.t&tTree != 0 {
		if what := a.lineTreeLeaving(i); what != "" {
			*c = withFinding(*c, findUpload, "sends "+what+" to "+netHosts(c))
		}
	}
	if m.prog == "" && in.t&tNetwork != 0 {
		*c = withFinding(*c, findReverseShell, "runs commands read from a network connection")
	}
	if m.netSink && in.t&tShell != 0 {
		*c = withFinding(*c, findReverseShell, "an interactive shell's output is sent to "+netHosts(c))
	}
	if m.netArgs {
		var args taint
		capture := sendsToCapture(c)
		for _, s := range m.substs {
			t := a.substOut(s).t
			if ok, service := a.authSubst(i, s); ok && !capture && (service == "" || servesAll(c, service)) {
				// A credential tool's token in an Authorization header, to its own service
				// or to a host moat cannot tell is not its service's, goes where it is
				// meant to; whether printing it is a finding is exposure.go's question.
				t &^= tSecret
			}
			args |= t
		}
		for k, w := range m.secretWords {
			if !slices.Contains(m.authWords, w) {
				// A token in an Authorization header goes to the service it is for; in
				// the URL or the data it goes wherever the command sends it, which is
				// where it is meant to go when every host is its service's (Coverity's
				// upload takes --form token=$COVERITY_SCAN_TOKEN).
				if service := varService(m.secretVars[k]); service != "" && !capture && servesAll(c, service) {
					continue
				}
				args |= tSecret
				continue
			}
			// In a header, a variable named for a service (GITHUB_TOKEN) sent to a host
			// of another, or any credential sent to a request catcher, leaves for a
			// stranger.
			if service := varService(m.secretVars[k]); capture || service != "" && someHostOutside(c, service) {
				args |= tSecret
			}
		}
		switch {
		case args&(tSecret|tEnvDump) != 0:
			*c = withFinding(*c, findExfiltration, "sends "+describeTaint(args)+" in its arguments to "+netHosts(c))
		case m.dns && len(m.substs) > 0 && computesName(m.params):
			*c = withFinding(*c, findDNSExfil, "looks up a name computed at run time")
		}
		for _, p := range m.uploads {
			acc := call.Access{Kind: call.Read, Path: p, Recursive: m.uploadTrees}
			if a.sh.env.Sensitive != nil && a.sh.env.Sensitive(acc) || a.tainted[p]&(tSecret|tEnvDump) != 0 || a.sh.secretFiles[p] {
				*c = withFinding(*c, findExfiltration, "uploads "+p+" to "+netHosts(c))
			} else if what := a.uploadLeaving(i, p); what != "" {
				*c = withFinding(*c, findUpload, "uploads "+what+" to "+netHosts(c))
			}
		}
	}
	a.uploadSinks(i, in)
	a.killedByPid(i)
	if m.netRedirect {
		out := a.outOfProduced(i)
		switch {
		case shells()[m.prog] || m.prog == "" && m.execStdin == execShell:
			*c = withFinding(*c, findReverseShell, "a shell's input and output are a network connection")
		case out.t&(tSecret|tEnvDump) != 0:
			*c = withFinding(*c, findExfiltration, "writes "+describeTaint(out.t)+" to a network connection")
		default:
			*c = withFinding(*c, findRawSocket, "redirects to /dev/tcp or /dev/udp")
		}
	}
	if m.dbStdin != 0 && in.known {
		for _, f := range scanQuery(m.dbStdin, in.text) {
			*c = withFinding(*c, f.ID, f.Evidence)
		}
		if m.piped {
			a.dbPiped(i, in.text) // what the line shows, the walk read (executors_scripts.go)
		}
	}
	if m.kubeStdin && in.known {
		a.kubeManifest(i, "standard input", in.text)
	}
	for _, pod := range m.kubePods {
		a.kubeManifest(i, "--overrides", pod)
	}
}

func (a *analyzer) outOfProduced(i int) flowVal {
	a.outOf(i)
	return a.meta[i].produced
}

// runFlow judges code that the command at i runs, given what it is made of.
func (a *analyzer) runFlow(i int, code flowVal) {
	m := &a.meta[i]
	c := &a.cmds[i]
	if code.t&tDownload != 0 {
		*c = withFinding(*c, findPipeToShell, "runs what it downloads")
	}
	if code.t&tNetwork != 0 {
		*c = withFinding(*c, findReverseShell, "runs what it reads from a network connection")
	}
	switch {
	case code.known:
		if code.t&tDecoded != 0 {
			*c = withFinding(*c, findEncodedCommand, shorten(strings.TrimSpace(code.text)))
		}
		cwd := a.cwdAt(i)
		a.inMountsOf(i, func() {
			if m.execStdin == execInterp {
				a.inspect(i, m.lang, code.text, cwd)
			} else {
				a.nested(i, code.text, cwd, false)
			}
		})
	case code.t&tDecoded != 0:
		*c = withFinding(*c, findObfuscatedExec, "runs decoded data that is not known before it runs")
	case code.t&tRemote != 0:
		c.Findings = appendFinding(c.Findings, findOpaque, "runs what a command on another host prints, which moat cannot read")
		c.Opaque = true
	case code.t&(tDownload|tNetwork) == 0 && m.codeFromSubst && !a.setupCode(m.codeSubsts):
		*c = withFinding(*c, findDynamicCommand, "runs code that a command substitution prints")
	case m.sourced && code.t&(tDownload|tNetwork) == 0 && !m.codeFromSubst:
		// source /dev/stdin < FILE: sourcing a file by another name.
		c.Findings = appendFinding(c.Findings, findOpaque, "sources its standard input, whose text moat cannot read")
		c.Opaque = true
	case code.t&(tDownload|tNetwork) == 0 && !m.codeFromSubst && !a.stdinFromTrustedFiles(i):
		// ls | sh, xclip -o | sh, sh < /tmp/x.sh: code moat cannot read, from a program's
		// output or a file outside the project.
		c.Findings = appendFinding(c.Findings, findOpaque, "runs code read from its standard input, whose text moat cannot read")
		c.Opaque = true
	}
}

// stdinFromTrustedFiles reports whether what the command at i reads on its standard input
// is the text of files of the project or the system, which the agent could run anyway: a
// redirection from one, or cat of some piped in (cat scripts/setup.sh | bash).
func (a *analyzer) stdinFromTrustedFiles(i int) bool {
	m := &a.meta[i]
	trusted := func(c *call.Command, redirect bool) bool {
		n := 0
		for _, acc := range c.Accesses {
			if acc.Kind != call.Read || acc.Redirect != redirect {
				continue
			}
			if acc.Glob || !a.trustedDir(acc.Path, a.meta[i].cwd) {
				return false
			}
			n++
		}
		return n > 0
	}
	switch {
	case m.ownStdin:
		return !m.stdin.known && len(m.stdin.substs) == 0 && trusted(&a.cmds[i], true)
	case m.piped:
		n := 0
		for j := m.in.from.start; j < m.in.from.end && j < len(a.meta); j++ {
			if a.meta[j].nested {
				continue
			}
			if a.meta[j].prog != "cat" || a.meta[j].piped || a.meta[j].ownStdin || !trusted(&a.cmds[j], false) {
				return false
			}
			n++
		}
		return n > 0
	}
	return false
}

// cwdAt is the working directory code run by the command at i starts in: the one of the
// command, when it resolved its own relative paths; unknown otherwise.
func (a *analyzer) cwdAt(i int) dir {
	return a.meta[i].cwd
}

// downloadExec reports a file downloaded and then run in the same line, or downloaded by
// an earlier call of the session. It returns the files the line downloads.
func (a *analyzer) downloadExec(n int) []string {
	var got, unpacked []string
	for i := 0; i < n; i++ {
		m := &a.meta[i]
		if m.nested {
			continue
		}
		c := &a.cmds[i]
		for _, acc := range c.Accesses {
			if acc.Kind == call.Exec {
				a.runsDownload(c, acc.Path, got, unpacked)
			}
		}
		if m.script != "" {
			a.runsDownload(c, m.script, got, unpacked)
		}
		if a.unpacksDownload(i, got) {
			// tar xf x.tgz, unzip x.zip -d d: what the archive held is as much a
			// download as the archive.
			for _, acc := range c.Accesses {
				if acc.Kind == call.Write && acc.Recursive {
					unpacked = append(unpacked, acc.Path)
				}
			}
		}
		got = append(got, m.downloads...)
		if m.stdoutFile != "" && a.outOfProduced(i).t&tDownload != 0 {
			got = append(got, m.stdoutFile)
		}
	}
	return got
}

// unpacksDownload reports whether the command at i reads a file the line downloaded
// (by an access or by naming it) or a download piped in, and writes a whole directory:
// it unpacks a download.
func (a *analyzer) unpacksDownload(i int, got []string) bool {
	piped := a.meta[i].piped && a.inOf(i).t&tDownload != 0
	if len(got) == 0 && !piped {
		return false
	}
	c := &a.cmds[i]
	tree, reads := false, false
	for _, acc := range c.Accesses {
		tree = tree || acc.Kind == call.Write && acc.Recursive
		reads = reads || acc.Kind == call.Read && contains(got, acc.Path)
	}
	if !tree {
		return false
	}
	if piped {
		return true
	}
	for _, op := range c.Operands {
		if p, ok, _ := a.abs(op, a.meta[i].cwd); ok && contains(got, p) {
			reads = true
		}
	}
	return reads
}

// runsDownload gives c, which runs the file p, the finding of running a download when
// the line or an earlier call of the session downloaded p, or the line unpacked it from
// a download into one of the directories unpacked.
func (a *analyzer) runsDownload(c *call.Command, p string, got, unpacked []string) {
	if contains(got, p) {
		*c = withFinding(*c, findDownloadExec, "runs "+p+", downloaded earlier in the line")
	} else if by, ok := a.earlierDownload(p); ok {
		*c = withFinding(*c, findDownloadExec, "runs a file downloaded by "+by.Call+": "+p)
	} else {
		for _, d := range unpacked {
			if p == d || strings.HasPrefix(p, strings.TrimSuffix(d, "/")+"/") {
				*c = withFinding(*c, findDownloadExec, "runs "+p+", unpacked from a download earlier in the line")
				return
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func withFinding(c call.Command, id, evidence string) call.Command {
	c.Findings = appendFinding(c.Findings, id, evidence)
	return c
}

func describeTaint(t taint) string {
	var parts []string
	if t&tSecret != 0 {
		parts = append(parts, "credentials")
	}
	if t&tEnvDump != 0 {
		parts = append(parts, "the environment")
	}
	if len(parts) == 0 {
		return "data"
	}
	return strings.Join(parts, " and ")
}

func netHosts(c *call.Command) string {
	var hosts []string
	for _, n := range c.Net {
		if n.Host != "" {
			hosts = append(hosts, n.Host)
		}
	}
	if len(hosts) == 0 {
		return "the network"
	}
	return strings.Join(hosts, ", ")
}

// lineOut is what the line as a whole writes to its standard output, for a line nested in
// another command (sh -c '…' | curl …).
func (a *analyzer) lineOut() taint {
	var t taint
	for i := range a.meta {
		if !a.meta[i].nested {
			t |= a.outOf(i).t
		}
	}
	return t
}

// taintFiles records the files that commands of the line write secret data into (env >
// /tmp/e, cp ~/.aws/credentials /tmp/c), so that sending such a file later in the line is
// judged as sending the secret; and those that hold a tree's files (trees.go).
func (a *analyzer) taintFiles(n int) {
	for i := 0; i < n; i++ {
		m := &a.meta[i]
		if m.nested {
			continue
		}
		var t taint
		if m.stdoutFile != "" {
			t = a.outOfProduced(i).t & (tSecret | tEnvDump | tTree)
		}
		// What the files it writes (not by redirection) carry: what it read.
		var read taint
		if m.secretRead {
			read = tSecret
		}
		if len(m.trees) > 0 {
			read |= tTree // tar czf /tmp/p.tgz .: the archive holds the tree's files
		}
		if m.prog == "tee" || m.prog == "sponge" {
			read |= a.inOf(i).t // they write their standard input into their files
		}
		for _, acc := range a.cmds[i].Accesses {
			if acc.Kind == call.Read && !acc.Redirect {
				read |= a.tainted[acc.Path]
			}
		}
		if read&(tSecret|tEnvDump) != 0 {
			read = tSecret
		}
		for _, acc := range a.cmds[i].Accesses {
			if acc.Kind != call.Write {
				continue
			}
			wt := taint(0)
			if acc.Redirect && acc.Path == m.stdoutFile {
				wt = t
			} else if !acc.Redirect {
				wt = read
			}
			if wt != 0 {
				if a.tainted == nil {
					a.tainted = make(map[string]taint)
				}
				a.tainted[acc.Path] |= wt
				if wt&tSecret != 0 && a.sh.secretInput && a.depth > 0 {
					// A credential helper that keeps what git hands it in a file of its
					// own does what credential.helper store does, where moat's rules
					// about credential files do not look.
					c := &a.cmds[i]
					*c = withFinding(*c, findSecurityOff, "a credential helper writes the credentials git hands it to "+acc.Path+", in plain text")
				}
			}
		}
	}
}

// fileText is what the line has written into a file: all of it (known), or only what it
// appended to content from before the line (partial).
type fileText struct {
	text           string
	known, partial bool
	by             string // the earlier call of the session that wrote it; "" for this line
}

// writtenCode follows the files the line writes and then runs. A script whose text the line
// wrote (a redirection or tee of known text) and that a later command sources, hands to a
// shell or an interpreter, or names in BASH_ENV, is analysed as the code it is. A file
// sourced into the shell whose text is not known is opaque, unless it is a well-known set-up
// script. Text written into git's configuration files is judged setting by setting.
//
// It returns the files followed, with the order the line wrote them in, for what the line
// leaves behind (earlier.go); with the session's history, earlier calls' files are
// followed too.
func (a *analyzer) writtenCode(n int) (map[string]fileText, []string) {
	var order []string
	written := a.earlierWritten(nil)
	homeDir := ""
	if a.st.home.known {
		homeDir = a.st.home.s // the user's, whatever the line did to $HOME
	}
	// What is written only matters to a command that runs a file; most lines have none.
	runsFiles := a.remembers()
	for i := 0; i < n && !runsFiles; i++ {
		runsFiles = !a.meta[i].nested && (a.meta[i].script != "" || len(a.meta[i].runs) > 0)
	}
	for i := 0; i < n; i++ {
		m := &a.meta[i]
		if m.nested {
			continue
		}
		if m.script != "" {
			// A script outside the project and the system is code moat cannot read, as a
			// program there is (bash /tmp/x.sh as /tmp/x.sh).
			a.runWritten(i, runFile{path: m.script, carrier: a.cmds[i].Name, shell: m.sourced || shells()[m.prog], opaque: true}, written)
		}
		for _, r := range a.meta[i].runs {
			a.runWritten(i, r, written)
		}
		var carried, copied string
		written, carried, copied = a.copyWritten(i, written)
		m = &a.meta[i]
		for _, acc := range a.cmds[i].Accesses {
			if acc.Kind != call.Write || !acc.Redirect && (keepsText(m.prog) || acc.Path == carried) {
				continue
			}
			isConfig := gitConfigFile(acc.Path, homeDir)
			plant, isPlanted := planted.Lookup(acc.Path, homeDir)
			isPlanted = isPlanted && !plant.GitConfig
			if !runsFiles && !isConfig && !isPlanted && !acc.Redirect && m.prog != "tee" && m.prog != "sponge" {
				continue
			}
			var t fileText
			appended := false
			switch {
			case acc.Redirect && (acc.Path == m.stdoutFile || a.linksTo(m.stdoutFile, acc.Path)):
				if out := a.outOfProduced(i); out.known {
					t = fileText{text: out.text, known: true}
				}
				appended = m.stdoutAppend
			case !acc.Redirect && (m.prog == "tee" || m.prog == "sponge"):
				if in := a.inOf(i); in.known {
					t = fileText{text: in.text, known: true}
				}
				appended = a.cmds[i].HasFlag("a") || a.cmds[i].HasFlag("append")
			}
			if appended && t.known {
				if prev, ok := written[acc.Path]; ok && prev.known {
					t.text = prev.text + t.text
				} else {
					t.known, t.partial = false, true
				}
			}
			if !isPlanted && !isConfig && t.known {
				// A file of no kind whose first line names an interpreter (#!/usr/bin/env
				// ruby) is a script, run by name later: bin/setup, scripts/deploy.
				plant, isPlanted = planted.ByShebang(t.text)
			}
			if !runsFiles && !isConfig && !isPlanted {
				continue
			}
			if runsFiles && acc.Path != copied {
				if written == nil {
					written = make(map[string]fileText)
				}
				run := t
				if !t.known && !t.partial {
					// An in-place edit (sed -i, perl -pi) leaves the file's other text
					// as it was: what it puts in is the part to read when the file runs.
					if inserted, ok := inPlaceInserted(m.prog, a.cmds[i].Args); ok {
						run = fileText{text: strings.Join(inserted, "\n"), partial: true}
					}
				}
				written[acc.Path] = run
				if !slices.Contains(order, acc.Path) {
					order = append(order, acc.Path)
				}
			}
			if isConfig {
				a.gitConfigText(i, acc.Path, t)
			}
			if isPlanted {
				a.plantedText(i, acc.Path, plant, t, homeDir)
			}
		}
	}
	return written, order
}

// runWritten judges a file that the command at i runs as code.
func (a *analyzer) runWritten(i int, r runFile, written map[string]fileText) {
	m := &a.meta[i]
	cwd := m.cwd
	t, ok := written[r.path]
	if ok && (t.known || t.partial) {
		first := len(a.cmds)
		if in, interp := scriptLang(m.prog, r, t.text); interp {
			a.inspect(i, in.Lang, t.text, cwd)
		} else {
			a.nested(i, t.text, cwd, false)
		}
		if t.by != "" {
			// The code came from an earlier call: the evidence says which.
			a.prefixEvidence(first, r.path+", written by "+t.by+": ")
		}
		if t.known {
			return
		}
	}
	// A project file is the project's code, which the agent may run anyway (./build.sh);
	// one this line or an earlier call wrote with text moat could not read is not.
	writtenUnread := ok && !t.known && !t.partial
	if !ok && a.sh.elsewhere > 0 {
		return // on a builder or runner: a file of its image's or its own (/app/bin/migrate)
	}
	if r.opaque && (writtenUnread || !a.trustedSource(r.path) && !a.trustedDir(r.path, cwd)) {
		what := "sources " + r.path
		switch {
		case r.path == m.script && !m.sourced:
			what = "runs " + r.path
		case r.carrier != "source" && r.carrier != ".":
			what = r.carrier + " makes it source " + r.path
		}
		a.opaque(i, what+", whose code moat cannot read")
	}
}

// gitConfigText judges text the command at i writes into a git configuration file: each
// setting as git config would, or, when the text is not known, the write itself.
func (a *analyzer) gitConfigText(i int, file string, t fileText) {
	if !t.known && !t.partial {
		c := &a.cmds[i]
		c.Findings = appendFinding(c.Findings, findToolConfig, "writes "+file+", git's configuration, whose settings can name commands git runs")
		return
	}
	cwd := a.meta[i].cwd
	for _, e := range parseGitConfig(t.text) {
		refs, fs := a.gitSetting(e.key, arg{lit: e.value}, true, cwd)
		c := &a.cmds[i]
		c.Findings = appendFindings(c.Findings, fs)
		for _, r := range refs {
			a.runCode(i, r, cwd)
		}
	}
}
