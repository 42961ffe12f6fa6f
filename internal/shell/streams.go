package shell

import (
	"net/url"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/glob"
	"github.com/moatdev/moat/internal/netdest"
	"github.com/moatdev/moat/internal/shell/decode"
	"github.com/moatdev/moat/internal/shell/oneliner"
)

// This file says what programs do with their standard input and output and with the
// network, for dataflow (flow.go): which produce text of their own (echo), which decode
// what flows through them (base64 -d), which run what they read (sh, python), which
// download or send (curl, nc), and the files downloads land in.

// shells are the programs that run shell code: from -c STRING, a script operand, or their
// standard input.
var shells = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "mksh": true, "ash": true,
		"yash": true, "posh": true, "rbash": true, "fish": true, "csh": true, "tcsh": true,
	}
})

// decoders map a program to how it transforms its input when decoding, given its options.
// A nil function means the output is decoded from the input in a way moat cannot redo.
type decoder func(v *view) (func(string) (string, bool), bool)

var decoders = sync.OnceValue(func() map[string]decoder {
	return map[string]decoder{
		"base64": func(v *view) (func(string) (string, bool), bool) {
			if v.flag("d", "decode", "D") {
				return decode.Base64, true
			}
			return nil, false
		},
		"base32": func(v *view) (func(string) (string, bool), bool) {
			if v.flag("d", "decode") {
				return decode.Base32, true
			}
			return nil, false
		},
		"basenc": func(v *view) (func(string) (string, bool), bool) {
			return nil, v.flag("d", "decode")
		},
		"xxd": func(v *view) (func(string) (string, bool), bool) {
			if v.flag("r", "revert") {
				if v.flag("p", "ps", "plain", "postscript") {
					return decode.Hex, true
				}
				return nil, true
			}
			return nil, false
		},
		"rev": func(v *view) (func(string) (string, bool), bool) {
			return func(s string) (string, bool) { return decode.Rev(s), true }, true
		},
		"tr": func(v *view) (func(string) (string, bool), bool) {
			if len(v.raw) == 2 && !v.raw[0].dynamic && !v.raw[1].dynamic && len(v.opts) == 0 {
				set1, set2 := v.raw[0].lit, v.raw[1].lit
				return func(s string) (string, bool) { return decode.Tr(set1, set2, s) }, true
			}
			return nil, false
		},
		"openssl": func(v *view) (func(string) (string, bool), bool) {
			if len(v.ops) > 0 && (v.ops[0] == "base64" || v.ops[0] == "enc") && v.flag("d") {
				if v.ops[0] == "base64" || v.flag("base64", "a") {
					return decode.Base64, true
				}
				return nil, true
			}
			return nil, false
		},
		"gunzip": func(*view) (func(string) (string, bool), bool) { return nil, true },
		"zcat":   func(*view) (func(string) (string, bool), bool) { return nil, true },
		"bzcat":  func(*view) (func(string) (string, bool), bool) { return nil, true },
		"xzcat":  func(*view) (func(string) (string, bool), bool) { return nil, true },
		"unxz":   func(*view) (func(string) (string, bool), bool) { return nil, true },
		"gzip":   decompressFlag,
		"bzip2":  decompressFlag,
		"xz":     decompressFlag,
		"zstd":   decompressFlag,
		"uudecode": func(*view) (func(string) (string, bool), bool) {
			return nil, true
		},
	}
})

// decompressFlag: gzip -d, bzip2 -d, xz -d, zstd -d decompress what they read.
func decompressFlag(v *view) (func(string) (string, bool), bool) {
	return nil, v.flag("d", "decompress")
}

// downloaders print what they fetch unless told to save it.
var downloaders = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"curl": true, "wget": true, "http": true, "https": true, "xh": true, "fetch": true, "aria2c": true, "lwp-request": true, "GET": true}
})

