package shell

import (
	"cmp"
	"slices"
	"strings"
	"sync"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/netdest"
	"mvdan.cc/sh/v3/syntax"
)

// This file says where a secret that a command prints ends up: in the agent's context
// (the default: whatever a command prints reaches the agent), or nowhere it can be read.
// The environment dumped, a secret variable echoed, a token printed by a credential tool
// is a finding when it reaches the agent; piped into a program that only consumes it
// (docker login --password-stdin, a clipboard, grep -q) or thrown away, it is not. A token
// in an Authorization header goes to the service it is for; sent anywhere else it is
// exfiltration (flow.go).

// Finding ids of this file.
const (
	findSecretShown = "credentials.secret-shown"
	findEnvLoad     = "credentials.env-load"
)

// serviceHosts maps a service to the host names that serve it: a name and every name
// below it (github.com covers api.github.com).
var serviceHosts = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"github":       {"github.com", "githubusercontent.com", "ghcr.io", "github.io", "ghe.com"},
		"gitlab":       {"gitlab.com"},
		"bitbucket":    {"bitbucket.org", "atlassian.com"},
		"aws":          {"amazonaws.com", "aws", "amazonaws.com.cn", "aws.amazon.com"},
		"google":       {"googleapis.com", "google.com", "gcr.io", "pkg.dev", "cloud.google.com"},
		"azure":        {"azure.com", "windows.net", "microsoft.com", "microsoftonline.com", "azurecr.io", "azure.net", "visualstudio.com"},
		"openai":       {"openai.com"},
		"anthropic":    {"anthropic.com"},
		"huggingface":  {"huggingface.co", "hf.co"},
		"npm":          {"npmjs.org", "npmjs.com"},
		"pypi":         {"pypi.org", "pythonhosted.org"},
		"docker":       {"docker.io", "docker.com"},
		"slack":        {"slack.com"},
		"stripe":       {"stripe.com"},
		"cloudflare":   {"cloudflare.com"},
		"digitalocean": {"digitalocean.com"},
		"heroku":       {"heroku.com"},
		"vercel":       {"vercel.com"},
		"netlify":      {"netlify.com"},
		"sentry":       {"sentry.io"},
		"datadog":      {"datadoghq.com", "datadoghq.eu", "ddog-gov.com"},
		"twilio":       {"twilio.com"},
		"coverity":     {"coverity.com"},
		"codecov":      {"codecov.io"},
		"coveralls":    {"coveralls.io"},
		"sonar":        {"sonarcloud.io"},
		"sendgrid":     {"sendgrid.com"},
		"linear":       {"linear.app"},
		"notion":       {"notion.com", "notion.so"},
		"atlassian":    {"atlassian.net", "atlassian.com"},
		"groq":         {"groq.com"},
		"mistral":      {"mistral.ai"},
		"cohere":       {"cohere.ai", "cohere.com"},
		"replicate":    {"replicate.com"},
		"pulumi":       {"pulumi.com"},
		"terraform":    {"terraform.io", "hashicorp.cloud"},
		"fly":          {"fly.io"},
		"circleci":     {"circleci.com"},
		"discord":      {"discord.com", "discordapp.com"},
		"telegram":     {"telegram.org"},
		"gemini":       {"googleapis.com"},
	}
})

