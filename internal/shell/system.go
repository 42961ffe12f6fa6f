package shell

import (
	"slices"
	"strings"
	"sync"

	"github.com/moatdev/moat/internal/call"
)

// This file holds what moat knows about commands that act on the machine as a whole:
// switching off its own defences (the audit system, SELinux, AppArmor, firewalls,
// endpoint agents), stopping or restarting it, killing every process, and destroying
// disks below any file system. Like knowledge.go it is data: systemRules is merged into
// effectRules, systemOptions into valueOptions, and each table is iterated by tests.

// Finding ids of this file.
const (
	findSecurityOff = "evasion.security-off"
	findShutdown    = "destructive.system.shutdown"
	findKillAll     = "destructive.system.kill-all"
	findPackages    = "destructive.system.packages"
)

// securityServices are the services whose only job is to watch or confine the machine:
// stopping one is switching off a defence, whatever the service manager.
var securityServices = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		// Audit and logging of security events.
		"auditd": true, "audit": true, "auditbeat": true, "go-audit": true, "laurel": true,
		"rsyslog": true, "syslog": true, "syslog-ng": true, "systemd-journald": true,
		// Mandatory access control and firewalls.
		"apparmor": true, "selinux": true, "firewalld": true, "ufw": true, "iptables": true,
		"ip6tables": true, "nftables": true, "netfilter-persistent": true, "fail2ban": true,
		// Endpoint detection and host intrusion detection agents.
		"falcon-sensor": true, "falcond": true, "sentinelone": true, "sentinelagent": true,
		"mdatp": true, "wdavdaemon": true, "cbagentd": true, "cbdaemon": true, "elastic-agent": true,
		"elastic-endpoint": true, "osqueryd": true, "wazuh-agent": true, "ossec": true,
		"tetragon": true, "falco": true, "sysmon": true, "aide": true, "tripwire": true,
		"clamav-daemon": true, "clamav-freshclam": true, "qualys-cloud-agent": true,
		"amazon-guardduty-agent": true,
	}
})

// securityService reports whether a unit or service name (auditd, auditd.service) is one
// of securityServices.
func securityService(name string) bool { return securityServices()[unitName(name)] }

// lifelineServices are the services by which a machine is reached and runs at all: with
// the SSH server or the network stopped, a server an agent works on over SSH is cut off,
// the agent's session first.
var lifelineServices = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"ssh": true, "sshd": true, "openssh": true, "openssh-server": true, "dropbear": true,
		"networking": true, "network": true, "networkmanager": true, "systemd-networkd": true,
		"systemd-resolved": true, "wpa_supplicant": true, "netplan": true, "wicked": true,
		"dbus": true, "dbus-broker": true, "systemd-logind": true, "tailscaled": true,
		"zerotier-one": true, "wg-quick": true, "openvpn": true, "cloud-init": true,
		"amazon-ssm-agent": true, "google-guest-agent": true, "walinuxagent": true,
	}
})

// lifelineService reports whether a unit or service name is one of lifelineServices
// (templated units too: wg-quick@wg0).
func lifelineService(name string) bool {
	name = unitName(name)
	if at := strings.IndexByte(name, '@'); at > 0 {
		name = name[:at]
	}
	return lifelineServices()[name]
}

// unitName is a unit or service name without its type suffix, in lower case.
func unitName(name string) string {
	name = strings.ToLower(name)
	for _, suffix := range []string{".service", ".socket", ".target"} {
		name = strings.TrimSuffix(name, suffix)
	}
	return name
}

// serviceStops are the verbs of service managers that stop, disable or remove a service.
var serviceStops = []string{"stop", "disable", "mask", "kill", "remove", "off", "delete", "del", "unload", "bootout", "teardown"}

// powerVerbs are the systemctl (and loginctl) verbs that stop or restart the machine or
// leave it without its services.
var powerVerbs = "poweroff|reboot|halt|kexec|soft-reboot|rescue|emergency|suspend|hibernate|hybrid-sleep|suspend-then-hibernate"

// powerTargets are the units that, isolated or started, do the same.
var powerTargets = []string{"poweroff.target", "reboot.target", "halt.target", "kexec.target", "rescue.target", "emergency.target",
	"shutdown.target", "soft-reboot.target", "ctrl-alt-del.target", "runlevel0.target", "runlevel1.target", "runlevel6.target"}