// streamEffects sets what dataflow needs to know about the command, and adds the network
// connections and the file effects that depend on options.
func (a *analyzer) streamEffects(cmd *call.Command, m *cmdMeta, v *view, cwd dir) {
	name := v.name
	switch {
	case name == "echo":
		a.echoText(m, v)
		return
	case name == "printf":
		a.printfText(m, v)
		return
	case shells()[name]:
		m.pass = false
		return // runs: see code.go
	}
	m.pass = true
	if dec, ok := decoders()[name]; ok {
		if fn, isDecoder := dec(v); isDecoder {
			m.decoder = true
			m.decode = fn
			if len(v.raw) > 0 && name != "tr" && name != "openssl" {
				m.decode = nil // it decodes a file, whose content is not known
				m.pass = false
			}
		}
	}
	if _, ok := oneliner.Lookup(name); ok {
		m.pass = false
	}
	m.dbStdin = dbStdin(v)
	m.kubeStdin = kubeStdin(v)
	switch name {
	case "curl":
		a.curl(cmd, m, v, cwd)
	case "wget":
		a.wget(cmd, m, v, cwd)
	case "http", "https", "xh", "xhs":
		a.httpie(cmd, m, v, cwd)
	case "fetch", "aria2c", "lwp-request", "GET":
		a.netOperands(cmd, v, call.Inbound)
		m.out.t |= tDownload
	case "websocat", "wscat", "grpcurl", "curlie":
		// Clients of WebSocket, gRPC and HTTP that send what they read.
		a.netOperands(cmd, v, call.Both)
		m.netSink, m.netArgs = true, true
		m.out.t |= tNetwork
	case "ab", "wrk", "wrk2", "hey", "oha", "siege", "h2load", "vegeta":
		// Load generators: requests to the URLs they are given.
		a.netOperands(cmd, v, call.Outbound)
	case "sqlite3", "duckdb":
		a.sqliteURI(cmd, v, cwd)
	case "ssh-keygen":
		a.sshKeygenFiles(cmd, v, cwd)
	case "pbpaste", "wl-paste":
		// The clipboard: where a password manager puts the password the user copies.
		m.out.t |= tSecret
	case "xclip", "xsel":
		if v.flag("o", "out", "output") {
			m.out.t |= tSecret
		}
	case "screencapture", "scrot", "grim", "maim", "gnome-screenshot", "spectacle":
		// What the screen shows (a password manager, a chat, a mail) is in the image,
		// the file an operand or -f/-o names.
		m.secretRead = true
		files := v.raw
		if v.name == "gnome-screenshot" || v.name == "spectacle" {
			files = v.values("f", "file", "o", "output")
		}
		for _, f := range files {
			cmd.Opaque = a.addAccess(&cmd.Accesses, call.Write, f, false, cwd) || cmd.Opaque
		}
	case "openssl":
		a.opensslFiles(cmd, v, cwd)
		if len(v.ops) > 0 && v.ops[0] == "s_client" {
			host := ""
			for _, c := range v.values("connect") {
				host, _, _ = strings.Cut(c.lit, ":")
			}
			cmd.Net = append(cmd.Net, call.Net{Host: host, Direction: call.Both})
			m.netSink, m.netArgs = true, true
			m.out.t |= tNetwork
		}
	case "nc", "ncat", "telnet", "socat":
		host, port := "", ""
		for _, o := range v.raw {
			switch {
			case o.dynamic || strings.HasPrefix(o.lit, "-"):
			case host == "" && !isPort(o.lit):
				host = o.lit
			case host != "" && port == "" && isPort(o.lit):
				port = o.lit
			}
		}
		if name == "socat" {
			host, port = socatTCP(v)
		}
		if service, ok := netdest.ControlPlaneAt(host, port); ok {
			cmd.Findings = appendFinding(cmd.Findings, findControlPlane, name+" "+host+" "+port+": "+service)
		}
		cmd.Net = append(cmd.Net, call.Net{Host: host, Direction: call.Both})
		m.netSink, m.netArgs = true, true
		m.out.t |= tNetwork
		if name == "socat" {
			a.socatFiles(cmd, m, v, cwd)
		}
	case "ssh":
		a.ssh(cmd, m, v)
	case "scp", "sftp", "rsync":
		a.remoteCopy(cmd, m, v, cwd)
		m.sftpStdin = name == "sftp" && len(v.values("b")) == 0
	case "dig", "nslookup", "host", "drill", "ping", "ping6", "traceroute", "whois", "resolvectl", "getent", "kdig", "delv":
		// Every one resolves the names it is given: a name computed at run time carries
		// data out in the DNS query, whatever the program does next.
		m.netArgs = true
		m.dns = true
		a.netOperands(cmd, v, call.Outbound)
	case "dd":
		a.dd(cmd, m, v, cwd)
	case "tar":
		a.tar(cmd, v, cwd)
	case "git":
		a.gitFiles(cmd, v, cwd)
		a.gitNetwork(cmd, m, v)
	case "sed":
		if v.flag("i", "in-place") {
			// sed -i edits the files it is given, besides reading them.
			for _, acc := range cmd.Accesses {
				if acc.Kind == call.Read && !acc.Redirect {
					cmd.Accesses = append(cmd.Accesses, call.Access{Kind: call.Write, Path: acc.Path, Glob: acc.Glob})
				}
			}
		}
	case "truncate":
		for _, x := range v.values("s", "size") {
			if strings.TrimLeft(x.lit, "=") == "0" {
				emptied(cmd, 0)
				break
			}
		}
	case "zip":
		// zip -m (--move) deletes the files it archives once they are in.
		if v.flag("m", "move") {
			for _, acc := range slices.Clone(cmd.Accesses) {
				if acc.Kind == call.Read && !acc.Redirect {
					cmd.Accesses = append(cmd.Accesses, call.Access{Kind: call.Delete, Path: acc.Path, Recursive: acc.Recursive, Glob: acc.Glob, Hidden: acc.Hidden})
				}
			}
		}
	case "cp":
		// cp /dev/null FILE empties FILE.
		if len(v.raw) == 2 && v.raw[0].lit == "/dev/null" {
			emptied(cmd, 0)
		}
	case "crontab":
		m.pass = false
	case "env", "printenv", "set", "export", "declare", "typeset":
		if hasFinding(cmd.Findings, findEnvDump) {
			m.out.t |= tEnvDump
		}
	case "cat", "head", "tail", "less", "more", "strings", "xxd", "od", "hexdump", "grep":
		for _, acc := range cmd.Accesses {
			if acc.Kind == call.Read && !acc.Redirect && strings.HasPrefix(acc.Path, "/proc/") && strings.HasSuffix(acc.Path, "/environ") {
				m.out.t |= tEnvDump
			}
		}
	}
	switch v.name {
	case "grep", "ugrep", "rg":
		a.searchFilters(cmd, v)
	}
	a.uploads(cmd, m, v, cwd)
	a.storeFills(cmd, m, v, cwd)
	a.envFiles(cmd, v, cwd)
	kubeOverrides(cmd, m, v)
	if v.name == "go" {
		a.goEffects(cmd, m, v, cwd)
	}
	a.metadataAccess(cmd, m, v)
	a.mining(cmd, v)
}