// serviceVarPrefixes map the start of an environment variable's name to the service its
// secret is for. A name no prefix matches is a secret for an unknown service.
var serviceVarPrefixes = []struct{ prefix, service string }{
	{"GITHUB_", "github"}, {"GH_", "github"}, {"GITLAB_", "gitlab"}, {"GL_", "gitlab"}, {"CI_JOB_TOKEN", "gitlab"},
	{"BITBUCKET_", "bitbucket"}, {"AWS_", "aws"}, {"GOOGLE_", "google"}, {"GCP_", "google"}, {"GCLOUD_", "google"},
	{"GEMINI_", "gemini"}, {"AZURE_", "azure"}, {"ARM_", "azure"}, {"OPENAI_", "openai"}, {"ANTHROPIC_", "anthropic"},
	{"CLAUDE_", "anthropic"}, {"HF_", "huggingface"}, {"HUGGING_FACE_", "huggingface"}, {"HUGGINGFACE_", "huggingface"},
	{"NPM_", "npm"}, {"NODE_AUTH_TOKEN", "npm"}, {"PYPI_", "pypi"}, {"TWINE_", "pypi"}, {"DOCKER_", "docker"},
	{"DOCKERHUB_", "docker"}, {"SLACK_", "slack"}, {"STRIPE_", "stripe"}, {"CLOUDFLARE_", "cloudflare"}, {"CF_API_", "cloudflare"},
	{"DIGITALOCEAN_", "digitalocean"}, {"HEROKU_", "heroku"}, {"VERCEL_", "vercel"}, {"NETLIFY_", "netlify"},
	{"COVERITY_", "coverity"}, {"CODECOV_", "codecov"}, {"COVERALLS_", "coveralls"}, {"SONAR_", "sonar"},
	{"SENTRY_", "sentry"}, {"DD_", "datadog"}, {"DATADOG_", "datadog"}, {"TWILIO_", "twilio"}, {"SENDGRID_", "sendgrid"},
	{"LINEAR_", "linear"}, {"NOTION_", "notion"}, {"JIRA_", "atlassian"}, {"ATLASSIAN_", "atlassian"},
	{"CONFLUENCE_", "atlassian"}, {"GROQ_", "groq"}, {"MISTRAL_", "mistral"}, {"COHERE_", "cohere"},
	{"REPLICATE_", "replicate"}, {"PULUMI_", "pulumi"}, {"TF_TOKEN_", "terraform"}, {"TFE_", "terraform"},
	{"FLY_", "fly"}, {"CIRCLE_", "circleci"}, {"CIRCLECI_", "circleci"}, {"DISCORD_", "discord"}, {"TELEGRAM_", "telegram"},
}

// varService is the service a secret environment variable is for, or "".
func varService(name string) string {
	u := strings.ToUpper(name)
	for _, p := range serviceVarPrefixes {
		if strings.HasPrefix(u, p.prefix) {
			return p.service
		}
	}
	return ""
}

// selfHosted are, per service that is often run on a company's own machines (GitLab,
// GitHub Enterprise, Jira, a private package registry), words that the first label of
// such a host holds: gitlab.example.com is taken to be a GitLab, and a token for GitLab
// sent there is not judged as leaving for a stranger.
var selfHosted = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"github": {"github", "ghe"}, "gitlab": {"gitlab"}, "bitbucket": {"bitbucket"}, "atlassian": {"jira", "confluence", "atlassian"},
		"sentry": {"sentry"}, "npm": {"npm", "registry", "artifactory", "nexus", "verdaccio"}, "pypi": {"pypi", "artifactory", "nexus", "devpi"},
		"docker": {"registry", "docker", "harbor", "artifactory", "nexus"},
	}
})

// hostServes reports whether host is one of the service's, one that a company runs it on,
// or the machine itself.
func hostServes(host, service string) bool {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	if netdest.Loopback(h) || h == "[::1]" {
		return true
	}
	for _, d := range serviceHosts()[service] {
		if h == d || strings.HasSuffix(h, "."+d) {
			return true
		}
	}
	if first, rest, ok := strings.Cut(h, "."); ok && rest != "" {
		for _, w := range selfHosted()[service] {
			if strings.Contains(first, w) {
				return true
			}
		}
	}
	return false
}

// servesAll reports whether the command connects only to hosts of the service. A
// connection to a host known only at run time is not known to serve it.
func servesAll(c *call.Command, service string) bool {
	if service == "" || len(c.Net) == 0 {
		return false
	}
	for _, n := range c.Net {
		if n.Host == "" || !hostServes(n.Host, service) {
			return false
		}
	}
	return true
}

// someHostOutside reports whether the command connects to a host known not to serve the
// service.
func someHostOutside(c *call.Command, service string) bool {
	for _, n := range c.Net {
		if n.Host != "" && !hostServes(n.Host, service) {
			return true
		}
	}
	return false
}

// sendsToCapture reports whether the command connects to a capture host.
func sendsToCapture(c *call.Command) bool {
	for _, n := range c.Net {
		if netdest.Capture(n.Host) {
			return true
		}
	}
	return false
}

