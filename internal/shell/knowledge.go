package shell

import (
	"cmp"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/netdest"
	"github.com/moatdev/moat/internal/planted"
)

// This file holds what moat knows about what programs do beyond the files named by their
// operands (tables.go): findings that a subcommand, an option or an operand is evidence of.
// The knowledge is data: a rule names the program, the leading operands (subcommand) it
// applies to, the options or operand that must be present, and the finding. The few effects
// that need more than that (SQL, curl's uploads, chmod's mode…) are named functions,
// listed in the same table.

// view is a parsed command as rules read it.
type view struct {
	name  string   // canonical program name
	args  []arg    // every word after the program
	ops   []string // operands, lower-cased where the rule compares them
	raw   []arg    // operands as parsed
	opts  []option // options, canonical names
	flags []string
}

func (v *view) flag(names ...string) bool {
	for _, o := range v.opts {
		if slices.Contains(names, o.name) {
			return true
		}
	}
	return false
}

// value returns the values of the options named.
func (v *view) values(names ...string) []arg {
	var out []arg
	for _, o := range v.opts {
		if o.hasValue && slices.Contains(names, o.name) {
			out = append(out, o.val)
		}
	}
	return out
}

// hasArg reports whether the literal word s is among the arguments ("--" included).
func (v *view) hasArg(s string) bool {
	for _, x := range v.args {
		if !x.dynamic && x.lit == s {
			return true
		}
	}
	return false
}

// rule is one piece of knowledge about a program.
type rule struct {
	// sub are the leading operands the rule applies to, each a set of alternatives
	// separated by |, or * for any; nil for any command of the program.
	sub []string
	// anyOf are options at least one of which must be given; noneOf may not be given.
	anyOf  []string
	noneOf []string
	// operand is a pattern (path.Match, on the lower-cased word) that some operand after
	// sub must match.
	operand string
	// when computes the evidence itself, for knowledge the fields cannot express; it
	// returns "" when the rule does not apply.
	when    func(*analyzer, *view) string
	finding string
}