// echoText is what echo prints: its words, with escapes when -e is given. Escapes that
// spell bytes (\x72) hide text, so output built from them is marked decoded.
func (a *analyzer) echoText(m *cmdMeta, v *view) {
	words := make([]string, 0, len(v.args))
	escapes := false
	for _, x := range v.args {
		if x.dynamic {
			return
		}
		words = append(words, x.lit)
		escapes = escapes || hidesText(x.lit)
	}
	m.out.text, m.out.known = decode.Echo(words), true
	if escapes && v.flag("e") {
		m.out.t |= tDecoded
	}
}

func (a *analyzer) printfText(m *cmdMeta, v *view) {
	if len(v.args) == 0 || v.flag("v") {
		return
	}
	words := make([]string, 0, len(v.args))
	escapes := false
	for _, x := range v.args {
		if x.dynamic {
			return
		}
		words = append(words, x.lit)
		escapes = escapes || hidesText(x.lit)
	}
	if words[0] == "--" {
		words = words[1:]
	}
	if len(words) == 0 {
		return
	}
	if text, ok := decode.Printf(words[0], words[1:]); ok {
		m.out.text, m.out.known = text, true
	}
	if escapes {
		m.out.t |= tDecoded
	}
}

// hidesText reports whether s holds escapes that spell characters by number.
func hidesText(s string) bool {
	for i := 0; i+1 < len(s); i++ {
		if s[i] != '\\' {
			continue
		}
		switch c := s[i+1]; {
		case c == 'x' || c == 'u' || c == 'U' || c >= '0' && c <= '7':
			return true
		}
		i++
	}
	return false
}

// curl: the URLs it fetches, what it sends (-d, -F, -T, --json), where output goes.
func (a *analyzer) curl(cmd *call.Command, m *cmdMeta, v *view, cwd dir) {
	direction := call.Inbound
	var uploads []string
	// --output-dir DIR: -o and -O save their files in DIR.
	saveIn := cwd
	for _, d := range v.values("output-dir") {
		if d.dynamic {
			opaqueCmd(cmd, "curl --output-dir names a directory known only at run time: "+shorten(d.lit))
			saveIn = dir{}
			continue
		}
		if p, ok, _ := a.resolve(expandTildeLike(d.lit, a), cwd); ok {
			saveIn = dir{p, true}
		}
	}
	for _, o := range v.opts {
		if !o.hasValue {
			continue
		}
		val := o.val
		switch o.name {
		case "H", "header", "u", "user", "oauth2-bearer", "proxy-user":
			if val.word != nil {
				m.authWords = append(m.authWords, val.word)
			}
		case "d", "data", "data-ascii", "data-binary", "data-raw", "data-urlencode", "json", "F", "form", "T", "upload-file":
			direction = call.Outbound
			if o.name == "data-raw" || val.dynamic {
				m.sendsArgs = true
				if val.dynamic && o.name != "data-raw" && commandSubst(val.lit) && uploadedFile(o.name, strings.Trim(val.lit, `"'`)) != "" {
					// -F "f=@$(…)", -T "$(…)": a file that a command picks at run time is sent.
					m.opaqueUpload = true
				}
				continue
			}
			file := uploadedFile(o.name, val.lit)
			switch {
			case file == "-" || file == "/dev/stdin" || file == ".":
				m.netSink = true
			case file != "":
				if p, ok, _ := a.resolve(expandTildeLike(file, a), cwd); ok {
					uploads = append(uploads, p)
					cmd.Accesses = append(cmd.Accesses, call.Access{Kind: call.Read, Path: p})
				}
			default:
				m.sendsArgs = true
			}
		case "o", "output":
			if val.dynamic || val.lit == "-" {
				continue
			}
			m.saves = true
			if p, ok, _ := a.resolve(val.lit, saveIn); ok {
				cmd.Accesses = append(cmd.Accesses, call.Access{Kind: call.Write, Path: p})
				m.downloads = append(m.downloads, p)
			}
		}
	}
	hosts := a.netOperands(cmd, v, direction)
	if v.flag("O", "remote-name", "remote-name-all") {
		m.saves = true
		for _, u := range hosts {
			if p, ok := a.remoteName(u, saveIn); ok {
				cmd.Accesses = append(cmd.Accesses, call.Access{Kind: call.Write, Path: p})
				m.downloads = append(m.downloads, p)
			}
		}
	}
	if len(uploads) > 0 && len(cmd.Net) > 0 {
		cmd.Net[len(cmd.Net)-1].Uploads = uploads
	}
	m.netArgs = true
	m.uploads = uploads
	if !m.saves {
		m.out.t |= tDownload
	}
}

