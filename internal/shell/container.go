package shell

import (
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/moatdev/moat/internal/call"
)

// This file follows the command a container runs (docker run IMAGE COMMAND…, docker exec,
// docker compose run and exec) into the host paths it mounts. Inside the container, / is
// the image's file system, which the host does not care about; a bind mount (-v /:/host,
// --mount type=bind,src=…) is where the container reaches the host. The command is
// analysed like any other, with each path it names translated through the mounts:
// `docker run -v /:/host alpine rm -rf /host/etc` deletes the host's /etc, while `docker
// run alpine rm -rf /etc` deletes nothing of the host's. What moat cannot see through is
// not allowed by default: a container whose mounts are not known (one started before the
// line, a compose service, --volumes-from, a source computed at run time) makes every
// write or delete of its command opaque (judged as the same path of the host, the worst
// guess), and an image's own command, which moat cannot
// read, may read and write every host directory mounted into it.
//
// The options that give a container the host itself are findings: a host namespace, a
// powerful capability, a confinement switched off, a device, a system directory mounted
// (privilege.container-escape); the container engine's own socket or the host's root
// mounted writable, which is root on the host (privilege.container-host). So is talking
// to the engine behind the CLI's back: the engine's REST API over its unix socket, a raw
// stream to that socket, or the CLI pointed at another engine (privilege.container-api).

// The findings of this file; kinds.go declares them.
const (
	findContainerHost = "privilege.container-host"
	findContainerAPI  = "privilege.container-api"
)

// mount is one bind mount: the directory target inside the container shows the host's
// directory source (below unknownSource when it is only known at run time).
type mount struct {
	target   string
	source   string
	readOnly bool
}

// mounts are the bind mounts of the container whose command is being analysed.
type mounts []mount

// unknownSource is the host side of a mount that is not known: a path no word of a line
// can name (the parser drops NUL bytes), so that what the container's command does below
// it is found again after the analysis and judged as opaque (opaqueMounts).
const unknownSource = "/\x00unknown-mount"

// unknownWorkdir is the container's working directory when neither -w nor the line says
// it (the image's WORKDIR, which may well be a mount's target): a relative path written
// or deleted there is opaque (opaqueMounts).
const unknownWorkdir = "/\x00workdir"

// host translates a path of the container into the host's: the source of the deepest
// mount holding it. ok is false when no mount holds it (the path is the image's own).
// opaque is never set here: below a mount whose source is not known the path is
// translated below unknownSource, and judged once the command is analysed.
func (ms mounts) host(p string) (hostPath string, ok, opaque bool) {
	best := -1
	for i, m := range ms {
		if under(p, m.target) && (best < 0 || len(m.target) > len(ms[best].target)) {
			best = i
		}
	}
	if best < 0 {
		return "", false, false
	}
	m := ms[best]
	rest := strings.TrimPrefix(p, m.target)
	return path.Clean(m.source + "/" + rest), true, false
}

// under reports whether p is dir or below it.
func under(p, dir string) bool {
	return dir == "/" || p == dir || strings.HasPrefix(p, dir+"/")
}

// containerEngines are the programs that drive a container engine with docker's commands
// (lima nerdctl reaches nerdctl through the wrappers table), and buildah and containerd's
// ctr, whose run is docker's with another shape.
var containerEngines = map[string]bool{"docker": true, "podman": true, "nerdctl": true, "finch": true, "buildah": true, "ctr": true}

// composeTools are the programs of docker compose's language under their own names.
var composeTools = map[string]bool{"docker-compose": true, "podman-compose": true}

// runValueOptions are the options of docker run, podman run and nerdctl run that take a
// value, so that the value is not taken for the image.
var runValueOptions = sync.OnceValue(func() valueOpts {
	return valueOpts{
		short: "acehlmpuvw",
		long: []string{
			"add-host", "annotation", "arch", "attach", "blkio-weight", "blkio-weight-device", "cap-add", "cap-drop",
			"cgroup-conf", "cgroup-parent", "cgroupns", "cgroups", "chrootdirs", "cidfile", "conmon-pidfile", "cpu-count",
			"cpu-percent", "cpu-period", "cpu-quota", "cpu-rt-period", "cpu-rt-runtime", "cpu-shares", "cpus", "cpuset-cpus",
			"cpuset-mems", "decryption-key", "detach-keys", "device", "device-cgroup-rule", "device-read-bps",
			"device-read-iops", "device-write-bps", "device-write-iops", "dns", "dns-opt", "dns-option", "dns-search",
			"domainname", "entrypoint", "env", "env-file", "expose", "gidmap", "gpus", "group-add", "group-entry",
			"health-cmd", "health-interval", "health-on-failure", "health-retries", "health-start-interval",
			"health-start-period", "health-timeout", "hooks-dir", "hostname", "hostuser", "image-volume", "init-path",
			"io-maxbandwidth", "io-maxiops", "ip", "ip6", "ipc", "isolation", "kernel-memory", "label", "label-file",
			"link", "link-local-ip", "log-driver", "log-opt", "mac-address", "memory", "memory-reservation",
			"memory-swap", "memory-swappiness", "mount", "name", "net", "net-alias", "network", "network-alias",
			"oom-score-adj", "os", "passwd-entry", "personality", "pid", "pidfile", "pids-limit", "platform", "pod",
			"pod-id-file", "preserve-fds", "publish", "pull", "rdt-class", "requires", "restart", "retry", "retry-delay",
			"runtime", "sdnotify", "seccomp-policy", "secret", "security-opt", "shm-size", "shm-size-systemd",
			"stop-signal", "stop-timeout", "storage-opt", "subgidname", "subuidname", "sysctl", "systemd", "timeout",
			"tmpfs", "tz", "uidmap", "ulimit", "umask", "unsetenv", "user", "userns", "uts", "variant", "volume",
			"volume-driver", "volumes-from", "workdir", "workingdir",
		},
	}
})