// effectRules maps a canonical program name to its rules; each of infraCLIs also gets the
// rule that finds a destructive verb among its first operands.
var effectRules = sync.OnceValue(func() map[string][]rule {
	rules := map[string][]rule{
		"git": {
			{sub: []string{"push"}, anyOf: []string{"f", "force"}, finding: findForcePush},
			{sub: []string{"push"}, operand: "+*", finding: findForcePush},
			{sub: []string{"push"}, anyOf: []string{"mirror"}, finding: findForcePush},
			{sub: []string{"push"}, anyOf: []string{"delete", "d"}, finding: findBranchDelete},
			{sub: []string{"push"}, operand: ":*", finding: findBranchDelete},
			{sub: []string{"reset"}, anyOf: []string{"hard", "merge"}, finding: findResetHard},
			{sub: []string{"clean"}, anyOf: []string{"f", "force"}, noneOf: []string{"n", "dry-run"}, finding: findGitClean},
			{sub: []string{"checkout"}, when: gitCheckoutDiscards, finding: findGitDiscard},
			{sub: []string{"restore"}, when: gitRestoreDiscards, finding: findGitDiscard},
			{sub: []string{"switch"}, anyOf: []string{"discard-changes", "f", "force"}, finding: findGitDiscard},
			{sub: []string{"stash", "drop|clear"}, finding: findStashDrop},
			{sub: []string{"branch"}, anyOf: []string{"D"}, finding: findBranchDelete},
			{sub: []string{"branch"}, when: gitBranchForceDelete, finding: findBranchDelete},
			{sub: []string{"filter-branch|filter-repo"}, finding: findHistoryRewrite},
			{sub: []string{"reflog", "expire|delete"}, finding: findHistoryRewrite},
			{sub: []string{"update-ref"}, anyOf: []string{"d"}, finding: findHistoryRewrite},
			// Unreachable commits (a dropped stash, a branch deleted by mistake) are kept
			// for weeks; these delete them at once.
			{sub: []string{"prune"}, finding: findHistoryRewrite},
			{sub: []string{"gc"}, when: gitGCPrunesNow, finding: findHistoryRewrite},
			{sub: []string{"push"}, anyOf: []string{"prune"}, finding: findBranchDelete},
			{sub: []string{"worktree", "remove"}, anyOf: []string{"f", "force"}, finding: findGitDiscard},
			{sub: []string{"submodule", "deinit"}, anyOf: []string{"f", "force"}, finding: findGitDiscard},
			// A submodule updated by force throws away its local changes; a branch moved by
			// force (branch -f, switch -C, checkout -B) leaves the commits it held only in
			// the reflog, as reset --hard does; git replace makes history read otherwise.
			{sub: []string{"submodule", "update"}, anyOf: []string{"f", "force"}, finding: findGitDiscard},
			{sub: []string{"branch"}, anyOf: []string{"f", "force"}, noneOf: []string{"d", "D", "delete", "m", "M", "move", "c", "C", "copy"}, finding: findHistoryRewrite},
			{sub: []string{"switch"}, anyOf: []string{"C"}, finding: findHistoryRewrite},
			{sub: []string{"checkout"}, anyOf: []string{"B"}, finding: findHistoryRewrite},
			{sub: []string{"replace"}, noneOf: []string{"l", "list", "d", "delete"}, finding: findHistoryRewrite},
			{when: gitRunsCode, finding: ""},
			{sub: []string{"add|stage"}, when: gitStagesSecret, finding: findCredentialsRead},
			{sub: []string{"config"}, operand: "url.*.insteadof", finding: findRegistry},
			{sub: []string{"config"}, operand: "url.*.pushinsteadof", finding: findRegistry},
		},
		"kubectl": {
			{sub: []string{"delete"}, finding: findInfraDelete},
			{sub: []string{"drain"}, finding: findInfraDelete},
			{sub: []string{"get|describe", "secret|secrets"}, when: kubectlSecretValues, finding: findCredentialsRead},
			// A cluster's server, or its certificate check, changed in the kubeconfig:
			// later kubectl commands, with the user's credentials, go to another cluster,
			// as docker context create sends docker's to another engine.
			{sub: []string{"config", "set-cluster"}, anyOf: []string{"server", "insecure-skip-tls-verify", "certificate-authority", "proxy-url"}, finding: findContainerAPI},
			{sub: []string{"config", "set"}, operand: "clusters.*.server", finding: findContainerAPI},
			{sub: []string{"config", "set"}, operand: "clusters.*.insecure-skip-tls-verify", finding: findContainerAPI},
			{sub: []string{"config", "set-credentials"}, when: kubectlExecPlugin, finding: ""},
		},
		"helm": {{sub: []string{"uninstall|delete|del|un"}, finding: findInfraDelete}},
		"terraform": {
			{sub: []string{"destroy"}, finding: findInfraDelete},
			{sub: []string{"apply"}, when: terraformApplyDestroy, finding: findInfraDelete},
			{sub: []string{"state", "rm"}, finding: findInfraDelete},
			{sub: []string{"workspace", "delete"}, finding: findInfraDelete},
		},
		"pulumi": {{sub: []string{"destroy"}, finding: findInfraDelete}},
		"aws": {
			{sub: []string{"secretsmanager", "get-secret-value"}, finding: findCredentialsRead},
			{sub: []string{"configure", "get"}, operand: "*secret*", finding: findCredentialsRead},
			{sub: []string{"configure", "set"}, when: awsCredentialProcess, finding: ""},
			{when: awsDestructive, finding: findInfraDelete},
			{when: awsAuditOff, finding: findSecurityOff},
			// An account that leaves its organisation leaves its policies and guardrails.
			{sub: []string{"organizations", "leave-organization"}, finding: findSecurityOff},
			{sub: []string{"s3", "sync"}, anyOf: []string{"delete"}, finding: findInfraDelete},
		},
		"hub": {{sub: []string{"delete"}, finding: findInfraDelete}},
		// A sync that deletes at the destination what the source lacks, in a bucket (aws
		// s3 sync --delete above; rsync's own --delete in streams.go).
		"azcopy":  {{sub: []string{"remove|rm"}, finding: findInfraDelete}, {sub: []string{"sync"}, when: azcopyDeletes, finding: findInfraDelete}},
		"gsutil":  {{sub: []string{"rsync"}, anyOf: []string{"d"}, noneOf: []string{"n"}, finding: findInfraDelete}},
		"mc":      {{sub: []string{"mirror"}, anyOf: []string{"remove"}, noneOf: []string{"dry-run"}, finding: findInfraDelete}},
		"railway": {{sub: []string{"down|delete"}, finding: findInfraDelete}},
		"getent":  {{sub: []string{"shadow|gshadow"}, finding: findCredentialsRead}},
		// Trusting a directory's .envrc or mise configuration lets its code run whenever
		// the directory is entered: the project's own is judged when written; another's
		// is code moat has not read.
		"direnv": {{sub: []string{"allow|permit|grant"}, when: trustsForeignCode, finding: findOpaque}},
		"rustup": {{sub: []string{"toolchain", "link"}, when: rustupLink, finding: findOpaque}},
		"make":   {{when: makeShell, finding: findOpaque}},
		"gmake":  {{when: makeShell, finding: findOpaque}},
		"mise":   {{sub: []string{"trust"}, when: trustsForeignCode, finding: findOpaque}},
		"gh": {
			{sub: []string{"auth", "token"}, finding: findCredentialsRead},
			{sub: []string{"alias", "set"}, when: ghAlias, finding: ""},
			{when: cliVerb(3), finding: findInfraDelete},
			{sub: []string{"repo", "archive"}, finding: findInfraDelete},
			// A repository transferred to another owner leaves its organisation's hands.
			{sub: []string{"repo", "transfer"}, finding: findInfraDelete},
			{sub: []string{"api"}, when: httpDeletes(ghAPIRequest), finding: findHTTPDelete},
			{sub: []string{"api"}, when: httpSecurityOff(ghAPIRequest), finding: findSecurityOff},
		},
		"glab":  {{sub: []string{"api"}, when: httpDeletes(ghAPIRequest), finding: findHTTPDelete}, {sub: []string{"api"}, when: httpSecurityOff(ghAPIRequest), finding: findSecurityOff}},
		"curl":  {{when: httpDeletes(curlRequest), finding: findHTTPDelete}, {when: httpPayments(curlRequest), finding: findPayment}, {when: httpSecurityOff(curlRequest), finding: findSecurityOff}},
		"wget":  {{when: httpDeletes(wgetRequest), finding: findHTTPDelete}, {when: httpPayments(wgetRequest), finding: findPayment}},
		"http":  {{when: httpDeletes(httpieRequest), finding: findHTTPDelete}, {when: httpPayments(httpieRequest), finding: findPayment}, {when: httpSecurityOff(httpieRequest), finding: findSecurityOff}},
		"https": {{when: httpDeletes(httpieRequest), finding: findHTTPDelete}, {when: httpPayments(httpieRequest), finding: findPayment}, {when: httpSecurityOff(httpieRequest), finding: findSecurityOff}},
		"xh":    {{when: httpDeletes(httpieRequest), finding: findHTTPDelete}, {when: httpPayments(httpieRequest), finding: findPayment}, {when: httpSecurityOff(httpieRequest), finding: findSecurityOff}},
		// rclone cleanup empties the remote's trash and old versions; dedupe deletes
		// copies; restic key remove can lock the repository; borg recreate rewrites
		// archives without what it is told to exclude.
		"rclone": {
			{sub: []string{"sync|move|moveto"}, noneOf: []string{"dry-run", "n"}, finding: findInfraDelete},
			{sub: []string{"cleanup|dedupe"}, noneOf: []string{"dry-run", "n"}, finding: findInfraDelete},
			{when: cliVerb(1), finding: findInfraDelete},
		},
		"restic": {{when: cliVerb(2), finding: findInfraDelete}},
		"borg":   {{when: cliVerb(1), finding: findInfraDelete}, {sub: []string{"repo-delete|rdelete|compact|recreate"}, noneOf: []string{"n", "dry-run"}, finding: findInfraDelete}},
		// decK makes a Kong gateway match the file, deleting what the file lacks.
		"deck":  {{sub: []string{"sync"}, noneOf: []string{"dry-run"}, finding: findInfraDelete}, {sub: []string{"gateway", "sync"}, finding: findInfraDelete}},
		"rsync": {{anyOf: []string{"remove-source-files"}, finding: findRecursiveDelete}, {when: rsyncShell, finding: ""}},
		// A remote forward (-R) or a SOCKS proxy (-D) opens a way into this machine, or
		// through it, to whoever reaches the listening port; -w a tunnel device.
		"ssh":                   {{when: sshRunsCode, finding: ""}, {anyOf: []string{"R", "D", "w"}, finding: findRawSocket}},
		"scp":                   {{when: sshRunsCode, finding: ""}},
		"sftp":                  {{when: sshRunsCode, finding: ""}},
		"kafka-topics":          {{anyOf: []string{"delete"}, finding: findInfraDelete}},
		"kafka-consumer-groups": {{anyOf: []string{"delete", "delete-offsets", "reset-offsets"}, noneOf: []string{"dry-run"}, finding: findInfraDelete}},
		"kafka-acls":            {{anyOf: []string{"remove"}, finding: findInfraDelete}},
		"kafka-configs":         {{anyOf: []string{"delete-config"}, finding: findInfraDelete}},
		"kafka-delete-records":  {{finding: findInfraDelete}},
		// fastlane match nuke revokes and deletes the team's signing certificates and
		// profiles.
		"fastlane":      {{sub: []string{"match", "nuke"}, finding: findInfraDelete}},
		"rabbitmqctl":   {{when: cliVerb(1), finding: findInfraDelete}},
		"rabbitmqadmin": {{when: cliVerb(1), finding: findInfraDelete}},
		"mkfs":          {{operand: "/dev/*", finding: findDiskWipe}},
		"mke2fs":        {{operand: "/dev/*", finding: findDiskWipe}},
		"mkswap":        {{operand: "/dev/*", finding: findDiskWipe}},
		"wipefs":        {{operand: "/dev/*", anyOf: []string{"a", "all", "o", "offset"}, noneOf: []string{"n", "no-act"}, finding: findDiskWipe}},
		"blkdiscard":    {{operand: "/dev/*", finding: findDiskWipe}},
		"fdisk":         {{operand: "/dev/*", noneOf: []string{"l", "list"}, finding: findDiskWipe}},
		"sfdisk":        {{operand: "/dev/*", noneOf: []string{"l", "list", "d", "dump", "J", "json"}, finding: findDiskWipe}},
		"cfdisk":        {{operand: "/dev/*", finding: findDiskWipe}},
		"sgdisk":        {{operand: "/dev/*", noneOf: []string{"p", "print", "i", "info"}, finding: findDiskWipe}},
		"gdisk":         {{operand: "/dev/*", noneOf: []string{"l"}, finding: findDiskWipe}},
		"parted":        {{when: partedWrites, finding: findDiskWipe}},
		"chmod":         {{when: chmodSetuid, finding: findSetuid}, {when: chmodWorldWritable, finding: findWorldWritable}},
		"umask":         {{when: umaskWorldWritable, finding: findWorldWritable}},
		"docker": {
			{sub: []string{"volume", "rm|prune"}, finding: findInfraDelete},
			// Stopped containers keep what was written in them (a database run without a
			// volume); these remove every one at once.
			{sub: []string{"system|container", "prune"}, finding: findInfraDelete},
			{sub: []string{"system|volume", "prune"}, anyOf: []string{"volumes"}, finding: findInfraDelete},
			// docker rm -f $(docker ps -aq): every container, running ones too.
			{sub: []string{"rm"}, when: everyContainer, finding: findInfraDelete},
			{sub: []string{"container", "rm"}, when: everyContainer, finding: findInfraDelete},
			// -v removes the container's anonymous volumes with it: a database run
			// without a named volume keeps its data there.
			{sub: []string{"rm"}, anyOf: []string{"v", "volumes"}, finding: findInfraDelete},
			{sub: []string{"container", "rm"}, anyOf: []string{"v", "volumes"}, finding: findInfraDelete},
			{sub: []string{"compose"}, when: composeRemovesVolumes, finding: findInfraDelete},
		},
		"docker-compose": {{when: composeRemovesVolumes, finding: findInfraDelete}},
		"podman-compose": {{when: composeRemovesVolumes, finding: findInfraDelete}},
		"nsenter":        {{finding: findNamespace}},
		"chroot":         {{finding: findNamespace}},
		"unshare":        {{finding: findNamespace}},
		"su":             {{finding: findSudo}},
		// sudo itself, with no command: its version or help (sudo -V, -h) and dropping the
		// cached credentials (-k, -K) grant nothing; listing rights (-l) may prompt and
		// then caches the credentials, as -v does. The command sudo runs is judged by the
		// wrapper's rule.
		"sudo":        {{noneOf: []string{"V", "version", "h", "help", "k", "reset-timestamp", "K", "remove-timestamp"}, finding: findSudo}},
		"doas":        {{finding: findSudo}},
		"pkexec":      {{finding: findSudo}},
		"run0":        {{finding: findSudo}},
		"useradd":     {{finding: findAccount}},
		"adduser":     {{finding: findAccount}},
		"userdel":     {{finding: findAccount}},
		"deluser":     {{finding: findAccount}},
		"usermod":     {{finding: findAccount}},
		"groupadd":    {{finding: findAccount}},
		"gpasswd":     {{finding: findAccount}},
		"passwd":      {{finding: findAccount}},
		"chpasswd":    {{finding: findAccount}},
		"visudo":      {{finding: findAccount}},
		"dscl":        {{when: dsclWrites, finding: findAccount}},
		"crontab":     {{noneOf: []string{"l"}, finding: findCron}},
		"at":          {{noneOf: []string{"l", "d", "r", "c"}, finding: findCron}},
		"batch":       {{finding: findCron}}, // at's sibling: runs its standard input later
		"systemctl":   {{sub: []string{"enable|link|preset|reenable|edit|set-default"}, finding: findService}},
		"launchctl":   {{sub: []string{"load|bootstrap|enable|submit"}, finding: findService}},
		"history":     {{anyOf: []string{"c", "d", "w"}, finding: findLogTamper}},
		"journalctl":  {{anyOf: []string{"vacuum-time", "vacuum-size", "vacuum-files", "rotate"}, finding: findLogTamper}},
		"unset":       {{operand: "histfile", finding: findLogTamper}},
		"set":         {{when: setDisablesHistory, finding: findLogTamper}, {when: noArgs, finding: findEnvDump}},
		"env":         {{when: noOperands, finding: findEnvDump}},
		"printenv":    {{when: noOperands, finding: findEnvDump}, {when: secretOperand, finding: findSecretEnv}},
		"export":      {{when: exportDump, finding: findEnvDump}},
		"declare":     {{when: declareDump, finding: findEnvDump}},
		"typeset":     {{when: declareDump, finding: findEnvDump}},
		"nmap":        {{finding: findNetScan}},
		"masscan":     {{finding: findNetScan}},
		"zmap":        {{finding: findNetScan}},
		"rustscan":    {{finding: findNetScan}},
		"naabu":       {{finding: findNetScan}},
		"arp-scan":    {{finding: findNetScan}},
		"netdiscover": {{finding: findNetScan}},
		"hping3":      {{finding: findNetScan}},
		"nc":          {{when: netcat, finding: ""}},
		"ncat":        {{when: netcat, finding: ""}},
		"telnet":      {{when: hostOperand, finding: findRawSocket}},
		"socat":       {{when: socat, finding: ""}},
		"dig":         {{when: dnsQuery, finding: findDNSExfil}},
		"nslookup":    {{when: dnsQuery, finding: findDNSExfil}},
		"host":        {{when: dnsQuery, finding: findDNSExfil}},
		"drill":       {{when: dnsQuery, finding: findDNSExfil}},
		// uv's pip interface, and uv's own commands, take pip's index options.
		"uv": {
			{sub: []string{"pip", "install|sync|compile"}, when: pipSource, finding: ""},
			{sub: []string{"add|sync|lock|tool"}, anyOf: []string{"index", "default-index", "index-url", "extra-index-url", "find-links"}, finding: findRegistry},
		},
		"poetry": {
			{sub: []string{"source", "add"}, finding: findRegistry},
			{sub: []string{"config"}, operand: "repositories.*", finding: findRegistry},
		},
		"conda":        {{when: condaChannel, finding: findRegistry}, {when: caTrust([]string{"ssl_verify"}, nil), finding: findRegistry}},
		"mamba":        {{when: condaChannel, finding: findRegistry}, {when: caTrust([]string{"ssl_verify"}, nil), finding: findRegistry}},
		"micromamba":   {{when: condaChannel, finding: findRegistry}, {when: caTrust([]string{"ssl_verify"}, []string{"cacert-path"}), finding: findRegistry}},
		"pip":          {{sub: []string{"install|download|wheel"}, when: pipSource, finding: ""}, {sub: []string{"config", "set"}, when: pipConfigIndex, finding: findRegistry}, {sub: []string{"config", "set"}, operand: "*trusted-host*", finding: findRegistry}, {when: caTrust([]string{"cert"}, []string{"cert"}), finding: findRegistry}, {when: proxySetting([]string{"proxy"}, []string{"proxy"}), finding: findRegistry}},
		"npm":          {{when: npmRegistry, finding: ""}, {when: packageScriptCode, finding: ""}, {sub: []string{"unpublish"}, finding: findInfraDelete}, {when: caTrust([]string{"cafile", "ca"}, []string{"cafile", "ca"}), finding: findRegistry}, {when: proxySetting([]string{"proxy", "https-proxy"}, []string{"proxy", "https-proxy"}), finding: findRegistry}},
		"pnpm":         {{when: npmRegistry, finding: ""}, {when: packageScriptCode, finding: ""}, {when: caTrust([]string{"cafile", "ca"}, []string{"cafile", "ca"}), finding: findRegistry}},
		"yarn":         {{when: npmRegistry, finding: ""}, {when: caTrust([]string{"cafile", "ca", "cafilepath", "httpscafilepath"}, []string{"cafile", "ca"}), finding: findRegistry}, {when: proxySetting([]string{"proxy", "https-proxy", "httpproxy", "httpsproxy"}, []string{"proxy", "https-proxy"}), finding: findRegistry}},
		"bun":          {{when: npmRegistry, finding: ""}, {when: caTrust(nil, []string{"cafile", "ca"}), finding: findRegistry}},
		"go":           {{sub: []string{"env"}, anyOf: []string{"w"}, when: goEnvRegistry, finding: findRegistry}, {sub: []string{"install"}, when: goInstallShadow, finding: planted.FindShadow}, {sub: []string{"mod|work", "edit"}, when: goReplace, finding: ""}},
		"cargo":        {{sub: []string{"install|add"}, anyOf: []string{"registry", "index"}, finding: findRegistry}, {sub: []string{"install|add"}, anyOf: []string{"git"}, finding: findDirectURL}, {sub: []string{"yank"}, noneOf: []string{"undo"}, finding: findInfraDelete}},
		"gem":          {{sub: []string{"sources"}, anyOf: []string{"a", "add"}, finding: findRegistry}, {sub: []string{"yank"}, finding: findInfraDelete}},
		"java":         {{when: javaCLIVerb, finding: findInfraDelete}},
		"dropdb":       {{finding: findDBDrop}},
		"mysqladmin":   {{sub: []string{"drop"}, finding: findDBDrop}},
		"prisma":       {{sub: []string{"migrate", "reset"}, finding: findDBDrop}, {sub: []string{"db", "push"}, anyOf: []string{"force-reset", "accept-data-loss"}, finding: findDBDrop}},
		"rails":        {{sub: []string{railsDropTasks}, finding: findDBDrop}},
		"rake":         {{sub: []string{railsDropTasks}, finding: findDBDrop}},
		"python":       {{when: djangoFlush, finding: findDBDrop}},
		"django-admin": {{when: djangoFlush, finding: findDBDrop}},
		"manage.py":    {{when: djangoFlush, finding: findDBDrop}},
		// Migration tools taken back to before the first migration, which drops every
		// table they made.
		"alembic": {{sub: []string{"downgrade"}, operand: "base", finding: findDBDrop}},
		// Migration tools of other languages: dropping everything they manage, all
		// migrations taken back, a declared schema applied with its drops unreviewed.
		"migrate":     {{operand: "drop", finding: findDBDrop}, {when: migrateAllDown, finding: findDBDrop}},
		"goose":       {{operand: "reset", finding: findDBDrop}, {when: gooseDownToZero, finding: findDBDrop}},
		"dbmate":      {{operand: "drop", finding: findDBDrop}},
		"flyway":      {{operand: "clean", finding: findDBDrop}},
		"liquibase":   {{operand: "drop-all", finding: findDBDrop}, {operand: "dropall", finding: findDBDrop}},
		"sqitch":      {{sub: []string{"revert"}, when: sqitchRevertsAll, finding: findDBDrop}},
		"atlas":       {{sub: []string{"schema", "clean"}, finding: findDBDrop}, {sub: []string{"schema", "apply"}, anyOf: []string{"auto-approve"}, finding: findDBDrop}},
		"drizzle-kit": {{sub: []string{"push"}, anyOf: []string{"force"}, finding: findDBDrop}},
		"flask":       {{sub: []string{"db", "downgrade"}, operand: "base", finding: findDBDrop}},
		"knex":        {{sub: []string{"migrate:rollback"}, anyOf: []string{"all"}, finding: findDBDrop}},
		"dotnet":      {{sub: []string{"ef", "database", "drop"}, finding: findDBDrop}, {sub: []string{"ef", "database", "update"}, operand: "0", finding: findDBDrop}, {sub: []string{"nuget", "add|update", "source"}, finding: findRegistry}, {sub: []string{"nuget", "delete"}, finding: findInfraDelete}},
		// Maven's system properties that choose the repository artifacts come from, or
		// switch the checks of its downloads off.
		"mvn": {{when: mavenRepositoryProperty, finding: findRegistry}},
		// Laravel's artisan, run by php or as ./artisan.
		"php":       {{sub: []string{"artisan", artisanDropTasks}, finding: findDBDrop}},
		"artisan":   {{sub: []string{artisanDropTasks}, finding: findDBDrop}},
		"mix":       {{sub: []string{"ecto.drop|ecto.reset"}, finding: findDBDrop}},
		"sequelize": {{sub: []string{"db:drop|db:migrate:undo:all|db:seed:undo:all"}, finding: findDBDrop}},
		"typeorm":   {{sub: []string{"schema:drop"}, finding: findDBDrop}},
		"supabase":  {{sub: []string{"db", "reset"}, finding: findDBDrop}},
		"heroku":    {{sub: []string{"pg:reset"}, finding: findDBDrop}},
		"diskutil":  {{sub: []string{"erasedisk|erasevolume|partitiondisk|zerodisk|randomdisk|secureerase|reformat|erase"}, finding: findDiskWipe}},
		"tcpdump":   {{finding: findNetScan}},
		"ztcp":      {{when: ztcp, finding: findRawSocket}},
		// Packet capture; reading a capture file (-r) is not.
		"tshark":    {{noneOf: []string{"r", "read-file"}, finding: findNetScan}},
		"wireshark": {{noneOf: []string{"r", "read-file"}, finding: findNetScan}},
		"termshark": {{noneOf: []string{"r", "read-file"}, finding: findNetScan}},
		"dumpcap":   {{finding: findNetScan}},
		// stripe writes in test mode unless told --live: then a create, an update or a
		// raw POST moves real money or changes real customers.
		"stripe":  {{anyOf: []string{"live"}, when: stripeLiveWrite, finding: findPayment}},
		"setcap":  {{when: setcapPrivileged, finding: findSetuid}},
		"install": {{when: installSetuid, finding: findSetuid}},
		// A private key deleted from the keyring is gone unless it was exported first.
		"gpg": {{anyOf: []string{"export-secret-keys", "export-secret-subkeys"}, finding: findCredentialsRead},
			{anyOf: []string{"delete-secret-keys", "delete-secret-key", "delete-secret-and-public-keys", "delete-secret-and-public-key"}, finding: findInfraDelete}},
		"security": {
			{sub: []string{"find-generic-password|find-internet-password|dump-keychain"}, finding: findCredentialsRead},
			// A certificate authority trusted by every program that uses the keychain.
			{sub: []string{"add-trusted-cert|trust-settings-import"}, finding: findRegistry},
			// A keychain, or the identities and passwords in it, deleted for good.
			{sub: []string{"delete-keychain|delete-identity|delete-certificate|delete-generic-password|delete-internet-password"}, finding: findInfraDelete},
		},
		// Account nukers delete every resource of a cloud account: aws-nuke when told
		// --no-dry-run, cloud-nuke whenever it runs on a cloud.
		"aws-nuke":   {{anyOf: []string{"no-dry-run"}, finding: findInfraDelete}},
		"cloud-nuke": {{sub: []string{"aws|gcp|azure|defaults-aws"}, finding: findInfraDelete}},
		// macOS's unified log: erasing it is clearing the system's logs.
		"log": {{sub: []string{"erase"}, finding: findLogTamper}},
		// Package sources of the system and of other package managers, and the keys their
		// packages are checked with.
		"rpm": {{anyOf: []string{"import"}, finding: findRegistry}},
		// mkcert -install adds its authority to the system's and browsers' trust stores.
		"mkcert":  {{when: mkcertInstalls, finding: findRegistry}},
		"dnf":     {{sub: []string{"config-manager"}, anyOf: []string{"add-repo", "from-repofile"}, finding: findRegistry}, {sub: []string{"config-manager", "addrepo"}, finding: findRegistry}},
		"yum":     {{sub: []string{"config-manager"}, anyOf: []string{"add-repo"}, finding: findRegistry}},
		"zypper":  {{sub: []string{"ar|addrepo"}, finding: findRegistry}},
		"flatpak": {{sub: []string{"remote-add"}, finding: findRegistry}},
		"brew":    {{sub: []string{"tap", "*"}, operand: "*://*", finding: findRegistry}},
		"nuget":   {{sub: []string{"sources|source", "add|update"}, finding: findRegistry}},
		"composer": {
			{sub: []string{"config"}, operand: "repositories.*", finding: findRegistry},
			{sub: []string{"config"}, operand: "repo.*", finding: findRegistry},
			{sub: []string{"config"}, operand: "repos.*", finding: findRegistry}, // composer reads repo, repos and repositories alike
			{when: caTrust([]string{"cafile", "capath", "secure-http"}, nil), finding: findRegistry},
		},
		"bundle": {{sub: []string{"config"}, operand: "mirror.*", finding: findRegistry}, {when: caTrust([]string{"ssl_ca_cert"}, nil), finding: findRegistry}},
		"tar":    {{when: tarRunsCode, finding: ""}},
		"hash":   {{when: hashProgram, finding: ""}},
		"enable": {{when: enableLoads, finding: findOpaque}},
		"gcloud": {
			{sub: []string{"auth", "print-access-token|print-identity-token"}, finding: findCredentialsRead},
			{sub: []string{"storage", "rsync"}, anyOf: []string{"delete-unmatched-destination-objects"}, noneOf: []string{"dry-run"}, finding: findInfraDelete},
		},
		"mount": {{when: mountChanges, finding: findOpaque}},
		"az":    {{sub: []string{"account", "get-access-token"}, finding: findCredentialsRead}},
	}
	// The tables of the machine as a whole, credential stores and data leaving the machine
	// live in files of their own (system.go, credstores.go, exfil.go).
	for _, more := range []map[string][]rule{systemRules(), credentialRules(), fileServers(), engineRules(), grantRules(), passwordRules(), installRules()} {
		for name, rs := range more {
			rules[name] = append(rules[name], rs...)
		}
	}
	for name := range dbClients() {
		rules[name] = append(rules[name], rule{when: dbArgs})
	}
	// Programs that take another's commands: podman, nerdctl and finch take docker's
	// (OpenTofu is terraform by canonicalProgram).
	for alias, of := range map[string]string{"podman": "docker", "nerdctl": "docker", "finch": "docker"} {
		rules[alias] = append(slices.Clip(rules[of]), rules[alias]...)
	}
	for _, name := range infraCLIs {
		rules[name] = append(rules[name], rule{when: cliVerb(5), finding: findInfraDelete})
	}
	return rules
})