// systemOptions are the options of this file's programs that take a value, merged into
// valueOptions.
var systemOptions = sync.OnceValue(func() map[string]valueOpts {
	return map[string]valueOpts{
		"auditctl":        {short: "aAbCdefFkprRSwW", long: []string{"backlog_wait_time", "reset-lost"}},
		"kill":            {short: "sn", long: []string{"signal"}},
		"pkill":           {short: "cdgGPstuUF", long: []string{"signal", "delimiter", "pgroup", "group", "parent", "session", "terminal", "euid", "uid", "pidfile", "ns", "nslist"}},
		"killall":         {short: "sunoyYZ", long: []string{"signal", "user", "younger-than", "older-than", "context"}},
		"killall5":        {short: "o"},
		"shutdown":        {},
		"cryptsetup":      {short: "cshSdloipbT", long: []string{"type", "cipher", "key-size", "key-file", "keyfile-size", "keyfile-offset", "hash", "iter-time", "pbkdf", "label", "subsystem", "key-slot", "header", "sector-size", "offset", "skip", "uuid", "tries", "timeout", "new-keyfile-size", "master-key-file", "volume-key-file", "pbkdf-memory", "pbkdf-parallel", "integrity", "luks2-metadata-size", "luks2-keyslots-size", "token-id", "token-type", "priority", "resilience", "hotzone-size", "device-size", "reduce-device-size", "encrypt", "decrypt"}},
		"hdparm":          {long: []string{"security-erase", "security-erase-enhanced", "security-set-pass", "security-unlock", "security-disable", "user-master", "security-mode", "write-sector", "make-bad-sector", "read-sector", "fwdownload", "fwdownload-mode3", "fwdownload-mode3-max", "fwdownload-mode7", "fwdownload-modee", "fwdownload-modee-max", "trim-sector-ranges", "dco-setmax", "set-sector-size"}},
		"nvme":            {short: "nslfopimrbdtTacHBN", long: []string{"namespace-id", "ses", "lbaf", "pi", "pil", "ms", "reset", "sanact", "ause", "owpass", "oipbp", "nodas", "output-format", "timeout"}, subcommand: true},
		"sg_format":       {short: "cCfFpPsSt", long: []string{"count", "cmplst", "ffmt", "fmtpinfo", "pfu", "pie", "size", "timeout", "six", "poll"}},
		"mdadm":           {short: "lnxcpbCeNaR", long: []string{"level", "raid-devices", "spare-devices", "chunk", "layout", "bitmap", "name", "metadata", "homehost", "config", "update"}},
		"zfs":             {subcommand: true},
		"zpool":           {subcommand: true},
		"badblocks":       {short: "bcdeiopt"},
		"flashrom":        {short: "pcilwrvEf", long: []string{"programmer", "chip", "image", "layout", "write", "read", "verify", "fmap-file", "output", "include"}},
		"wipefs":          {short: "ot", long: []string{"offset", "types", "backup"}},
		"setenforce":      {},
		"apparmor_parser": {short: "bIoMmLOfDS", long: []string{"base", "Include", "ofile", "subdomainfs", "match-string", "cache-loc", "features-file", "kernel-features", "policy-features", "config-file", "Optimize"}},
		"sysctl":          {short: "p", long: []string{"load", "pattern"}},
		"spctl":           {long: []string{"type", "path", "label", "context", "remove", "add", "rule", "enable", "disable"}},
		"iptables":        {short: "tAIDRNXEPsdijogp", long: []string{"table", "append", "insert", "delete", "replace", "list-rules", "list", "flush", "zero", "new-chain", "delete-chain", "rename-chain", "policy", "source", "destination", "in-interface", "out-interface", "jump", "goto", "match", "protocol", "dport", "sport"}},
		"ip6tables":       {short: "tAIDRNXEPsdijogp", long: []string{"table", "append", "insert", "delete", "replace", "list-rules", "list", "flush", "zero", "new-chain", "delete-chain", "rename-chain", "policy", "source", "destination", "in-interface", "out-interface", "jump", "goto", "match", "protocol", "dport", "sport"}},
	}
})