// ctrValueOptions are the options of containerd's ctr, global and of ctr run, that take a
// value.
var ctrValueOptions = sync.OnceValue(func() valueOpts {
	return valueOpts{short: "anc", long: []string{
		"address", "namespace", "timeout", "connect-timeout", "mount", "env", "env-file", "label", "runtime", "snapshotter",
		"cwd", "user", "cap-add", "cap-drop", "rootfs-propagation", "with-ns", "cgroup", "platform", "memory-limit", "cpus",
		"cpu-shares", "device", "seccomp-profile", "apparmor-profile", "hostname", "gpus", "runc-binary", "runtime-config-path",
		"sandbox", "fifo-dir", "pid-file", "log-uri", "annotation", "uidmap", "gidmap", "cni", "runtime-root", "config",
	}}
})

// execValueOptions are the options of docker exec (and compose exec) that take a value.
var execValueOptions = sync.OnceValue(func() valueOpts {
	return valueOpts{short: "euw", long: []string{"env", "env-file", "user", "workdir", "detach-keys", "index", "preserve-fds"}}
})

// composeValueOptions are the options of docker compose itself, before its subcommand.
var composeValueOptions = sync.OnceValue(func() valueOpts {
	return valueOpts{short: "fp", long: []string{"file", "project-name", "project-directory", "env-file", "profile", "ansi", "progress", "parallel"}}
})

// hostNamespaces are the namespaces whose value host gives the container the host's
// processes, shared memory, host name, user ids or control groups. The host's network is
// judged by what the container's command does on it.
var hostNamespaces = []string{"pid", "ipc", "uts", "userns", "cgroupns"}

// escapeCapabilities are the capabilities that let a container act on the host: mount
// file systems, trace its processes, load kernel modules, read any file by handle, reach
// raw devices or the kernel's BPF.
var escapeCapabilities = []string{"all", "sys_admin", "sys_ptrace", "sys_module", "dac_read_search", "sys_rawio", "sys_boot", "bpf", "perfmon"}

// unconfinedOptions are the --security-opt values that switch the container's
// confinement off (written key=value or key:value).
var unconfinedOptions = []string{"apparmor=unconfined", "seccomp=unconfined", "label=disable", "systempaths=unconfined"}

// engineSockets are the base names of the sockets of container engines: whoever talks to
// one starts containers as the engine's user, root on most machines.
var engineSockets = []string{"docker.sock", "podman.sock", "containerd.sock", "buildkitd.sock", "crio.sock", "cri-dockerd.sock", "dockershim.sock", "nerdctl.sock", "finch.sock"}

// engineDirs are directories that hold an engine's socket or its state: mounted, they give
// the container the engine.
var engineDirs = []string{"/run", "/var/run", "/run/docker", "/var/run/docker", "/run/containerd", "/run/podman", "/var/lib/docker", "/var/lib/containerd", "/var/lib/containers"}

// rootDirs are the host directories whose writable mount is root on the host: its
// accounts, sudoers and services, or root's own keys and start-up files.
var rootDirs = []string{"/", "/etc", "/root"}

// hostSystemDirs are host directories whose mount gives the container the system's files or
// the kernel's interfaces (/proc/sysrq-trigger, /sys/kernel, block devices); below
// kernelDirs every mount is one.
var (
	hostSystemDirs = []string{"/home", "/Users", "/usr", "/var", "/boot", "/lib", "/lib64", "/bin", "/sbin", "/private"}
	kernelDirs     = []string{"/proc", "/sys", "/dev", "/boot"}
)

// isEngineSocket reports whether p names a container engine's socket.
func isEngineSocket(p string) bool {
	p = strings.TrimPrefix(strings.TrimPrefix(p, "unix://"), "unix:")
	return slices.Contains(engineSockets, path.Base(p))
}

// mountRisk judges the host side of a mount: the finding it is, if any. The user's own
// home is theirs to mount, even when it is /root.
func mountRisk(src string, readOnly bool, home string) string {
	switch {
	case src == "" || under(src, unknownSource):
		return ""
	case isEngineSocket(src) || slices.Contains(engineDirs, src):
		return findContainerHost
	case src == home:
		return ""
	case slices.Contains(rootDirs, src):
		if readOnly {
			return findContainerEscape
		}
		return findContainerHost
	case slices.Contains(hostSystemDirs, src):
		return findContainerEscape
	}
	for _, d := range kernelDirs {
		if under(src, d) {
			return findContainerEscape
		}
	}
	return ""
}

