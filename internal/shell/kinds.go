package shell

import (
	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/planted"
	"github.com/moatdev/moat/internal/shell/sqlscan"
)

// Kinds are the findings of shell command analysis, of the interpreter one-liners it
// inspects and of the dataflow it follows through pipes, redirections and substitutions.
// Taxonomy is the MITRE ATT&CK technique each is evidence of.
var Kinds = call.FindingKinds{
	// Analysis limits: what moat could not see.
	{ID: "shell.parse-error", Category: "analysis", Severity: call.Medium, Taxonomy: "T1027", Summary: "the command line does not parse as a shell command, so what it runs is unknown"},
	{ID: "shell.too-complex", Category: "analysis", Severity: call.Medium, Taxonomy: "T1027", Summary: "the command line holds more commands than moat analyses, so what it runs is not known in full"},
	{ID: "shell.too-deep", Category: "analysis", Severity: call.Medium, Taxonomy: "T1027", Summary: "the command line nests brackets or shells deeper than moat analyses, so what it runs is unknown"},
	{ID: "analysis.opaque", Category: "analysis", Severity: call.Medium, Taxonomy: "T1574", Summary: "makes a program run code moat cannot read: a sourced file, a library or module loaded through the environment, a program, hook directory or configuration file named by a setting"},

	// Destruction.
	{ID: "destructive.fs.recursive-delete", Category: "destructive", Severity: call.High, Taxonomy: "T1485", Summary: "deletes a directory tree"},
	{ID: "destructive.disk.wipe", Category: "destructive", Severity: call.Critical, Taxonomy: "T1561", Summary: "overwrites, formats or repartitions a block device"},
	{ID: "destructive.fork-bomb", Category: "destructive", Severity: call.Critical, Taxonomy: "T1499", Summary: "starts processes without end until the machine stops responding"},
	{ID: "destructive.resource-exhaustion", Category: "destructive", Severity: call.High, Taxonomy: "T1499", Summary: "exhausts the machine's disk, memory or processors: output without end written to a file, a stream without end read to its end, a loop that never pauses"},
	{ID: "destructive.cryptomining", Category: "destructive", Severity: call.High, Taxonomy: "T1496", Summary: "runs a cryptocurrency miner, or points a program at a mining pool, spending the machine's processors and power for someone else"},
	{ID: "destructive.git.force-push", Category: "destructive", Severity: call.High, Taxonomy: "T1485", Summary: "force-pushes, replacing commits on the remote"},
	{ID: "destructive.git.reset-hard", Category: "destructive", Severity: call.High, Taxonomy: "T1485", Summary: "resets the working tree, discarding uncommitted changes"},
	{ID: "destructive.git.clean", Category: "destructive", Severity: call.High, Taxonomy: "T1485", Summary: "deletes untracked files from the working tree"},
	{ID: "destructive.git.discard", Category: "destructive", Severity: call.High, Taxonomy: "T1485", Summary: "overwrites files in the working tree, discarding their uncommitted changes"},
	{ID: "destructive.git.stash-drop", Category: "destructive", Severity: call.Medium, Taxonomy: "T1485", Summary: "deletes stashed changes"},
	{ID: "destructive.git.branch-delete", Category: "destructive", Severity: call.Medium, Taxonomy: "T1485", Summary: "force-deletes a branch, whether or not it was merged"},
	{ID: "destructive.git.history-rewrite", Category: "destructive", Severity: call.High, Taxonomy: "T1485", Summary: "rewrites history or expires the reflog, which can lose commits for good"},
	{ID: "destructive.infra.delete", Category: "destructive", Severity: call.High, Taxonomy: "T1485", Summary: "deletes cloud, cluster, secret-store or backup resources"},
	{ID: "destructive.system.shutdown", Category: "destructive", Severity: call.High, Taxonomy: "T1529", Summary: "shuts down, halts, reboots or crashes the machine, leaves it in rescue mode without its services, or cuts it off (its SSH server or network stopped)"},
	{ID: "destructive.system.packages", Category: "destructive", Severity: call.High, Taxonomy: "T1489", Summary: "removes every installed package, or one the system cannot run, boot or be repaired without (the C library, the init system, the package manager, the shell, sudo, the SSH server, the kernel or the boot loader)"},
	{ID: "destructive.system.kill-all", Category: "destructive", Severity: call.High, Taxonomy: "T1489", Summary: "kills every process the user may signal, or init, which takes the whole session or machine down"},
	{ID: "destructive.payment", Category: "destructive", Severity: call.High, Taxonomy: "T1565", Summary: "moves money through a payment or crypto service (a refund, a payout, a transfer, a charge, a captured payment, a trade, a live-mode write), which cannot be taken back"},
	{ID: "destructive.http.delete", Category: "destructive", Severity: call.Medium, Taxonomy: "T1485", Summary: "sends an HTTP request that deletes what it names or takes it out of use: a DELETE, or a request that changes state sent to an endpoint named for deleting, archiving or suspending (…/delete, …/doDelete, …/suspend)"},

	// Credentials.
	{ID: "credentials.read", Category: "credentials", Severity: call.High, Taxonomy: "T1552.001", Summary: "reads a file that holds credentials or private keys"},
	{ID: "credentials.cloud-metadata", Category: "credentials", Severity: call.High, Taxonomy: "T1552.005", Summary: "asks the cloud instance metadata service (169.254.169.254 in any spelling, metadata.google.internal, fd00:ec2::254), which hands out the machine's cloud credentials"},
	{ID: "credentials.env-dump", Category: "credentials", Severity: call.Medium, Taxonomy: "T1552.007", Summary: "prints the whole environment, which often holds tokens, where the agent reads it"},
	{ID: "secret.cli-password", Category: "credentials", Severity: call.High, Taxonomy: "T1552", Summary: "a password written after a program's password option (docker login -p, mysql -pSECRET, redis-cli -a), where the process list, the shell history and the agent's transcript keep it"},
	{ID: "credentials.secret-shown", Category: "credentials", Severity: call.High, Taxonomy: "T1552.007", Summary: "prints an environment variable whose name says it holds a secret where the agent reads it"},
	{ID: "credentials.env-load", Category: "credentials", Severity: call.Low, Taxonomy: "T1552.001", Summary: "reads a file of credentials into the environment of the commands that follow (export $(grep -v '^#' .env | xargs)), where the agent does not see its values"},
	{ID: "credentials.store-fill", Category: "credentials", Severity: call.Low, Taxonomy: "T1552.001", Summary: "copies files into a secret store (a cluster's secrets, a repository's, a cloud's or a vault's: kubectl create secret --from-file, gh secret set -f), where they are meant to be kept; the files are read, and judged by their paths"},
	{ID: "credentials.secret-env", Category: "credentials", Severity: call.Medium, Taxonomy: "T1552.007", Summary: "uses an environment variable whose name says it holds a secret"},

	// Exfiltration and remote code execution.
	{ID: "exfiltration.network", Category: "exfiltration", Severity: call.Critical, Taxonomy: "T1048", Summary: "sends credentials or the environment over the network"},
	{ID: "exfiltration.upload", Category: "exfiltration", Severity: call.High, Taxonomy: "T1567", Summary: "copies files to a destination the same line chose or that anyone can read (a git remote it adds, a push to a URL, a gist, a file drop or a request catcher), or sends the whole project, or a directory that holds credentials on disk, off the machine"},
	{ID: "exfiltration.dns", Category: "exfiltration", Severity: call.High, Taxonomy: "T1071.004", Summary: "makes DNS queries or pings that can carry data out: TXT records of ordinary names, host names computed at run time, ping patterns"},
	{ID: "rce.pipe-to-shell", Category: "execution", Severity: call.Critical, Taxonomy: "T1059", Summary: "runs code downloaded from the network without saving or reviewing it"},
	{ID: "rce.download-exec", Category: "execution", Severity: call.Critical, Taxonomy: "T1105", Summary: "downloads a file and runs it in the same command line"},
	{ID: "rce.reverse-shell", Category: "execution", Severity: call.Critical, Taxonomy: "T1059.004", Summary: "connects a shell to a network socket, handing control of the machine to a remote host"},
	{ID: "remote.exec", Category: "execution", Severity: call.Low, Taxonomy: "T1021.004", Summary: "runs a command on another machine over ssh; the remote command is analysed too"},

	// Evasion.
	{ID: "evasion.computed-code", Category: "evasion", Severity: call.High, Taxonomy: "T1027", Summary: "runs code computed at run time (eval of a fetched or assembled text, data unpickled), which nobody can read before it runs"},
	{ID: "evasion.dynamic-command", Category: "evasion", Severity: call.High, Taxonomy: "T1027", Summary: "the program to run is computed at run time and cannot be known before it runs"},
	{ID: "evasion.obfuscated-exec", Category: "evasion", Severity: call.Critical, Taxonomy: "T1027", Summary: "decodes data and runs it, and what is run cannot be known before it runs"},
	{ID: "evasion.encoded-command", Category: "evasion", Severity: call.High, Taxonomy: "T1027", Summary: "runs a command hidden by an encoding (base64, hex, escapes, reversal, rot13); the decoded command is analysed too"},
	{ID: "evasion.nul-byte", Category: "evasion", Severity: call.High, Taxonomy: "T1027", Summary: "the command line holds NUL bytes, which shells and agents drop, cut at or refuse, so it may run something other than what is analysed"},
	{ID: "evasion.security-off", Category: "evasion", Severity: call.High, Taxonomy: "T1562", Summary: "switches off a defence of the machine: the audit system, SELinux, AppArmor, a firewall, an endpoint agent or a kernel hardening setting"},
	{ID: "evasion.log-tamper", Category: "evasion", Severity: call.High, Taxonomy: "T1070", Summary: "clears or disables shell history or system logs"},
	{ID: "evasion.unguarded-agent", Category: "evasion", Severity: call.Critical, Taxonomy: "T1562.001", Summary: "starts an AI agent with its hooks or settings switched off, moved or replaced, so that what it does would not pass through moat"},

	// Privilege.
	{ID: "privilege.sudo", Category: "privilege", Severity: call.Medium, Taxonomy: "T1548.003", Summary: "runs a command as another user (sudo, doas, su, pkexec)"},
	{ID: "privilege.setuid", Category: "privilege", Severity: call.High, Taxonomy: "T1548.001", Summary: "sets the setuid or setgid bit on a file"},
	{ID: "privilege.container-escape", Category: "privilege", Severity: call.High, Taxonomy: "T1611", Summary: "starts a container with access to the host (privileged, host namespaces, powerful capabilities, confinement off, devices, system directories mounted)"},
	{ID: "privilege.container-host", Category: "privilege", Severity: call.Critical, Taxonomy: "T1611", Summary: "gives a container the host: the container engine's socket or the host's root, /etc or /root mounted writable, or an engine API request that creates one with host mounts or privileges"},
	{ID: "privilege.container-api", Category: "privilege", Severity: call.High, Taxonomy: "T1610", Summary: "drives a container engine around its command-line tool: its API over its socket, a raw stream to the socket, or the tool pointed at another engine"},
	{ID: "privilege.namespace", Category: "privilege", Severity: call.High, Taxonomy: "T1611", Summary: "enters other namespaces or changes the root directory (nsenter, chroot, unshare)"},
	{ID: "privilege.account", Category: "privilege", Severity: call.High, Taxonomy: "T1098", Summary: "changes user accounts, groups or sudo rights"},
	{ID: "privilege.grant", Category: "privilege", Severity: call.High, Taxonomy: "T1098", Summary: "grants access to others or widens it: administrator policies and roles, cluster-admin bindings, buckets, snapshots or repositories made public, ports opened to the internet, collaborators and keys that may push"},
	{ID: "permissions.world-writable", Category: "privilege", Severity: call.Medium, Taxonomy: "T1222", Summary: "makes files writable by every user"},

	// Persistence.
	{ID: "persistence.cron", Category: "persistence", Severity: call.High, Taxonomy: "T1053.003", Summary: "installs or changes scheduled jobs (crontab, cron directories)"},
	{ID: "persistence.shell-rc", Category: "persistence", Severity: call.High, Taxonomy: "T1546.004", Summary: "changes a shell startup file (.bashrc, .zshrc, .profile…)"},
	{ID: "persistence.service", Category: "persistence", Severity: call.High, Taxonomy: "T1543", Summary: "installs or enables a service (systemd, launchd)"},
	{ID: "persistence.ssh-keys", Category: "persistence", Severity: call.High, Taxonomy: "T1098.004", Summary: "changes the keys allowed to log in over ssh"},
	{ID: "persistence.tool-config", Category: "persistence", Severity: call.High, Taxonomy: "T1546", Summary: "changes a tool's configuration where it names a command to run later (credential_process in ~/.aws/config)"},
	{ID: "persistence.git-hooks", Category: "persistence", Severity: call.High, Taxonomy: "T1546", Summary: "installs git hooks, which run on later git commands"},

	// Supply chain and network.
	{ID: "supply-chain.registry-change", Category: "supply-chain", Severity: call.High, Taxonomy: "T1195.001", Summary: "installs from, or switches to, another package registry, index or system package source, or changes the certificates downloads are checked against (checks off, another bundle, a new authority) or the proxy they go through"},
	{ID: "supply-chain.direct-url", Category: "supply-chain", Severity: call.Medium, Taxonomy: "T1195.001", Summary: "installs a package straight from a URL or git repository"},
	{ID: "supply-chain.lookalike-name", Category: "supply-chain", Severity: call.High, Taxonomy: "T1195.002", Summary: "installs a package, or clones from an owner or host, whose name imitates a popular one (reqeusts for requests, facebok/react, githib.com)"},
	{ID: "reconnaissance.system-enum", Category: "reconnaissance", Severity: call.Low, Taxonomy: "T1083", Summary: "lists set-user-ID programs or file capabilities, or searches the disk for credential files by name"},
	{ID: "network.scan", Category: "reconnaissance", Severity: call.Medium, Taxonomy: "T1046", Summary: "scans hosts or ports"},
	{ID: "network.control-plane", Category: "credentials", Severity: call.High, Taxonomy: "T1552", Summary: "requests or connects to a service's control API on this machine or its network (etcd's keys, the kubelet, Chrome's remote debugging port, Node's inspector, Consul's key-value store, Jupyter's kernels, Envoy's admin), which hands out its secrets or runs code without the credentials its public face wants"},
	{ID: "network.raw-socket", Category: "network", Severity: call.Medium, Taxonomy: "T1095", Summary: "opens a raw TCP or UDP connection or listener (nc, telnet, socat, /dev/tcp)"},
}

// reported are the lists of the kinds shell analysis reports: its own, and those of the
// analysers whose findings it passes on.
var reported = [...]call.FindingKinds{Kinds, sqlscan.Kinds, planted.Kinds, call.InputKinds}

// lookupKind returns the kind of id, as one of the lists in reported declares it.
func lookupKind(id string) (call.FindingKind, bool) {
	for _, ks := range reported {
		if k, ok := ks.Lookup(id); ok {
			return k, true
		}
	}
	return call.FindingKind{}, false
}

// newFinding returns a finding of the kind id, as one of the lists in reported declares
// it, with the given evidence.
func newFinding(id, evidence string) call.Finding {
	if k, ok := lookupKind(id); ok {
		return k.New(evidence)
	}
	return call.Uncatalogued(id, evidence)
}
