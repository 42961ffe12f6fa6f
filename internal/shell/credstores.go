package shell

import (
	"net/url"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/moatdev/moat/internal/call"
)

// This file holds what moat knows about commands that print credentials: OS keyrings and
// password managers, secret stores, the token commands of cloud and SaaS command-line
// tools, git's and docker's credential helpers. Each prints a secret into whatever reads
// its output, the agent's context first of all, so each is credentials.read, and its
// output is secret data for dataflow (flow.go). The files that hold credentials are the
// $secrets path set (internal/pathset), read by any program.

// secretManagerReads are the reads of a team's secret manager. They stay allowed, as how
// a project is meant to fetch its own secrets, and print no finding; what they print is a
// secret for dataflow all the same, so that piping it to the network is exfiltration (vault
// kv get … | curl -d @- …, op read … | nc …). Each rule's finding is unused.
var secretManagerReads = sync.OnceValue(func() map[string][]rule {
	read := func(sub ...string) rule { return rule{sub: sub} }
	return map[string][]rule{
		"vault":         {read("read"), read("kv", "get"), read("kv", "list")},
		"op":            {read("read"), read("item", "get"), read("inject"), read("document", "get")},
		"doppler":       {read("secrets"), read("secrets", "get|download")},
		"infisical":     {read("secrets"), read("export"), read("secrets", "get")},
		"sops":          {{anyOf: []string{"d", "decrypt"}}, read("decrypt")},
		"ansible-vault": {read("view|decrypt")},
		"chamber":       {read("read|export|list")},
		"berglas":       {read("access")},
	}
})