// uploadedFile returns the file an upload option names: -d @file, -F name=@file or
// name=<file, -T file; "" when the value is data.
func uploadedFile(opt, val string) string {
	switch opt {
	case "T", "upload-file":
		return val
	case "F", "form":
		_, v, ok := strings.Cut(val, "=")
		if !ok {
			return ""
		}
		if f, ok := strings.CutPrefix(v, "@"); ok {
			f, _, _ = strings.Cut(f, ";")
			return f
		}
		if f, ok := strings.CutPrefix(v, "<"); ok {
			return f
		}
		return ""
	case "data-urlencode":
		if i := strings.Index(val, "@"); i >= 0 && !strings.Contains(val[:i], "=") {
			return val[i+1:]
		}
		return ""
	}
	if f, ok := strings.CutPrefix(val, "@"); ok {
		return f
	}
	return ""
}

// expandTildeLike expands a leading ~/ in an option value, which the shell leaves alone
// after -d @ but which users write and curl does not expand either; treating it as the
// home directory is the cautious reading.
func expandTildeLike(p string, a *analyzer) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if home, _ := a.st.get("HOME"); home.known {
			return home.s + "/" + rest
		}
	}
	return p
}

func (a *analyzer) wget(cmd *call.Command, m *cmdMeta, v *view, cwd dir) {
	direction := call.Inbound
	var uploads []string
	output, prefix := "", ""
	for _, o := range v.opts {
		if !o.hasValue {
			continue
		}
		switch o.name {
		case "header", "user", "password", "http-user", "http-password", "proxy-user", "proxy-password":
			if o.val.word != nil {
				m.authWords = append(m.authWords, o.val.word)
			}
		case "post-file", "body-file":
			direction = call.Outbound
			if o.val.dynamic {
				m.sendsArgs = true
				m.opaqueUpload = commandSubst(o.val.lit)
				continue
			}
			if o.val.lit == "-" || o.val.lit == "/dev/stdin" {
				m.netSink = true
			} else if p, ok, _ := a.resolve(expandTildeLike(o.val.lit, a), cwd); ok {
				uploads = append(uploads, p)
				cmd.Accesses = append(cmd.Accesses, call.Access{Kind: call.Read, Path: p})
			}
		case "post-data", "body-data":
			direction = call.Outbound
			m.sendsArgs = true
		case "O", "output-document":
			output = o.val.lit
			if o.val.dynamic {
				output = "\x00"
			}
		case "P", "directory-prefix":
			prefix = o.val.lit
		}
	}
	hosts := a.netOperands(cmd, v, direction)
	if len(uploads) > 0 && len(cmd.Net) > 0 {
		cmd.Net[len(cmd.Net)-1].Uploads = uploads
	}
	m.netArgs = true
	m.uploads = uploads
	switch output {
	case "-", "/dev/stdout":
		m.out.t |= tDownload
		return
	case "\x00":
		return
	case "":
		base := cwd
		if prefix != "" {
			if p, ok, _ := a.abs(prefix, cwd); ok {
				base = dir{p, cwd.known}
			}
		}
		for _, u := range hosts {
			if p, ok := a.remoteName(u, base); ok {
				cmd.Accesses = append(cmd.Accesses, call.Access{Kind: call.Write, Path: p})
				m.downloads = append(m.downloads, p)
			}
		}
	default:
		if p, ok, _ := a.resolve(output, cwd); ok {
			cmd.Accesses = append(cmd.Accesses, call.Access{Kind: call.Write, Path: p})
			m.downloads = append(m.downloads, p)
		}
	}
}

// remoteName is the file curl -O or wget saves a URL as: its last path segment in dir.
func (a *analyzer) remoteName(u string, d dir) (string, bool) {
	parsed, err := url.Parse(u)
	name := "index.html"
	if err == nil {
		if b := path.Base(parsed.Path); b != "/" && b != "." && b != "" {
			name = b
		}
	}
	p, ok, _ := a.resolve(name, d)
	return p, ok
}