// systemRules are merged into effectRules.
var systemRules = sync.OnceValue(func() map[string][]rule {
	wipe := func(sub ...string) rule { return rule{sub: sub, finding: findDiskWipe} }
	rules := map[string][]rule{
		// The audit system: -e 0 switches it off, -D deletes every rule, -d and -W one.
		"auditctl": {
			{anyOf: []string{"D"}, finding: findSecurityOff},
			{when: auditctlOff, finding: findSecurityOff},
		},
		"setenforce":  {{operand: "0", finding: findSecurityOff}, {operand: "permissive", finding: findSecurityOff}},
		"aa-teardown": {{finding: findSecurityOff}},
		"aa-disable":  {{finding: findSecurityOff}},
		"aa-complain": {{finding: findSecurityOff}},
		"apparmor_parser": {
			{anyOf: []string{"R", "remove"}, finding: findSecurityOff},
		},
		"systemctl": {
			{sub: []string{"*"}, when: serviceStopped(securityService), finding: findSecurityOff},
			{sub: []string{"*"}, when: serviceStopped(lifelineService), finding: findShutdown},
			{sub: []string{powerVerbs}, finding: findShutdown},
			{sub: []string{"isolate|start"}, when: powerTarget, finding: findShutdown},
		},
		"service":     {{when: sysvServiceStopped(securityService), finding: findSecurityOff}, {when: sysvServiceStopped(lifelineService), finding: findShutdown}},
		"rc-service":  {{when: sysvServiceStopped(securityService), finding: findSecurityOff}, {when: sysvServiceStopped(lifelineService), finding: findShutdown}},
		"chkconfig":   {{when: sysvServiceStopped(securityService), finding: findSecurityOff}, {when: sysvServiceStopped(lifelineService), finding: findShutdown}},
		"update-rc.d": {{when: sysvServiceStopped(securityService), finding: findSecurityOff}, {when: sysvServiceStopped(lifelineService), finding: findShutdown}},
		"invoke-rc.d": {{when: sysvServiceStopped(securityService), finding: findSecurityOff}, {when: sysvServiceStopped(lifelineService), finding: findShutdown}},
		"grubby":      {{when: bootArgsWeaken, finding: findSecurityOff}},
		"kernelstub":  {{when: bootArgsWeaken, finding: findSecurityOff}},
		"dbus-send":   {{when: dbusPower, finding: findShutdown}},
		"busctl":      {{when: dbusPower, finding: findShutdown}},
		"gdbus":       {{when: dbusPower, finding: findShutdown}},
		"rc-update":   {{sub: []string{"del|delete"}, when: serviceOperand(securityService), finding: findSecurityOff}, {sub: []string{"del|delete"}, when: serviceOperand(lifelineService), finding: findShutdown}},
		"launchctl":   {{sub: []string{"unload|bootout|disable|remove|kill"}, when: serviceOperand(securityService), finding: findSecurityOff}, {sub: []string{"unload|bootout|disable|remove|kill"}, when: serviceOperand(lifelineService), finding: findShutdown}},
		"pkill":       {{when: killsSecurityService, finding: findSecurityOff}, {when: killsEveryProcess, finding: findKillAll}},
		"killall":     {{when: killsSecurityService, finding: findSecurityOff}, {when: killsEveryProcess, finding: findKillAll}},
		"ufw":         {{sub: []string{"disable|reset"}, finding: findSecurityOff}},
		"iptables":    {{when: firewallOpened, finding: findSecurityOff}, {when: firewallClosed, finding: findShutdown}},
		"ip6tables":   {{when: firewallOpened, finding: findSecurityOff}, {when: firewallClosed, finding: findShutdown}},
		"nft":         {{sub: []string{"flush", "ruleset"}, finding: findSecurityOff}},
		"spctl":       {{anyOf: []string{"master-disable", "global-disable", "disable"}, finding: findSecurityOff}},
		"csrutil":     {{sub: []string{"disable"}, finding: findSecurityOff}, {sub: []string{"authenticated-root", "disable"}, finding: findSecurityOff}},
		"sysctl":      {{when: sysctlWeakens, finding: findSecurityOff}},

		// Stopping or restarting the machine.
		"shutdown": {{noneOf: []string{"c", "k", "help"}, finding: findShutdown}},
		"reboot":   {{noneOf: []string{"help"}, finding: findShutdown}},
		"poweroff": {{noneOf: []string{"help"}, finding: findShutdown}},
		"halt":     {{noneOf: []string{"help"}, finding: findShutdown}},
		"init":     {{sub: []string{"0|1|6|s|S|single|halt|reboot"}, finding: findShutdown}},
		"telinit":  {{sub: []string{"0|1|6|s|S|single|halt|reboot"}, finding: findShutdown}},
		"loginctl": {{sub: []string{powerVerbs}, finding: findShutdown}},
		"kexec":    {{anyOf: []string{"e", "exec"}, finding: findShutdown}},
		"kill":     {{when: killsEveryProcess, finding: findKillAll}},
		"killall5": {{when: killall5Kills, finding: findKillAll}},

		// Removing every package, or one the system cannot run without.
		"apt":      {{sub: []string{"remove|purge"}, when: removesSystemPackages, finding: findPackages}},
		"apt-get":  {{sub: []string{"remove|purge"}, when: removesSystemPackages, finding: findPackages}},
		"aptitude": {{sub: []string{"remove|purge"}, when: removesSystemPackages, finding: findPackages}},
		"dpkg":     {{anyOf: []string{"r", "remove", "P", "purge"}, when: removesSystemPackages, finding: findPackages}},
		"dnf":      {{sub: []string{"remove|erase|rm"}, when: removesSystemPackages, finding: findPackages}},
		"yum":      {{sub: []string{"remove|erase"}, when: removesSystemPackages, finding: findPackages}},
		"zypper":   {{sub: []string{"remove|rm"}, when: removesSystemPackages, finding: findPackages}},
		"rpm":      {{anyOf: []string{"e", "erase"}, when: removesSystemPackages, finding: findPackages}},
		"pacman":   {{anyOf: []string{"R", "remove"}, when: removesSystemPackages, finding: findPackages}},
		"apk":      {{sub: []string{"del"}, when: removesSystemPackages, finding: findPackages}},
		"pkg":      {{sub: []string{"delete|remove"}, when: removesSystemPackages, finding: findPackages}}, // FreeBSD's
		"brew":     {{sub: []string{"uninstall|remove|rm"}, when: removesSystemPackages, finding: findPackages}},
		"port":     {{sub: []string{"uninstall"}, when: removesSystemPackages, finding: findPackages}},

		// Destroying disks, volumes and pools below any file system.
		"cryptsetup": {
			{operand: "luksformat", finding: findDiskWipe}, {operand: "erase", finding: findDiskWipe},
			{operand: "lukserase", finding: findDiskWipe}, {operand: "lukskillslot", finding: findDiskWipe},
		},
		"hdparm": {{anyOf: []string{"security-erase", "security-erase-enhanced", "security-set-pass", "write-sector", "make-bad-sector",
			"trim-sector-ranges", "trim-sector-ranges-stdin", "fwdownload", "fwdownload-mode3", "fwdownload-mode3-max", "fwdownload-mode7",
			"fwdownload-modee", "fwdownload-modee-max", "dco-restore", "dco-setmax", "set-sector-size"}, finding: findDiskWipe}},
		"nvme":        {wipe("format|sanitize|delete-ns|ns-delete|write-zeroes")},
		"sg_format":   {{anyOf: []string{"format", "F"}, finding: findDiskWipe}},
		"sg_sanitize": {{finding: findDiskWipe}},
		"mdadm":       {{anyOf: []string{"zero-superblock"}, finding: findDiskWipe}},
		"lvremove":    {{finding: findDiskWipe}},
		"vgremove":    {{finding: findDiskWipe}},
		"pvremove":    {{finding: findDiskWipe}},
		"zpool":       {wipe("destroy|labelclear")},
		"zfs":         {wipe("destroy")},
		"badblocks":   {{anyOf: []string{"w"}, finding: findDiskWipe}},
		"flashrom":    {{anyOf: []string{"w", "write", "E", "erase"}, finding: findDiskWipe}},
		"gpart":       {wipe("destroy|delete")},
		"gpt":         {wipe("destroy")},

		// Clusters and infrastructure, beyond the verbs infraCLIs finds: scaling to zero
		// replicas takes a service down as surely as deleting it; pruning, forced
		// replacement and NoExecute taints on every node delete or evict what runs.
		"kubectl": {
			{sub: []string{"scale"}, when: scaledToZero, finding: findInfraDelete},
			{sub: []string{"apply"}, anyOf: []string{"prune"}, finding: findInfraDelete},
			{sub: []string{"replace"}, anyOf: []string{"force"}, finding: findInfraDelete},
			{sub: []string{"taint"}, when: taintEvictsAll, finding: findInfraDelete},
			{sub: []string{"patch"}, when: patchedToZero, finding: findInfraDelete},
		},
		"oc": {
			{sub: []string{"delete|drain"}, finding: findInfraDelete},
			{sub: []string{"scale"}, when: scaledToZero, finding: findInfraDelete},
		},
		// A hosted app's processes or machines scaled to none: heroku ps:scale web=0,
		// fly scale count 0.
		"heroku": {{sub: []string{"ps:scale"}, when: processesToZero, finding: findInfraDelete}},
		"fly":    {{sub: []string{"scale", "count"}, when: processesToZero, finding: findInfraDelete}},
		"flyctl": {{sub: []string{"scale", "count"}, when: processesToZero, finding: findInfraDelete}},
		// Changes applied without the review their tools make a person give (terraform's
		// plan, pulumi's preview, cdk's approval of widened access) may destroy resources
		// unseen: the review is the user's to skip.
		"terraform": {
			{sub: []string{"taint"}, finding: findInfraDelete},
			{sub: []string{"apply"}, when: terraformReplaces, finding: findInfraDelete},
			{sub: []string{"apply|destroy"}, when: unreviewedApply, finding: findInfraDelete},
			// state push replaces the recorded state, and resources it no longer lists are
			// destroyed by the next apply.
			{sub: []string{"state", "push"}, finding: findInfraDelete},
		},
		"terragrunt": {{when: terraformReplaces, finding: findInfraDelete}, {when: unreviewedApply, finding: findInfraDelete}},
		"pulumi":     {{sub: []string{"stack", "rm"}, finding: findInfraDelete}, {sub: []string{"up|update|import|refresh"}, when: unreviewedApply, finding: findInfraDelete}},
		"cdk":        {{sub: []string{"deploy"}, when: unreviewedApply, finding: findInfraDelete}},
		"cdktf":      {{sub: []string{"deploy|apply"}, when: unreviewedApply, finding: findInfraDelete}},
		"podman":     {{sub: []string{"system", "reset"}, finding: findInfraDelete}},
		"find":       {{when: findEnumerates, finding: findRecon}},
		"getcap":     {{anyOf: []string{"r"}, finding: findRecon}},
		// nomad job stop -purge removes the job and its history; -purge is one word.
		"nomad":          {{sub: []string{"job", "stop"}, when: wordGiven("-purge", "--purge"), finding: findInfraDelete}},
		"docker-compose": {{sub: []string{"down"}, anyOf: []string{"v", "volumes"}, finding: findInfraDelete}},
		"podman-compose": {{sub: []string{"down"}, anyOf: []string{"v", "volumes"}, finding: findInfraDelete}},
	}
	// mkfs's other names: each formats the device it is given.
	for _, name := range []string{"mkdosfs", "mkntfs", "mkexfatfs", "mkfs.fat", "newfs", "newfs_apfs", "newfs_hfs", "newfs_msdos", "newfs_exfat", "mkudffs", "mkreiserfs", "mkhfs", "mkjfs"} {
		rules[name] = []rule{{operand: "/dev/*", finding: findDiskWipe}}
	}
	// A security daemon's own init script, run with a verb: /etc/init.d/auditd stop.
	// Names that are programs of their own (ufw, iptables) keep their own rules.
	for name := range securityServices() {
		if _, own := rules[name]; !own {
			rules[name] = []rule{{sub: []string{strings.Join(serviceStops, "|")}, finding: findSecurityOff}}
		}
	}
	return rules
})

