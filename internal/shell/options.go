package shell

import (
	"slices"
	"strings"
	"sync"
)

// valueOptions says, per program, which options take a value, so that the value is not
// mistaken for an operand (`curl -o out URL`: out is the -o value, URL the operand) and so
// that rules can read it (`curl -X DELETE`, `dd of=`). A program not listed is parsed as if
// none of its options took a value. Options of subcommands (git commit -m) are listed with
// the program: one flat set per program is enough to find operands and flags.
type valueOpts struct {
	short string // short options that take a value: "-o out", "-oout"
	// attached are short options whose value, optional, can only be the rest of their
	// word: mysql -psecret, while mysql -p prompts and its next word is not a password.
	attached string
	long     []string // long options that take a value when not written --name=value
	// subcommand says the first operand names a subcommand (git push, docker rm): the
	// options before it are the program's own (git -C DIR, -c K=V, --no-pager), which a
	// rule written as "git push" must see through.
	subcommand bool
	// oneDash says the program writes its long options with one dash (gdb -ex CMD, erl
	// -eval EXPR): -name is the option name, not a cluster of one-letter flags.
	oneDash bool
	// dashOperand are letters that, when a word is a dash followed only by them, make the
	// word an operand rather than options: chmod -x FILE takes -x as its mode.
	dashOperand string
}

var shellOptions = valueOpts{short: "oO", long: []string{"rcfile", "init-file"}}

// fdOptions are fd's options that take a value; --search-path and --base-directory name
// where it looks (catalog.go's execOnFound reads them).
var fdOptions = valueOpts{short: "etdESojc", long: []string{"extension", "type", "max-depth", "min-depth", "exact-depth",
	"exclude", "size", "changed-within", "changed-before", "change-newer-than", "change-older-than", "owner", "threads",
	"color", "search-path", "base-directory", "ignore-file", "max-results", "batch-size", "path-separator", "format"}}