// infraCLIs are command-line tools of clouds, clusters, secret stores, backups and
// hosted services, whose destructive subcommands are spelled with a common verb.
var infraCLIs = []string{
	"gcloud", "az", "vault", "op", "doppler", "velero", "nats", "circleci", "gitlab-runner", "glab",
	"heroku", "fly", "flyctl", "vercel", "netlify", "firebase", "supabase", "doctl", "hcloud",
	"linode-cli", "oci", "ibmcloud", "eksctl", "gsutil", "s3cmd", "mc", "consul", "nomad", "influx",
	"etcdctl", "bq", "cf", "scw", "exo", "upctl", "railway", "render", "wrangler", "kind", "k3d",
	"minikube", "vagrant", "multipass", "lxc", "virsh", "openstack", "argocd", "flux", "istioctl",
	"cdk", "cdktf", "serverless", "sls", "sam", "copilot", "amplify", "ampx", "pulumi", "nerdctl", "incus",
	"terragrunt", "skaffold", "tilt", "lima", "limactl", "colima", "linkerd", "cilium", "helmfile",
	"crane", "regctl", "skopeo", "buildah", "ctr", "crictl", "packer", "ansible-galaxy", "stern",
	"kubeseal", "k9s", "dive", "orbctl", "vultr-cli",
	// API gateways and the services that watch and page on production: apigeecli, Kong
	// and decK, PagerDuty's pd, Datadog's datadog-ci, Jenkins' CLI.
	"apigeecli", "kong", "deck", "pd", "datadog-ci", "jenkins-cli",
	// Hosted services' own CLIs: a CDN, error tracking, monitoring, search, feature flags,
	// Elastic Beanstalk.
	"fastly", "sentry-cli", "newrelic", "algolia", "ldcli", "flipt", "unleash", "eb",
	// Tunnels, payments (stripe customers delete; its live-mode writes are a rule of their
	// own), issue trackers.
	"cloudflared", "tailscale", "ngrok", "stripe", "square", "jira", "linear", "telepresence",
	// MongoDB's Atlas CLI shares its name with Ariga's migration tool (atlas clusters
	// delete, atlas schema clean).
	"atlas",
	// Hosted databases' and messaging's CLIs: PlanetScale, Neon, Twilio.
	"pscale", "neonctl", "neon", "twilio",
}

// stripeLiveWrite: a stripe command in live mode that writes (stripe refunds create
// --live, stripe post /v1/payouts --live); reading, listening and tailing logs are not.
func stripeLiveWrite(_ *analyzer, v *view) string {
	ops := v.ops[:min(len(v.ops), 3)]
	for _, w := range ops {
		switch w {
		case "list", "retrieve", "get", "listen", "logs", "status", "version", "help", "open", "config", "login", "search":
			return ""
		}
	}
	if len(ops) == 0 {
		return ""
	}
	return "stripe " + strings.Join(ops, " ") + " --live changes live payments or customers"
}

// dryRunOptions are the options with which a tool only says what a command would do:
// kubectl's --dry-run=client|server, aws' --dry-run and --dryrun, rclone's and
// restic's --dry-run, pulumi's --preview-only, az's --what-if.
var dryRunOptions = []string{"dry-run", "dryrun", "dry_run", "preview-only", "what-if", "whatif"}

// dryRun reports whether the command is told to show what it would do without doing it:
// one of dryRunOptions, with no value that turns it off (kubectl --dry-run=none), or
// rsync -n.
func dryRun(v *view) bool {
	if v.name == "rsync" && v.flag("n") {
		return true
	}
	for _, o := range v.opts {
		if !slices.Contains(dryRunOptions, o.name) {
			continue
		}
		if o.hasValue && !o.val.dynamic {
			switch strings.ToLower(o.val.lit) {
			case "none", "false", "0", "no", "off":
				continue
			}
		} else if o.hasValue {
			continue // a value known only at run time
		}
		return true
	}
	return false
}

// destructiveVerbs are subcommand words that destroy what they name.
var destructiveVerbs = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"delete": true, "del": true, "destroy": true, "purge": true, "prune": true, "remove": true,
		"rm": true, "rmdir": true, "rb": true, "forget": true, "uninstall": true, "unregister": true,
		"revoke": true, "disable": true, "drop": true, "wipe": true, "terminate": true, "erase": true,
		"deletefile": true, "deregister": true, "truncate": true, "flush": true, "nuke": true,
		"remove-secret": true, "undeploy": true, "teardown": true, "unsubscribe": true,
		// reset wipes what it names back to nothing (rabbitmqctl reset, gcloud compute
		// instances reset cuts a VM's power); undefine removes a VM's definition.
		"reset": true, "undefine": true,
		// clear empties what it names (algolia indices clear); archive takes a flag, a
		// toggle or a project out of use (ldcli flags archive, unleash features archive);
		// untag lets a registry collect the image.
		"clear": true, "archive": true, "untag": true,
	}
})