// systemPathRuleData are the files whose writing switches a defence off or stops the
// machine, whatever program writes them (echo 0 > /sys/fs/selinux/enforce).
var systemPathRuleData = []pathRule{
	{"/sys/fs/selinux/enforce", writeOnly, findSecurityOff},
	{"/selinux/enforce", writeOnly, findSecurityOff},
	{"/sys/fs/selinux/disable", writeOnly, findSecurityOff},
	{"/etc/selinux/config", writeOnly, findSecurityOff},
	{"/sys/kernel/security/apparmor/.remove", writeOnly, findSecurityOff},
	{"/sys/module/apparmor/parameters/enabled", writeOnly, findSecurityOff},
	{"/proc/sys/kernel/randomize_va_space", writeOnly, findSecurityOff},
	{"/proc/sys/kernel/yama/ptrace_scope", writeOnly, findSecurityOff},
	{"/proc/sys/kernel/kptr_restrict", writeOnly, findSecurityOff},
	{"/etc/apparmor.d/disable/**", writeOnly, findSecurityOff},
	{"/etc/audit/audit.rules", writeOrDelete, findSecurityOff},
	{"/etc/audit/rules.d/**", writeOrDelete, findSecurityOff},
	{"/etc/audit/auditd.conf", writeOrDelete, findSecurityOff},
	// Writing a letter to sysrq-trigger reboots (b), powers off (o) or crashes (c) at once.
	{"/proc/sysrq-trigger", writeOnly, findShutdown},
}

