package planted

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// A Compose file or a Kubernetes manifest is no script, but what it asks for runs as
// surely as one: `docker compose up` starts each service, `kubectl apply` each pod. Each
// service and each container is read as the `docker run` that would start it, with the
// same privileges, host namespaces, capabilities, devices and mounts, so that the shell
// analysis judges it as it judges that command: a privileged container with / mounted is
// a container with the host's powers, a project directory mounted for `npm run dev` is
// ordinary.

// composeCode reads a Compose file's services.
func composeCode(text string, x *extraction) {
	doc, ok := decodeYAML(text, x)
	if !ok {
		return
	}
	top, _ := doc.(map[string]any)
	services, _ := top["services"].(map[string]any)
	for _, name := range slices.Sorted(maps.Keys(services)) {
		svc, _ := services[name].(map[string]any)
		if svc == nil {
			continue
		}
		var run dockerRun
		run.flag(svc["privileged"] == true, "--privileged")
		for _, ns := range [][2]string{{"pid", "--pid"}, {"ipc", "--ipc"}, {"network_mode", "--network"}, {"userns_mode", "--userns"}, {"cgroup", "--cgroupns"}} {
			if v, ok := svc[ns[0]].(string); ok && v == "host" {
				run.args = append(run.args, ns[1]+"=host")
			}
		}
		run.list("--cap-add", svc["cap_add"])
		run.list("--device", svc["devices"])
		run.list("--security-opt", svc["security_opt"])
		for _, v := range asList(svc["volumes"]) {
			switch v := v.(type) {
			case string:
				run.args = append(run.args, "-v", v)
			case map[string]any:
				src, _ := v["source"].(string)
				dst, _ := v["target"].(string)
				if typ, _ := v["type"].(string); typ == "bind" && src != "" && dst != "" {
					m := "type=bind,src=" + src + ",dst=" + dst
					if v["read_only"] == true {
						m += ",readonly"
					}
					run.args = append(run.args, "--mount", m)
				}
			}
		}
		if wd, ok := svc["working_dir"].(string); ok && wd != "" {
			run.args = append(run.args, "-w", wd)
		} else if at := projectMount(svc["volumes"]); at != "" {
			// No working_dir: the image's own, which for a service that mounts the
			// project is where it mounts it, nearly always. A command run elsewhere in
			// the container runs the image's code, not the host's.
			run.args = append(run.args, "-w", at)
		}
		image, _ := svc["image"].(string)
		if image == "" {
			image = "compose-built-image" // build: the image is the project's own
		}
		run.args = append(run.args, image)
		run.command(svc["entrypoint"], svc["command"])
		x.shell("services."+name+" (docker compose up starts it)", run.line())
	}
}

// projectMount returns where a service's volumes mount the Compose file's directory
// (./:/app, .:/src), or "".
func projectMount(volumes any) string {
	for _, v := range asList(volumes) {
		s, ok := v.(string)
		if !ok {
			continue
		}
		src, rest, ok := strings.Cut(s, ":")
		dst, _, _ := strings.Cut(rest, ":")
		if ok && (src == "." || src == "./") && strings.HasPrefix(dst, "/") {
			return dst
		}
	}
	return ""
}

// kubeManifestCode reads the pods of a Kubernetes manifest, one document or several.
func kubeManifestCode(text string, x *extraction) {
	dec := yaml.NewDecoder(strings.NewReader(text))
	for n := 0; n < 1000; n++ {
		var doc any
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			x.opaque(x.kind, "YAML moat cannot read: "+err.Error())
			return
		}
		m, _ := plainYAML(doc).(map[string]any)
		kind, _ := m["kind"].(string)
		meta, _ := m["metadata"].(map[string]any)
		name, _ := meta["name"].(string)
		if kind == "ClusterRoleBinding" || kind == "RoleBinding" {
			kubeBinding(kind, name, m, x)
			continue
		}
		spec := podSpec(kind, m)
		if spec == nil {
			continue
		}
		kubePod(fmt.Sprintf("%s %s", kind, name), spec, x)
	}
}

// kubePowerfulRoles are the cluster roles that give a cluster's or a namespace's every
// power, and kubeBroadSubjects the groups that are everyone.
var (
	kubePowerfulRoles = []string{"cluster-admin", "admin", "edit", "system:masters"}
	kubeBroadSubjects = []string{"system:authenticated", "system:unauthenticated", "system:anonymous", "system:serviceaccounts"}
)

// kubeBinding reads a role binding that hands a powerful role out, or a role to everyone,
// as the kubectl create of it (privilege.grant); a binding of a role of the project's
// own to its own service account is an application's ordinary RBAC.
func kubeBinding(kind, name string, m map[string]any, x *extraction) {
	ref, _ := m["roleRef"].(map[string]any)
	role, _ := ref["name"].(string)
	subjects, _ := m["subjects"].([]any)
	broad := false
	for _, s := range subjects {
		sub, _ := s.(map[string]any)
		n, _ := sub["name"].(string)
		broad = broad || slices.Contains(kubeBroadSubjects, n)
	}
	if !broad && !slices.Contains(kubePowerfulRoles, role) {
		return
	}
	verb := "rolebinding"
	if kind == "ClusterRoleBinding" {
		verb = "clusterrolebinding"
	}
	x.shell(kind+" "+name, "kubectl create "+verb+" "+shellQuote(name)+" --clusterrole="+shellQuote(role))
}

