package shell

import (
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/moatdev/moat/internal/scan/textmatch"
)

// ContainerSpec judges the settings of a container that a tool other than the command
// line creates or runs (an MCP server's run_container), under the names such tools give
// them: volumes or binds (host:container strings, {source, target} objects, or a map from
// host path to {bind, mode}), privileged, pid_mode, ipc_mode, cap_add, devices,
// security_opt. The host's network is not the host (docker run --network host is not
// asked about either). It returns the finding that gives the container the host, as
// `docker run` with the same options gets, and its evidence; "" when none does. home is
// the user's home directory, which the user may mount.
func ContainerSpec(args map[string]any, home string) (id, evidence string) {
	spec := map[string]any{}
	escapeID, escapeEv := "", ""
	for _, k := range slices.Sorted(maps.Keys(args)) {
		v := args[k]
		switch strings.Join(textmatch.IdentWords(k), "") {
		case "volumes", "volume", "binds", "bind", "mounts", "mount", "hostconfigbinds":
			if id, ev := mountsRisk(v, home); id == findContainerHost {
				return id, ev
			} else if id != "" && escapeID == "" {
				escapeID, escapeEv = id, ev
			}
		case "privileged":
			spec["Privileged"] = v
		case "pidmode", "pid":
			spec["PidMode"] = v
		case "ipcmode", "ipc":
			spec["IpcMode"] = v
		case "utsmode", "uts":
			spec["UTSMode"] = v
		case "usernsmode", "userns":
			spec["UsernsMode"] = v
		case "capadd", "caps", "capabilities":
			spec["CapAdd"] = listOf(v)
		case "devices", "device":
			spec["Devices"] = listOf(v)
		case "securityopt", "securityopts":
			spec["SecurityOpt"] = listOf(v)
		case "hostconfig":
			if hc, ok := v.(map[string]any); ok {
				if id, ev := ContainerSpec(hc, home); id != "" {
					return id, ev
				}
			}
		}
	}
	if escape := specEscape(spec); escape != "" {
		return findContainerEscape, escape
	}
	return escapeID, escapeEv
}

// listOf is v as a list: a list, or one value alone.
func listOf(v any) []any {
	if l, ok := v.([]any); ok {
		return l
	}
	return []any{v}
}

// mountsRisk judges the mounts of a container spec by their host side, as mountRisk
// judges docker run -v: the strongest finding, container-host before container-escape.
func mountsRisk(v any, home string) (id, evidence string) {
	judge := func(src string, readOnly bool) (string, string) {
		src = strings.TrimSpace(src)
		if src == "~" || strings.HasPrefix(src, "~/") {
			src = home + src[1:]
		}
		if !path.IsAbs(src) {
			if c := path.Clean(src); c == ".." || strings.HasPrefix(c, "../") {
				// Relative to a directory the server chose, above it: where it leads is
				// not known, and it may be the host's root.
				return findContainerEscape, "mounts " + src
			}
			return "", "" // a named volume, or a path in the project
		}
		src = path.Clean(src)
		return mountRisk(src, readOnly, home), "mounts " + src
	}
	best, bestEv := "", ""
	keep := func(id, ev string) {
		if id == findContainerHost || id != "" && best == "" {
			best, bestEv = id, ev
		}
	}
	readOnly := func(m map[string]any) bool {
		for k, v := range m { // any key that says read-only, in any order
			switch strings.Join(textmatch.IdentWords(k), "") {
			case "readonly", "ro":
				if b, ok := v.(bool); ok && b {
					return true
				}
			case "mode":
				if s, ok := v.(string); ok && slices.Contains(strings.Split(s, ","), "ro") {
					return true
				}
			}
		}
		return false
	}
	switch v := v.(type) {
	case string:
		for _, s := range strings.Split(v, ",") {
			if src, _, opts, ok := splitVolume(strings.TrimSpace(s)); ok {
				keep(judge(src, slices.Contains(opts, "ro")))
			}
		}
	case []any:
		for _, e := range v {
			switch e := e.(type) {
			case string:
				if src, _, opts, ok := splitVolume(e); ok {
					keep(judge(src, slices.Contains(opts, "ro")))
				}
			case map[string]any:
				for _, k := range slices.Sorted(maps.Keys(e)) {
					switch strings.Join(textmatch.IdentWords(k), "") {
					case "source", "src", "host", "hostpath", "from":
						if s, ok := e[k].(string); ok {
							keep(judge(s, readOnly(e)))
						}
					}
				}
			}
		}
	case map[string]any:
		// docker-py's volumes: {"/host/path": {"bind": "/in", "mode": "rw"}}.
		for _, src := range slices.Sorted(maps.Keys(v)) {
			m, _ := v[src].(map[string]any)
			keep(judge(src, m != nil && readOnly(m)))
		}
	}
	return best, bestEv
}