// valueOptions is built on first use, like the tables of tables.go.
var valueOptions = sync.OnceValue(func() map[string]valueOpts {
	opts := map[string]valueOpts{
		"git": {short: "Cc", long: []string{"git-dir", "work-tree", "namespace", "exec-path", "message", "file", "author", "date", "template",
			"reuse-message", "reedit-message", "fixup", "squash", "cleanup", "gpg-sign", "branch", "origin", "depth", "upload-pack", "receive-pack",
			"repo", "push-option", "strategy", "strategy-option", "onto", "format"}, subcommand: true},
		"curl": {short: "ATXbcdDeEFHKmoQrTuUwxyYzz", long: []string{"unix-socket", "abs-unix-socket", "data", "data-ascii", "data-binary", "data-raw", "data-urlencode", "form", "form-string",
			"output", "upload-file", "request", "header", "user", "user-agent", "referer", "cookie", "cookie-jar", "config", "max-time", "connect-timeout",
			"proxy", "proxy-user", "resolve", "connect-to", "cacert", "cert", "key", "url", "write-out", "retry", "output-dir", "json", "oauth2-bearer", "dump-header", "range", "interface", "limit-rate"}},
		"wget": {short: "OoaPUeTtwQiB", long: []string{"output-document", "output-file", "append-output", "directory-prefix", "user-agent", "header", "post-data", "post-file", "body-data", "body-file", "method", "timeout", "tries", "input-file", "user", "password", "http-password", "ftp-password", "proxy-password", "load-cookies", "save-cookies", "execute"}},
		"ssh":  {short: "BbcDEeFIiJLlmOoPpQRSWw", long: nil},
		// The Clojure CLI's aliases are written onto their option (-M:test, -X:deploy),
		// as are its -S options (-Sdeps, -Spath): never the next word.
		"clojure": {attached: "MXTAS"},
		"clj":     {attached: "MXTAS"},
		"scp":     {short: "cFiJloPS", long: nil},
		"sftp":    {short: "BbcDFiJloPRSs", long: nil},
		"rsync":   {short: "eBfT", long: []string{"rsh", "exclude", "include", "filter", "exclude-from", "include-from", "files-from", "rsync-path", "backup-dir", "suffix", "chmod", "chown", "temp-dir", "compare-dest", "copy-dest", "link-dest", "log-file", "password-file", "partial-dir", "max-size", "min-size", "timeout", "bwlimit", "info", "debug", "out-format", "port"}},
		"nc":      {short: "ceIiOpqsTwXx", long: nil},
		"netcat":  {short: "ceIiOpqsTwXx", long: nil},
		"ncat":    {short: "ceIiOpsw", long: []string{"exec", "sh-exec", "lua-exec", "source", "source-port", "wait", "idle-timeout", "output", "hex-dump", "proxy", "proxy-type", "proxy-auth", "allow", "allowfile", "deny", "denyfile", "max-conns", "send-only"}},
		"tar":     {short: "fCTXbgHKLNVIF", long: []string{"file", "directory", "files-from", "exclude-from", "exclude", "transform", "use-compress-program", "to-command", "owner", "group", "mode", "mtime", "newer", "format", "label", "blocking-factor", "checkpoint-action", "info-script", "new-volume-script"}},
		"grep":    {short: "efmABCd", long: []string{"regexp", "file", "max-count", "after-context", "before-context", "context", "include", "exclude", "exclude-dir", "label", "color", "colour", "binary-files", "directories", "devices", "exclude-from"}},
		"rg":      {short: "eEfgjmMrtTAB", long: []string{"regexp", "file", "glob", "iglob", "type", "type-not", "max-count", "replace", "threads", "encoding", "max-depth", "context", "after-context", "before-context", "sort", "sortr", "color", "colors", "ignore-file", "pre", "max-filesize", "path-separator"}},
		"sed":     {short: "efl", long: []string{"expression", "file", "line-length"}},
		"xargs":   {short: "adEeIiLlnPs", long: []string{"arg-file", "delimiter", "eof", "replace", "max-lines", "max-args", "max-procs", "max-chars", "process-slot-var"}},
		"find":    {},
		// Debuggers: gdb writes its long options with one dash or two (-ex, --ex), lldb
		// with getopt's. The catalog says which of them are code (catalog.txt).
		"gdb": {long: []string{"x", "command", "ix", "init-command", "ex", "eval-command", "iex", "init-eval-command", "p", "pid",
			"cd", "d", "directory", "s", "symbols", "e", "exec", "se", "c", "core", "data-directory", "D", "tty", "t", "args"}, oneDash: true},
		"lldb": {short: "oOsSkKpncaf", long: []string{"one-line", "one-line-before-file", "source", "source-before-file", "one-line-on-crash",
			"source-on-crash", "attach-pid", "attach-name", "core", "arch", "file", "debug-file", "log-file"}},
		// keytool's options are words after one dash (-keystore FILE, -alias NAME).
		"keytool": {long: []string{"keystore", "storepass", "alias", "file", "storetype", "keyalg", "keysize", "validity", "dname",
			"keypass", "srckeystore", "destkeystore", "srcstorepass", "deststorepass", "ext", "providername", "providerclass",
			"providerpath", "sigalg", "srcalias", "destalias", "srcstoretype", "deststoretype", "infile", "outfile", "startdate"}, oneDash: true},
		// networksetup's options are words after one dash (-listallnetworkservices,
		// -setwebproxy SERVICE HOST PORT); the catalog lists those that change the network.
		"networksetup": {oneDash: true},
		// plutil -replace KEY -json VALUE FILE: the key and the typed value are values.
		// rabbitmqadmin -H HOST -V VHOST delete queue name=Q: its connection's options first.
		"rabbitmqadmin": {short: "HPVupcNUfdqs", long: []string{"host", "port", "vhost", "username", "password", "config", "node", "base-uri", "format", "depth", "path-prefix"}, subcommand: true},
		// alembic -c FILE -n NAME -x KEY=VALUE downgrade base: its own options first.
		"alembic": {short: "cnx", long: []string{"config", "name"}, subcommand: true},
		"plutil":  {long: []string{"replace", "insert", "remove", "extract", "type", "o", "s", "e", "r", "json", "xml", "string", "integer", "float", "bool", "date", "data"}, oneDash: true},
		// certutil's verbs are words after one dash (-hashfile FILE, -urlcache -f URL).
		"certutil": {oneDash: true},
		// MATLAB's options are words after one dash (-batch STATEMENT, -r STATEMENT, -sd DIR).
		"matlab": {long: []string{"batch", "r", "sd", "logfile"}, oneDash: true},
		// erl's options are words after one dash (-eval EXPR, -s MOD FUNC, -sname NAME).
		"erl": {long: []string{"eval", "s", "run", "S", "pa", "pz", "sname", "name", "setcookie", "config", "boot", "args_file", "mode",
			"env", "hidden", "kernel"}, oneDash: true},
		"docker":  {short: "cevpwulmH", long: []string{"volume", "mount", "env", "env-file", "publish", "name", "workdir", "user", "network", "net", "pid", "ipc", "uts", "userns", "cap-add", "cap-drop", "device", "entrypoint", "label", "memory", "cpus", "platform", "hostname", "add-host", "security-opt", "tmpfs", "log-driver", "log-opt", "restart", "ulimit", "file", "tag", "build-arg", "target", "context", "host", "config", "format", "filter", "cgroupns", "runtime", "volumes-from", "gpus", "dns", "link", "mac-address", "ip", "expose", "health-cmd", "stop-signal", "shm-size", "storage-opt", "sysctl", "group-add", "attach", "cidfile", "detach-keys", "domainname"}, subcommand: true},
		"podman":  {short: "cevpwulmH", long: []string{"volume", "mount", "env", "env-file", "publish", "name", "workdir", "user", "network", "net", "pid", "ipc", "uts", "userns", "cap-add", "cap-drop", "device", "entrypoint", "label", "file", "tag", "build-arg", "security-opt", "tmpfs"}, subcommand: true},
		"kubectl": {short: "nfclo", long: []string{"namespace", "context", "cluster", "kubeconfig", "filename", "selector", "output", "container", "user", "server", "token", "field-selector", "grace-period", "timeout", "exec-command", "exec-arg", "exec-api-version", "exec-env", "auth-provider", "auth-provider-arg", "type", "address", "port", "target-port"}, subcommand: true},
		"helm":    {short: "nf", long: []string{"namespace", "kube-context", "kubeconfig", "values", "set", "set-string", "version", "repo", "timeout", "output"}, subcommand: true},
		"aws": {long: []string{"profile", "region", "output", "endpoint-url", "query", "bucket", "key", "secret-id", "instance-ids", "queue-url", "topic-arn", "cli-input-json", "color", "ca-bundle",
			// aws s3's transfer options, whose values must not be taken for a source or a destination.
			"acl", "grants", "sse", "sse-c", "sse-c-key", "sse-kms-key-id", "storage-class", "content-type", "cache-control",
			"content-disposition", "content-encoding", "content-language", "expires", "metadata", "metadata-directive",
			"website-redirect", "exclude", "include", "source-region", "expected-size", "page-size", "request-payer",
			"checksum-algorithm", "cli-read-timeout", "cli-connect-timeout", "max-items", "starting-token",
			// ssm send-command and ecs execute-command, whose commands remotelogin.go reads.
			"parameters", "document-name", "targets", "comment", "command", "cluster", "task", "container"}, subcommand: true},
		"doctl":      {short: "tc", long: []string{"access-token", "context", "config", "output", "format", "ssh-command", "ssh-key-path", "ssh-user", "ssh-port"}, subcommand: true},
		"gcloud":     {long: []string{"project", "zone", "region", "format", "account", "configuration", "filter", "verbosity", "impersonate-service-account", "command"}, subcommand: true},
		"conda":      {short: "cnpf", long: []string{"channel", "name", "prefix", "file", "add", "append", "prepend", "remove", "set"}, subcommand: true},
		"mamba":      {short: "cnpf", long: []string{"channel", "name", "prefix", "file"}, subcommand: true},
		"micromamba": {short: "cnpf", long: []string{"channel", "name", "prefix", "file", "root-prefix"}, subcommand: true},
		"az":         {short: "gn", long: []string{"resource-group", "name", "subscription", "output", "query", "location", "scripts", "command-id", "exec-command", "container-name", "password", "username"}, subcommand: true},
		"psql":       {short: "cdfhLoPpTUvF", long: []string{"command", "dbname", "file", "host", "log-file", "output", "pset", "port", "table-attr", "username", "variable", "set", "field-separator", "record-separator"}},
		"mysql":      {short: "eDhPuS", attached: "p", long: []string{"execute", "database", "host", "port", "user", "socket", "defaults-file", "defaults-extra-file", "default-character-set", "init-command"}},
		"mariadb":    {short: "eDhPuS", attached: "p", long: []string{"execute", "database", "host", "port", "user", "socket", "defaults-file", "defaults-extra-file", "default-character-set", "init-command"}},
		"sqlite3":    {long: []string{"cmd", "separator", "newline", "nullvalue"}},
		"redis-cli":  {short: "hpsanuc", long: []string{"user", "pass", "tls", "cacert", "cert", "key", "sni"}},
		"mongosh":    {short: "uph", long: []string{"eval", "file", "username", "password", "host", "port", "authenticationDatabase", "authenticationMechanism"}},
		"mongo":      {short: "uph", long: []string{"eval", "username", "password", "host", "port", "authenticationDatabase"}},
		"dd":         {},
		"chmod":      {long: []string{"reference"}, dashOperand: "rwxXstugo"},
		"chown":      {long: []string{"reference", "from"}},
		"npm":        {long: []string{"registry", "prefix", "cache", "userconfig", "globalconfig", "workspace", "tag", "otp", "scope", "loglevel"}, subcommand: true},
		"yarn":       {long: []string{"registry", "cwd", "modules-folder", "cache-folder"}, subcommand: true},
		"pnpm":       {short: "C", long: []string{"registry", "dir", "filter", "store-dir"}, subcommand: true},
		"pip":        {short: "ricetfdw", long: []string{"requirement", "dest", "wheel-dir", "only-binary", "no-binary", "global-option", "build-option", "index-url", "extra-index-url", "trusted-host", "constraint", "editable", "target", "find-links", "prefix", "root", "cache-dir", "log", "proxy", "timeout", "retries", "cert", "client-cert", "python", "platform", "python-version", "implementation", "abi", "src", "upgrade-strategy", "progress-bar", "config-settings", "report", "exists-action"}, subcommand: true},
		"nmap":       {short: "poDeSgi", long: []string{"exclude", "excludefile", "script", "script-args", "max-retries", "host-timeout", "scan-delay", "max-rate", "min-rate", "data-length", "ttl", "spoof-mac", "proxies", "iflist"}},
		"dig":        {short: "bcfkpqtxy", long: nil},
		"nslookup":   {},
		"host":       {short: "cNRtW", long: nil},
		"socat":      {short: "dlL", long: nil},
		"telnet":     {short: "bBeElnSX", long: nil},
		"crontab":    {short: "u", long: nil},
		"systemctl":  {short: "tpHMnoP", long: []string{"type", "property", "host", "machine", "lines", "output", "signal", "kill-whom", "root", "job-mode"}, subcommand: true},
		"launchctl":  {subcommand: true},
		"journalctl": {short: "uptDMcnoSUbFIk", long: []string{"unit", "user-unit", "priority", "identifier", "directory", "file", "root", "image", "namespace", "since", "until", "lines", "output", "boot", "cursor", "after-cursor", "field", "grep", "facility"}},
		"ssh-keygen": {short: "abCDEfFIJjKmMnNOPrsSt:VwYZz", long: nil},
		"openssl":    {subcommand: true},
		"base64":     {short: "w", long: []string{"wrap"}},
		"xxd":        {short: "cgloOns", long: []string{"cols", "groupsize", "len", "seek", "offset", "name"}},
		"head":       {short: "nc", long: []string{"lines", "bytes"}},
		"tail":       {short: "ncs", long: []string{"lines", "bytes", "pid", "sleep-interval", "max-unchanged-stats"}},
		"sort":       {short: "kotST", long: []string{"key", "output", "field-separator", "buffer-size", "temporary-directory", "parallel", "files0-from", "batch-size", "compress-program", "random-source", "sort"}},
		"cut":        {short: "bcdf", long: []string{"bytes", "characters", "delimiter", "fields", "output-delimiter"}},
		"awk":        {short: "Fvfi", long: []string{"field-separator", "assign", "file", "include", "load", "source", "exec"}},
		"gawk":       {short: "FvfeEil", long: []string{"field-separator", "assign", "file", "include", "load", "source", "exec"}},
		"mawk":       {short: "Fvf"},
		"nawk":       {short: "Fvf"},
		"python":     {short: "cmWX", long: []string{"check-hash-based-pycs"}},
		"perl":       {short: "eEIMmlx", long: nil},
		"ruby":       {short: "eIrCEFKTWx", long: []string{"encoding", "external-encoding", "internal-encoding", "enable", "disable", "dump"}},
		"node":       {short: "epr", long: []string{"eval", "print", "require", "import", "loader", "experimental-loader", "input-type", "inspect-port", "env-file", "conditions", "title", "max-old-space-size", "stack-size"}},
		"php":        {short: "rBREFcdfz", long: nil},
		"lua":        {short: "el"},
		"osascript":  {short: "eliso"},
		"mkfs":       {short: "tLbcCEgGjJlmnNoOrT", long: []string{"type"}},
		"shred":      {short: "ns", long: []string{"iterations", "size", "random-source"}},
		"nsenter":    {short: "tSGrw", long: []string{"target", "setuid", "setgid", "root", "wd"}},
		"useradd":    {short: "bcdefgGkKpsuU", long: []string{"base-dir", "comment", "home-dir", "expiredate", "inactive", "gid", "groups", "skel", "key", "password", "shell", "uid"}},
		"usermod":    {short: "cdefgGlpsu", long: []string{"comment", "home", "expiredate", "inactive", "gid", "groups", "login", "password", "shell", "uid"}},
		"go":         {short: "o", long: nil, subcommand: true},
		"cargo":      {short: "pjZ", long: []string{"registry", "index", "package", "jobs", "target", "features", "manifest-path", "config", "target-dir", "bin", "example", "test", "bench", "profile", "color", "git", "branch", "tag", "rev", "path", "root", "version"}, subcommand: true},
		"gem":        {short: "sv", long: []string{"source", "version", "install-dir", "bindir"}, subcommand: true},
		"terraform":  {subcommand: true},
		"gh":         {short: "RXfFHpqt", long: []string{"repo", "method", "field", "raw-field", "header", "jq", "template", "input", "hostname", "preview", "body", "title", "base", "head", "label", "assignee", "milestone", "branch", "limit", "json", "state", "author"}, subcommand: true},
		"rclone":     {long: []string{"config", "transfers", "checkers", "bwlimit", "log-file", "log-level", "include", "exclude", "filter", "min-age", "max-age", "backup-dir"}, subcommand: true},
		"restic":     {short: "rp", long: []string{"repo", "password-file", "repository-file", "tag", "host", "path", "keep-last", "keep-hourly", "keep-daily", "keep-weekly", "keep-monthly", "keep-yearly", "keep-within", "keep-tag", "max-unused", "cache-dir"}, subcommand: true},
		"borg":       {short: "ae", long: []string{"glob-archives", "keep-last", "keep-daily", "keep-weekly", "keep-monthly", "keep-yearly", "keep-within", "prefix", "rsh", "remote-path", "exclude", "exclude-from", "pattern", "patterns-from", "comment", "compression"}, subcommand: true},
		"script":     {short: "cEeTtOIB", long: []string{"command", "echo", "log-io", "log-in", "log-out", "log-timing", "timing"}},
		"truncate":   {short: "sr", long: []string{"size", "reference"}},
		"install":    {short: "mogtS", long: []string{"mode", "owner", "group", "target-directory", "suffix"}},
		"fd":         fdOptions,
		"fdfind":     fdOptions,
		"mount":      {short: "otLUON", long: []string{"options", "types", "label", "uuid", "test-opts", "namespace", "target", "source", "fstab", "options-mode", "options-source"}},
		"cp":         {short: "tS", long: []string{"target-directory", "suffix", "reflink", "sparse"}},
		"mv":         {short: "tS", long: []string{"target-directory", "suffix"}},
		"ln":         {short: "tS", long: []string{"target-directory", "suffix"}},
		"zip":        {short: "bnPtx", long: nil},
		"gpg":        {short: "orRu", long: []string{"output", "recipient", "local-user", "homedir", "keyring"}},
		"age":        {short: "oirR", long: []string{"output", "identity", "recipient", "recipients-file"}},
		"security":   {short: "acdlsD", long: nil, subcommand: true},
		"mysqladmin": {short: "uhPS", attached: "p", long: []string{"user", "host", "port", "socket", "password"}},
		"flock":      {short: "wEc", long: []string{"timeout", "conflict-exit-code", "command"}},
		"su":         {short: "cgGsw", long: []string{"command", "session-command", "group", "supp-group", "shell", "whitelist-environment"}},
		// Shells: -o and -O take an option's name; bash's --rcfile and --init-file a file it
		// sources. -c is a flag: the code is the first operand.
		"sh":     shellOptions,
		"bash":   shellOptions,
		"rbash":  shellOptions,
		"dash":   shellOptions,
		"ash":    shellOptions,
		"ksh":    shellOptions,
		"mksh":   shellOptions,
		"yash":   shellOptions,
		"posh":   shellOptions,
		"zsh":    shellOptions,
		"enable": {short: "f"},
	}
	// The programs of system.go, credstores.go and exfil.go list their options beside
	// their knowledge.
	for _, more := range []map[string]valueOpts{systemOptions(), dbOptions(), credentialOptions(), exfilOptions(), executorOptions(), editorOptions(), passwordValueOptions(), installOptions()} {
		for name, o := range more {
			opts[name] = o
		}
	}
	// The catalog's options that name code (make -C DIR, cargo --config K=V) take a value.
	for name, e := range catalog() {
		o := opts[name]
		for _, spelling := range slices.Concat(e.codeOptions, e.inline) {
			if long, ok := strings.CutPrefix(spelling, "--"); ok {
				if !slices.Contains(o.long, long) {
					o.long = append(slices.Clip(o.long), long)
				}
			} else if short := strings.TrimPrefix(spelling, "-"); len(short) == 1 && !strings.Contains(o.short, short) {
				o.short += short
			}
		}
		if len(e.codeOptions)+len(e.inline) > 0 {
			opts[name] = o
		}
	}
	return opts
})