// secretSinks are commands that read a secret on their standard input and keep it to
// themselves: registry logins, CLI logins, secret stores being filled, key agents and
// clipboards. What flows into them does not reach the agent.
var secretSinks = sync.OnceValue(func() map[string][]rule {
	login := []rule{{sub: []string{"login"}, anyOf: []string{"password-stdin"}}, {sub: []string{"registry", "login"}, anyOf: []string{"password-stdin"}}}
	any := []rule{{}}
	return map[string][]rule{
		"docker": login, "podman": login, "nerdctl": login, "buildah": login, "skopeo": login, "helm": login,
		"oras": login, "crane": {{sub: []string{"auth", "login"}, anyOf: []string{"password-stdin"}}}, "finch": login,
		"gh":      {{sub: []string{"auth", "login"}, anyOf: []string{"with-token"}}, {sub: []string{"secret", "set"}}},
		"glab":    {{sub: []string{"auth", "login"}, anyOf: []string{"stdin"}}},
		"vault":   {{sub: []string{"login"}, operand: "-"}},
		"ssh-add": {{operand: "-"}},
		"gpg":     {{anyOf: []string{"import", "passphrase-fd"}}},
		"xclip":   any, "xsel": any, "pbcopy": any, "wl-copy": any, "clip.exe": any,
		"flyctl":     {{sub: []string{"secrets", "import"}}},
		"fly":        {{sub: []string{"secrets", "import"}}},
		"wrangler":   {{sub: []string{"secret", "put"}}},
		"vercel":     {{sub: []string{"env", "add"}}},
		"gcloud":     {{sub: []string{"secrets"}}},
		"chpasswd":   any,
		"kubectl":    {{sub: []string{"create", "secret"}}},
		"openssl":    {{anyOf: []string{"passin", "pass"}}},
		"cryptsetup": any,
	}
})

// quietConsumers print nothing of what they read: they count it, hash it, or only say
// whether it matched.
var quietConsumers = sync.OnceValue(func() map[string][]rule {
	any := []rule{{}}
	return map[string][]rule{
		"grep":  {{anyOf: []string{"q", "quiet", "silent", "c", "count", "l", "files-with-matches", "L", "files-without-match"}}},
		"egrep": {{anyOf: []string{"q", "quiet", "silent", "c", "count"}}},
		"fgrep": {{anyOf: []string{"q", "quiet", "silent", "c", "count"}}},
		"rg":    {{anyOf: []string{"q", "quiet", "c", "count", "l", "files-with-matches"}}},
		"wc":    any, "md5sum": any, "sha1sum": any, "sha256sum": any, "sha512sum": any, "b2sum": any, "cksum": any,
		"shasum": any, "md5": any, "test": any, "[": any, "true": any, "false": any, ":": any,
	}
})

// namesOnly reports whether a command keeps only what comes before the first = of each
// line that has one, the variables' names without their values: cut -d= -f1 -s. Without
// -s, cut (as awk -F= '{print $1}' and sed 's/=.*//') prints whole every line without an
// =, and a value of several lines (a private key in a variable) is printed but for its
// first line.
func namesOnly(v *view) bool {
	if v.name != "cut" || !v.flag("s", "only-delimited") {
		return false
	}
	d, f := v.values("d", "delimiter"), v.values("f", "fields")
	return len(d) == 1 && len(f) == 1 && !d[0].dynamic && d[0].lit == "=" && !f[0].dynamic && f[0].lit == "1" && len(v.raw) == 0
}

// plainFilter reports whether a command is grep keeping only the lines of variables whose
// names say they hold no secret: env | grep PATH, printenv | grep '^NODE_ENV='. A pattern
// that a secret's name may contain (TOKEN, KEY, AWS…), an inverted or a regular
// expression match keeps the output shown.
func plainFilter(v *view) bool {
	if v.name != "grep" || v.flag("v", "invert-match", "E", "P", "extended-regexp", "perl-regexp", "e", "regexp", "f", "file") || len(v.raw) != 1 || v.raw[0].dynamic {
		return false
	}
	pat := strings.TrimSuffix(strings.TrimPrefix(v.raw[0].lit, "^"), "=")
	if len(pat) < 3 || strings.ContainsAny(pat, `.*?+[](){}|\$`) {
		return false
	}
	u := strings.ToUpper(pat)
	if secretName().MatchString(u) {
		return false
	}
	for _, w := range []string{"KEY", "TOKEN", "SECRET", "PASS", "PWD", "AUTH", "CRED", "SESSION", "COOKIE", "API", "PRIVATE", "CERT", "SIGN", "PAT"} {
		if strings.Contains(u, w) && w != "PAT" || strings.Contains(w, u) {
			return false
		}
	}
	for _, p := range serviceVarPrefixes {
		if strings.HasPrefix(p.prefix, u) || strings.HasPrefix(u, strings.TrimSuffix(p.prefix, "_")) {
			return false
		}
	}
	return true
}