// weakeningBootArgs are kernel command-line arguments that boot without a defence.
var weakeningBootArgs = []string{"selinux=0", "enforcing=0", "apparmor=0", "security=none", "audit=0", "lsm=", "module.sig_enforce=0", "lockdown=none", "mitigations=off"}

// bootArgsWeaken: grubby --args and kernelstub -a adding one of weakeningBootArgs.
func bootArgsWeaken(_ *analyzer, v *view) string {
	for _, x := range v.args {
		l := strings.ToLower(x.lit)
		for _, w := range weakeningBootArgs {
			if strings.Contains(l, w) {
				return v.name + " " + w
			}
		}
	}
	return ""
}

// dbusPower: a D-Bus call of logind's or systemd's power methods.
func dbusPower(_ *analyzer, v *view) string {
	for _, x := range v.args {
		for _, m := range []string{"PowerOff", "Reboot", "Halt", "Suspend", "Hibernate", "KExec", "SoftReboot"} {
			if strings.HasSuffix(x.lit, "."+m) || x.lit == m {
				return v.name + " " + x.lit
			}
		}
	}
	return ""
}

// patchedToZero: kubectl patch … -p '{"spec":{"replicas":0}}' (or YAML's replicas: 0).
func patchedToZero(_ *analyzer, v *view) string {
	for _, x := range v.args {
		l := strings.ReplaceAll(strings.ReplaceAll(x.lit, " ", ""), "'", "\"")
		if strings.Contains(l, `"replicas":0`) || strings.Contains(l, "replicas:0") {
			return "kubectl patch replicas 0"
		}
	}
	return ""
}

// scaledToZero: --replicas=0 (or --replicas 0).
func scaledToZero(_ *analyzer, v *view) string {
	for i, x := range v.args {
		name, val, has := strings.Cut(x.lit, "=")
		if !has && i+1 < len(v.args) {
			val = v.args[i+1].lit
		}
		if name == "--replicas" && val == "0" {
			return v.name + " " + v.ops[0] + " --replicas=0"
		}
	}
	return ""
}

// processesToZero: an operand 0, or TYPE=0 (heroku ps:scale web=0, fly scale count 0,
// fly scale count app=0).
func processesToZero(_ *analyzer, v *view) string {
	for _, o := range v.ops[1:] {
		if _, n, ok := strings.Cut(o, "="); o == "0" || ok && n == "0" {
			return v.name + " " + strings.Join(v.ops, " ")
		}
	}
	return ""
}

// taintEvictsAll: kubectl taint nodes --all KEY=VALUE:NoExecute evicts every pod.
func taintEvictsAll(_ *analyzer, v *view) string {
	if !v.flag("all") {
		return ""
	}
	for _, o := range v.ops[1:] {
		if strings.HasSuffix(o, ":noexecute") {
			return "kubectl taint --all " + o
		}
	}
	return ""
}

// terraformReplaces: apply -replace=ADDR destroys the resource before recreating it;
// terragrunt runs terraform's destroy through verbs of its own (run-all destroy,
// run --all -- destroy).
func terraformReplaces(_ *analyzer, v *view) string {
	for _, x := range v.args {
		if strings.HasPrefix(x.lit, "-replace") || strings.HasPrefix(x.lit, "--replace") {
			return v.name + " apply " + x.lit
		}
	}
	if v.name == "terragrunt" {
		for _, o := range v.ops {
			if o == "destroy" {
				return "terragrunt " + strings.Join(v.ops, " ")
			}
		}
		if v.hasArg("-destroy") || v.hasArg("--destroy") {
			return "terragrunt -destroy"
		}
	}
	return ""
}