// netOperands records a connection to each operand that names a host or URL, returning
// the URLs.
func (a *analyzer) netOperands(cmd *call.Command, v *view, d call.Direction) []string {
	var urls []string
	for _, o := range v.raw {
		if o.dynamic {
			cmd.Net = append(cmd.Net, call.Net{Direction: d})
			continue
		}
		if p := fileURL(o.lit); p != "" {
			// curl file:///home/u/.ssh/id_rsa reads the file, as cat does.
			cmd.Accesses = append(cmd.Accesses, call.Access{Kind: call.Read, Path: p})
			continue
		}
		host := hostOf(o.lit)
		if host == "" {
			continue
		}
		urls = append(urls, o.lit)
		cmd.Net = append(cmd.Net, call.Net{Host: host, Direction: d})
	}
	for _, u := range v.values("url") {
		if h := hostOf(u.lit); h != "" {
			urls = append(urls, u.lit)
			cmd.Net = append(cmd.Net, call.Net{Host: h, Direction: d})
		}
	}
	return urls
}

// fileURL returns the absolute local path a file: URL names, cleaned, or "" for any
// other word (netdest.FileURLPath).
func fileURL(s string) string {
	if len(s) < 5 || !strings.EqualFold(s[:5], "file:") {
		return "" // most operands, without parsing them
	}
	if p := netdest.FileURLPath(s); strings.HasPrefix(p, "/") {
		return path.Clean(p)
	}
	return ""
}

// hostOf returns the host a URL or a bare host name names, or "".
func hostOf(s string) string {
	if i := strings.Index(s, "://"); i > 0 {
		u, err := url.Parse(s)
		if err != nil {
			return ""
		}
		return u.Hostname()
	}
	if strings.HasPrefix(s, "-") || strings.ContainsAny(s, " /=@") || !strings.Contains(s, ".") && s != "localhost" {
		host, _, _ := strings.Cut(s, "/")
		if strings.Contains(host, ".") && !strings.ContainsAny(host, " =@") && !strings.HasPrefix(host, "-") && !strings.HasPrefix(s, ".") {
			return host
		}
		return ""
	}
	if strings.HasPrefix(s, ".") || strings.HasSuffix(s, ".") {
		return ""
	}
	return s
}

func isPort(s string) bool {
	if s == "" || len(s) > 11 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if (s[i] < '0' || s[i] > '9') && s[i] != '-' {
			return false
		}
	}
	return true
}

// ssh HOST [COMMAND…]: an interactive session, or a command run remotely (code.go
// analyses it); either way standard input goes to the remote side.
func (a *analyzer) ssh(cmd *call.Command, m *cmdMeta, v *view) {
	if len(v.raw) == 0 {
		return
	}
	host := v.raw[0].lit
	if _, h, ok := strings.Cut(host, "@"); ok {
		host = h
	}
	cmd.Net = append(cmd.Net, call.Net{Host: host, Direction: call.Both})
	m.netSink = true
	m.netArgs = true
}

// remoteCopy: scp, sftp and rsync copy between local paths and HOST:PATH ones; a local
// source copied to a remote destination is uploaded.
func (a *analyzer) remoteCopy(cmd *call.Command, m *cmdMeta, v *view, cwd dir) {
	if len(v.raw) < 2 && v.name != "sftp" {
		return
	}
	remote := func(x arg) (string, bool) {
		if x.dynamic {
			return "", false
		}
		if strings.HasPrefix(x.lit, "/") || strings.HasPrefix(x.lit, "./") {
			return "", false
		}
		hostPart, _, ok := strings.Cut(x.lit, ":")
		if !ok || hostPart == "" {
			return "", false
		}
		if _, h, ok := strings.Cut(hostPart, "@"); ok {
			hostPart = h
		}
		return hostPart, true
	}
	if v.name == "sftp" {
		if len(v.raw) > 0 {
			h, _ := remote(arg{lit: v.raw[0].lit + ":"})
			cmd.Net = append(cmd.Net, call.Net{Host: h, Direction: call.Both})
		}
		cmd.Opaque = true
		return
	}
	dst := v.raw[len(v.raw)-1]
	if host, ok := remote(dst); ok && !dryRun(v) {
		var uploads []string
		for _, src := range v.raw[:len(v.raw)-1] {
			if _, isRemote := remote(src); isRemote || src.dynamic {
				continue
			}
			if p, ok, _ := a.resolve(src.lit, cwd); ok {
				uploads = append(uploads, p)
			}
		}
		cmd.Net = append(cmd.Net, call.Net{Host: host, Direction: call.Outbound, Uploads: uploads})
		m.uploads, m.uploadTrees, m.netArgs = uploads, true, true
		// Files on the other machine are not paths of this one: the destination's effects
		// (rsync --delete) are out of sight.
		cmd.Accesses = dropPath(cmd.Accesses, dst.lit, cwd, a)
		cmd.Opaque = true
		deletes := v.name == "rsync" && v.flag("delete", "delete-before", "delete-during", "delete-after", "delete-delay", "delete-excluded", "del")
		if deletes {
			cmd.Findings = appendFinding(cmd.Findings, findRecursiveDelete, "rsync --delete to "+dst.lit)
		}
		// What lands there, and what --delete removes there, is judged as a remote
		// command's writes and deletes are (sshCode): a file copied over the other
		// machine's /etc/passwd or into its ~/.ssh/authorized_keys, a sync that empties
		// its home or a directory outside its temporary ones, is as bad as here.
		if p, ok := a.remoteTarget(dst.lit); ok {
			cmd.Accesses = append(cmd.Accesses, call.Access{Kind: call.Write, Path: p})
			if deletes {
				cmd.Accesses = append(cmd.Accesses, call.Access{Kind: call.Delete, Path: p, Recursive: true})
			}
		}
		return
	}
	for _, src := range v.raw[:len(v.raw)-1] {
		if host, ok := remote(src); ok {
			cmd.Net = append(cmd.Net, call.Net{Host: host, Direction: call.Inbound})
			cmd.Accesses = dropPath(cmd.Accesses, src.lit, cwd, a)
			if !dryRun(v) {
				a.fetchedCopy(v.name, src.lit, dst, cwd)
			}
		}
	}
	if v.name == "rsync" && !dst.dynamic && v.flag("delete", "delete-before", "delete-during", "delete-after", "delete-delay", "delete-excluded", "del") && !v.flag("n", "dry-run", "list-only") {
		if p, ok, _ := a.resolve(dst.lit, cwd); ok {
			cmd.Accesses = append(cmd.Accesses, call.Access{Kind: call.Delete, Path: p, Recursive: true})
			cmd.Findings = appendFinding(cmd.Findings, findRecursiveDelete, "rsync --delete "+p)
		}
	}
}