// environRead reports the environments of processes a command prints besides env and
// its kin: /proc/PID/environ read under any spelling of PID (a glob, $$, a substitution),
// ps's e option, systemd's manager environment, printenv of names known only at run time,
// a container's environment through docker inspect.
func environRead(cmd *call.Command, v *view) string {
	if printers[v.name] && v.name != "printenv" || v.name == "grep" || v.name == "rg" {
		return ""
	}
	for _, acc := range cmd.Accesses {
		if acc.Kind == call.Read && procEnviron(acc.Path) {
			return acc.Path
		}
	}
	for _, x := range v.args {
		if x.dynamic && procEnviron(x.lit) {
			return x.lit
		}
	}
	switch v.name {
	case "ps":
		// BSD-style options are written without a dash; e among them shows each
		// process's environment (ps eww, ps auxe).
		for _, o := range v.raw {
			if !o.dynamic && o.lit != "" && strings.Trim(o.lit, "aAcCeEfgGhHjlLmMnrsStTuUvwxXZ") == "" && strings.Contains(o.lit, "e") {
				return "ps " + o.lit
			}
		}
	case "systemctl":
		if len(v.ops) > 0 && v.ops[0] == "show-environment" {
			return "systemctl show-environment"
		}
	case "printenv":
		for _, o := range v.raw {
			if o.dynamic {
				return "printenv " + o.lit // names known only at run time may be any
			}
		}
	case "docker", "podman", "nerdctl":
		if len(v.ops) > 0 && v.ops[0] == "inspect" {
			for _, x := range v.args {
				if strings.Contains(x.lit, ".Config.Env") || strings.Contains(x.lit, ".Env}") {
					return v.name + " inspect " + x.lit
				}
			}
		}
	}
	return ""
}

// procEnviron reports whether a path, a pattern or a word's source text names a
// process's environment under /proc.
func procEnviron(p string) bool {
	return strings.HasPrefix(p, "/proc/") && strings.HasSuffix(p, "/environ")
}

// matchesAny reports whether a command is one of the rules' forms.
func matchesAny(rules []rule, v *view) bool {
	for i := range rules {
		if _, ok := holds(&rules[i], v); ok {
			return true
		}
	}
	return false
}

// exposureEffects notes what dataflow needs to tell where the command's secrets go.
func (a *analyzer) exposureEffects(cmd *call.Command, m *cmdMeta, v *view) {
	if rs, ok := secretSinks()[v.name]; ok && matchesAny(rs, v) {
		m.secretSink = true
	}
	if rs, ok := quietConsumers()[v.name]; ok && matchesAny(rs, v) || plainFilter(v) || namesOnly(v) {
		m.quiet = true
	}
	switch {
	case hasFinding(cmd.Findings, findCredentialsRead):
		// Called before the command's file reads are judged: this is a tool's output.
		m.printsCredential = true
		m.credService = credentialServices()[v.name]
	case matchesAny(secretManagerReads()[v.name], v):
		// A secret manager's secret is a credential for a service moat cannot name: in
		// an Authorization header it goes where it is meant to, as data anywhere else.
		m.printsCredential = true
	}
	if v.name == "printenv" && hasFinding(cmd.Findings, findSecretEnv) {
		m.showsSecret, m.shownVar = true, "printenv "+strings.Join(v.ops, " ")
	}
	if e := environRead(cmd, v); e != "" {
		cmd.Findings = appendFinding(cmd.Findings, findEnvDump, e)
		m.out.t |= tEnvDump
	}
}

// destination is where what a command prints ends up.
type destination uint8