// container is what the options of docker run, create or exec say of the container.
type container struct {
	mounts     mounts
	unknown    bool // some mount's host side is not known (--volumes-from, a computed source)
	workdir    dir
	entrypoint *arg
	name       string
	netHost    bool
	// hostEnv says the container's environment holds values of the host's: a dotenv
	// file (--env-file), a variable passed through (-e NAME, -e NAME="$VAR",
	// --env-host), so that what its command prints or sends of its environment is the
	// host's.
	hostEnv bool
}

// containerRun analyses the container commands of docker, podman, nerdctl and finch, and
// of docker-compose: run and create, exec, compose run, exec and cp, cp, context, the
// files save, export and build write, podman unshare, plugins; and kubectl exec.
func (a *analyzer) containerRun(at int, rest []arg, cwd dir) {
	name := a.meta[at].prog
	if composeTools[name] {
		a.compose(at, rest, cwd)
		return
	}
	if name == "kubectl" {
		a.kubectlExec(at, rest, cwd)
		return
	}
	if !containerEngines[name] {
		return
	}
	if name == "ctr" {
		// ctr [GLOBAL OPTIONS] run [OPTIONS] IMAGE ID [COMMAND…]
		i := 0
		for ; i < len(rest); i++ {
			_, _, last, ok := optionAt(rest, i, ctrValueOptions())
			if !ok {
				break
			}
			i = last
		}
		if i < len(rest) && !rest[i].dynamic && rest[i].lit == "run" {
			a.runContainer(at, rest[i+1:], ctrValueOptions(), 2, cwd)
		}
		return
	}
	i := subcommandAt(name, rest)
	if i >= len(rest) || rest[i].dynamic {
		return
	}
	sub := rest[i].lit
	if (sub == "container" || sub == "image") && i+1 < len(rest) && !rest[i+1].dynamic {
		i++
		sub = rest[i].lit
	}
	switch sub {
	case "run", "create":
		// buildah run CONTAINER COMMAND runs in a working container, which has the mounts
		// given here and no others, like a docker run of an image.
		a.runContainer(at, rest[i+1:], runValueOptions(), 1, cwd)
	case "exec":
		a.execContainer(at, rest[i+1:], cwd)
	case "compose":
		a.compose(at, rest[i+1:], cwd)
	case "cp":
		a.copyContainer(at, rest[i+1:], cwd)
	case "save", "export", "build", "buildx":
		a.engineOutput(at, rest[i:], cwd)
		a.buildSecrets(at, rest[i:], cwd)
	case "unshare":
		// podman unshare COMMAND runs the command on the host, in podman's user namespace.
		if i+1 < len(rest) {
			a.command(rest[i+1:], nil, nil)
		}
	case "plugin":
		if i+1 < len(rest) && slices.Contains([]string{"install", "enable", "create", "upgrade"}, rest[i+1].lit) {
			a.containerFinding(at, findContainerEscape, name+" plugin "+rest[i+1].lit+": plugins run with the engine's privileges")
		}
	case "context":
		if i+1 < len(rest) && slices.Contains([]string{"use", "create", "import", "update"}, rest[i+1].lit) {
			a.containerFinding(at, findContainerAPI, name+" context "+rest[i+1].lit+": later commands go to another engine")
		}
	}
}

func (a *analyzer) containerFinding(at int, id, evidence string) {
	c := &a.cmds[at]
	c.Findings = appendFinding(c.Findings, id, evidence)
}

// runContainer: docker run [OPTIONS] IMAGE [COMMAND [ARG…]] (and create), with the given
// number of operands before the command (ctr run IMAGE ID COMMAND). The command is
// analysed with its paths translated through the container's bind mounts.
func (a *analyzer) runContainer(at int, rest []arg, values valueOpts, operands int, cwd dir) {
	ct, i := a.containerOptions(at, rest, values, cwd)
	i += operands - 1
	if i+1 < len(rest) && !rest[i+1].dynamic && rest[i+1].lit == "--" {
		i++ // buildah run CONTAINER -- COMMAND
	}
	if ct.name != "" {
		if a.sh.containers == nil {
			a.sh.containers = make(map[string]container)
		}
		a.sh.containers[ct.name] = ct
	}
	if i >= len(rest) {
		return
	}
	argv := rest[i+1:] // after the image
	if ct.entrypoint != nil && ct.entrypoint.lit != "" {
		argv = append([]arg{*ct.entrypoint}, argv...)
	}
	if len(argv) == 0 {
		a.imageCommand(at, ct)
		return
	}
	a.inContainer(at, ct, func() { a.containerCommand(at, argv, ct.workdir) })
}

// imageCommand: the image's own command, which moat cannot read, may read every host
// directory mounted into the container and write those mounted writable.
func (a *analyzer) imageCommand(at int, ct container) {
	c := &a.cmds[at]
	for _, m := range ct.mounts {
		if under(m.source, unknownSource) {
			continue
		}
		c.Accesses = append(c.Accesses, call.Access{Kind: call.Read, Path: m.source, Recursive: true})
		if !m.readOnly {
			c.Accesses = append(c.Accesses, call.Access{Kind: call.Write, Path: m.source, Recursive: true})
		}
	}
	if ct.unknown {
		a.opaque(at, "the image's own command runs with host directories mounted that moat does not know")
	}
}