// credentialRules are merged into effectRules; each rule's finding is credentials.read.
var credentialRules = sync.OnceValue(func() map[string][]rule {
	read := func(sub ...string) rule { return rule{sub: sub, finding: findCredentialsRead} }
	readIf := func(anyOf []string, sub ...string) rule {
		return rule{sub: sub, anyOf: anyOf, finding: findCredentialsRead}
	}
	rules := map[string][]rule{
		// OS keyrings and password managers.
		"secret-tool":   {read("lookup|search")},
		"security":      {read("export|find-key")},
		"kwallet-query": {readIf([]string{"r", "read-password"})},
		"kwalletcli":    {readIf([]string{"e", "entry"})},
		"pass":          {{when: passShows, finding: findCredentialsRead}},
		"gopass":        {{when: passShows, finding: findCredentialsRead}},
		"bw":            {read("get|export|unlock|serve"), read("list", "items")},
		"lpass":         {read("show|export")},
		"keepassxc-cli": {read("show|export|attachment-export")},
		"keyctl":        {read("print|read|pipe")},
		"keyring":       {read("get")}, // Python's keyring command
		"lssecret":      {{finding: findCredentialsRead}},
		// A team's secret manager (vault read, op item get, doppler secrets get) is how a
		// project is meant to fetch its own secrets, and stays allowed; the tokens that
		// log in to one are credentials.
		"vault":     {read("print", "token"), read("token", "create")},
		"aws-vault": {read("export")},
		// Cloud and SaaS tools' own tokens and keys.
		"aws": {
			readIf([]string{"with-decryption"}, "ssm", "get-parameter|get-parameters|get-parameters-by-path|get-parameter-history"),
			read("configure", "export-credentials"),
			read("sts", "get-session-token|assume-role|assume-role-with-web-identity|assume-role-with-saml|get-federation-token"),
			read("ecr|ecr-public", "get-login-password|get-authorization-token"),
			read("codeartifact", "get-authorization-token"),
			read("iam", "create-access-key|create-service-specific-credential|reset-service-specific-credential"),
			read("sso", "get-role-credentials"),
			read("rds", "generate-db-auth-token"),
			read("eks", "get-token"),
			read("kms", "decrypt"),
		},
		"gcloud": {
			read("auth", "application-default", "print-access-token"),
			read("config", "config-helper"),
			read("secrets", "versions", "access"),
			read("iam", "service-accounts", "keys", "create"),
			read("sql", "generate-login-token"),
		},
		"az": {
			read("keyvault", "secret", "show|download"),
			read("keyvault", "key", "download"),
			read("ad", "sp", "create-for-rbac"),
			read("ad", "sp|app", "credential", "reset"),
			read("storage", "account", "keys", "list"),
			read("storage", "account", "show-connection-string"),
			readIf([]string{"expose-token"}, "acr", "login"),
			read("acr", "credential", "show"),
			read("cosmosdb", "keys", "list"),
		},
		"kubectl":  {readIf([]string{"raw"}, "config", "view"), read("create", "token")},
		"oc":       {readIf([]string{"raw"}, "config", "view"), readIf([]string{"t", "show-token"}, "whoami")},
		"gh":       {readIf([]string{"t", "show-token"}, "auth", "status")},
		"glab":     {readIf([]string{"t", "show-token"}, "auth", "status")},
		"heroku":   {read("auth:token|authorizations:create|config:get"), {sub: []string{"config"}, when: herokuConfigAll, finding: findCredentialsRead}},
		"firebase": {read("login:ci"), read("functions:config:get")},
		"fly":      {read("auth", "token"), read("tokens", "create")},
		"flyctl":   {read("auth", "token"), read("tokens", "create")},
		"cf":       {read("oauth-token")},
		"ibmcloud": {read("iam", "oauth-tokens")},
		"stripe":   {readIf([]string{"list"}, "config")},
		"netlify":  {read("env:get"), readIf([]string{"plain", "json"}, "env:list")},
		"railway":  {{when: railwayVariables, finding: findCredentialsRead}},
		// A configuration value whose name says it is a secret, printed by the tool that
		// keeps it: git config --get github.token, composer config github-oauth.github.com.
		"composer": {{sub: []string{"config"}, when: configGetsSecret, finding: findCredentialsRead}},
		"pnpm":     {{sub: []string{"config|c", "get"}, when: configGetsSecret, finding: findCredentialsRead}},
		"npm":      {{sub: []string{"config|c", "get"}, operand: "*_auth*", finding: findCredentialsRead}, read("token", "create")},
		"yarn":     {{sub: []string{"config", "get"}, operand: "*authtoken*", finding: findCredentialsRead}},
		// Infrastructure state holds every secret of what it manages (database passwords,
		// generated keys), in plain text: terraform.tfstate is in $secrets, and printing
		// it is reading it. pulumi keeps its secrets encrypted unless told to show them.
		"terraform":  {read("state", "pull"), {sub: []string{"show"}, when: showsState, finding: findCredentialsRead}},
		"terragrunt": {read("state", "pull"), {sub: []string{"show"}, when: showsState, finding: findCredentialsRead}},
		"pulumi":     {readIf([]string{"show-secrets"})},
		// git's credential helpers print the stored password of the host they are asked.
		"git": {read("credential", "fill"), {sub: []string{"config"}, when: configGetsSecret, finding: findCredentialsRead}},
	}
	for _, helper := range []string{"store", "cache", "osxkeychain", "libsecret", "manager", "manager-core", "wincred", "gnome-keyring", "oauth"} {
		rules["git"] = append(rules["git"], read("credential-"+helper, "get"))
		rules["git-credential-"+helper] = []rule{read("get")}
	}
	for _, helper := range []string{"desktop", "osxkeychain", "secretservice", "pass", "wincred", "ecr-login", "gcr", "gcloud", "acr-env"} {
		rules["docker-credential-"+helper] = []rule{read("get")}
	}
	return rules
})

