package shell

import (
	"path"
	"strings"
	"sync"

	"github.com/moatdev/moat/internal/call"
)

// This file follows the command a container runs (docker run IMAGE COMMAND…) into the
// host paths it mounts. Inside the container, / is the image's file system, which the
// host does not care about; a bind mount (-v /:/host, --mount type=bind,src=…) is where
// the container reaches the host. The command is analysed like any other, with each path
// it names translated through the mounts: `docker run -v /:/host alpine rm -rf /host/etc`
// deletes the host's /etc, while `docker run alpine rm -rf /etc` deletes nothing of the
// host's. A mount whose host side is computed at run time makes what is below it unknown.

// mount is one bind mount: the directory target inside the container shows the host's
// directory source ("" when only known at run time).
type mount struct {
	target string
	source string
}

// mounts are the bind mounts of the container whose command is being analysed.
type mounts []mount

// host translates a path of the container into the host's: the source of the deepest
// mount holding it. ok is false when no mount holds it (the path is the image's own) or
// the mount's source is unknown, which is opaque.
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
	if m.source == "" {
		return "", false, true
	}
	rest := strings.TrimPrefix(p, m.target)
	return path.Clean(m.source + "/" + rest), true, false
}

// under reports whether p is dir or below it.
func under(p, dir string) bool {
	return dir == "/" || p == dir || strings.HasPrefix(p, dir+"/")
}

// containerRunners are the programs whose run and create subcommands start a container
// from an image, with docker's options.
var containerRunners = map[string]bool{"docker": true, "podman": true, "nerdctl": true}

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
			"volume-driver", "volumes-from", "workdir",
		},
	}
})

// containerRun: docker run [OPTIONS] IMAGE [COMMAND [ARG…]] (and create, container run,
// podman, nerdctl). The command is analysed with its paths translated through the
// container's bind mounts.
func (a *analyzer) containerRun(at int, rest []arg, cwd dir) {
	name := a.meta[at].prog
	if !containerRunners[name] {
		return
	}
	i := subcommandAt(name, rest)
	if i >= len(rest) || rest[i].dynamic {
		return
	}
	switch sub := rest[i].lit; {
	case sub == "run" || sub == "create":
		i++
	case sub == "container" && i+1 < len(rest) && (rest[i+1].lit == "run" || rest[i+1].lit == "create"):
		i += 2
	default:
		return
	}
	values := runValueOptions()
	var ms mounts
	var entrypoint *arg
	workdir := dir{}
	unknownMounts := false
	addVolume := func(v arg) {
		if v.dynamic && !strings.Contains(v.lit, ":") {
			unknownMounts = true
			return
		}
		src, target, ok := splitVolume(v.lit)
		if !ok {
			return // an anonymous or named volume: none of the host's files
		}
		ms = append(ms, mount{target: target, source: a.mountSource(src, v.dynamic, cwd)})
	}
	addMount := func(v arg) {
		src, target, bind := "", "", false
		for _, kv := range strings.Split(v.lit, ",") {
			k, val, _ := strings.Cut(kv, "=")
			switch strings.ToLower(k) {
			case "type":
				bind = val == "bind"
			case "source", "src":
				src = val
			case "target", "destination", "dst":
				target = val
			}
		}
		if bind && path.IsAbs(target) {
			ms = append(ms, mount{target: path.Clean(target), source: a.mountSource(src, v.dynamic, cwd)})
		}
	}
	for ; i < len(rest); i++ {
		x := rest[i]
		s := x.lit
		if !strings.HasPrefix(s, "-") || s == "-" {
			break // the image
		}
		if s == "--" {
			i++
			break
		}
		var opt string
		var val *arg
		if strings.HasPrefix(s, "--") {
			n, v, has := strings.Cut(s[2:], "=")
			opt = n
			switch {
			case has:
				val = &arg{lit: v, dynamic: x.dynamic, word: x.word}
			case containsString(values.long, n) && i+1 < len(rest):
				i++
				val = &rest[i]
			}
		} else {
			// A cluster of short options; the first that takes a value takes the rest of
			// the word, or the next word.
			for j := 1; j < len(s); j++ {
				if strings.IndexByte(values.short, s[j]) < 0 {
					continue
				}
				opt = s[j : j+1]
				if j+1 < len(s) {
					// -v=/:/host: docker's option parser drops the = after a short option.
					val = &arg{lit: strings.TrimPrefix(s[j+1:], "="), dynamic: x.dynamic, word: x.word}
				} else if i+1 < len(rest) {
					i++
					val = &rest[i]
				}
				break
			}
		}
		if val == nil {
			continue
		}
		switch opt {
		case "v", "volume":
			addVolume(*val)
		case "mount":
			addMount(*val)
		case "volumes-from":
			unknownMounts = true // another container's mounts
		case "w", "workdir":
			if !val.dynamic && path.IsAbs(val.lit) {
				workdir = dir{path.Clean(val.lit), true}
			}
		case "entrypoint":
			v := *val
			entrypoint = &v
		}
	}
	if i >= len(rest) {
		return
	}
	argv := rest[i+1:] // after the image
	if entrypoint != nil && entrypoint.lit != "" {
		argv = append([]arg{*entrypoint}, argv...)
	}
	if len(argv) == 0 || len(ms) == 0 && !unknownMounts {
		// The image's own command, or a container that reaches none of the host's files:
		// what it does stays inside it (its network and privileges are judged as options).
		return
	}
	if unknownMounts {
		ms = append(ms, mount{target: "/"}) // any path may be a mount of unknown source
	}
	code := quoteArgs(argv)
	saved := a.sh.mounts
	a.sh.mounts = ms
	first := len(a.cmds)
	a.nestedWith(at, code, workdir, false, nil)
	a.sh.mounts = saved
	for k := first; k < len(a.cmds); k++ {
		c := &a.cmds[k]
		// rm -r of the image's own files is no delete of the host's.
		if hasFinding(c.Findings, findRecursiveDelete) && !c.Opaque && !deletesAny(c) {
			c.Findings = dropFinding(c.Findings, findRecursiveDelete)
		}
	}
}

// splitVolume splits -v SOURCE:TARGET[:OPTIONS]; ok is false for a volume with no host
// source (-v /data, -v name:/data).
func splitVolume(v string) (source, target string, ok bool) {
	parts := strings.Split(v, ":")
	if len(parts) < 2 {
		return "", "", false
	}
	source, target = parts[0], parts[1]
	if !path.IsAbs(target) {
		return "", "", false
	}
	if !strings.HasPrefix(source, "/") && !strings.HasPrefix(source, ".") && !strings.HasPrefix(source, "~") && !strings.HasPrefix(source, "$") && !strings.HasPrefix(source, "`") {
		return "", "", false // a named volume
	}
	return source, path.Clean(target), true
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
	p, ok, opaque := a.abs(src, cwd)
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
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