// subcommandAt returns the index in args of the subcommand of the program name, when it
// takes one and options of its own come before it; otherwise 0. The options are stepped
// over as parseOptions reads them, values included.
func subcommandAt(name string, args []arg) int {
	values := valueOptions()[name]
	if !values.subcommand {
		return 0
	}
	for i := 0; i < len(args); i++ {
		s := args[i].lit
		switch {
		case args[i].dynamic || args[i].glob || len(s) < 2 || s[0] != '-':
			return i
		case s == "--":
			if i+1 < len(args) {
				return i + 1
			}
			return 0
		case s[1] == '-':
			if n, _, has := strings.Cut(s[2:], "="); !has && slices.Contains(values.long, n) {
				i++ // the option's value is the next word
			}
		default:
			for j := 1; j < len(s); j++ {
				if strings.IndexByte(values.short, s[j]) >= 0 {
					if j == len(s)-1 {
						i++ // the value is the next word, not the rest of this one
					}
					break
				}
			}
		}
	}
	return 0
}

// canonicalProgram is the name under which the tables list a program: version-suffixed
// spellings (python3.12, pip3) and other names of one program (nodejs, netcat, mkfs.ext4)
// read the entry of its usual name.
func canonicalProgram(name string) string {
	for _, base := range []string{"python", "pypy", "perl", "ruby", "php", "lua", "pip", "node"} {
		if rest, ok := strings.CutPrefix(name, base); ok && isVersion(rest) {
			if base == "pypy" {
				return "python"
			}
			return base
		}
	}
	switch name {
	case "nodejs":
		return "node"
	case "ipython", "ipython3":
		// IPython takes python's -c, -m and scripts, and runs Python.
		return "python"
	case "bsdtar", "gtar":
		return "tar"
	case "tofu", "opentofu":
		// OpenTofu is Terraform's fork, with its commands.
		return "terraform"
	case "luajit":
		return "lua"
	case "netcat", "nc.openbsd", "nc.traditional":
		return "nc"
	case "gradlew", "gradlew.bat":
		// The Gradle wrapper runs the Gradle the project pins, with Gradle's options.
		return "gradle"
	case "mvnw", "mvnw.cmd":
		return "mvn"
	case "sequelize-cli":
		// The npm package sequelize-cli installs its program under both names.
		return "sequelize"
	}
	if strings.HasPrefix(name, "mkfs.") {
		return "mkfs"
	}
	if stem, ok := strings.CutSuffix(name, ".sh"); ok && strings.HasPrefix(stem, "kafka-") {
		// Apache Kafka ships its tools as bin/kafka-topics.sh, Confluent as kafka-topics.
		return stem
	}
	return name
}

