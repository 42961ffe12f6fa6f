package shell

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/glob"
)

// pathRule says that an access of one of kinds to a path the pattern matches is evidence
// of the finding: writing ~/.bashrc is persistence whatever program does it, `> file` or
// tee or cp. A pattern starting with ~/ is below the home directory.
type pathRule struct {
	pattern string
	kinds   []call.AccessKind
	finding string
}

var (
	writeOrDelete = []call.AccessKind{call.Write, call.Delete}
	writeOnly     = []call.AccessKind{call.Write}
	readOnly      = []call.AccessKind{call.Read}
)

// pathRules is the table compiled on first use rather than at init: compiling it costs
// thousands of allocations, which every hook process would otherwise pay, while only the
// analysis of a shell command reads it.
var pathRules = sync.OnceValue(func() []compiledPathRule { return compilePathRules(allPathRuleData()) })

// allPathRuleData is every table of path rules: this file's and those kept beside the
// knowledge they belong to (system.go).
func allPathRuleData() []pathRule { return slices.Concat(pathRuleData, systemPathRuleData) }

var pathRuleData = []pathRule{
	// Block devices: writing one overwrites a disk or partition below any file system.
	{"/dev/sd*", writeOrDelete, findDiskWipe},
	{"/dev/hd*", writeOrDelete, findDiskWipe},
	{"/dev/vd*", writeOrDelete, findDiskWipe},
	{"/dev/xvd*", writeOrDelete, findDiskWipe},
	{"/dev/nvme*", writeOrDelete, findDiskWipe},
	{"/dev/mmcblk*", writeOrDelete, findDiskWipe},
	{"/dev/disk*", writeOrDelete, findDiskWipe},
	{"/dev/rdisk*", writeOrDelete, findDiskWipe},
	{"/dev/md*", writeOrDelete, findDiskWipe},
	{"/dev/dm-*", writeOrDelete, findDiskWipe},
	{"/dev/mapper/*", writeOrDelete, findDiskWipe},
	{"/dev/disk/**", writeOrDelete, findDiskWipe},

	// Scheduled jobs.
	{"/etc/crontab", writeOnly, findCron},
	{"/etc/cron.*/**", writeOnly, findCron},
	{"/var/spool/cron/**", writeOnly, findCron},
	{"/var/spool/cron", writeOnly, findCron},
	{"/etc/anacrontab", writeOnly, findCron},
	{"/var/at/tabs/**", writeOnly, findCron},

	// Shell startup files run on every new shell.
	{"~/.bashrc", writeOnly, findShellRC},
	{"~/.bash_profile", writeOnly, findShellRC},
	{"~/.bash_login", writeOnly, findShellRC},
	{"~/.bash_logout", writeOnly, findShellRC},
	{"~/.profile", writeOnly, findShellRC},
	{"~/.bash_aliases", writeOnly, findShellRC},
	{"~/.zshrc", writeOnly, findShellRC},
	{"~/.zshenv", writeOnly, findShellRC},
	{"~/.zprofile", writeOnly, findShellRC},
	{"~/.zlogin", writeOnly, findShellRC},
	{"~/.config/fish/config.fish", writeOnly, findShellRC},
	{"~/.config/fish/conf.d/**", writeOnly, findShellRC},
	{"/etc/profile", writeOnly, findShellRC},
	{"/etc/profile.d/**", writeOnly, findShellRC},
	{"/etc/bash.bashrc", writeOnly, findShellRC},
	{"/etc/bashrc", writeOnly, findShellRC},
	{"/etc/zshrc", writeOnly, findShellRC},
	{"/etc/zsh/**", writeOnly, findShellRC},
	{"/etc/environment", writeOnly, findShellRC},
	// Other shells' startup files, drop-in directories that rc files source, and files
	// read at login.
	{"~/.cshrc", writeOnly, findShellRC},
	{"~/.tcshrc", writeOnly, findShellRC},
	{"~/.login", writeOnly, findShellRC},
	{"~/.logout", writeOnly, findShellRC},
	{"~/.kshrc", writeOnly, findShellRC},
	{"~/.mkshrc", writeOnly, findShellRC},
	{"~/.zlogout", writeOnly, findShellRC},
	{"~/.bashrc.d/**", writeOnly, findShellRC},
	{"~/.zshrc.d/**", writeOnly, findShellRC},
	{"~/.oh-my-zsh/custom/**", writeOnly, findShellRC},
	{"~/.config/fish/functions/**", writeOnly, findShellRC},
	{"~/.config/nushell/**", writeOnly, findShellRC},
	{"~/.config/powershell/**", writeOnly, findShellRC},
	{"~/.pam_environment", writeOnly, findShellRC},
	{"~/.config/environment.d/**", writeOnly, findShellRC},
	{"~/.config/plasma-workspace/env/**", writeOnly, findShellRC},
	{"~/.direnvrc", writeOnly, findShellRC},
	{"~/.config/direnv/direnvrc", writeOnly, findShellRC},
	{"~/.config/direnv/lib/**", writeOnly, findShellRC},
	{"/etc/csh.cshrc", writeOnly, findShellRC},
	{"/etc/csh.login", writeOnly, findShellRC},
	// Other users' startup files run in their sessions.
	{"/home/*/.bashrc", writeOnly, findShellRC},
	{"/home/*/.bash_profile", writeOnly, findShellRC},
	{"/home/*/.profile", writeOnly, findShellRC},
	{"/home/*/.zshrc", writeOnly, findShellRC},
	{"/home/*/.zshenv", writeOnly, findShellRC},
	{"/home/*/.zprofile", writeOnly, findShellRC},
	{"/root/.bashrc", writeOnly, findShellRC},
	{"/root/.bash_profile", writeOnly, findShellRC},
	{"/root/.profile", writeOnly, findShellRC},
	{"/root/.zshrc", writeOnly, findShellRC},
	{"/root/.zshenv", writeOnly, findShellRC},
	{"/root/.zprofile", writeOnly, findShellRC},
	{"/Users/*/.bashrc", writeOnly, findShellRC},
	{"/Users/*/.bash_profile", writeOnly, findShellRC},
	{"/Users/*/.profile", writeOnly, findShellRC},
	{"/Users/*/.zshrc", writeOnly, findShellRC},
	{"/Users/*/.zshenv", writeOnly, findShellRC},
	{"/Users/*/.zprofile", writeOnly, findShellRC},
	// X sessions run these at login.
	{"~/.xprofile", writeOnly, findShellRC},
	{"~/.xinitrc", writeOnly, findShellRC},
	{"~/.xsession", writeOnly, findShellRC},
	{"~/.xsessionrc", writeOnly, findShellRC},
	// Emacs and the terminal multiplexers run these at every start, and each can run
	// commands (Emacs Lisp, tmux's run-shell, screen's exec), which moat does not read.
	// (Shell, vim and Python startup files are planted code, read as what they are.)
	{"~/.emacs", writeOnly, findToolConfig},
	{"~/.emacs.d/**", writeOnly, findToolConfig},
	{"~/.config/emacs/**", writeOnly, findToolConfig},
	{"~/.tmux.conf", writeOnly, findToolConfig},
	{"~/.config/tmux/**", writeOnly, findToolConfig},
	{"~/.screenrc", writeOnly, findToolConfig},
	// Debuggers, REPLs and terminals that run commands or code from their configuration.
	{"~/.gdbinit", writeOnly, findToolConfig},
	{"~/.config/gdb/**", writeOnly, findToolConfig},
	{"~/.lldbinit", writeOnly, findToolConfig},
	{"~/.ipython/profile_*/startup/**", writeOnly, findToolConfig},
	{"~/.ipython/profile_*/ipython_config.py", writeOnly, findToolConfig},
	{"~/.jupyter/jupyter_*_config.py", writeOnly, findToolConfig},
	{"~/.wezterm.lua", writeOnly, findToolConfig},
	{"~/.config/wezterm/**", writeOnly, findToolConfig},
	{"~/.config/kitty/**", writeOnly, findToolConfig},
	{"~/.config/alacritty/**", writeOnly, findToolConfig},
	// Prompts and tools that run commands or change what every run does: starship's
	// custom modules run at every prompt; curl's and wget's configuration apply to every
	// download (curlrc's output names where it lands, wgetrc's use_askpass a program);
	// readline's macros type commands at a key.
	{"~/.config/starship.toml", writeOnly, findToolConfig},
	{"~/.config/starship/**", writeOnly, findToolConfig},
	{"~/.curlrc", writeOnly, findToolConfig},
	{"~/.config/curlrc", writeOnly, findToolConfig},
	{"~/.wgetrc", writeOnly, findToolConfig},
	{"~/.config/wgetrc", writeOnly, findToolConfig},
	{"~/.inputrc", writeOnly, findToolConfig},
	// Desktop entries: their Exec line runs when the application is opened, and a
	// MIME type it claims opens every file of that type with it.
	{"~/.local/share/applications/**", writeOnly, findToolConfig},
	{"~/.config/autostart-scripts/**", writeOnly, findService},

	// Services started by the system or at login.
	{"/etc/systemd/**", writeOnly, findService},
	{"/lib/systemd/**", writeOnly, findService},
	{"/usr/lib/systemd/**", writeOnly, findService},
	{"~/.config/systemd/**", writeOnly, findService},
	{"~/.local/share/systemd/**", writeOnly, findService},
	{"/etc/init.d/**", writeOnly, findService},
	{"/etc/rc.local", writeOnly, findService},
	{"~/Library/LaunchAgents/**", writeOnly, findService},
	{"/Library/LaunchAgents/**", writeOnly, findService},
	{"/Library/LaunchDaemons/**", writeOnly, findService},
	{"~/.config/autostart/**", writeOnly, findService},
	// credential_process in the AWS config runs a command whenever credentials are needed.
	{"~/.aws/config", writeOnly, findToolConfig},

	// Keys that may log in.
	{"~/.ssh/authorized_keys*", writeOnly, findSSHKeys},
	{"/root/.ssh/authorized_keys*", writeOnly, findSSHKeys},
	{"/home/*/.ssh/authorized_keys*", writeOnly, findSSHKeys},
	{"/etc/ssh/sshd_config", writeOnly, findSSHKeys},
	{"~/.ssh/config", writeOnly, findSSHKeys},
	{"~/.ssh/rc", writeOnly, findSSHKeys},
	{"/etc/ssh/sshd_config.d/**", writeOnly, findSSHKeys},

	// Git hooks run on later git commands.
	{"/**/.git/hooks/**", writeOnly, findGitHooks},
	// What git keeps its history in: changing or removing these by hand, rather than
	// through git, can lose commits for good.
	{"/**/.git/HEAD", writeOrDelete, findHistoryRewrite},
	{"/**/.git/index", writeOrDelete, findHistoryRewrite},
	{"/**/.git/packed-refs", writeOrDelete, findHistoryRewrite},
	{"/**/.git/objects/**", writeOrDelete, findHistoryRewrite},
	{"/**/.git/refs/**", writeOrDelete, findHistoryRewrite},

	// Accounts and sudo rights.
	{"/etc/sudoers", writeOnly, findAccount},
	{"/etc/sudoers.d/**", writeOnly, findAccount},
	{"/etc/passwd", writeOnly, findAccount},
	{"/etc/shadow", writeOnly, findAccount},
	{"/etc/group", writeOnly, findAccount},
	{"/etc/gshadow", writeOnly, findAccount},

	// Logs and histories: clearing them hides what was done.
	{"/var/log", writeOrDelete, findLogTamper},
	{"/var/log/**", writeOrDelete, findLogTamper},
	{"~/.bash_history", writeOrDelete, findLogTamper},
	{"~/.zsh_history", writeOrDelete, findLogTamper},
	{"~/.history", writeOrDelete, findLogTamper},
	{"~/.local/share/fish/fish_history", writeOrDelete, findLogTamper},

	// Package manager configuration names the registry packages come from.
	{"~/.npmrc", writeOnly, findRegistry},
	{"/**/.npmrc", writeOnly, findRegistry},
	{"/**/.yarnrc", writeOnly, findRegistry},
	// A project's .yarnrc.yml, pip.conf, uv.toml, .cargo/config.toml and bunfig.toml are
	// read by package planted, as the settings and programs they hold.
	{"~/.pypirc", writeOnly, findRegistry},
	{"~/.gemrc", writeOnly, findRegistry},
	{"~/.config/go/env", writeOnly, findRegistry},
	{"/**/NuGet.Config", writeOnly, findRegistry},
	{"/**/NuGet.config", writeOnly, findRegistry},
	{"/**/nuget.config", writeOnly, findRegistry},
	{"/**/.condarc", writeOnly, findRegistry},
	{"/**/.bundle/config", writeOnly, findRegistry},
	{"~/.config/pypoetry/config.toml", writeOnly, findRegistry},
	{"~/.m2/settings.xml", writeOnly, findRegistry},
	{"/**/.mvn/maven.config", writeOnly, findRegistry},
	{"/**/.lfsconfig", writeOnly, findRegistry},
	// The system's package sources and the keys their packages are checked with.
	{"/etc/apt/sources.list", writeOnly, findRegistry},
	{"/etc/apt/sources.list.d/**", writeOnly, findRegistry},
	{"/etc/apt/trusted.gpg", writeOnly, findRegistry},
	{"/etc/apt/trusted.gpg.d/**", writeOnly, findRegistry},
	{"/etc/apt/keyrings/**", writeOnly, findRegistry},
	{"/usr/share/keyrings/**", writeOnly, findRegistry},
	{"/etc/yum.repos.d/**", writeOnly, findRegistry},
	{"/etc/zypp/repos.d/**", writeOnly, findRegistry},
	{"/etc/apk/repositories", writeOnly, findRegistry},
	{"/etc/pacman.conf", writeOnly, findRegistry},
	{"/etc/pacman.d/**", writeOnly, findRegistry},
	// Certificate authorities: one added here can answer for any server.
	{"/usr/local/share/ca-certificates/**", writeOnly, findRegistry},
	{"/usr/share/ca-certificates/**", writeOnly, findRegistry},
	{"/etc/ca-certificates.conf", writeOnly, findRegistry},
	{"/etc/ssl/certs/**", writeOnly, findRegistry},
	{"/etc/pki/ca-trust/**", writeOnly, findRegistry},
	{"/etc/pki/tls/certs/**", writeOnly, findRegistry},
	{"~/.pki/nssdb/**", writeOnly, findRegistry},
	{"/**/certifi/cacert.pem", writeOnly, findRegistry},
	{"/**/lib/security/cacerts", writeOnly, findRegistry},
	// Gradle runs init scripts on every build, and its properties can load agents into the
	// build's JVM.
	{"~/.gradle/init.gradle", writeOnly, findToolConfig},
	{"~/.gradle/init.gradle.kts", writeOnly, findToolConfig},
	{"~/.gradle/init.d/**", writeOnly, findToolConfig},
	{"~/.gradle/gradle.properties", writeOnly, findToolConfig},
	// Docker runs the credential helpers its configuration names.
	{"~/.docker/config.json", writeOnly, findToolConfig},

	// A raw disk holds every file on it, secrets included.
	{"/dev/sd*", readOnly, findCredentialsRead},
	{"/dev/nvme*", readOnly, findCredentialsRead},
	{"/dev/disk*", readOnly, findCredentialsRead},
	{"/dev/rdisk*", readOnly, findCredentialsRead},
	{"/dev/mem", readOnly, findCredentialsRead},
	{"/dev/kmem", readOnly, findCredentialsRead},
	{"/proc/kcore", readOnly, findCredentialsRead},

	// Another process's environment.
	{"/proc/*/environ", readOnly, findEnvDump},
}