func destructiveVerb(w string) bool {
	if destructiveVerbs()[w] {
		return true
	}
	if strings.Contains(w, ":") {
		// TOPIC:VERB subcommands (heroku apps:destroy, firebase projects:delete), and the
		// settings of a hosted app unset (heroku config:unset, netlify env:unset), which
		// it runs without from its next start.
		for part := range strings.SplitSeq(w, ":") {
			if part != "" && destructiveVerb(part) || part == "unset" {
				return true
			}
		}
		return false
	}
	// A verb among the words of a compound operation: delete-bucket, batch-delete-image,
	// remove_tags, deregister-instances.
	for part := range strings.FieldsFuncSeq(w, func(r rune) bool { return r == '-' || r == '_' }) {
		switch part {
		case "delete", "destroy", "terminate", "purge", "remove", "deregister", "drop", "clear", "reset", "forget":
			if part != w {
				return true
			}
		}
	}
	return false
}

// azcopyDeletes: azcopy sync --delete-destination=true (or prompt, which a session
// without a terminal cannot answer) deletes at the destination what the source lacks.
func azcopyDeletes(_ *analyzer, v *view) string {
	for i, x := range v.args {
		if x.dynamic {
			continue
		}
		val, ok := strings.CutPrefix(x.lit, "--delete-destination=")
		if !ok && x.lit == "--delete-destination" && i+1 < len(v.args) {
			val, ok = v.args[i+1].lit, true
		}
		if ok && !strings.EqualFold(val, "false") {
			return "azcopy sync --delete-destination " + val
		}
	}
	return ""
}

// cliVerb returns a rule body that finds a destructive verb among the first n operands:
// five reach az's deepest groups (az network dns record-set a delete).
func cliVerb(n int) func(*analyzer, *view) string {
	return func(_ *analyzer, v *view) string {
		for i, w := range v.ops {
			if i >= n {
				break
			}
			// A secret unset is a secret deleted (fly secrets unset, supabase secrets unset);
			// other settings unset are a local tool's (gcloud config unset).
			unsetSecret := w == "unset" && i > 0 && (v.ops[i-1] == "secrets" || v.ops[i-1] == "secret")
			if (destructiveVerb(w) || unsetSecret) && !otherMeaning(v.name, v.ops[:i+1]) {
				return strings.Join(v.ops[:i+1], " ")
			}
		}
		return ""
	}
}

// otherMeaning reports whether a CLI's subcommand, which ends in a destructive verb,
// means something else to it: glab repo archive downloads an archive of the repository.
func otherMeaning(prog string, sub []string) bool {
	switch prog {
	case "glab":
		return strings.Join(sub, " ") == "repo archive"
	}
	return false
}

// effects applies the program's knowledge to a command: findings from the rules, the
// command's network connections and what dataflow needs to know about it, and findings
// about the paths it touches.
func (a *analyzer) effects(cmd *call.Command, m *cmdMeta, rest []arg, ops []arg, opts []option, cwd dir) {
	name := m.prog
	v := view{name: name, args: rest, raw: ops, opts: opts, flags: cmd.Flags}
	v.ops = make([]string, len(ops))
	for i, o := range ops {
		if o.dynamic {
			continue // its source text is not a value a rule could compare
		}
		v.ops[i] = strings.ToLower(o.lit)
	}
	rules := effectRules()[name]
	rehearsal := dryRun(&v)
	for i := range rules {
		r := &rules[i]
		if rehearsal && r.finding == findInfraDelete {
			continue // aws ec2 terminate-instances --dry-run, pulumi destroy --preview-only
		}
		var evidence string
		if r.when != nil {
			// The body computes the evidence: the fields only need to hold.
			if _, ok := holds(r, &v); !ok {
				continue
			}
			if evidence = r.when(a, &v); evidence == "" {
				continue
			}
		} else {
			var ok bool
			if evidence, ok = a.applies(r, &v); !ok {
				continue
			}
		}
		if r.finding == "" {
			// The rule's body reported its findings itself (a.pending).
			continue
		}
		cmd.Findings = appendFinding(cmd.Findings, r.finding, evidence)
	}
	cmd.Findings = append(cmd.Findings, a.pending...)
	a.pending = a.pending[:0]
	a.exposureEffects(cmd, m, &v)
	a.lookalikeEffects(cmd, &v)
	m.laterCode = append(m.laterCode, a.later...)
	a.later = a.later[:0]
	if m.printsCredential {
		// exposureEffects told it: gpg --export-secret-keys, gh auth token, vault kv get
		// print secrets.
		m.out.t |= tSecret
	}
	a.streamEffects(cmd, m, &v, cwd)
	a.fetchEffects(&v, cwd)
	a.endlessEffects(m, &v)
	a.editEffects(cmd, &v, cwd)
	if m.netArgs {
		// Dataflow reads a network command's words after the walk (exfil.go), when the
		// scratch array they were expanded in holds later commands' words.
		m.params = slices.Clone(m.params)
	}
	if name == "rm" && cmd.HasFlag("r") {
		cmd.Findings = appendFinding(cmd.Findings, findRecursiveDelete, strings.Join(cmd.Operands, " "))
	}
	for _, acc := range cmd.Accesses {
		if acc.Kind == call.Delete && acc.Recursive {
			cmd.Findings = appendFinding(cmd.Findings, findRecursiveDelete, acc.Path)
		}
	}
	a.pathFindings(cmd)
	if a.sh.env.Sensitive != nil {
		for _, acc := range cmd.Accesses {
			if acc.Kind == call.Read && (a.sh.env.Sensitive(acc) || a.sh.secretFiles[acc.Path]) {
				if slices.Contains(m.filled, acc.Path) {
					continue // copied into a secret store, not printed (secretfill.go)
				}
				cmd.Findings = appendFinding(cmd.Findings, findCredentialsRead, acc.Path)
				if !acc.Redirect {
					m.out.t |= tSecret
					m.secretRead = true
				}
			}
		}
	}
}

// applies checks the data fields of a rule against the command, returning the evidence.
func (a *analyzer) applies(r *rule, v *view) (string, bool) {
	operand, ok := holds(r, v)
	if !ok {
		return "", false
	}
	evidence := strings.Join(append([]string{v.name}, v.ops[:len(r.sub)]...), " ")
	if r.operand != "" {
		evidence += " " + operand
	}
	if len(r.anyOf) > 0 {
		for _, o := range v.opts {
			if slices.Contains(r.anyOf, o.name) {
				dash := "--"
				if len(o.name) == 1 {
					dash = "-"
				}
				evidence += " " + dash + o.name
				break
			}
		}
	}
	return evidence, true
}

// holds reports whether the data fields of a rule hold for the command, with the operand
// its pattern matched. It allocates nothing: it runs for every rule of every command.
func holds(r *rule, v *view) (string, bool) {
	if len(r.sub) > len(v.ops) {
		return "", false
	}
	for i, alts := range r.sub {
		if alts != "*" && !oneOf(alts, v.ops[i]) {
			return "", false
		}
	}
	if len(r.anyOf) > 0 && !v.flag(r.anyOf...) {
		return "", false
	}
	if len(r.noneOf) > 0 && v.flag(r.noneOf...) {
		return "", false
	}
	if r.operand != "" {
		for _, o := range v.ops[len(r.sub):] {
			if wordMatch(r.operand, o) {
				return o, true
			}
		}
		return "", false
	}
	return "", true
}

// oneOf reports whether w is one of the alternatives separated by | in alts.
func oneOf(alts, w string) bool {
	for {
		alt, rest, more := strings.Cut(alts, "|")
		if alt == w {
			return true
		}
		if !more {
			return false
		}
		alts = rest
	}
}

// pathFindings adds the findings that the command's accesses are evidence of.
func (a *analyzer) pathFindings(cmd *call.Command) {
	a.writesThroughLinks(cmd)
	a.accessFindings(cmd, 0)
}

// accessFindings adds the findings that the command's accesses from the index from on
// are evidence of: those of the rest of its accesses, for a program whose files are
// known only after its effects (a catalogued tool's writes=).
func (a *analyzer) accessFindings(cmd *call.Command, from int) {
	home, _ := a.st.get("HOME")
	h := ""
	if home.known {
		h = home.s
	}
	for _, acc := range cmd.Accesses[from:] {
		cmd.Findings = pathFindings(cmd.Findings, acc, h)
	}
}

func appendFinding(fs []call.Finding, id, evidence string) []call.Finding {
	if hasFinding(fs, id) {
		return fs
	}
	if len(evidence) > 120 {
		evidence = evidence[:117] + "..."
	}
	return append(fs, newFinding(id, evidence))
}

// report records a finding from a rule body that reports more than one kind.
func (a *analyzer) report(id, evidence string) {
	a.pending = appendFinding(a.pending, id, evidence)
}

func noArgs(_ *analyzer, v *view) string {
	if len(v.args) == 0 {
		return v.name
	}
	return ""
}

func secretOperand(_ *analyzer, v *view) string {
	for _, o := range v.raw {
		if !o.dynamic && secretName().MatchString(o.lit) && !notSecretName(o.lit) {
			return v.name + " " + o.lit
		}
	}
	return ""
}

func tarRunsCode(a *analyzer, v *view) string {
	for _, o := range v.opts {
		if !o.hasValue {
			continue
		}
		switch o.name {
		case "checkpoint-action":
			if cmd, ok := strings.CutPrefix(o.val.lit, "exec="); ok {
				code := o.val
				code.lit = cmd
				a.later = append(a.later, codeRef{code: code, kind: codeShell, carrier: "tar --checkpoint-action"})
			}
		case "to-command", "use-compress-program", "I", "info-script", "new-volume-script", "F":
			a.later = append(a.later, codeRef{code: o.val, kind: codeShell, carrier: "tar --" + o.name})
			if o.name == "to-command" && runsItsInput(o.val) {
				// tar -xf a.tar --to-command=sh: each member's contents are run as code.
				a.report(findOpaque, "tar --to-command runs the archive's contents as code: "+shorten(o.val.lit))
			}
		}
	}
	return ""
}

// sshCommandOptions are the ssh settings whose value is a command ssh runs on this machine.
var sshCommandOptions = []string{"proxycommand", "localcommand", "knownhostscommand"}

// sshRunsCode: ssh -o ProxyCommand=CMD (also scp and sftp, and the "Key Value" spelling)
// runs CMD through the shell to connect.
func sshRunsCode(a *analyzer, v *view) string {
	for _, o := range v.values("o") {
		key, val, ok := strings.Cut(o.lit, "=")
		if !ok {
			key, val, ok = strings.Cut(strings.TrimSpace(o.lit), " ")
		}
		if !ok || !slices.Contains(sshCommandOptions, strings.ToLower(strings.TrimSpace(key))) {
			continue
		}
		code := o
		code.lit = strings.TrimSpace(val)
		if strings.EqualFold(code.lit, "none") {
			continue
		}
		a.later = append(a.later, codeRef{code: code, kind: codeShell, carrier: v.name + " -o " + strings.TrimSpace(key)})
	}
	return ""
}

// trustsForeignCode: direnv allow [PATH] and mise trust [PATH], for a PATH (the working
// directory when none is given) outside the project and the system, fetched earlier in
// the line, or known only at run time.
func trustsForeignCode(a *analyzer, v *view) string {
	if len(v.raw) == 1 {
		// direnv allow: the .envrc of the working directory.
		cwd := a.cwd()
		if !cwd.known && a.cdToUnknown() {
			return v.name + " " + v.raw[0].lit + " in a directory known only at run time, whose code runs when it is entered"
		}
		if abs, ok, _ := a.resolve(".", cwd); ok {
			if t, fetched := a.fetchedAt(abs); fetched {
				return v.name + " " + v.raw[0].lit + " in " + abs + ", fetched by " + t.by + " earlier in the line, whose code runs when it is entered"
			}
		}
		if a.foreignCode(".", cwd) {
			return v.name + " " + v.raw[0].lit + " in " + cwd.path + ": code outside the project, which moat has not read, to run whenever its directory is entered"
		}
		return ""
	}
	for _, op := range v.raw[1:] {
		if op.dynamic {
			return v.name + " " + v.raw[0].lit + " " + op.lit + ": a directory known only at run time, whose code runs when it is entered"
		}
		if a.foreignCode(op.lit, a.cwd()) {
			return v.name + " " + v.raw[0].lit + " " + op.lit + ": code outside the project, which moat has not read, to run whenever its directory is entered"
		}
	}
	return ""
}