// wordGiven returns a rule body that finds one of words among the arguments, for the
// options of one dash and a long name that the option parser splits into letters.
func wordGiven(words ...string) func(*analyzer, *view) string {
	return func(_ *analyzer, v *view) string {
		for _, w := range words {
			if v.hasArg(w) {
				return v.name + " " + strings.Join(v.ops, " ") + " " + w
			}
		}
		return ""
	}
}

// unreviewedApply: the options that apply infrastructure changes without showing them to
// a person first: terraform's and terragrunt's -auto-approve (and terragrunt's
// non-interactive run-all apply), pulumi's --yes and --skip-preview, cdk's
// --require-approval never and cdktf's --auto-approve. A plan file (terraform apply
// PLAN) was made to be reviewed, and is left to the user's workflow.
func unreviewedApply(_ *analyzer, v *view) string {
	for i, x := range v.args {
		if x.dynamic {
			continue
		}
		name, val, has := strings.Cut(strings.TrimLeft(x.lit, "-"), "=")
		if !strings.HasPrefix(x.lit, "-") || has && (val == "false" || val == "0") {
			continue
		}
		switch v.name {
		case "terraform", "terragrunt", "cdktf":
			if name == "auto-approve" || v.name == "terragrunt" && (name == "terragrunt-non-interactive" || name == "non-interactive") && terragruntApplies(v) {
				return v.name + " " + x.lit
			}
		case "pulumi":
			if name == "yes" || name == "y" || name == "skip-preview" || name == "f" {
				return "pulumi " + v.ops[0] + " " + x.lit
			}
		case "cdk":
			if name == "require-approval" {
				if !has && i+1 < len(v.args) {
					val = v.args[i+1].lit
				}
				if val == "never" {
					return "cdk deploy --require-approval never"
				}
			}
		}
	}
	return ""
}

// terragruntApplies: terragrunt's line applies or destroys (run-all apply, run --all --
// apply, apply).
func terragruntApplies(v *view) bool {
	for _, o := range v.ops {
		if o == "apply" || o == "destroy" {
			return true
		}
	}
	return false
}

// auditctlOff: -e 0 switches auditing off; -d and -W remove a rule or a watch.
func auditctlOff(_ *analyzer, v *view) string {
	for _, x := range v.values("e") {
		if x.lit == "0" {
			return "auditctl -e 0"
		}
	}
	for _, o := range v.opts {
		if o.name == "d" || o.name == "W" {
			return "auditctl -" + o.name + " " + o.val.lit
		}
	}
	return ""
}

// serviceStopped: systemctl stop|disable|mask|kill UNIT… naming a service that is.
func serviceStopped(is func(string) bool) func(*analyzer, *view) string {
	return func(_ *analyzer, v *view) string {
		verb := v.ops[0]
		if !slices.Contains(serviceStops, verb) {
			return ""
		}
		for _, u := range v.ops[1:] {
			if is(u) {
				return "systemctl " + verb + " " + u
			}
		}
		return ""
	}
}

// sysvServiceStopped: service NAME stop, rc-service NAME stop, chkconfig NAME off,
// update-rc.d NAME disable|remove, naming a service that is.
func sysvServiceStopped(is func(string) bool) func(*analyzer, *view) string {
	return func(_ *analyzer, v *view) string {
		if len(v.ops) < 2 || !is(v.ops[0]) || !slices.Contains(serviceStops, v.ops[1]) {
			return ""
		}
		return v.name + " " + v.ops[0] + " " + v.ops[1]
	}
}

// serviceOperand: an operand names a service that is (or its launchd plist).
func serviceOperand(is func(string) bool) func(*analyzer, *view) string {
	return func(_ *analyzer, v *view) string {
		for _, o := range v.ops {
			base := baseName(strings.TrimSuffix(o, ".plist"))
			if is(base) || is(lastDotted(base)) {
				return v.name + " " + strings.Join(v.ops, " ")
			}
		}
		return ""
	}
}

// lastDotted is the last part of a reverse-DNS label: com.apple.auditd gives auditd.
func lastDotted(s string) string {
	return s[strings.LastIndexByte(s, '.')+1:]
}

// powerTarget: systemctl isolate|start of a target that halts, reboots or leaves the
// machine in rescue mode.
func powerTarget(_ *analyzer, v *view) string {
	for _, u := range v.ops[1:] {
		for _, t := range powerTargets {
			if u == t || u+".target" == t {
				return "systemctl " + v.ops[0] + " " + u
			}
		}
	}
	return ""
}

// killsSecurityService: pkill or killall naming a security daemon.
func killsSecurityService(_ *analyzer, v *view) string {
	for _, o := range v.ops {
		if securityService(o) {
			return v.name + " " + o
		}
	}
	return ""
}