// remoteTarget is the path a HOST:PATH operand names on the other machine, with this
// machine's home standing for the remote user's, as for the commands ssh runs there
// (sshCode). An rsync daemon's HOST::MODULE and another user's ~user name no path here.
func (a *analyzer) remoteTarget(word string) (string, bool) {
	_, p, _ := strings.Cut(word, ":")
	switch {
	case strings.HasPrefix(p, ":") || strings.HasPrefix(p, "~") && p != "~" && !strings.HasPrefix(p, "~/"):
		return "", false
	case strings.HasPrefix(p, "/"):
		return path.Clean(p), true
	}
	home, _ := a.st.get("HOME")
	if !home.known || !path.IsAbs(home.s) {
		return "", false
	}
	return path.Join(home.s, strings.TrimPrefix(p, "~")), true
}

// dropPath removes the accesses that a HOST:PATH operand was mistaken for.
func dropPath(accs []call.Access, word string, cwd dir, a *analyzer) []call.Access {
	p, ok, _ := a.resolve(word, cwd)
	if !ok {
		return accs
	}
	out := accs[:0]
	for _, acc := range accs {
		if acc.Path != p {
			out = append(out, acc)
		}
	}
	return out
}

// dd if=FILE of=FILE: what it reads and writes.
func (a *analyzer) dd(cmd *call.Command, m *cmdMeta, v *view, cwd dir) {
	for _, o := range v.raw {
		if o.dynamic {
			cmd.Opaque = true
			continue
		}
		key, val, ok := strings.Cut(o.lit, "=")
		if !ok {
			continue
		}
		kind := call.AccessKind(0)
		switch key {
		case "if":
			kind = call.Read
		case "of":
			kind = call.Write
			m.stdoutRedirected = true
		}
		if kind == 0 {
			continue
		}
		if p, ok, opaque := a.resolve(val, cwd); ok {
			cmd.Accesses = append(cmd.Accesses, call.Access{Kind: kind, Path: p})
			cmd.Opaque = cmd.Opaque || opaque
			if kind == call.Read {
				m.pass = false
			}
		}
	}
}