// rustupLink: rustup toolchain link NAME PATH makes cargo, rustc and the other proxies
// of the toolchain NAME run the programs under PATH, for every later build that uses it
// (stable, nightly, a project's rust-toolchain.toml): one outside the project and the
// system is code moat has not read.
func rustupLink(a *analyzer, v *view) string {
	if len(v.raw) < 4 {
		return ""
	}
	p := v.raw[3]
	if p.dynamic || a.foreignCode(a.tildePath(p.lit), a.cwd()) {
		return "rustup toolchain link " + shorten(v.raw[2].lit) + " " + shorten(p.lit) + ": later cargo and rustc runs are the programs there"
	}
	return ""
}

// makeShell: make SHELL=PROGRAM runs every recipe line with PROGRAM instead of /bin/sh
// (GNU make takes SHELL from its command line, not from the environment). A shell of the
// system's reads the recipes as moat does; any other program is code moat has not read.
func makeShell(_ *analyzer, v *view) string {
	for _, o := range v.raw {
		name, val, ok := strings.Cut(o.lit, "=")
		if !ok || name != "SHELL" && name != "MAKESHELL" {
			continue
		}
		prog := strings.TrimSpace(val)
		if f := strings.Fields(prog); len(f) > 0 {
			prog = f[0]
		}
		if !o.dynamic && shells()[path.Base(prog)] && (!strings.Contains(prog, "/") || systemPath(prog)) {
			continue
		}
		return "make " + shorten(o.lit) + ": every recipe is run by a program moat has not read"
	}
	return ""
}

// ghAlias: gh alias set NAME EXPANSION makes every later `gh NAME` run EXPANSION: shell
// code with --shell (-s) or a leading !, gh's own command line otherwise.
func ghAlias(a *analyzer, v *view) string {
	if len(v.raw) < 4 {
		return ""
	}
	name, code := v.raw[2], v.raw[3]
	carrier := "gh alias " + name.lit
	switch {
	case v.flag("shell", "s"):
		a.later = append(a.later, codeRef{code: code, kind: codeShell, carrier: carrier, direct: true})
	case !code.dynamic && strings.HasPrefix(code.lit, "!"):
		code.lit = code.lit[1:]
		a.later = append(a.later, codeRef{code: code, kind: codeShell, carrier: carrier, direct: true})
	case !code.dynamic:
		code.lit = "gh " + code.lit
		a.later = append(a.later, codeRef{code: code, kind: codeShell, carrier: carrier, direct: true})
	default:
		a.later = append(a.later, codeRef{code: code, kind: codeShell, carrier: carrier})
	}
	return ""
}

// kubectlExecPlugin: kubectl config set-credentials NAME --exec-command=CMD
// [--exec-arg=A]… makes every later kubectl command of that user run CMD A… for its
// credentials.
func kubectlExecPlugin(a *analyzer, v *view) string {
	for _, x := range v.values("exec-command") {
		line := x
		if !x.dynamic {
			words := []string{shellQuote(x.lit)}
			for _, w := range v.values("exec-arg") {
				if w.dynamic {
					line = w
					break
				}
				words = append(words, shellQuote(w.lit))
			}
			if !line.dynamic {
				line = arg{lit: strings.Join(words, " ")}
			}
		}
		a.later = append(a.later, codeRef{code: line, kind: codeShell, carrier: "kubectl's exec credential plugin", direct: true})
	}
	return ""
}

// awsCredentialProcess: aws configure set [PROFILE.]credential_process CMD makes every
// later AWS call of that profile run CMD for its credentials.
func awsCredentialProcess(a *analyzer, v *view) string {
	if len(v.raw) < 4 {
		return ""
	}
	key := strings.ToLower(v.raw[2].lit)
	if v.raw[2].dynamic || key != "credential_process" && !strings.HasSuffix(key, ".credential_process") {
		return ""
	}
	a.later = append(a.later, codeRef{code: v.raw[3], kind: codeShell, carrier: "aws credential_process", direct: true})
	return ""
}

// rsyncShell: rsync -e CMD (--rsh) runs CMD to reach the remote host.
func rsyncShell(a *analyzer, v *view) string {
	for _, x := range v.values("e", "rsh") {
		a.later = append(a.later, codeRef{code: x, kind: codeShell, carrier: "rsync -e", direct: true})
	}
	return ""
}

// hashProgram: hash -p PATH NAME makes the command NAME run the program PATH.
func hashProgram(a *analyzer, v *view) string {
	for i, x := range v.args {
		if !x.dynamic && x.lit == "-p" && i+1 < len(v.args) {
			a.later = append(a.later, codeRef{code: v.args[i+1], kind: codeProgram, carrier: "hash -p"})
			// The names after the path run it from now on, as an alias to it would: `hash
			// -p /bin/rm ls; ls -rf ~` is rm -rf ~.
			if path := v.args[i+1]; !path.dynamic {
				for _, name := range v.args[i+2:] {
					if !name.dynamic && name.lit != "" && !strings.HasPrefix(name.lit, "-") {
						a.defineAlias(name.lit, shellQuote(path.lit))
					}
				}
			}
			return "hash -p"
		}
	}
	return ""
}

// enableLoads: enable -f FILE NAME loads a builtin into bash from a shared library.
func enableLoads(_ *analyzer, v *view) string {
	for _, f := range v.values("f") {
		if f.dynamic || !systemPath(f.lit) {
			return "enable -f " + f.lit + " loads a builtin from a library moat cannot read"
		}
	}
	return ""
}

// The framework tasks that drop, recreate or empty the application's database.
const (
	railsDropTasks   = "db:drop|db:drop:all|db:reset|db:purge|db:purge:all|db:schema:load|db:truncate_all|db:migrate:reset|db:seed:replant"
	artisanDropTasks = "migrate:fresh|migrate:reset|migrate:refresh|migrate:rollback|db:wipe"
)

// composeRemovesVolumes: compose down -v (or rm -v) deletes the project's volumes and the
// data in them, whatever global options come before the subcommand.
func composeRemovesVolumes(_ *analyzer, v *view) string {
	words := v.args
	if !strings.HasSuffix(v.name, "-compose") {
		// docker compose, and its aliases (podman, nerdctl, finch compose).
		i := slices.IndexFunc(words, func(a arg) bool { return a.lit == "compose" })
		if i < 0 {
			return ""
		}
		words = words[i+1:]
	}
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch {
		case w.dynamic:
			return ""
		case composeTakesValue(w.lit):
			i++ // its value: -f FILE, --project-directory DIR
		case strings.HasPrefix(w.lit, "-"):
			// --file=x, or a flag of compose itself
		case w.lit == "down" || w.lit == "rm":
			for _, o := range words[i+1:] {
				if o.lit == "-v" || o.lit == "--volumes" || strings.HasPrefix(o.lit, "-") && !strings.HasPrefix(o.lit, "--") && strings.Contains(o.lit, "v") {
					return "compose " + w.lit + " " + o.lit
				}
			}
			return ""
		default:
			return ""
		}
	}
	return ""
}

// composeTakesValue reports whether w is one of compose's own options written apart from
// its value.
func composeTakesValue(w string) bool {
	vo := composeValueOptions()
	if long, ok := strings.CutPrefix(w, "--"); ok {
		return slices.Contains(vo.long, long)
	}
	return len(w) == 2 && w[0] == '-' && strings.IndexByte(vo.short, w[1]) >= 0
}

// gitGCPrunesNow: git gc --prune=now (or all) deletes unreachable objects at once,
// where a plain gc keeps them for two weeks.
func gitGCPrunesNow(_ *analyzer, v *view) string {
	for _, p := range v.values("prune") {
		if p.lit == "now" || p.lit == "all" {
			return "git gc --prune=" + p.lit
		}
	}
	return ""
}

func djangoFlush(_ *analyzer, v *view) string {
	ops := v.ops
	switch {
	case v.name == "manage.py" || v.name == "django-admin":
	case len(ops) >= 1 && strings.HasSuffix(ops[0], "manage.py"):
		ops = ops[1:] // python manage.py TASK
	default:
		return ""
	}
	if len(ops) == 0 {
		return ""
	}
	switch {
	case ops[0] == "flush" || ops[0] == "reset_db" || ops[0] == "sqlflush":
		return "manage.py " + ops[0]
	case ops[0] == "migrate" && len(ops) >= 3 && ops[2] == "zero":
		// migrate APP zero unapplies every migration of the app: its tables are dropped.
		return "manage.py migrate " + ops[1] + " zero"
	}
	return ""
}

func setcapPrivileged(_ *analyzer, v *view) string {
	for _, o := range v.ops {
		if strings.Contains(o, "cap_setuid") || strings.Contains(o, "cap_sys_admin") || strings.Contains(o, "cap_setgid") || strings.Contains(o, "cap_dac_override") || strings.Contains(o, "=ep") && strings.Contains(o, "all") {
			return "setcap " + o
		}
	}
	return ""
}

func installSetuid(a *analyzer, v *view) string {
	for _, m := range v.values("m", "mode") {
		w := view{name: "install", raw: []arg{m}}
		if e := chmodSetuid(a, &w); e != "" {
			return "install -m " + m.lit
		}
	}
	return ""
}

// kubectlSecretValues: kubectl get secret -o yaml|json|jsonpath prints the values.
func kubectlSecretValues(_ *analyzer, v *view) string {
	for _, o := range v.values("o", "output") {
		l := strings.ToLower(o.lit)
		// A template that reads only the metadata (names, labels) prints no value.
		values := !strings.HasPrefix(l, "jsonpath") && !strings.HasPrefix(l, "go-template") || !strings.Contains(l, "metadata") ||
			strings.Contains(l, ".data") || strings.Contains(l, "stringdata") || strings.Contains(l, "'data'") || strings.Contains(l, `"data"`)
		if (l == "yaml" || l == "json" || strings.HasPrefix(l, "jsonpath") || strings.HasPrefix(l, "go-template")) && values {
			return "kubectl get secret -o " + o.lit
		}
	}
	return ""
}

func noOperands(_ *analyzer, v *view) string {
	if len(v.ops) == 0 {
		return v.name
	}
	return ""
}

func exportDump(_ *analyzer, v *view) string {
	if len(v.ops) == 0 && (len(v.opts) == 0 || v.flag("p")) {
		return v.name + " -p"
	}
	return ""
}

func declareDump(_ *analyzer, v *view) string {
	if len(v.ops) == 0 && (v.flag("x") || v.flag("p")) {
		return v.name + " -px"
	}
	return ""
}

func setDisablesHistory(_ *analyzer, v *view) string {
	for i, x := range v.args {
		if x.lit == "+o" && i+1 < len(v.args) && v.args[i+1].lit == "history" {
			return "set +o history"
		}
	}
	return ""
}

func gitCheckoutDiscards(_ *analyzer, v *view) string {
	if v.flag("b", "B", "orphan") {
		return ""
	}
	if v.hasArg("--") || v.flag("f", "force") || slices.Contains(v.ops[1:], ".") {
		return "git checkout " + strings.Join(v.ops[1:], " ")
	}
	return ""
}

func gitRestoreDiscards(_ *analyzer, v *view) string {
	staged := v.flag("staged", "S")
	worktree := v.flag("worktree", "W")
	if staged && !worktree {
		return ""
	}
	return "git restore " + strings.Join(v.ops[1:], " ")
}

func gitBranchForceDelete(_ *analyzer, v *view) string {
	if v.flag("d", "delete") && v.flag("f", "force") {
		return "git branch --delete --force"
	}
	return ""
}

func terraformApplyDestroy(_ *analyzer, v *view) string {
	if v.hasArg("-destroy") || v.hasArg("--destroy") {
		return "terraform apply -destroy"
	}
	return ""
}