// isVersion reports whether s is empty or a version suffix: "3", "3.12", "5.36", "-3.1".
func isVersion(s string) bool {
	s = strings.TrimPrefix(s, "-")
	for i := 0; i < len(s); i++ {
		if (s[i] < '0' || s[i] > '9') && s[i] != '.' {
			return false
		}
	}
	return true
}

// longOptionNames returns the long options moat knows by name for one program: those its
// tables give aliases or values, and those its rules test. They are what an abbreviation
// is resolved against. They are gathered for the program asked about only, when an option
// it is given is none of them: a hook decides one command per process.
func longOptionNames(prog string) []string {
	var names []string
	add := func(n string) {
		if len(n) > 1 && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	for from, to := range flagAliases()[prog] {
		add(from)
		add(to)
	}
	for _, n := range valueOptions()[prog].long {
		add(n)
	}
	for _, r := range effectRules()[prog] {
		for _, n := range r.anyOf {
			add(n)
		}
		for _, n := range r.noneOf {
			add(n)
		}
	}
	return names
}

// longOption resolves an abbreviated long option the way GNU getopt_long and git do: a
// name that is not one the program's tables know, but the unique prefix of one, is that
// option (git push --forc is --force). Otherwise the name stays as written: an ambiguous
// prefix makes the program fail, and an unknown option tests nothing.
func longOption(prog, n string) string {
	if n == "" || strings.HasPrefix(n, "no-") {
		return n
	}
	known := longOptionNames(prog)
	if slices.Contains(known, n) {
		return n
	}
	match := ""
	for _, k := range known {
		if strings.HasPrefix(k, n) {
			if match != "" {
				return n
			}
			match = k
		}
	}
	if match == "" {
		return n
	}
	return match
}

// optionWithValue reads words[i], an option word, against vo and the extra long options
// that also take a value: its name without dashes, and when it takes a value (takes), the
// value (after =, or the next word) and the index of the last word it used. more is false
// when it takes a value that no word is left for.
func optionWithValue(words []arg, i int, vo valueOpts, extra ...string) (name string, value arg, last int, takes, more bool) {
	name, val, has := strings.Cut(strings.TrimLeft(words[i].lit, "-"), "=")
	takes = slices.Contains(vo.long, name) || slices.Contains(extra, name) || len(name) == 1 && strings.Contains(vo.short, name)
	switch {
	case !takes:
		return name, arg{}, i, false, true
	case has:
		return name, arg{lit: val}, i, true, true
	case i+1 >= len(words):
		return name, arg{}, i, true, false
	}
	return name, words[i+1], i + 1, true, true
}