// firewallOpened: iptables -F (every rule flushed) or a default policy of ACCEPT.
func firewallOpened(_ *analyzer, v *view) string {
	if v.flag("F", "flush") {
		return v.name + " -F"
	}
	for i, x := range v.args {
		if (x.lit == "-P" || x.lit == "--policy") && i+2 < len(v.args) && strings.EqualFold(v.args[i+2].lit, "ACCEPT") {
			return v.name + " -P " + v.args[i+1].lit + " ACCEPT"
		}
	}
	return ""
}

// firewallClosed: iptables turning away all of the machine's own traffic, in or out: the
// INPUT or OUTPUT chain's policy set to DROP or REJECT, or a rule that drops everything
// there (-A INPUT -j DROP), which cuts off SSH and every service. A rule that matches
// something (-s, -p, --dport, -i…) is ordinary administration.
func firewallClosed(_ *analyzer, v *view) string {
	closes := func(target string) bool {
		return strings.EqualFold(target, "DROP") || strings.EqualFold(target, "REJECT")
	}
	own := func(chain string) bool {
		return strings.EqualFold(chain, "INPUT") || strings.EqualFold(chain, "OUTPUT")
	}
	args := v.args
	for i, x := range args {
		if (x.lit == "-P" || x.lit == "--policy") && i+2 < len(args) && own(args[i+1].lit) && closes(args[i+2].lit) {
			return v.name + " -P " + args[i+1].lit + " " + args[i+2].lit
		}
	}
	chain, target, matches := "", "", false
	for i := 0; i < len(args); i++ {
		switch x := args[i].lit; {
		case x == "-A" || x == "--append" || x == "-I" || x == "--insert":
			if i+1 < len(args) {
				chain = args[i+1].lit
				i++
			}
		case x == "-j" || x == "--jump":
			if i+1 < len(args) {
				target = args[i+1].lit
				i++
			}
		case x == "-t" || x == "--table" || x == "-w" || x == "--wait":
			if x == "-t" || x == "--table" {
				i++
			}
		case strings.HasPrefix(x, "-"):
			matches = true
		}
		// Other words are a rule's position (-I INPUT 1) or an option's value.
	}
	if own(chain) && closes(target) && !matches {
		return v.name + " -A " + chain + " -j " + target
	}
	return ""
}

// weakeningSysctls are kernel settings whose value turns a defence off.
var weakeningSysctls = map[string]string{
	"kernel.randomize_va_space":        "0",
	"kernel.yama.ptrace_scope":         "0",
	"kernel.kptr_restrict":             "0",
	"kernel.dmesg_restrict":            "0",
	"kernel.unprivileged_bpf_disabled": "0",
	"fs.protected_symlinks":            "0",
	"fs.protected_hardlinks":           "0",
}

// sysctlWeakens: sysctl [-w] KEY=VALUE setting one of weakeningSysctls to its weak value.
func sysctlWeakens(_ *analyzer, v *view) string {
	for _, o := range v.ops {
		key, val, ok := strings.Cut(o, "=")
		if !ok {
			continue
		}
		key = strings.ReplaceAll(strings.TrimSpace(key), "/", ".")
		if weak, ok := weakeningSysctls[key]; ok && weak != "" && strings.TrimSpace(val) == weak {
			return "sysctl " + o
		}
	}
	return ""
}

// isSignalSpec reports whether s is kill's signal written as an option: -9, -KILL, -SIGKILL.
func isSignalSpec(s string) bool {
	if len(s) < 2 || s[0] != '-' {
		return false
	}
	s = strings.ToUpper(s[1:])
	if isPort(s) && !strings.Contains(s, "-") {
		return true // -9
	}
	s = strings.TrimPrefix(s, "SIG")
	for i := 0; i < len(s); i++ {
		if (s[i] < 'A' || s[i] > 'Z') && (s[i] < '0' || s[i] > '9') && s[i] != '+' && s[i] != '-' {
			return false
		}
	}
	return s != ""
}

// killsEveryProcess: kill with the pid -1 (every process the user may signal) or 1 (init,
// whose death brings the machine down); pkill or killall matching every process, or every
// process of a user, rather than a name.
func killsEveryProcess(_ *analyzer, v *view) string {
	switch v.name {
	case "kill":
		signal := ""
		ended := false
		for i := 0; i < len(v.args); i++ {
			x := v.args[i]
			if x.dynamic {
				continue
			}
			s := x.lit
			switch {
			case !ended && s == "--":
				ended = true
			case !ended && (s == "-s" || s == "-n" || s == "--signal"):
				if i+1 < len(v.args) {
					signal = strings.ToUpper(v.args[i+1].lit)
				}
				i++
			case !ended && (s == "-l" || s == "-L" || s == "--list" || s == "--table"):
				return ""
			case !ended && signal == "" && i == 0 && isSignalSpec(s):
				signal = strings.ToUpper(s[1:])
			case s == "-1":
				return "kill " + strings.Join(v.flags, " ") + " -1"
			case s == "1" && signal != "0" && signal != "HUP" && signal != "SIGHUP" && signal != "1":
				return "kill 1"
			}
		}
	case "pkill", "killall":
		if v.flag("l", "list", "V", "version", "help") {
			return ""
		}
		everyone := len(v.ops) == 0 && v.flag("u", "user", "U", "uid", "euid", "g", "G", "group", "P", "parent", "s", "session", "t", "terminal")
		for _, o := range v.ops {
			if o == "." || o == ".*" || o == "^" || o == "" || o == "$" {
				everyone = true
			}
		}
		if everyone {
			return v.name + " " + strings.Join(v.ops, " ") + " (every process)"
		}
	}
	return ""
}