// tar: -c reads its operands (whole trees) into the archive -f names; -x writes into the
// working directory (or -C DIR).
func (a *analyzer) tar(cmd *call.Command, v *view, cwd dir) {
	target := cwd
	for _, d := range v.values("C", "directory") {
		if !d.dynamic {
			if p, ok, opaque := a.abs(d.lit, cwd); ok {
				target = dir{p, !opaque}
			}
		}
	}
	create := v.flag("c", "create", "r", "append", "u", "update")
	extract := v.flag("x", "extract", "get")
	toStdout := v.flag("O", "to-stdout")
	absolute := v.flag("P", "absolute-names")
	archive := "" // the archive's path, when it is a file the line names
	ops := v.raw
	if len(ops) > 0 && !create && !extract && !strings.HasPrefix(v.args[0].lit, "-") {
		// Old-style bundle as the first word: tar czf out.tgz dir.
		b := ops[0].lit
		create = strings.ContainsAny(b, "cru")
		extract = strings.Contains(b, "x")
		toStdout = toStdout || strings.Contains(b, "O")
		absolute = absolute || strings.Contains(b, "P")
		ops = ops[1:]
		if strings.Contains(b, "f") && len(ops) > 0 {
			if p, ok, _ := a.resolve(ops[0].lit, cwd); ok && ops[0].lit != "-" {
				kind := call.Read
				if create {
					kind = call.Write
				}
				cmd.Accesses = append(cmd.Accesses, call.Access{Kind: kind, Path: p})
				archive = p
			}
			ops = ops[1:]
		}
	}
	for _, f := range v.values("f", "file") {
		if f.dynamic || f.lit == "-" {
			continue
		}
		if p, ok, _ := a.resolve(f.lit, cwd); ok {
			kind := call.Read
			if create {
				kind = call.Write
			}
			cmd.Accesses = append(cmd.Accesses, call.Access{Kind: kind, Path: p})
			archive = p
		}
	}
	switch {
	case create:
		// --remove-files deletes what it archives.
		removes := v.flag("remove-files")
		for _, o := range ops {
			if o.dynamic {
				cmd.Opaque = true // a directory holding secrets that it names is still read
			}
			a.addAccess(&cmd.Accesses, call.Read, o, true, target)
			if removes {
				a.addAccess(&cmd.Accesses, call.Delete, o, true, target)
			}
		}
	case extract && toStdout:
		a.membersRead(cmd, archive, ops, target)
	case extract:
		if absolute {
			anywhere(cmd, "tar -P")
		}
		if target.path != "" {
			cmd.Accesses = append(cmd.Accesses, call.Access{Kind: call.Write, Path: target.path, Recursive: true})
		}
	}
}

// membersRead records the members an extractor prints by name (tar xOf A ./.env, unzip
// -p A .env): each is read as the file it was, named by its path inside the archive,
// which is taken as a directory holding it (A/.env), or, for an archive read from the
// standard input, the directory it is extracted from (tar czf - . | tar xzOf - ./.env).
// A file that holds credentials is one by its name wherever it is kept.
func (a *analyzer) membersRead(cmd *call.Command, archive string, members []arg, from dir) {
	base := dir{path: archive, known: archive != ""}
	if !base.known {
		base = from
	}
	for _, m := range members {
		if m.dynamic || m.lit == "" || strings.HasPrefix(m.lit, "-") {
			continue
		}
		m.lit = strings.TrimLeft(m.lit, "/")
		m.pat = strings.TrimLeft(m.pat, "/")
		cmd.Opaque = a.addAccess(&cmd.Accesses, call.Read, m, false, base) || cmd.Opaque
	}
}

// gitFiles records the working-tree files a git command names and changes: checkout
// and restore overwrite them, rm deletes them, mv moves them, stash push reverts them.
// (Commands that change the whole tree, such as reset --hard or clean, are findings.)
// For checkout without --, every operand is taken as a path, since a branch name and a
// file name cannot be told apart before the command runs.
func (a *analyzer) gitFiles(cmd *call.Command, v *view, cwd dir) {
	if len(v.raw) == 0 || v.raw[0].dynamic {
		return
	}
	for _, d := range v.values("C") {
		if d.dynamic {
			cmd.Opaque = true
			return
		}
		if p, ok, opaque := a.abs(d.lit, cwd); ok {
			cwd = dir{p, !opaque}
		}
	}
	sub := v.raw[0].lit
	targets := v.raw[1:]
	if afterDashes := argsAfterDashes(v.args); afterDashes != nil {
		targets = afterDashes
	}
	kind, recursive := call.Write, false
	switch sub {
	case "checkout":
		if v.flag("b", "B", "orphan") {
			return
		}
	case "restore":
		if v.flag("staged", "S") && !v.flag("worktree", "W") {
			return // only the index changes
		}
	case "rm":
		if v.flag("cached") {
			return // only the index changes
		}
		kind, recursive = call.Delete, v.flag("r")
	case "mv":
		if len(targets) < 2 {
			return
		}
		a.gitPath(cmd, targets[len(targets)-1], call.Write, false, cwd)
		kind, targets = call.Delete, targets[:len(targets)-1]
	case "show", "cat-file", "log", "diff", "blame", "grep", "whatchanged":
		// They print what the repository holds of the files they name: git show
		// HEAD:.env and git log -p -- .env print the secret as cat .env would, from any
		// commit. REV:PATH names PATH (from the repository's root; the analysis takes it
		// from the working directory, where it mostly is); after --, every word is a path.
		for _, t := range v.raw[1:] {
			if t.dynamic {
				continue
			}
			if _, p, ok := strings.Cut(t.lit, ":"); ok && p != "" && !strings.Contains(t.lit, "://") {
				a.gitPath(cmd, arg{lit: p}, call.Read, false, cwd)
			}
		}
		if afterDashes := argsAfterDashes(v.args); afterDashes != nil {
			for _, t := range afterDashes {
				a.gitPath(cmd, t, call.Read, false, cwd)
			}
		}
		a.gitOutputs(cmd, v, cwd)
		return
	case "format-patch", "range-diff", "diff-tree", "diff-files", "diff-index":
		a.gitOutputs(cmd, v, cwd)
		return
	case "archive", "bundle":
		// git archive HEAD and git bundle create - --all write the repository's files, its
		// whole tree, to a file or the standard output: a read of the project (trees.go).
		if v.flag("remote") || sub == "bundle" && (len(v.raw) < 2 || v.raw[1].lit != "create") || !cwd.known {
			return
		}
		root := cwd.path
		if r := a.projectRoot(); r != "" && under(root, r) {
			root = r
		}
		cmd.Accesses = append(cmd.Accesses, call.Access{Kind: call.Read, Path: root, Recursive: true})
		out := optionValues(v, "output", "o")
		if sub == "bundle" && len(v.raw) > 2 {
			out = v.raw[2:3]
		}
		for _, f := range out {
			if f.lit != "-" {
				a.gitPath(cmd, f, call.Write, false, cwd)
			}
		}
		return
	case "clone":
		// git clone URL DIR writes the repository's files into DIR, which may be a
		// directory whose files run (.git/hooks, a shell's plugin directory).
		if len(targets) >= 2 {
			a.gitPath(cmd, targets[len(targets)-1], call.Write, true, cwd)
		}
		return
	case "stash":
		// Only stash push with paths names files; a bare stash reverts every modified
		// file, which the analysis cannot list.
		if len(v.raw) < 2 || v.raw[1].lit != "push" || argsAfterDashes(v.args) == nil && len(targets) < 2 {
			return
		}
		if argsAfterDashes(v.args) == nil {
			targets = targets[1:]
		}
	default:
		return
	}
	for _, t := range targets {
		a.gitPath(cmd, t, kind, recursive, cwd)
	}
}