func awsDestructive(_ *analyzer, v *view) string {
	if len(v.ops) < 2 {
		return ""
	}
	service, op := v.ops[0], v.ops[1]
	switch {
	case service == "s3" && (op == "rm" || op == "rb"):
		return "aws s3 " + op
	case destructiveVerb(op):
		return "aws " + service + " " + op
	case service == "secretsmanager" && (op == "put-secret-value" || op == "update-secret"):
		// Overwriting a secret replaces the value every consumer of it reads.
		return "aws secretsmanager " + op
	case service == "kms" && (op == "schedule-key-deletion" || op == "disable-key"):
		// What a key encrypted cannot be read without it.
		return "aws kms " + op
	}
	return awsProtectionOff(v, service, op)
}

// awsProtectionOff: operations that take a service down or remove what keeps its data
// recoverable, without deleting anything yet: capacity set to zero, versioning
// suspended, deletion or termination protection and backups switched off, DNS records
// deleted through a change batch.
func awsProtectionOff(v *view, service, op string) string {
	zero := func(names ...string) string {
		for _, n := range names {
			if val, ok := awsOption(v, n); ok && val == "0" {
				return "aws " + service + " " + op + " --" + n + " 0"
			}
		}
		return ""
	}
	flag := func(names ...string) string {
		for _, n := range names {
			if v.hasArg("--" + n) {
				return "aws " + service + " " + op + " --" + n
			}
		}
		return ""
	}
	switch service + " " + op {
	case "autoscaling update-auto-scaling-group":
		return zero("desired-capacity", "max-size")
	case "ecs update-service":
		return zero("desired-count")
	case "lambda put-function-concurrency":
		return zero("reserved-concurrent-executions")
	case "s3api put-bucket-versioning":
		if val, ok := awsOption(v, "versioning-configuration"); ok && strings.Contains(strings.ToLower(val), "suspended") {
			return "aws s3api put-bucket-versioning Suspended"
		}
	case "rds modify-db-instance", "rds modify-db-cluster":
		return cmp.Or(flag("no-deletion-protection"), zero("backup-retention-period"))
	case "dynamodb update-table":
		return flag("no-deletion-protection-enabled")
	case "ec2 modify-instance-attribute":
		return flag("no-disable-api-termination")
	case "route53 change-resource-record-sets":
		if val, ok := awsOption(v, "change-batch"); ok {
			compact := strings.ToUpper(strings.Join(strings.Fields(val), ""))
			if strings.Contains(compact, `"ACTION":"DELETE"`) || strings.Contains(compact, "ACTION=DELETE") {
				return "aws route53 change-resource-record-sets DELETE"
			}
		}
	}
	return ""
}

// awsOption returns the value of aws's option --name, given as --name VALUE or
// --name=VALUE.
func awsOption(v *view, name string) (string, bool) {
	for i, x := range v.args {
		if x.dynamic {
			continue
		}
		if val, ok := strings.CutPrefix(x.lit, "--"+name+"="); ok {
			return val, true
		}
		if x.lit == "--"+name && i+1 < len(v.args) && !v.args[i+1].dynamic {
			return v.args[i+1].lit, true
		}
	}
	return "", false
}

// awsAuditOff: the operations that stop an account's audit trail or threat detection,
// which hides what is done next.
func awsAuditOff(_ *analyzer, v *view) string {
	if len(v.ops) < 2 {
		return ""
	}
	switch service, op := v.ops[0], v.ops[1]; {
	case service == "cloudtrail" && op == "stop-logging",
		service == "config" && op == "stop-configuration-recorder",
		service == "securityhub" && op == "disable-security-hub",
		service == "guardduty" && op == "disassociate-from-administrator-account",
		service == "macie2" && op == "disable-macie",
		service == "inspector2" && op == "disable",
		service == "detective" && op == "disable-organization-admin-account",
		service == "access-analyzer" && op == "delete-analyzer":
		return "aws " + service + " " + op
	}
	return ""
}

func javaCLIVerb(_ *analyzer, v *view) string {
	// java -jar some-cli.jar ARGS: the generic parse split -jar into letters, so look at
	// the words themselves.
	for i, x := range v.args {
		if x.lit == "-jar" && i+1 < len(v.args) && strings.Contains(strings.ToLower(v.args[i+1].lit), "cli") {
			for _, w := range v.args[i+2:] {
				if !strings.HasPrefix(w.lit, "-") && destructiveVerb(strings.ToLower(w.lit)) {
					return "java -jar " + v.args[i+1].lit + " " + w.lit
				}
			}
		}
	}
	return ""
}

// partedWrites: parted DEVICE COMMAND… changes the partition table unless it only prints.
func partedWrites(_ *analyzer, v *view) string {
	if v.flag("l", "list") || len(v.ops) < 2 || !strings.HasPrefix(v.ops[0], "/dev/") {
		return ""
	}
	switch v.ops[1] {
	case "print", "p", "help", "unit":
		return ""
	}
	return "parted " + v.ops[0] + " " + v.ops[1]
}

// chmodSetuid: a mode that sets the setuid or setgid bit (u+s, g+s, +s, 4755, 2755).
func chmodSetuid(_ *analyzer, v *view) string {
	if len(v.raw) == 0 || v.raw[0].dynamic {
		return ""
	}
	mode := v.raw[0].lit
	if octal(mode) {
		if len(mode) == 4 && (mode[0]-'0')&6 != 0 {
			return "chmod " + mode
		}
		return ""
	}
	for _, clause := range strings.Split(mode, ",") {
		if i := strings.IndexAny(clause, "+="); i >= 0 && strings.ContainsRune(clause[i:], 's') {
			return "chmod " + mode
		}
	}
	return ""
}

// chmodWorldWritable: a mode that lets every user write (o+w, a+w, 777, 666).
// umaskWorldWritable: umask 000 (or any mask that keeps others' write bit, 0–1, 4–5 in
// its last digit; u=rwx,g=rwx,o=rwx) makes every file the commands after it create
// writable by every user of the machine.
func umaskWorldWritable(_ *analyzer, v *view) string {
	if len(v.raw) == 0 || v.raw[0].dynamic {
		return ""
	}
	m := v.raw[0].lit
	if strings.Contains(m, "o+w") || strings.Contains(m, "a+w") {
		return "umask " + m
	}
	if strings.ContainsAny(m, "=") {
		if i := strings.Index(m, "o="); i >= 0 && strings.Contains(strings.SplitN(m[i+2:], ",", 2)[0], "w") ||
			strings.Contains(m, "a=") && strings.Contains(strings.SplitN(m[strings.Index(m, "a=")+2:], ",", 2)[0], "w") {
			return "umask " + m
		}
		return ""
	}
	if m == "" || strings.Trim(m, "01234567") != "" {
		return ""
	}
	if last := m[len(m)-1]; last&2 == 0 {
		return "umask " + m
	}
	return ""
}

func chmodWorldWritable(_ *analyzer, v *view) string {
	if len(v.raw) == 0 || v.raw[0].dynamic {
		return ""
	}
	mode := v.raw[0].lit
	if octal(mode) {
		if (mode[len(mode)-1]-'0')&2 != 0 {
			return "chmod " + mode
		}
		return ""
	}
	for _, clause := range strings.Split(mode, ",") {
		i := strings.IndexAny(clause, "+=")
		if i < 0 || !strings.ContainsRune(clause[i:], 'w') {
			continue
		}
		who := clause[:i]
		if who == "" || strings.ContainsAny(who, "oa") {
			if who == "" && clause[i] == '+' {
				continue // +w follows the umask, which normally keeps others out
			}
			return "chmod " + mode
		}
	}
	return ""
}

func octal(s string) bool {
	if s == "" || len(s) > 4 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '7' {
			return false
		}
	}
	return true
}

// netcat: -e/-c run a program with its standard input and output on the socket (a
// reverse or bind shell); -z scans; anything else is a raw connection or listener.
func netcat(a *analyzer, v *view) string {
	if vals := v.values("e", "c", "exec", "sh-exec", "lua-exec"); len(vals) > 0 {
		a.report(findReverseShell, v.name+" -e "+vals[0].lit)
		return "reverse shell"
	}
	if v.flag("z") {
		if len(v.ops) > 0 && netdest.Loopback(v.ops[0]) && len(v.ops) <= 2 && !strings.ContainsAny(strings.Join(v.ops[1:], ""), "-,") {
			return "" // is a local service listening?
		}
		a.report(findNetScan, v.name+" -z "+strings.Join(v.ops, " "))
		return "scan"
	}
	if len(v.ops) > 0 && !v.flag("l", "listen") && netdest.Loopback(v.ops[0]) {
		return "" // talks to a service on this machine: data stays on it
	}
	if len(v.ops) > 0 || v.flag("l", "listen") {
		a.report(findRawSocket, v.name+" "+strings.Join(v.ops, " "))
		return "raw socket"
	}
	return ""
}

func hostOperand(_ *analyzer, v *view) string {
	if len(v.ops) > 0 && !netdest.Loopback(v.ops[0]) {
		return v.name + " " + strings.Join(v.ops, " ")
	}
	return ""
}

// socat ADDRESS ADDRESS: a program address (EXEC:, SYSTEM:) joined to a network one is a
// remote shell.
func socat(a *analyzer, v *view) string {
	prog, net := "", false
	for _, o := range v.ops {
		kind, _, _ := strings.Cut(o, ":")
		kind, _, _ = strings.Cut(kind, ",")
		switch kind {
		case "exec", "system":
			prog = o
		case "tcp", "tcp4", "tcp6", "udp", "udp4", "udp6", "tcp-connect", "tcp-listen", "udp-connect", "udp-listen",
			"openssl", "openssl-connect", "openssl-listen", "ssl", "sctp", "sctp-connect":
			net = true
		}
	}
	switch {
	case prog != "" && net:
		a.report(findReverseShell, "socat "+prog)
		return "reverse shell"
	case net:
		a.report(findRawSocket, "socat "+strings.Join(v.ops, " "))
		return "raw socket"
	}
	return ""
}

// dnsQuery: TXT queries of ordinary names can carry data both ways (DNS tunnelling);
// names starting with an underscore are protocol records (_dmarc, _acme-challenge) that
// are looked up for real reasons. A name computed at run time is reported by dataflow.
func dnsQuery(_ *analyzer, v *view) string {
	txt := false
	for _, o := range v.ops {
		if o == "txt" || o == "-type=txt" || o == "-query=txt" || o == "-q=txt" || o == "type=txt" {
			txt = true
		}
	}
	for _, val := range v.values("t", "type", "q", "query") {
		if strings.EqualFold(val.lit, "txt") {
			txt = true
		}
	}
	for _, x := range v.args {
		l := strings.ToLower(x.lit)
		if l == "-type=txt" || l == "-query=txt" || l == "-q=txt" {
			txt = true
		}
	}
	if !txt {
		return ""
	}
	for _, o := range v.ops {
		if strings.Contains(o, ".") && !strings.HasPrefix(o, "_") && !strings.HasPrefix(o, "@") && !strings.HasPrefix(o, "-") {
			return v.name + " TXT " + o
		}
	}
	return ""
}

// pipSource: installing from another index or straight from a URL.
func pipSource(a *analyzer, v *view) string {
	for _, o := range v.opts {
		switch o.name {
		case "i", "index-url", "extra-index-url":
			if !o.val.dynamic && officialSource(o.val.lit) {
				continue
			}
			a.report(findRegistry, "pip --"+o.name+" "+o.val.lit)
			return "registry"
		case "trusted-host", "f", "find-links":
			a.report(findRegistry, "pip --"+o.name+" "+o.val.lit)
			return "registry"
		case "r", "requirement", "c", "constraint":
			// A requirements file fetched from a URL names whatever packages it serves.
			if directURL(o.val.lit) {
				a.report(findDirectURL, "pip -"+o.name+" "+o.val.lit)
				return "url"
			}
		}
	}
	for _, o := range v.ops[1:] {
		if directURL(o) {
			a.report(findDirectURL, "pip install "+o)
			return "url"
		}
	}
	return ""
}