// inContainer runs analyse with the container's mounts translating paths, then judges what
// its commands did below mounts that are not known. A container that reaches none of the
// host's files and not its network either is not analysed: what it does stays inside it.
func (a *analyzer) inContainer(at int, ct container, analyse func()) {
	ms := ct.mounts
	if ct.unknown {
		ms = append(slices.Clip(ms), mount{target: "/", source: unknownSource}) // any path may be a mount of unknown source
	}
	if len(ms) == 0 && !ct.netHost && !ct.hostEnv {
		return
	}
	for _, m := range ms {
		if !m.readOnly {
			// The unknown working directory may be below this mount.
			ms = append(slices.Clip(ms), mount{target: unknownWorkdir, source: unknownSource + unknownWorkdir})
			break
		}
	}
	if ms == nil {
		ms = mounts{} // the host's network, none of its files
	}
	saved := a.sh.mounts
	a.sh.mounts = ms
	first := len(a.cmds)
	analyse()
	a.sh.mounts = saved
	a.opaqueMounts(first)
	for k := first; k < len(a.cmds); k++ {
		c := &a.cmds[k]
		// rm -r of the image's own files is no delete of the host's.
		if hasFinding(c.Findings, findRecursiveDelete) && !c.Opaque && !deletesAny(c) {
			c.Findings = dropFinding(c.Findings, findRecursiveDelete)
		}
	}
}

// opaqueMounts judges the accesses of the commands from first on that fall below a mount
// whose host side is not known. A read is of nothing moat knows and is dropped. A write or
// delete is opaque, and is kept as the same path of the host: the worst guess, since a
// container often mounts a host directory at the same place (-v "$PWD":"$PWD"), and the
// container's / holds every mount it has, whatever they are.
func (a *analyzer) opaqueMounts(first int) {
	for k := first; k < len(a.cmds); k++ {
		c := &a.cmds[k]
		kept := c.Accesses[:0]
		changed := ""
		for _, acc := range c.Accesses {
			if !under(acc.Path, unknownSource) {
				kept = append(kept, acc)
				continue
			}
			c.Opaque = true
			if acc.Kind == call.Read {
				a.containerSecretRead(k, path.Clean("/"+strings.TrimPrefix(acc.Path, unknownSource)), acc.Recursive)
				continue
			}
			acc.Path = path.Clean("/" + strings.TrimPrefix(acc.Path, unknownSource))
			if rel, ok := strings.CutPrefix(acc.Path, unknownWorkdir+"/"); ok || acc.Path == unknownWorkdir {
				// Below a working directory nobody said: no path of the host to judge.
				if changed == "" {
					changed = acc.Kind.String() + " " + path.Clean(rel) + " (relative to the image's working directory)"
				}
				continue
			}
			if changed == "" {
				changed = acc.Kind.String() + " " + acc.Path
			}
			kept = append(kept, acc)
		}
		c.Accesses = kept
		if m := &a.meta[k]; under(m.script, unknownSource) {
			// A script of the image's, or of a mount nobody said: the container's own
			// code, judged as its own command is (by what it can reach), not as a file
			// of the host's.
			m.script = ""
		}
		for j := range c.Findings {
			e := strings.ReplaceAll(c.Findings[j].Evidence, unknownSource, "")
			c.Findings[j].Evidence = strings.ReplaceAll(e, unknownWorkdir+"/", "")
		}
		if changed != "" {
			a.opaque(k, changed+" in a container whose host mounts moat does not know")
		}
	}
}

// containerSecretRead judges a read of the path p in a container whose files moat does not
// know: none of the host's, but what it prints reaches the agent all the same, so a file
// that holds credentials by its path there (/run/secrets/db, the service account token
// of a pod, an id_rsa), or a directory of them, is a credentials read.
func (a *analyzer) containerSecretRead(k int, p string, tree bool) {
	if under(p, unknownWorkdir) {
		return // relative to a working directory nobody said
	}
	secret := false
	if tree {
		secret = a.heldPlace(p)
	} else if a.sh.env.Sensitive != nil {
		secret = a.sh.env.Sensitive(call.Access{Kind: call.Read, Path: p})
	}
	if secret {
		a.cmds[k].Findings = appendFinding(a.cmds[k].Findings, findCredentialsRead, "reads "+p+" in a container, a file that holds credentials")
		a.meta[k].secretRead = true
	}
}

// execContainer: docker exec [OPTIONS] CONTAINER COMMAND [ARG…] runs the command in a
// container started earlier. Its mounts are known only when the line started it.
func (a *analyzer) execContainer(at int, rest []arg, cwd dir) {
	ct, i := a.containerOptions(at, rest, execValueOptions(), cwd)
	if i+1 >= len(rest) {
		return
	}
	if known, ok := a.sh.containers[rest[i].lit]; ok && !rest[i].dynamic {
		known.workdir = ct.workdir
		ct = known
	} else {
		ct.unknown = true
	}
	a.inContainer(at, ct, func() { a.containerCommand(at, rest[i+1:], ct.workdir) })
}