// credentialOptions are the options of this file's programs that take a value.
var credentialOptions = sync.OnceValue(func() map[string]valueOpts {
	return map[string]valueOpts{
		"secret-tool":   {long: []string{"label"}},
		"kwallet-query": {short: "frw", long: []string{"folder", "read-password", "write-password"}},
		"kwalletcli":    {short: "efpP", long: []string{"entry", "folder"}},
		"op":            {long: []string{"account", "vault", "fields", "format", "session", "cache", "config", "encoding", "out-file", "in-file", "otp"}, subcommand: true},
		"bw":            {long: []string{"session", "output", "format", "organizationid", "itemid", "folderid", "collectionid", "search", "url"}, subcommand: true},
		"lpass":         {long: []string{"field", "color", "sync", "basic-auth"}, subcommand: true},
		"keepassxc-cli": {short: "akyf", long: []string{"attributes", "key-file", "yubikey", "format"}, subcommand: true},
		// vault's options are Go's flags: -address=…, one dash or two.
		"vault":     {long: []string{"address", "namespace", "format", "field", "method", "path", "mount", "version", "policy", "ttl", "role"}, subcommand: true, oneDash: true},
		"aws-vault": {long: []string{"backend", "region", "duration", "format"}, subcommand: true},
		"oc":        {short: "nfo", long: []string{"namespace", "context", "cluster", "kubeconfig", "filename", "output", "server", "token", "user"}, subcommand: true},
		"glab":      {short: "RhXfFH", long: []string{"repo", "hostname", "method", "field", "raw-field", "header", "input"}, subcommand: true},
		"heroku":    {short: "ar", long: []string{"app", "remote"}, subcommand: true},
		"firebase":  {short: "P", long: []string{"project", "token", "account"}, subcommand: true},
	}
})

// credentialServices are the services whose credentials a program prints, for tools
// that speak for one service; others (vault, pass, op) print credentials for anything.
var credentialServices = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"gh": "github", "glab": "gitlab", "aws": "aws", "gcloud": "google", "az": "azure", "heroku": "heroku",
		"firebase": "google", "npm": "npm", "yarn": "npm", "docker-credential-ecr-login": "aws",
		"docker-credential-gcr": "google", "docker-credential-gcloud": "google", "docker-credential-acr-env": "azure",
	}
})

// passShows: pass NAME, pass show NAME and gopass show|cat|otp NAME print a password;
// pass alone, pass ls and the commands that change the store do not.
func passShows(_ *analyzer, v *view) string {
	if len(v.ops) == 0 || v.flag("c", "clip") {
		return "" // nothing, or copied to the clipboard without being printed
	}
	switch v.ops[0] {
	case "show", "cat", "otp", "generate":
		return v.name + " " + strings.Join(v.ops, " ")
	case "ls", "list", "find", "search", "grep", "init", "insert", "edit", "rm", "remove", "delete", "mv", "move",
		"cp", "copy", "git", "help", "version", "sync", "setup", "config", "recipients", "mounts", "templates",
		"audit", "fsck", "update", "completion", "clone", "create", "history", "link", "unclip":
		return ""
	}
	return v.name + " " + v.ops[0]
}

// sqliteURI: sqlite3 and duckdb open a database written as a URI, file:PATH?query
// (sqlite3 -readonly "file:…/Login Data?immutable=1" reads a browser's passwords while
// the browser runs).
func (a *analyzer) sqliteURI(cmd *call.Command, v *view, cwd dir) {
	if len(v.raw) == 0 || v.raw[0].dynamic {
		return
	}
	rest, ok := strings.CutPrefix(v.raw[0].lit, "file:")
	if !ok {
		return
	}
	rest, _, _ = strings.Cut(rest, "?")
	if strings.HasPrefix(rest, "//") {
		rest = rest[2:]
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			rest = rest[i:] // file://host/path: the authority is empty or localhost
		}
	}
	if unescaped, err := url.PathUnescape(rest); err == nil {
		rest = unescaped
	}
	cmd.Accesses = dropPath(cmd.Accesses, v.raw[0].lit, cwd, a)
	cmd.Opaque = a.addAccess(&cmd.Accesses, call.Read, arg{lit: expandTildeLike(rest, a)}, false, cwd) || cmd.Opaque
}

// railwayVariables: railway variables (railway variable list) prints the service's
// variables with their values; --set and the other verbs change them.
func railwayVariables(_ *analyzer, v *view) string {
	if v.flag("set") {
		return ""
	}
	switch {
	case len(v.ops) == 1 && (v.ops[0] == "variables" || v.ops[0] == "variable"),
		len(v.ops) == 2 && v.ops[0] == "variable" && (v.ops[1] == "list" || v.ops[1] == "ls"):
		return "railway " + strings.Join(v.ops, " ")
	}
	return ""
}