// killall5: sends a signal to every process outside its own session; -0 only checks.
func killall5Kills(_ *analyzer, v *view) string {
	for _, x := range v.args {
		if x.lit == "-0" {
			return ""
		}
	}
	return "killall5"
}

// killedByPid judges the pids kill is given by a substitution or, under xargs, on its
// standard input: found by the name of a security daemon (kill $(pidof auditd)), it
// switches a defence off; every process ps lists, unfiltered (ps -e -o pid= | xargs
// kill -9), is every process.
func (a *analyzer) killedByPid(i int) {
	m := &a.meta[i]
	if m.prog != "kill" {
		return
	}
	var spans []span
	for _, s := range m.substs {
		if sp, ok := a.substs[s]; ok {
			spans = append(spans, sp)
		}
	}
	if m.piped {
		spans = append(spans, m.in.from)
	}
	for _, sp := range spans {
		listsAll, filtered := false, false
		for j := sp.start; j < sp.end && j < len(a.cmds); j++ {
			c := &a.cmds[j]
			switch a.meta[j].prog {
			case "pidof", "pgrep":
				filtered = true
				for _, o := range c.Operands {
					if securityService(baseName(o)) {
						a.cmds[i] = withFinding(a.cmds[i], findSecurityOff, "kill $("+a.meta[j].prog+" "+o+")")
						return
					}
				}
			case "ps":
				listsAll = listsAll || psListsAll(c)
			case "grep", "egrep", "head", "tail", "sed", "jq":
				// A filter keeps some processes; grep -v grep alone keeps them all.
				filtered = filtered || !(a.meta[j].prog == "grep" && c.HasFlag("v") && len(c.Operands) == 1 && c.Operands[0] == "grep")
			case "awk", "gawk", "mawk":
				// awk '{print $2}' only picks the column; a pattern before the action filters.
				filtered = filtered || len(c.Operands) == 0 || !strings.HasPrefix(strings.TrimSpace(c.Operands[0]), "{")
			}
		}
		if listsAll && !filtered {
			a.cmds[i] = withFinding(a.cmds[i], findKillAll, "kill of every process ps lists")
			return
		}
	}
}

// psListsAll reports whether ps lists every process: -e, -A, ax, aux, without a
// selection of its own (-p, -u, -C…).
func psListsAll(c *call.Command) bool {
	all := c.HasFlag("e") || c.HasFlag("A")
	for _, o := range c.Operands {
		all = all || strings.Contains(o, "a") && strings.Contains(o, "x")
	}
	for _, sel := range []string{"p", "u", "U", "C", "g", "G", "t", "pid", "ppid", "user", "group"} {
		if c.HasFlag(sel) {
			return false
		}
	}
	return all
}

// systemPackages are the packages a system cannot run, boot or be repaired without, by
// the names of the distributions' package managers: the C library, the init system, the
// package manager and its database, the shell and core utilities, sudo and the SSH
// server, the kernel and the boot loader.
var systemPackages = sync.OnceValue(func() map[string]bool {
	m := make(map[string]bool)
	for _, n := range []string{
		"libc6", "libc-bin", "glibc", "glibc-common", "musl", "systemd", "systemd-sysv", "init", "sysvinit-core",
		"openrc", "dpkg", "apt", "rpm", "dnf", "yum", "libdnf", "zypper", "pacman", "apk-tools", "busybox",
		"alpine-base", "base", "base-files", "filesystem", "bash", "dash", "coreutils", "util-linux", "login",
		"passwd", "shadow", "sudo", "openssh-server", "openssh", "python3", "python3-minimal", "perl-base",
		"linux", "linux-image-generic", "kernel", "kernel-core", "grub", "grub2", "grub-pc", "grub-efi-amd64",
		"grub2-common", "shim", "shim-signed", "udev", "dbus", "network-manager", "networkmanager", "netplan.io",
		"ifupdown", "libpam-modules", "pam", "ca-certificates",
	} {
		m[n] = true
	}
	return m
})

// removesSystemPackages: a package manager's removal given every package (*, a list
// computed at run time: $(brew list), $(pacman -Qq)) or a package of systemPackages.
func removesSystemPackages(_ *analyzer, v *view) string {
	for i, o := range v.raw {
		w := v.ops[i]
		switch {
		case o.dynamic:
			return v.name + " removes packages named at run time: " + shorten(o.lit)
		case w == "*" || w == ".*" || w == "*:*":
			return v.name + " removes every package (" + o.lit + ")"
		}
		name, _, _ := strings.Cut(w, ":") // libc6:amd64
		name = strings.TrimRight(name, "+-=")
		if systemPackages()[name] || strings.HasPrefix(name, "linux-image") || strings.HasPrefix(name, "kernel-") && !strings.HasPrefix(name, "kernel-devel") {
			return v.name + " removes " + o.lit + ", which the system cannot run without"
		}
	}
	return ""
}