// containerCommand analyses argv run in a container from its working directory wd (the
// image's, unknown, unless -w says): the analyzer's working directory is wd while the
// command is analysed, so that relative paths below an unknown one are opaque. The
// command reads the standard input of the docker command: docker exec -i db psql <<<
// 'DROP TABLE t' feeds psql the here-string.
func (a *analyzer) containerCommand(at int, argv []arg, wd dir) {
	if !wd.known {
		wd = dir{unknownWorkdir, true}
	}
	prev := a.cwd()
	a.st.set(cwdVar, value{wd.path, wd.known}, wd.path, a.at)
	first := len(a.cmds)
	a.command(argv, nil, nil)
	if len(a.cmds) > first {
		a.inheritStdin(at)
		// Code it reads from standard input is analysed after the walk (flow.go).
		a.meta[len(a.meta)-1].mounts = a.sh.mounts
	}
	a.st.set(cwdVar, value{prev.path, prev.known}, prev.path, a.at)
}

// inMountsOf runs analyse, which analyses code the command at i runs after the walk (what
// it reads from standard input), with that command's container mounts if it runs in one.
func (a *analyzer) inMountsOf(i int, analyse func()) {
	ms := a.meta[i].mounts
	if ms == nil {
		analyse()
		return
	}
	saved := a.sh.mounts
	a.sh.mounts = ms
	first := len(a.cmds)
	analyse()
	a.sh.mounts = saved
	a.opaqueMounts(first)
}

// compose: docker compose [OPTIONS] COMMAND. The compose file is the project's
// configuration, as a Makefile is; one from outside the project, computed, read from
// standard input or written by the line itself is code moat cannot read (a compose file
// can mount the host's root, run privileged or hand the engine's socket to a service).
// run and exec run a command in a service whose mounts the compose file declares,
// unknown here.
func (a *analyzer) compose(at int, rest []arg, cwd dir) {
	values := composeValueOptions()
	var files []arg
	i := 0
	for ; i < len(rest); i++ {
		opt, val, next, ok := optionAt(rest, i, values)
		if !ok {
			break
		}
		i = next
		if val != nil && (opt == "f" || opt == "file") {
			files = append(files, *val)
		}
	}
	sub := ""
	if i < len(rest) && !rest[i].dynamic {
		sub = rest[i].lit
	}
	if !slices.Contains(composeReadOnly, sub) {
		if len(files) == 0 {
			for _, name := range composeDefaults {
				files = append(files, arg{lit: name})
			}
		}
		for _, f := range files {
			a.composeFile(at, f, cwd)
		}
	}
	var ct container
	var j int
	switch sub {
	case "cp":
		a.copyContainer(at, rest[i+1:], cwd)
		return
	case "run":
		ct, j = a.containerOptions(at, rest[i+1:], runValueOptions(), cwd)
	case "exec":
		ct, j = a.containerOptions(at, rest[i+1:], execValueOptions(), cwd)
	default:
		return
	}
	argv := rest[i+1:]
	if j+1 >= len(argv) {
		return // the service's own command
	}
	argv = argv[j+1:]
	if ct.entrypoint != nil && ct.entrypoint.lit != "" {
		argv = append([]arg{*ct.entrypoint}, argv...)
	}
	ct.unknown = true
	a.inContainer(at, ct, func() { a.containerCommand(at, argv, ct.workdir) })
}

// composeDefaults are the files docker compose reads when no -f names one, in the
// project's directory.
var composeDefaults = []string{"compose.yaml", "compose.yml", "docker-compose.yml", "docker-compose.yaml", "compose.override.yaml", "compose.override.yml", "docker-compose.override.yml", "docker-compose.override.yaml"}

// composeReadOnly are the compose commands that start nothing.
var composeReadOnly = []string{"ps", "logs", "config", "ls", "images", "top", "version", "port", "events", "stop", "down", "kill", "pause", "unpause", "rm", "cp"}

// composeFile judges a compose file the command reads: from outside the project,
// computed, from standard input or written earlier in the line, it is opaque.
func (a *analyzer) composeFile(at int, f arg, cwd dir) {
	switch {
	case f.dynamic:
		a.opaque(at, "compose file computed at run time: "+shorten(f.lit))
		return
	case f.lit == "-":
		a.opaque(at, "compose file read from standard input")
		return
	}
	p, ok, _ := a.resolve(a.tildePath(f.lit), cwd)
	if !ok {
		return
	}
	if !a.inProject(p, cwd) {
		a.opaque(at, "compose file from outside the project: "+f.lit)
		return
	}
	if a.writtenBefore(at, p) {
		a.opaque(at, "compose file written earlier in the line: "+f.lit)
	}
}

// writeIndex holds the paths the commands of one analyzer wrote, up to scanned: each
// command is read once, however many compose commands follow it.
type writeIndex struct {
	scanned int
	files   map[string]bool
	trees   []string // written recursively
}

// writtenBefore reports whether a command of the line before at wrote p, or a tree
// holding it.
func (a *analyzer) writtenBefore(at int, p string) bool {
	if a.sh.writes == nil {
		a.sh.writes = make(map[*analyzer]*writeIndex)
	}
	w := a.sh.writes[a]
	if w == nil {
		w = &writeIndex{files: make(map[string]bool)}
		a.sh.writes[a] = w
	}
	for ; w.scanned < at; w.scanned++ {
		for _, acc := range a.cmds[w.scanned].Accesses {
			switch {
			case acc.Kind != call.Write:
			case acc.Recursive:
				w.trees = append(w.trees, acc.Path)
			default:
				w.files[acc.Path] = true
			}
		}
	}
	if w.files[p] {
		return true
	}
	for _, t := range w.trees {
		if under(p, t) {
			return true
		}
	}
	return false
}