// configGetsSecret: git config, composer config and pnpm config get print a setting's
// value when given its name alone (git config --get NAME, git config get NAME, composer
// config NAME); a name that says the value is a secret (a token, a password, an OAuth
// key) makes it a credentials read. Setting it (a name and a value) is not.
func configGetsSecret(_ *analyzer, v *view) string {
	ops := v.ops[1:]
	if len(ops) > 0 && ops[0] == "get" {
		ops = ops[1:]
	}
	if len(ops) != 1 || v.flag("unset", "unset-all", "add", "replace-all", "remove-section", "rename-section", "list", "l", "edit", "e") {
		return ""
	}
	if !secretSettingName(ops[0]) {
		return ""
	}
	return v.name + " " + strings.Join(v.ops, " ")
}

// secretSettingName reports whether a configuration setting's name says its value is a
// secret: github.token, sendemail.smtpPass, github-oauth.github.com,
// //registry.npmjs.org/:_authToken, http.https://github.com/.extraheader (where CI
// checkouts keep the job's token as an Authorization header).
func secretSettingName(name string) bool {
	name = strings.ToLower(name)
	for _, w := range []string{"token", "password", "passwd", "smtppass", "secret", "oauth", "apikey", "api-key", "api_key", "_auth", "http-basic", "bearer", "extraheader"} {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

// herokuConfigAll: heroku config alone prints every config variable of the app, its
// secrets included; config:set and config:unset are other words.
func herokuConfigAll(_ *analyzer, v *view) string {
	if len(v.ops) == 1 {
		return "heroku config"
	}
	return ""
}

// showsState: terraform show -json prints the state (or a plan) with its sensitive values
// in plain text; without -json they are redacted.
func showsState(_ *analyzer, v *view) string {
	for _, x := range v.args {
		if !x.dynamic && (x.lit == "-json" || x.lit == "--json") {
			return v.name + " show -json"
		}
	}
	return ""
}

// sshKeygenModes are ssh-keygen's options that make it do something other than generate
// a key pair (print, convert, search, sign, test moduli): then -f names a file it reads.
const sshKeygenModes = "lyRFeiBDHkQrsYMTGA"

// sshKeygenFiles: ssh-keygen generating a key pair writes -f FILE and FILE.pub, and -p
// (a new passphrase, or none) and -c (a new comment) rewrite FILE. A pair generated over
// a key that is there replaces it, and the old key is lost (yes | ssh-keygen -f
// ~/.ssh/id_rsa). A new key file is the user's to make, so a generation writes only a
// key on disk now, for the agent's own line, or one of the default identities (id_rsa,
// id_ed25519…), which a user has, for code run later, when the disk then is unknown.
func (a *analyzer) sshKeygenFiles(cmd *call.Command, v *view, cwd dir) {
	for _, o := range v.opts {
		if len(o.name) == 1 && strings.Contains(sshKeygenModes, o.name) {
			return
		}
	}
	for _, f := range v.values("f") {
		if f.dynamic {
			continue // the key's name is unknown: a new file, as far as moat can tell
		}
		p := a.tildePath(f.lit)
		replaces := v.flag("p", "c")
		if !replaces {
			abs, ok, unsure := a.abs(p, cwd)
			if !ok || unsure {
				continue
			}
			if a.depth == 0 && a.sh.env.Entries != nil {
				names, listed := a.sh.env.Entries(path.Dir(abs))
				replaces = listed && slices.Contains(names, path.Base(abs))
			} else {
				replaces = strings.HasPrefix(path.Base(abs), "id_") && !strings.Contains(path.Base(abs), ".")
			}
		}
		if replaces {
			cmd.Opaque = a.addAccess(&cmd.Accesses, call.Write, arg{lit: p}, false, cwd) || cmd.Opaque
		}
	}
}