// npmRegistry: npm/yarn/pnpm/bun installing from or switching to another registry, or
// installing straight from a URL or repository.
func npmRegistry(a *analyzer, v *view) string {
	if vals := v.values("registry"); len(vals) > 0 && (vals[0].dynamic || !officialSource(vals[0].lit)) {
		a.report(findRegistry, v.name+" --registry "+vals[0].lit)
		return "registry"
	}
	if len(v.ops) >= 3 && (v.ops[0] == "config" && v.ops[1] == "set" || v.ops[0] == "set") {
		// config set KEY VALUE, set KEY VALUE, or KEY=VALUE as one word. The value is
		// the word after the key, which may look like an option (node-options
		// "--require x.js"): read from the arguments, as written.
		at := 2
		if v.ops[0] == "set" {
			at = 1
		}
		key := v.ops[at]
		k, val, inline := strings.Cut(key, "=")
		dynamic := false
		if inline {
			_, val, _ = strings.Cut(v.raw[at].lit, "=") // as written, not lower-cased
		} else {
			val = ""
			for i, x := range v.args {
				if strings.EqualFold(x.lit, key) && i+1 < len(v.args) {
					val, dynamic = v.args[i+1].lit, v.args[i+1].dynamic
					break
				}
			}
		}
		switch {
		case strings.Contains(k, "registry"):
			if dynamic || !officialSource(val) {
				a.report(findRegistry, v.name+" config set "+k+" "+val)
				return "registry"
			}
		case npmProgramSetting(k):
			// Settings that name a program npm runs (its script shell, git, an editor) or
			// code Node loads first (node-options --require): the program or code runs in
			// place of npm's, unread, unless it is one of the system's programs.
			if !dynamic && (k == "node-options" && !nodeLoadsCode(val) || k != "node-options" && systemPath(val)) {
				return ""
			}
			a.report(findOpaque, v.name+" config set "+k+" "+val+": "+v.name+" would run it, code moat has not read")
			return "program"
		case strings.ReplaceAll(k, "-", "") == "dangerouslyallowallbuilds":
			// pnpm runs no dependency's install scripts unless allowed by name; this
			// setting allows every one's.
			if dynamic || trueWord(strings.ToLower(val)) {
				a.report(findRegistry, v.name+" config set "+k+" "+val+": every dependency's install scripts run")
				return "registry"
			}
		case k == "unsafehttpwhitelist":
			// Hosts that Yarn may fetch from over plain HTTP.
			a.report(findRegistry, v.name+" config set "+key)
			return "registry"
		case strings.Contains(k, "strict-ssl") || strings.Contains(k, "strictssl"):
			// strict-ssl false (strictSSL for yarn): downloads take any certificate; true
			// is the default.
			if dynamic || !trueWord(strings.ToLower(val)) {
				a.report(findRegistry, v.name+" config set "+k+" "+val)
				return "registry"
			}
		}
	}
	if len(v.ops) >= 1 && (v.ops[0] == "install" || v.ops[0] == "i" || v.ops[0] == "add") {
		for _, o := range v.ops[1:] {
			if a.directPackageSource(o) {
				a.report(findDirectURL, v.name+" install "+o)
				return "url"
			}
		}
	}
	return ""
}

// directPackageSource reports whether an npm-style package spec (a bare source, or
// NAME@SPEC) fetches the package from somewhere other than the registry: a URL, a git
// repository, a forge's shorthand (github:u/r, u/r), or a local directory outside the
// project (file:, link:), whose install scripts then run. A registry version, range,
// tag, alias (npm:other@1) or workspace reference is no direct source.
func (a *analyzer) directPackageSource(o string) bool {
	src := o
	if s := npmSpecOf(o); s != "" {
		src = s
	}
	for _, local := range []string{"file:", "link:"} {
		if p, ok := strings.CutPrefix(src, local); ok {
			p = strings.TrimPrefix(p, "//")
			return p == "" || a.foreignCode(a.tildePath(p), a.cwd())
		}
	}
	return directURL(src) || strings.HasPrefix(src, "github:") || strings.HasPrefix(src, "gitlab:") || strings.HasPrefix(src, "bitbucket:") || githubShorthand(src)
}

// npmSpecOf returns the spec of NAME@SPEC (@scope/name@SPEC), or "" for a spec with no
// name before it.
func npmSpecOf(o string) string {
	if strings.Contains(o, "://") && !strings.Contains(o[:strings.Index(o, "://")], "@") {
		return "" // a URL, whose user@host is no version
	}
	start := 0
	if strings.HasPrefix(o, "@") {
		start = 1
	}
	if i := strings.IndexByte(o[start:], '@'); i > 0 {
		return o[start+i+1:]
	}
	return ""
}

// githubShorthand reports whether a package spec is npm's shorthand for a GitHub
// repository, USER/REPO[#REF]: an unscoped name with a slash that is not a path (./x,
// ../x, /x, ~/x), which npm, yarn and pnpm fetch from GitHub and build, running its
// install scripts. "packages/foo" is one too, as npm reads it.
func githubShorthand(o string) bool {
	spec, _, _ := strings.Cut(o, "#")
	user, repo, ok := strings.Cut(spec, "/")
	if !ok || user == "" || repo == "" || strings.Contains(repo, "/") {
		return false
	}
	switch user[0] {
	case '@', '.', '-', '~', '/':
		return false
	}
	return !strings.ContainsAny(spec, ":@%\\ ")
}

func directURL(o string) bool {
	for _, p := range []string{"http://", "https://", "git+", "git://", "ftp://", "file:"} {
		if strings.HasPrefix(o, p) {
			return true
		}
	}
	return false
}

// registryVars are environment variables that choose where packages come from, or turn
// off the checks of what is downloaded.
var registryVars = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"goproxy": true, "gonosumdb": true, "gonosumcheck": true, "goinsecure": true, "gosumdb": true,
		"gonoproxy": true, "goprivate": true,
		"npm_config_registry": true, "yarn_registry": true, "pip_index_url": true,
		"pip_extra_index_url": true, "pip_trusted_host": true, "uv_index_url": true,
		"uv_extra_index_url": true, "uv_index": true, "cargo_registries_crates_io_index": true,
		"bundle_mirror__all": true, "node_tls_reject_unauthorized": true,
		"git_ssl_no_verify": true, "pythonhttpsverify": true, "poetry_repositories_pypi_url": true,
		"conda_channels": true,
	}
})

// officialSource reports whether a registry or index setting names only the default
// public registries over HTTPS (or go's direct and off): setting what is already the
// default changes nothing. A list (GOPROXY's commas and pipes) must be all of them.
func officialSource(value string) bool {
	value = strings.Trim(strings.TrimSpace(value), `"'`)
	if value == "" {
		return false
	}
	for _, item := range strings.FieldsFunc(value, func(r rune) bool { return r == ',' || r == '|' }) {
		if item == "direct" || item == "off" {
			continue
		}
		rest, ok := strings.CutPrefix(item, "https://")
		if !ok {
			return false
		}
		host, _, _ := strings.Cut(rest, "/")
		switch strings.ToLower(host) {
		case "registry.npmjs.org", "registry.npmjs.com", "registry.yarnpkg.com", "pypi.org", "pypi.python.org",
			"files.pythonhosted.org", "proxy.golang.org", "sum.golang.org", "index.crates.io", "crates.io",
			"rubygems.org", "repo.maven.apache.org", "repo1.maven.org", "api.nuget.org", "conda.anaconda.org",
			"repo.anaconda.com", "download.pytorch.org":
		default:
			return false
		}
	}
	return true
}

// sourceVar reports whether a variable of registryVars names where packages come from
// (rather than switching a check off), so that naming the default there is no change.
func sourceVar(name string) bool {
	switch name {
	case "goproxy", "npm_config_registry", "yarn_registry", "pip_index_url", "pip_extra_index_url",
		"uv_index_url", "uv_extra_index_url", "uv_default_index", "uv_index", "cargo_registries_crates_io_index",
		"bundle_mirror__all", "poetry_repositories_pypi_url":
		return true
	}
	return false
}

// mkcertInstalls: mkcert -install, written with one dash as mkcert spells its options.
func mkcertInstalls(_ *analyzer, v *view) string {
	if v.hasArg("-install") || v.hasArg("--install") {
		return "mkcert -install trusts a new certificate authority"
	}
	return ""
}

// mavenRepositoryProperties are Maven's -D properties that set where artifacts come
// from, or whether their downloads' certificates are checked.
var mavenRepositoryProperties = []string{"maven.repo.remote", "remoterepositories", "maven.wagon.http.ssl.insecure",
	"maven.wagon.http.ssl.allowall", "maven.wagon.http.ssl.ignore.validity.dates", "maven.resolver.transport.http.ssl.insecure"}

// mavenRepositoryProperty: mvn -Dmaven.repo.remote=URL, -DremoteRepositories=URL (for
// dependency:get), -Dmaven.wagon.http.ssl.insecure=true.
func mavenRepositoryProperty(_ *analyzer, v *view) string {
	for _, w := range v.args {
		prop, val, _ := strings.Cut(strings.TrimPrefix(w.lit, "-D"), "=")
		if w.dynamic || !strings.HasPrefix(w.lit, "-D") || !slices.Contains(mavenRepositoryProperties, strings.ToLower(prop)) {
			continue
		}
		if strings.Contains(strings.ToLower(prop), "ssl") && !trueWord(strings.ToLower(val)) {
			continue // a check left on
		}
		return "mvn " + shorten(w.lit)
	}
	return ""
}

// pipConfigIndex: pip config set KEY URL for an index other than PyPI, or a page of
// packages to install from (find-links).
func pipConfigIndex(_ *analyzer, v *view) string {
	for i, o := range v.ops {
		if (strings.Contains(o, "index-url") || strings.HasSuffix(o, "find-links")) && i+1 < len(v.raw) {
			if val := v.raw[i+1]; val.dynamic || !officialSource(val.lit) {
				return "pip config set " + o + " " + shorten(val.lit)
			}
		}
	}
	return ""
}

// caTrust returns the rule that finds a package manager told to check its downloads
// against other certificate authorities, or not at all: a configuration key that names
// the bundle (npm config set cafile FILE, pip config set global.cert FILE, conda config
// --set ssl_verify false), or an install option that does for one command (npm install
// --cafile FILE, pip install --cert FILE). keys are the program's keys, lower case,
// without a section (global.cert is cert); options its install options. The value is
// judged by caBundleRisk.
func caTrust(keys, options []string) func(*analyzer, *view) string {
	return settingRule(keys, options, caBundleRisk)
}

// proxySetting returns the rule that finds a package manager told to send its requests
// through a proxy on another network (npm config set https-proxy URL, pip --proxy URL),
// by proxyRisk.
func proxySetting(keys, options []string) func(*analyzer, *view) string {
	return settingRule(keys, options, proxyRisk)
}

// settingRule returns the rule that judges, by risk, the values of a program's
// configuration keys (set by its config command) and of its options.
func settingRule(keys, options []string, risk func(arg) string) func(*analyzer, *view) string {
	return func(_ *analyzer, v *view) string {
		for _, opt := range options {
			for _, val := range optionValues(v, opt) {
				if why := risk(val); why != "" {
					return v.name + " --" + opt + " " + shorten(val.lit) + ": " + why
				}
			}
		}
		if !slices.Contains(v.ops, "config") || configReads(v.ops) {
			return ""
		}
		for i, x := range v.args {
			if x.dynamic {
				continue
			}
			key, val, ok := strings.Cut(strings.TrimLeft(strings.ToLower(x.lit), "-"), "=")
			if j := strings.LastIndexByte(key, '.'); j >= 0 {
				key = key[j+1:]
			}
			if !slices.Contains(keys, key) {
				continue
			}
			if !ok {
				if i+1 >= len(v.args) {
					continue
				}
				val = v.args[i+1].lit
			}
			if why := risk(argValue(v.args, i, ok, val)); why != "" {
				return v.name + " config " + key + " " + shorten(val) + ": " + why
			}
		}
		return ""
	}
}

// argValue is the value of the setting at args[i]: its own text after = (inline), else
// the next word, dynamic when that word is.
func argValue(args []arg, i int, inline bool, val string) arg {
	if inline {
		return arg{lit: val, dynamic: args[i].dynamic}
	}
	return args[i+1]
}

// configReads reports whether a config command only reads or removes settings (npm config
// get, pip config unset, conda config --remove-key), which trusts nothing new.
func configReads(ops []string) bool {
	for _, o := range ops {
		switch o {
		case "get", "list", "ls", "delete", "rm", "unset", "edit", "show", "debug":
			return true
		}
	}
	return false
}

// proxyVar reports whether a variable (lower case) names the proxy a tool sends its
// requests through.
func proxyVar(name string) bool {
	switch name {
	case "https_proxy", "http_proxy", "all_proxy", "ftp_proxy", "npm_config_proxy", "npm_config_https_proxy",
		"yarn_proxy", "yarn_https_proxy", "pip_proxy", "cargo_http_proxy", "git_proxy", "bundle_http_proxy":
		return true
	}
	return false
}