// copyContainer: docker cp SRC DEST, where one side is CONTAINER:PATH and the other a
// host path, read or written as a whole tree.
func (a *analyzer) copyContainer(at int, rest []arg, cwd dir) {
	var ops []arg
	for _, x := range rest {
		if !x.dynamic && strings.HasPrefix(x.lit, "-") && x.lit != "-" {
			continue // -a, -L, -q: none takes a value
		}
		ops = append(ops, x)
	}
	a.copyHostFiles(at, ops, func(x arg) bool {
		name, _, ok := strings.Cut(x.lit, ":")
		return ok && name != "" && !strings.ContainsAny(name, "/.~$")
	}, cwd)
}

// copyHostFiles records what a copy between the host and a container (docker cp, kubectl
// cp: two operands, one of them ofContainer) reads or writes on the host, whole trees.
func (a *analyzer) copyHostFiles(at int, ops []arg, ofContainer func(arg) bool, cwd dir) {
	if len(ops) != 2 {
		return
	}
	kind, host := call.Read, ops[0]
	switch {
	case ofContainer(ops[0]) && !ofContainer(ops[1]):
		kind, host = call.Write, ops[1]
	case ofContainer(ops[1]) && !ofContainer(ops[0]):
	default:
		return
	}
	c := &a.cmds[at]
	if host.dynamic {
		a.opaque(at, a.meta[at].prog+" cp to or from a path computed at run time: "+shorten(host.lit))
		return
	}
	if host.lit == "-" {
		return // a tar stream on standard input or output
	}
	if p, ok, opaque := a.resolve(a.tildePath(host.lit), cwd); ok {
		c.Accesses = append(c.Accesses, call.Access{Kind: kind, Path: p, Recursive: true})
		c.Opaque = c.Opaque || opaque
	}
}

// engineOutput: the files an engine's command writes on the host: docker save and
// export -o FILE, docker build -o DIR (or type=local,dest=DIR, or type=tar,dest=FILE),
// --iidfile and --metadata-file.
func (a *analyzer) engineOutput(at int, rest []arg, cwd dir) {
	c := &a.cmds[at]
	for k, x := range rest {
		s := x.lit
		var val *arg
		switch {
		case s == "-o" || s == "--output" || s == "--iidfile" || s == "--metadata-file":
			if k+1 < len(rest) {
				val = &rest[k+1]
			}
		case strings.HasPrefix(s, "--output=") || strings.HasPrefix(s, "--iidfile=") || strings.HasPrefix(s, "--metadata-file="):
			_, v, _ := strings.Cut(s, "=")
			val = &arg{lit: v, dynamic: x.dynamic}
		case strings.HasPrefix(s, "-o") && len(s) > 2:
			val = &arg{lit: s[2:], dynamic: x.dynamic}
		}
		if val == nil {
			continue
		}
		out := val.lit
		if strings.Contains(out, "=") {
			out = ""
			for _, kv := range strings.Split(val.lit, ",") {
				if k, v, _ := strings.Cut(kv, "="); k == "dest" || k == "dst" {
					out = v
				}
			}
		}
		if out == "" || out == "-" {
			continue // an image pushed or loaded, or a tar on standard output
		}
		if val.dynamic {
			a.opaque(at, "writes its output to a path computed at run time: "+shorten(val.lit))
			continue
		}
		if p, ok, opaque := a.resolve(a.tildePath(out), cwd); ok {
			c.Accesses = append(c.Accesses, call.Access{Kind: call.Write, Path: p, Recursive: true})
			c.Opaque = c.Opaque || opaque
		}
	}
}

// buildSecrets: a build's --secret id=ID,src=FILE and --ssh ID=KEY hand the file to the
// build's steps, which read it: a credential given so is read by code moat does not see
// (a Dockerfile's RUN steps), as it would be by any program.
func (a *analyzer) buildSecrets(at int, rest []arg, cwd dir) {
	c := &a.cmds[at]
	for k, x := range rest {
		var val arg
		switch s := x.lit; {
		case (s == "--secret" || s == "--ssh") && k+1 < len(rest):
			val = rest[k+1]
		case strings.HasPrefix(s, "--secret=") || strings.HasPrefix(s, "--ssh="):
			_, v, _ := strings.Cut(s, "=")
			val = arg{lit: v, dynamic: x.dynamic}
		default:
			continue
		}
		ssh := strings.HasPrefix(x.lit, "--ssh")
		for _, kv := range strings.Split(val.lit, ",") {
			key, v, ok := strings.Cut(kv, "=")
			switch {
			case ssh:
				// --ssh ID=KEY[,KEY]: each key a file; an ID alone (default) or a value
				// that is no path is an agent's socket.
				if !ok {
					v = kv
				}
				if strings.Contains(v, "/") {
					c.Opaque = a.addAccess(&c.Accesses, call.Read, arg{lit: a.tildePath(v), dynamic: val.dynamic}, false, cwd) || c.Opaque
				}
			case ok && (key == "src" || key == "source"):
				c.Opaque = a.addAccess(&c.Accesses, call.Read, arg{lit: a.tildePath(v), dynamic: val.dynamic}, false, cwd) || c.Opaque
			}
		}
	}
}