// podSpec returns the pod template of a manifest of kind, nil for kinds without one.
func podSpec(kind string, m map[string]any) map[string]any {
	get := func(v any, keys ...string) map[string]any {
		for _, k := range keys {
			mv, _ := v.(map[string]any)
			v = mv[k]
		}
		out, _ := v.(map[string]any)
		return out
	}
	switch kind {
	case "Pod":
		return get(m, "spec")
	case "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job", "ReplicationController":
		return get(m, "spec", "template", "spec")
	case "CronJob":
		return get(m, "spec", "jobTemplate", "spec", "template", "spec")
	}
	return nil
}

// kubePod reads each container of a pod spec as a docker run with the pod's host
// namespaces and the host paths its volumes mount.
func kubePod(where string, spec map[string]any, x *extraction) {
	hostPaths := map[string]string{}
	for _, v := range asList(spec["volumes"]) {
		vol, _ := v.(map[string]any)
		name, _ := vol["name"].(string)
		hp, _ := vol["hostPath"].(map[string]any)
		if p, ok := hp["path"].(string); ok && name != "" {
			hostPaths[name] = p
		}
	}
	containers := append(asList(spec["initContainers"]), asList(spec["containers"])...)
	for _, c := range containers {
		ctr, _ := c.(map[string]any)
		if ctr == nil {
			continue
		}
		var run dockerRun
		run.flag(spec["hostPID"] == true, "--pid=host")
		run.flag(spec["hostNetwork"] == true, "--network=host")
		run.flag(spec["hostIPC"] == true, "--ipc=host")
		sc, _ := ctr["securityContext"].(map[string]any)
		run.flag(sc["privileged"] == true, "--privileged")
		if caps, ok := sc["capabilities"].(map[string]any); ok {
			run.list("--cap-add", caps["add"])
		}
		for _, vm := range asList(ctr["volumeMounts"]) {
			mount, _ := vm.(map[string]any)
			name, _ := mount["name"].(string)
			dst, _ := mount["mountPath"].(string)
			if src, ok := hostPaths[name]; ok && dst != "" {
				v := src + ":" + dst
				if mount["readOnly"] == true {
					v += ":ro"
				}
				run.args = append(run.args, "-v", v)
			}
		}
		image, _ := ctr["image"].(string)
		if image == "" {
			image = "unnamed-image"
		}
		run.args = append(run.args, image)
		run.command(ctr["command"], ctr["args"])
		cname, _ := ctr["name"].(string)
		x.shell(where+", container "+cname+" (kubectl apply starts it)", run.line())
	}
}

// dockerRun builds the docker run command that stands for a service or a container.
type dockerRun struct {
	args []string
	// tail is a command written as one string, which Compose splits as a shell would:
	// it ends the line as written.
	tail string
}

func (r *dockerRun) flag(on bool, f string) {
	if on {
		r.args = append(r.args, f)
	}
}

func (r *dockerRun) list(opt string, v any) {
	for _, e := range asList(v) {
		if s, ok := e.(string); ok {
			r.args = append(r.args, opt, s)
		}
	}
}

// command adds the container's command: an entrypoint and its arguments, each a string
// (split into words as a shell splits it) or a list of words.
func (r *dockerRun) command(entrypoint, args any) {
	if entrypoint == nil && startsWithOption(args) {
		// command: --config /etc/mongodb.conf: arguments of the image's entrypoint,
		// whose program is the image's own, as when no command is given.
		return
	}
	for _, v := range []any{entrypoint, args} {
		switch v := v.(type) {
		case string:
			r.tail = strings.TrimSpace(r.tail + " " + v)
		case []any:
			for _, w := range v {
				if r.tail != "" {
					r.tail += " " + shellQuote(fmt.Sprint(w))
					continue
				}
				r.args = append(r.args, fmt.Sprint(w))
			}
		}
	}
}

func (r *dockerRun) line() string {
	words := make([]string, 0, len(r.args)+2)
	words = append(words, "docker", "run")
	for _, a := range r.args {
		words = append(words, shellQuote(a))
	}
	if r.tail != "" {
		words = append(words, r.tail)
	}
	return strings.Join(words, " ")
}

// startsWithOption reports whether a command (a string or a list of words) starts with an
// option rather than a program.
func startsWithOption(v any) bool {
	switch v := v.(type) {
	case string:
		return strings.HasPrefix(strings.TrimSpace(v), "-")
	case []any:
		if len(v) > 0 {
			s, ok := v[0].(string)
			return ok && strings.HasPrefix(s, "-")
		}
	}
	return false
}

// asList returns v as a list, or nil.
func asList(v any) []any {
	l, _ := v.([]any)
	return l
}