const (
	shown    destination = iota // printed, or written to a file: the agent may read it
	consumed                    // kept to itself by a login, a clipboard, grep -q, /dev/null
	sent                        // sent over the network: dataflow judges it as exfiltration
	loaded                      // words of export or declare: the environment of what follows
)

// exposures, after dataflow, keeps the findings of secrets printed only where they reach
// the agent or leave the machine: an environment dump, a credential tool's output or a
// secret variable printed into a pipe that only consumes it, or into /dev/null, is no
// exposure.
func (a *analyzer) exposures() {
	var ix *streamIndex
	for i := range a.meta {
		m := &a.meta[i]
		if m.nested {
			continue
		}
		c := &a.cmds[i]
		dump := hasFinding(c.Findings, findEnvDump)
		if !dump && !m.printsCredential && !m.showsSecret && !m.secretRead {
			continue
		}
		if ix == nil {
			ix = a.indexStreams()
		}
		switch a.destination(i, ix) {
		case loaded:
			if m.secretRead && !dump && !m.printsCredential && !m.showsSecret {
				// export $(grep -v '^#' .env | xargs): the values go where source .env
				// puts them, not to the agent; the policy decides by the file's path
				// whether it may be loaded so.
				c.Findings = dropFinding(c.Findings, findCredentialsRead)
				*c = withFinding(*c, findEnvLoad, "into the environment of the commands that follow")
			}
		case shown:
			if m.showsSecret {
				*c = withFinding(*c, findSecretShown, m.shownVar)
			}
		case consumed:
			if dump {
				c.Findings = dropFinding(c.Findings, findEnvDump)
			}
			if m.printsCredential {
				c.Findings = dropFinding(c.Findings, findCredentialsRead)
			}
		}
	}
}

// streamIndex says, for each command, which command reads its output through a pipe and
// which command substitution it runs in, and which command's words hold each
// substitution: built once for the line, so that following outputs costs no more than
// the commands.
type streamIndex struct {
	reader []int         // the pipe reader of each command, or -1
	subst  []syntax.Node // the innermost substitution each command runs in, or nil
	user   map[syntax.Node]int
}

func (a *analyzer) indexStreams() *streamIndex {
	n := len(a.meta)
	ix := &streamIndex{reader: make([]int, n), subst: make([]syntax.Node, n), user: make(map[syntax.Node]int)}
	for i := range ix.reader {
		ix.reader[i] = -1
	}
	for j := range a.meta {
		r := &a.meta[j]
		for _, s := range r.substs {
			if _, seen := ix.user[s]; !seen {
				ix.user[s] = j
			}
		}
		if !r.piped || r.nested || r.in.stderr {
			continue
		}
		for i := r.in.from.start; i < r.in.from.end && i < n; i++ {
			if ix.reader[i] < 0 {
				ix.reader[i] = j
			}
		}
	}
	for s, sp := range a.substs {
		for i := sp.start; i < sp.end && i < n; i++ {
			if cur := ix.subst[i]; cur == nil || sp.end-sp.start < a.substs[cur].end-a.substs[cur].start {
				ix.subst[i] = s
			}
		}
	}
	return ix
}

// destination says where what the command at i prints ends up: printed or written to a
// file, passed on by programs that print what they read, kept by a program that
// consumes it, or sent.
func (a *analyzer) destination(i int, ix *streamIndex) destination {
	for range len(a.meta) {
		m := &a.meta[i]
		if m.stdoutRedirected {
			if m.stdoutNull || a.sh.elsewhere > 0 {
				return consumed // on a CI runner, a file there is shown to no one
			}
			return shown
		}
		if j := ix.reader[i]; j >= 0 {
			r := &a.meta[j]
			switch {
			case r.secretSink || r.quiet:
				return consumed
			case r.netSink:
				return sent
			case r.pass && !r.nested && writesFile(&a.cmds[j]):
				return shown // tee: a copy in a file the agent may read
			case r.pass && !r.nested:
				i = j
				continue
			}
			return shown
		}
		if s := ix.subst[i]; s != nil {
			k, used := ix.user[s]
			if !used {
				if a.sh.elsewhere > 0 {
					// On a CI runner, a variable's value is printed only where it is
					// used, which is judged there.
					return consumed
				}
				return shown // an assignment's value: where it goes next is not followed
			}
			if printers[a.meta[k].prog] && !a.meta[k].netArgs {
				// echo "$(printenv)" > f: what the printer prints goes where its output
				// goes.
				i = k
				continue
			}
			inAuth, _ := a.authSubst(k, s)
			switch {
			case a.loadsEnvironment(k), slices.Contains(a.meta[k].envFiles, s):
				return loaded
			case a.authConsumed(k, s):
				return consumed // a token in a header to its own service
			case a.meta[k].netArgs && !inAuth:
				return sent
			}
		}
		return shown
	}
	return shown
}