// kubectlExec: kubectl exec POD -- COMMAND… runs the command in a pod, whose volumes are
// unknown here, as a container started before the line is; so do kubectl run, kubectl
// debug and kubectl create job|cronjob|deployment … -- COMMAND, in the pod they start, in
// the cluster. kubectl cp copies between the host and a pod ([NAMESPACE/]POD:PATH), as
// docker cp does.
func (a *analyzer) kubectlExec(at int, rest []arg, cwd dir) {
	i := subcommandAt("kubectl", rest)
	if i < len(rest) && !rest[i].dynamic && rest[i].lit == "cp" {
		vo := valueOptions()["kubectl"]
		var ops []arg
		for k := i + 1; k < len(rest); k++ {
			if _, _, last, ok := optionAt(rest, k, vo); ok {
				k = last
				continue
			}
			ops = append(ops, rest[k])
		}
		a.copyHostFiles(at, ops, func(x arg) bool {
			spec, _, ok := strings.Cut(x.lit, ":")
			return ok && spec != "" && !strings.ContainsAny(spec, ".~$") && !strings.HasPrefix(spec, "/")
		}, cwd)
		return
	}
	if i >= len(rest) || rest[i].dynamic {
		return
	}
	switch rest[i].lit {
	case "exec", "run", "debug":
		// run and debug start a new pod with the command, exec runs it in one running.
	case "create":
		// create job|cronjob|deployment NAME --image=I -- COMMAND: a workload running it.
		if i+1 >= len(rest) || rest[i+1].dynamic || !slices.Contains([]string{"job", "cronjob", "cj", "deployment", "deploy"}, rest[i+1].lit) {
			return
		}
	default:
		return
	}
	for k := i + 1; k < len(rest); k++ {
		if !rest[k].dynamic && rest[k].lit == "--" && k+1 < len(rest) {
			a.inContainer(at, container{unknown: true}, func() { a.containerCommand(at, rest[k+1:], dir{}) })
			return
		}
	}
}

// optionAt reads the option at rest[i]: its name, its value (the rest of the word or the
// next word, for the options of values) and the index of its last word. ok is false at
// the first operand, and after "--".
func optionAt(rest []arg, i int, values valueOpts) (opt string, val *arg, last int, ok bool) {
	x := rest[i]
	s := x.lit
	if x.dynamic && !strings.HasPrefix(s, "-") || !strings.HasPrefix(s, "-") || s == "-" || s == "--" {
		return "", nil, i, false
	}
	if strings.HasPrefix(s, "--") {
		n, v, has := strings.Cut(s[2:], "=")
		switch {
		case has:
			return n, &arg{lit: v, dynamic: x.dynamic, word: x.word}, i, true
		case slices.Contains(values.long, n) && i+1 < len(rest):
			return n, &rest[i+1], i + 1, true
		}
		return n, nil, i, true
	}
	// A cluster of short options; the first that takes a value takes the rest of the
	// word, or the next word.
	for j := 1; j < len(s); j++ {
		if strings.IndexByte(values.short, s[j]) < 0 {
			continue
		}
		opt = s[j : j+1]
		if j+1 < len(s) {
			// -v=/:/host: docker's option parser drops the = after a short option.
			return opt, &arg{lit: strings.TrimPrefix(s[j+1:], "="), dynamic: x.dynamic, word: x.word}, i, true
		}
		if i+1 < len(rest) {
			return opt, &rest[i+1], i + 1, true
		}
		return opt, nil, i, true
	}
	return s[len(s)-1:], nil, i, true
}