type compiledPathRule struct {
	pathRule
	glob   *glob.Path
	prefix string // the pattern's literal directory: a path outside it cannot match
}

// compilePathRules compiles the table once. A pattern that does not compile is a mistake
// in this file, which TestPathRules reports; it is left out rather than stopping moat.
func compilePathRules(rules []pathRule) []compiledPathRule {
	out := make([]compiledPathRule, 0, len(rules))
	for _, r := range rules {
		p, err := glob.CompilePath(homeAnchored(r.pattern), glob.Options{})
		if err != nil {
			continue
		}
		out = append(out, compiledPathRule{r, p, glob.LiteralPrefix(homeAnchored(r.pattern))})
	}
	return out
}

// homeAnchored turns ~/x into /~/x: paths below the home directory are matched in that
// form, so that the table is compiled once for every user.
func homeAnchored(p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		return "/~/" + rest
	}
	return p
}

// PathFindings returns the findings that an access is evidence of (a write to a shell
// startup file is persistence, a write to /var/log is log tampering), whatever made the
// access: a shell command, an agent's file tool or an MCP tool. home is the user's home
// directory.
func PathFindings(acc call.Access, home string) []call.Finding { return pathFindings(nil, acc, home) }

// pathFindings appends the findings that the access is evidence of.
func pathFindings(dst []call.Finding, acc call.Access, home string) []call.Finding {
	p := acc.Path
	if acc.Glob {
		p = glob.LiteralPrefix(p)
	}
	rel := ""
	if home != "" && home != "/" {
		if rest, ok := strings.CutPrefix(p, home+"/"); ok {
			rel = "/~/" + rest
		} else if p == home {
			rel = "/~"
		}
	}
	rules := pathRules()
	for i := range rules {
		r := &rules[i]
		if !kindIn(acc.Kind, r.kinds) {
			continue
		}
		// Only the paths themselves count: `rm -rf /` is not evidence of clearing logs in
		// particular, and it is judged by what it deletes.
		hit := strings.HasPrefix(p, r.prefix) && r.glob.Match(p) ||
			rel != "" && strings.HasPrefix(rel, r.prefix) && r.glob.Match(rel)
		if hit && !hasFinding(dst, r.finding) {
			dst = append(dst, newFinding(r.finding, fmt.Sprintf("%s %s", acc.Kind, acc.Path)))
		}
	}
	return plantedShadow(dst, acc, home)
}

func kindIn(k call.AccessKind, kinds []call.AccessKind) bool {
	for _, x := range kinds {
		if x == k {
			return true
		}
	}
	return false
}

func hasFinding(fs []call.Finding, id string) bool {
	for _, f := range fs {
		if f.ID == id {
			return true
		}
	}
	return false
}