// proxyRisk says why a proxy setting sends requests where someone else can watch or answer
// them ("" when it does not): a proxy computed at run time, or one on another network.
// A proxy on this machine or its own network (a corporate proxy by an internal name, a
// local debugging proxy) and an empty value are ordinary.
func proxyRisk(v arg) string {
	if v.dynamic {
		return "requests go through a proxy computed at run time"
	}
	val := strings.Trim(strings.TrimSpace(v.lit), `"'`)
	if val == "" {
		return ""
	}
	host := val
	if _, rest, ok := strings.Cut(host, "://"); ok {
		host = rest
	}
	if _, rest, ok := strings.Cut(host, "@"); ok {
		host = rest // user:password@host
	}
	host, _, _ = strings.Cut(host, "/")
	if strings.HasPrefix(host, "[") {
		if i := strings.IndexByte(host, ']'); i > 0 {
			host = host[:i+1]
		}
	} else if i := strings.LastIndexByte(host, ':'); i > 0 {
		host = host[:i]
	}
	if localNetwork(host) {
		return ""
	}
	return "requests go through a proxy at " + host + ", on another network"
}

// caBundleVar reports whether a variable (lower case) names the certificate authorities
// a tool checks HTTPS servers against, in place of the system's.
func caBundleVar(name string) bool {
	switch name {
	case "ssl_cert_file", "ssl_cert_dir", "requests_ca_bundle", "curl_ca_bundle",
		"node_extra_ca_certs", "git_ssl_cainfo", "git_ssl_capath", "pip_cert",
		"npm_config_cafile", "aws_ca_bundle", "cargo_http_cainfo", "bundle_ssl_ca_cert",
		"composer_cafile", "deno_cert", "yarn_ca_file_path", "hex_cacerts_path",
		"grpc_default_ssl_roots_file_path", "uv_ca_bundle", "conda_ssl_verify":
		return true
	}
	return false
}

// caBundleRisk says why a certificate bundle setting lets someone else answer for
// every server ("" when it does not): a bundle outside the system's trust store (a file
// in the project, the home directory or /tmp, which whoever can write it controls),
// one computed at run time, or a setting that switches the checks off. The system's
// own stores, which only root can change, are the ordinary values, and so is an empty
// value, which leaves the default.
func caBundleRisk(v arg) string {
	if v.dynamic {
		return "the bundle is computed at run time"
	}
	p := strings.TrimSpace(v.lit)
	switch {
	case p == "" || p == "null" || trueWord(strings.ToLower(p)):
		return ""
	case falseWord(strings.ToLower(p)):
		return "certificates are not checked"
	case !strings.HasPrefix(p, "/"):
		return "certificates are checked against a bundle outside the system's trust store, which anyone who can write it controls"
	}
	p = path.Clean(p)
	for _, store := range []string{"/etc/ssl/", "/etc/pki/", "/etc/ca-certificates/", "/usr/share/ca-certificates/",
		"/usr/local/share/ca-certificates/", "/usr/lib/ssl/", "/usr/share/pki/", "/etc/certs/",
		"/System/Library/OpenSSL/", "/opt/homebrew/etc/ca-certificates/", "/usr/local/etc/ca-certificates/",
		"/opt/homebrew/etc/openssl@3/", "/usr/local/etc/openssl@3/"} {
		if strings.HasPrefix(p, store) {
			return ""
		}
	}
	return "certificates are checked against a bundle outside the system's trust store, which anyone who can write it controls"
}

// condaChannel: conda install|create -c URL, or conda config --add channels URL: a
// channel given by its URL rather than by a name on anaconda.org.
func condaChannel(_ *analyzer, v *view) string {
	for _, c := range v.values("c", "channel") {
		if strings.Contains(c.lit, "://") || c.dynamic {
			return v.name + " -c " + c.lit
		}
	}
	if len(v.ops) >= 2 && v.ops[0] == "config" {
		// conda config --add channels URL: the key is --add's value, the URL an operand.
		for _, o := range v.raw[1:] {
			if strings.Contains(o.lit, "://") {
				return v.name + " config channels " + o.lit
			}
		}
	}
	return ""
}

// gitStagesSecret: git add FILE stores a file that holds credentials in the repository,
// where a commit keeps it for good and a push publishes it (git add -f .env, past the
// .gitignore that kept it out). A directory added whole is judged by its files' names
// at commit time, which moat does not see; a file named is judged here.
func gitStagesSecret(a *analyzer, v *view) string {
	sensitive := a.sh.env.Sensitive
	if sensitive == nil {
		return ""
	}
	for _, o := range v.raw[1:] {
		if o.dynamic || o.lit == "--" {
			continue
		}
		p, ok, _ := a.resolve(o.lit, a.cwd())
		if ok && sensitive(call.Access{Kind: call.Read, Path: p, Glob: o.glob}) {
			return "git add " + o.lit + ": a commit keeps it and a push publishes it"
		}
	}
	return ""
}

// trueWord reports whether s is one of the spellings of true in configuration.
func trueWord(s string) bool {
	switch s {
	case "true", "1", "yes", "on":
		return true
	}
	return false
}

// falseWord reports whether s is one of the spellings of false in configuration.
func falseWord(s string) bool {
	switch s {
	case "false", "0", "no", "off":
		return true
	}
	return false
}

// goInstallShadow: go install PKG[@VERSION] puts each package's program, named by the
// last element of its path (a major version's /vN skipped), into $GOBIN, else the first
// $GOPATH's bin, else ~/go/bin: one named as a common program (go install
// example.com/tools/cmd/ls@latest) runs in that program's place for everything that looks
// it up on PATH.
func goInstallShadow(a *analyzer, v *view) string {
	home, _ := a.st.get("HOME")
	dir := ""
	if gobin, _ := a.st.get("GOBIN"); gobin.known && gobin.s != "" {
		dir = gobin.s
	} else if gopath, _ := a.st.get("GOPATH"); gopath.known && gopath.s != "" {
		first, _, _ := strings.Cut(gopath.s, ":")
		dir = first + "/bin"
	} else if home.known {
		dir = home.s + "/go/bin"
	}
	if dir == "" || len(v.raw) < 2 {
		return ""
	}
	for _, o := range v.raw[1:] {
		if o.dynamic || strings.HasPrefix(o.lit, "-") {
			continue
		}
		pkg, _, _ := strings.Cut(o.lit, "@")
		pkg = strings.TrimSuffix(pkg, "/")
		name := path.Base(pkg)
		if len(name) > 1 && name[0] == 'v' && strings.Trim(name[1:], "0123456789") == "" {
			name = path.Base(path.Dir(pkg))
		}
		if name == "." || name == ".." || name == "..." || name == "/" {
			continue
		}
		if prog, ok := planted.Shadow(dir+"/"+name, home.s); ok {
			return "go install " + o.lit + " puts a program named " + prog + " into " + dir
		}
	}
	return ""
}

func goEnvRegistry(_ *analyzer, v *view) string {
	settings := v.values("w")
	for _, o := range v.raw[1:] {
		settings = append(settings, o)
	}
	for _, x := range settings {
		name, val, _ := strings.Cut(x.lit, "=")
		if registrySetting(strings.ToLower(name), val, x.dynamic) {
			return "go env -w " + x.lit
		}
	}
	return ""
}

// registrySetting reports whether setting the variable name (lower case) to val changes
// where packages come from or turns a download check off: a registry variable set to
// anything but its official source (go env -w GOPROXY=https://proxy.golang.org,direct
// changes nothing), one that turns a check off whatever its value, or GOFLAGS with
// -insecure, which fetches modules over plain HTTP and skips certificate checks.
func registrySetting(name, val string, dynamic bool) bool {
	if name == "goflags" {
		return strings.Contains(val, "-insecure")
	}
	return registryVars()[name] && (dynamic || !sourceVar(name) || !officialSource(val))
}

// wordMatch matches a rule's operand pattern, in which * stands for any text, slashes
// included (url.*.insteadof).
func wordMatch(pattern, s string) bool {
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		return pattern == s
	}
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(s, p)
		if i < 0 {
			return false
		}
		s = s[i+len(p):]
	}
	return strings.HasSuffix(s, parts[len(parts)-1])
}

// ztcp HOST PORT (zsh/net/tcp) opens a connection whose descriptor it puts in $REPLY:
// redirections to $REPLY later in the line are that connection.
func ztcp(a *analyzer, v *view) string {
	if len(v.ops) == 0 {
		return ""
	}
	if a.netFDs == nil {
		a.netFDs = make(map[string]bool)
	}
	a.netFDs["$REPLY"] = true
	return "ztcp " + strings.Join(v.ops, " ")
}

// dsclWrites: dscl NODE -create|-append|-delete|-passwd changes macOS accounts; its
// commands are spelled like options, so they are read from the words.
func dsclWrites(_ *analyzer, v *view) string {
	for _, c := range []string{"-create", "-append", "-delete", "-passwd", "-change"} {
		if v.hasArg(c) {
			return "dscl " + c
		}
	}
	return ""
}

// mountChanges finds the mounts that change what is already mounted (-o remount, --move,
// -a), which moat does not model as files written.
func mountChanges(_ *analyzer, v *view) string {
	if v.flag("a", "all", "move", "M") {
		return "mount changes every or an existing mount"
	}
	for _, o := range v.values("o", "options") {
		for _, opt := range strings.Split(o.lit, ",") {
			if opt == "remount" || opt == "move" || o.dynamic {
				return "mount -o " + o.lit + " changes an existing mount"
			}
		}
	}
	return ""
}

// migrateAllDown: golang-migrate's down with no count (or -all) takes every migration
// back, dropping what they made; down N takes back N.
func migrateAllDown(_ *analyzer, v *view) string {
	i := slices.Index(v.ops, "down")
	if i < 0 {
		return ""
	}
	if v.hasArg("-all") || v.hasArg("--all") || i+1 >= len(v.ops) || !isDigits(v.ops[i+1]) {
		return "migrate down (every migration)"
	}
	return ""
}

// gooseDownToZero: goose down-to 0 takes every migration back.
func gooseDownToZero(_ *analyzer, v *view) string {
	if i := slices.Index(v.ops, "down-to"); i >= 0 && i+1 < len(v.ops) && v.ops[i+1] == "0" {
		return "goose down-to 0"
	}
	return ""
}

// sqitchRevertsAll: sqitch revert without a change to stop at (--to, or a change
// operand such as @HEAD^) reverts every change deployed.
func sqitchRevertsAll(_ *analyzer, v *view) string {
	for _, o := range v.opts {
		if o.name == "to" || o.name == "to-change" || o.name == "to-target" {
			return ""
		}
	}
	for _, o := range v.ops[1:] {
		if strings.HasPrefix(o, "@") || strings.ContainsAny(o, "^~") {
			return ""
		}
	}
	return "sqitch revert (every change)"
}

// containerListing matches a substitution that lists every container's id (docker ps
// -aq, podman container ls -q).
var containerListing = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:\$\(|` + "`" + `)\s*(?:docker|podman|nerdctl)\s+(?:container\s+)?(?:ps|ls|list)\b[^)` + "`" + `]*-\w*q`)
})

// everyContainer: docker rm given the ids of every container, from a listing
// substitution; one with a filter (-f name=test-) lists those the user chose.
func everyContainer(_ *analyzer, v *view) string {
	for _, o := range v.raw {
		if o.dynamic && containerListing().MatchString(o.lit) && !strings.Contains(o.lit, " -f") && !strings.Contains(o.lit, "--filter") {
			return v.name + " rm " + o.lit
		}
	}
	return ""
}

// npmProgramSetting reports whether an npm setting's value is a program it runs, or
// options of the Node it starts.
func npmProgramSetting(k string) bool {
	switch strings.ToLower(k) {
	case "script-shell", "shell", "git", "editor", "browser", "viewer", "node-options":
		return true
	}
	return false
}

// nodeLoadsCode reports whether Node options load code before the program's own
// (--require, --import, a loader).
func nodeLoadsCode(opts string) bool {
	for _, f := range strings.Fields(opts) {
		name, _, _ := strings.Cut(f, "=")
		switch name {
		case "-r", "--require", "--import", "--loader", "--experimental-loader":
			return true
		}
	}
	return false
}