// containerOptions reads the options of docker run, create or exec up to the image or
// container, whose index it returns (len(rest) when there is none), and reports the
// options that give the container the host.
func (a *analyzer) containerOptions(at int, rest []arg, values valueOpts, cwd dir) (container, int) {
	var ct container
	name := a.meta[at].prog
	addMount := func(src, target string, dynamic, readOnly bool) {
		m := mount{target: path.Clean(target), source: a.mountSource(src, dynamic, cwd), readOnly: readOnly}
		if m.source == "" {
			m.source = unknownSource + m.target // judged as the same path of the host (opaqueMounts)
		}
		ct.mounts = append(ct.mounts, m)
		home, _ := a.st.get("HOME")
		if id := mountRisk(m.source, readOnly, home.s); id != "" {
			a.containerFinding(at, id, name+" mounts "+src+" into a container")
		}
	}
	i := 0
	for ; i < len(rest); i++ {
		if !rest[i].dynamic && rest[i].lit == "--" {
			i++
			break
		}
		opt, val, last, ok := optionAt(rest, i, values)
		if !ok {
			break
		}
		i = last
		if opt == "privileged" && (val == nil || !strings.EqualFold(val.lit, "false")) {
			a.containerFinding(at, findContainerEscape, name+" --privileged")
		}
		if opt == "net-host" {
			ct.netHost = true // ctr
		}
		if opt == "env-host" {
			ct.hostEnv = true // podman: the whole environment of the host
		}
		if val == nil {
			continue
		}
		lower := strings.ToLower(val.lit)
		switch opt {
		case "v", "volume":
			if val.dynamic && !strings.Contains(val.lit, ":") {
				ct.unknown = true
				continue
			}
			src, target, opts, ok := splitVolume(val.lit)
			if ok {
				addMount(src, target, val.dynamic, slices.Contains(opts, "ro") || slices.Contains(opts, "readonly"))
			}
		case "mount":
			src, target, bind, readOnly := "", "", false, false
			for _, kv := range strings.Split(val.lit, ",") {
				k, v, _ := strings.Cut(kv, "=")
				switch strings.ToLower(k) {
				case "type":
					bind = v == "bind"
				case "source", "src":
					src = v
				case "target", "destination", "dst":
					target = v
				case "readonly", "ro":
					readOnly = v == "" || v == "true" || v == "1"
				case "options": // ctr: options=rbind:ro
					readOnly = slices.Contains(strings.Split(v, ":"), "ro")
				}
			}
			if bind && path.IsAbs(target) {
				addMount(src, target, val.dynamic, readOnly)
			}
		case "env-file":
			ct.hostEnv = true
			a.envFile(&a.cmds[at], *val, cwd)
		case "e", "env":
			if name, _, set := strings.Cut(val.lit, "="); !set || val.dynamic || name == "" {
				ct.hostEnv = true // the host's value of NAME, or one computed on the host
			}
		case "volumes-from":
			ct.unknown = true // another container's mounts
		case "w", "workdir", "workingdir", "cwd":
			if !val.dynamic && path.IsAbs(val.lit) {
				ct.workdir = dir{path.Clean(val.lit), true}
			}
		case "entrypoint":
			v := *val
			ct.entrypoint = &v
		case "name":
			if !val.dynamic {
				ct.name = val.lit
			}
		case "net", "network":
			ct.netHost = lower == "host"
		case "cap-add":
			for _, c := range strings.Split(lower, ",") {
				if slices.Contains(escapeCapabilities, strings.TrimPrefix(c, "cap_")) {
					a.containerFinding(at, findContainerEscape, name+" --cap-add="+val.lit)
				}
			}
		case "security-opt":
			if slices.Contains(unconfinedOptions, strings.Replace(lower, ":", "=", 1)) {
				a.containerFinding(at, findContainerEscape, name+" --security-opt "+val.lit)
			}
		case "with-ns":
			// ctr --with-ns pid:/proc/1/ns/pid joins a namespace of the host's processes.
			a.containerFinding(at, findContainerEscape, name+" --with-ns "+val.lit)
		case "device", "device-cgroup-rule":
			a.containerFinding(at, findContainerEscape, name+" --"+opt+" "+val.lit)
		default:
			if slices.Contains(hostNamespaces, opt) && lower == "host" {
				a.containerFinding(at, findContainerEscape, name+" --"+opt+"=host")
			}
		}
	}
	return ct, i
}

// splitVolume splits -v SOURCE:TARGET[:OPTIONS]; ok is false for a volume with no host
// source (-v /data, -v name:/data).
func splitVolume(v string) (source, target string, opts []string, ok bool) {
	parts := strings.Split(v, ":")
	if len(parts) < 2 {
		return "", "", nil, false
	}
	source, target = parts[0], parts[1]
	if !path.IsAbs(target) {
		return "", "", nil, false
	}
	if !strings.HasPrefix(source, "/") && !strings.HasPrefix(source, ".") && !strings.HasPrefix(source, "~") && !strings.HasPrefix(source, "$") && !strings.HasPrefix(source, "`") && !strings.HasPrefix(source, `"`) {
		return "", "", nil, false // a named volume
	}
	if len(parts) > 2 {
		opts = strings.Split(parts[2], ",")
	}
	return source, target, opts, true
}

// mountSource is the host directory a mount's source names: an absolute or relative path,
// or the working directory written as $PWD or $(pwd); "" when it is only known at run time.
func (a *analyzer) mountSource(src string, dynamic bool, cwd dir) string {
	if dynamic {
		for _, w := range []string{"$PWD", "${PWD}", "$(pwd)", "`pwd`", `"$PWD"`, `"${PWD}"`, `"$(pwd)"`} {
			if rest, ok := strings.CutPrefix(src, w); ok && !strings.ContainsAny(rest, "$`") && cwd.known {
				return path.Clean(cwd.path + "/" + strings.Trim(rest, `"`))
			}
		}
		return ""
	}
	p, ok, opaque := a.abs(a.tildePath(src), cwd)
	if !ok || opaque {
		return ""
	}
	return p
}

// quoteArgs joins words into a shell line that gives them back: literal words quoted,
// words known only at run time as they were written.
func quoteArgs(args []arg) string {
	var b strings.Builder
	for k, x := range args {
		if k > 0 {
			b.WriteByte(' ')
		}
		if x.dynamic {
			b.WriteString(x.lit)
		} else {
			b.WriteString(shellQuote(x.lit))
		}
	}
	return b.String()
}

func deletesAny(c *call.Command) bool {
	for _, acc := range c.Accesses {
		if acc.Kind == call.Delete {
			return true
		}
	}
	return false
}

// dropFinding removes the finding id from fs.
func dropFinding(fs []call.Finding, id string) []call.Finding {
	out := fs[:0]
	for _, f := range fs {
		if f.ID != id {
			out = append(out, f)
		}
	}
	return out
}

func containsString(list []string, s string) bool {
	return slices.Contains(list, s)
}