// writesFile reports whether a command writes a file of its own (tee FILE), besides
// what it passes on.
func writesFile(c *call.Command) bool {
	return slices.ContainsFunc(c.Accesses, func(acc call.Access) bool { return acc.Kind == call.Write && !acc.Redirect })
}

// loadsEnvironment reports whether the command at k puts the words of its substitutions
// into the environment, and does nothing else with them: export, or declare and typeset
// with -x.
func (a *analyzer) loadsEnvironment(k int) bool {
	c := &a.cmds[k]
	switch a.meta[k].prog {
	case "export":
		return !c.HasFlag("p") && !c.HasFlag("f")
	case "declare", "typeset":
		return c.HasFlag("x") && !c.HasFlag("p") && !c.HasFlag("f")
	}
	return false
}

// authConsumed reports whether the substitution s, in the words of the command at k, is a
// credential sent in an authentication option (a header, a user) to hosts of the service
// it is for, and nothing else: curl -H "Authorization: Bearer $(gh auth token)"
// https://api.github.com. Credentials for an unknown service, or data of another kind,
// are not.
func (a *analyzer) authConsumed(k int, s syntax.Node) bool {
	ok, service := a.authSubst(k, s)
	return ok && service != "" && servesAll(&a.cmds[k], service)
}

// authSubst reports whether the substitution s is inside an authentication option of
// the command at k and prints only credentials of credential tools, with the service they
// are for ("" when unknown, or when several).
func (a *analyzer) authSubst(k int, s syntax.Node) (bool, string) {
	m := &a.meta[k]
	inAuth := m.inAuthWord(s)
	if w, ok := m.viaVar[s]; ok && !inAuth {
		inAuth = slices.Contains(m.authWords, w)
	}
	sp, found := a.substs[s]
	if !inAuth || !found {
		return false, ""
	}
	service, creds := "", 0
	for j := sp.start; j < sp.end && j < len(a.meta); j++ {
		p := &a.meta[j]
		switch {
		case p.printsCredential:
			if creds > 0 && p.credService != service {
				service = ""
			} else {
				service = p.credService
			}
			creds++
		case p.secretRead || p.out.t&(tSecret|tEnvDump) != 0 || hasFinding(a.cmds[j].Findings, findEnvDump):
			return false, "" // a secret file or the environment in a header is data sent
		}
	}
	return creds > 0, service
}

// inAuthWord reports whether node n lies inside one of the command's authentication
// words. The words' extents are computed once and searched, so that a command with many
// substitutions in many headers costs no more than its words.
func (m *cmdMeta) inAuthWord(n syntax.Node) bool {
	if len(m.authWords) == 0 {
		return false
	}
	if m.authSpans == nil {
		m.authSpans = make([][2]uint, len(m.authWords))
		for i, w := range m.authWords {
			m.authSpans[i] = [2]uint{w.Pos().Offset(), w.End().Offset()}
		}
		slices.SortFunc(m.authSpans, func(x, y [2]uint) int { return cmp.Compare(x[0], y[0]) })
	}
	start, end := n.Pos().Offset(), n.End().Offset()
	// The last word that starts at or before n is the only one that can hold it: the
	// words of a command do not overlap.
	i, _ := slices.BinarySearchFunc(m.authSpans, start, func(sp [2]uint, off uint) int { return cmp.Compare(sp[0], off) })
	for _, j := range []int{i, i - 1} {
		if j >= 0 && j < len(m.authSpans) && m.authSpans[j][0] <= start && end <= m.authSpans[j][1] {
			return true
		}
	}
	return false
}