// gitOutputs records the files git's diff and log commands write instead of printing:
// --output=FILE (git diff --output=~/.bashrc replaces the file with a diff), and the
// directory format-patch writes its patches into (-o DIR).
func (a *analyzer) gitOutputs(cmd *call.Command, v *view, cwd dir) {
	for _, f := range optionValues(v, "output") {
		a.gitPath(cmd, f, call.Write, false, cwd)
	}
	if v.raw[0].lit == "format-patch" {
		for _, d := range optionValues(v, "o", "output-directory") {
			a.gitPath(cmd, d, call.Write, true, cwd)
		}
	}
}

// gitPath records one path a git command changes. "." and directories are trees.
func (a *analyzer) gitPath(cmd *call.Command, t arg, kind call.AccessKind, recursive bool, cwd dir) {
	if t.dynamic {
		cmd.Opaque = true
		return
	}
	p, ok, opaque := a.resolve(t.lit, cwd)
	if !ok {
		cmd.Opaque = true
		return
	}
	if opaque {
		cmd.Opaque = true
	}
	if t.lit == "." || strings.HasSuffix(t.lit, "/") {
		recursive = true
	}
	cmd.Accesses = append(cmd.Accesses, call.Access{Kind: kind, Path: p, Recursive: recursive, Glob: t.glob})
}

// argsAfterDashes returns the words after a "--" argument, or nil when there is none.
func argsAfterDashes(args []arg) []arg {
	for i, x := range args {
		if !x.dynamic && x.lit == "--" {
			return args[i+1:]
		}
	}
	return nil
}

// searchFilters narrows a recursive search by its file filters (grep --include, ripgrep's
// -g/--glob/--iglob): the files it reads are those the filters name below each directory
// it searches, hidden ones included, so that grep -r KEY --include='.env*' . reads .env
// files, which a plain search of the project is not taken to do.
func (a *analyzer) searchFilters(cmd *call.Command, v *view) {
	var filters []string
	for _, f := range v.values("include", "g", "glob", "iglob") {
		if f.dynamic {
			return // unknown: the search stays judged as reading everything below
		}
		if g := glob.SearchFilter(f.lit); g != "" {
			filters = append(filters, g)
		}
	}
	if len(filters) == 0 {
		return
	}
	out := cmd.Accesses[:0:0]
	for _, acc := range cmd.Accesses {
		if acc.Kind != call.Read || !acc.Recursive || acc.Glob || acc.Redirect {
			out = append(out, acc)
			continue
		}
		for _, f := range filters {
			out = append(out, call.Access{Kind: call.Read, Path: path.Join(acc.Path, f), Glob: true, Hidden: true})
		}
	}
	cmd.Accesses = out
}

// socatTCP returns the host and port of socat's TCP address (TCP:HOST:PORT,
// TCP4-CONNECT:HOST:PORT), when it has one.
func socatTCP(v *view) (host, port string) {
	for _, o := range v.raw {
		if o.dynamic {
			continue
		}
		kind, rest, ok := strings.Cut(o.lit, ":")
		if !ok || !strings.HasPrefix(strings.ToLower(kind), "tcp") || strings.Contains(strings.ToLower(kind), "listen") {
			continue
		}
		rest, _, _ = strings.Cut(rest, ",")
		if i := strings.LastIndexByte(rest, ':'); i > 0 {
			return strings.Trim(rest[:i], "[]"), rest[i+1:]
		}
	}
	return "", ""
}
