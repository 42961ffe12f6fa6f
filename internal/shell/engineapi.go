package shell

import (
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"sync"
)

// This file finds the container engine driven behind its command-line tool's back: its
// REST API called over its unix socket (curl --unix-socket /var/run/docker.sock …), a raw
// stream to that socket (socat, nc -U), or the tool pointed at another engine (-H,
// --context, DOCKER_HOST). Whoever reaches the engine starts containers as the engine's
// user, root on most machines, with none of the options moat judges on `docker run`.
// Requests that only read (GET, HEAD) stay allowed; one that creates a container given
// the host (binds of host paths, privileged, host namespaces, devices) is
// privilege.container-host; any other that changes something is privilege.container-api.

// engineRules are the rules of the programs that reach a container engine around its CLI.
var engineRules = sync.OnceValue(func() map[string][]rule {
	return map[string][]rule{
		"curl":   {{when: engineAPI, finding: ""}},
		"socat":  {{when: engineStream, finding: ""}},
		"nc":     {{when: engineStream, finding: ""}},
		"ncat":   {{when: engineStream, finding: ""}},
		"export": {{when: engineVariable, finding: findContainerAPI}},
		"docker": {{when: otherEngine, finding: ""}},
	}
})

// engineVariables are the environment variables that point a container CLI at an engine.
var engineVariables = []string{"DOCKER_HOST", "DOCKER_CONTEXT", "CONTAINER_HOST", "CONTAINER_CONNECTION"}

// engineOptions are the global options of docker, podman, nerdctl and finch that point
// them at another engine (docker -H tcp://…, docker --context prod, podman --url …).
var engineOptions = []string{"H", "host", "c", "context", "url", "connection", "remote", "r", "address", "a"}

// engineReadOnly are the subcommands that only show what an engine holds.
var engineReadOnly = []string{
	"ps", "images", "version", "info", "inspect", "logs", "stats", "top", "events", "port", "diff", "history",
	"search", "help", "ls", "list", "df", "show", "--help", "--version",
}

// engineVariable: export DOCKER_HOST=… sends every later docker command of the session to
// that engine.
func engineVariable(_ *analyzer, v *view) string {
	for _, x := range v.args {
		name, _, ok := strings.Cut(x.lit, "=")
		if ok && slices.Contains(engineVariables, name) {
			return "export " + x.lit
		}
	}
	return ""
}

// otherEngine: a container command sent to another engine than the one the user set up, by
// a global option or a variable set for the command, when it changes something there.
func otherEngine(a *analyzer, v *view) string {
	where := ""
	for _, x := range a.curAssigns {
		if x.Name != nil && slices.Contains(engineVariables, x.Name.Value) {
			where = x.Name.Value + "=" + a.assignArg(x.Value).lit
		}
	}
	i := subcommandAt(v.name, v.args)
	for k := 0; k < i && k < len(v.args) && where == ""; k++ {
		if opt, val, last, ok := optionAt(v.args, k, valueOptions()[v.name]); ok {
			if slices.Contains(engineOptions, opt) {
				where = v.args[k].lit
				if val != nil && last > k {
					where += " " + val.lit
				}
			}
			k = last
		}
	}
	if where == "" {
		return ""
	}
	sub := ""
	for _, x := range v.args[min(i, len(v.args)):] {
		if x.dynamic || !strings.HasPrefix(x.lit, "-") {
			sub = x.lit
			if (sub == "container" || sub == "image" || sub == "volume" || sub == "network" || sub == "context" || sub == "system" || sub == "compose") && len(v.args) > i+1 {
				continue
			}
			break
		}
	}
	if sub == "" || slices.Contains(engineReadOnly, sub) {
		return ""
	}
	a.report(findContainerAPI, v.name+" "+sub+" on another engine ("+where+")")
	return "other engine"
}

// engineAPI: curl --unix-socket SOCKET URL, when SOCKET is a container engine's.
func engineAPI(a *analyzer, v *view) string {
	socket, target := "", ""
	for k := 0; k < len(v.args); k++ {
		s := v.args[k].lit
		switch {
		case s == "--unix-socket" || s == "--abs-unix-socket":
			if k+1 < len(v.args) {
				k++
				socket = v.args[k].lit
			}
		case strings.HasPrefix(s, "--unix-socket=") || strings.HasPrefix(s, "--abs-unix-socket="):
			_, socket, _ = strings.Cut(s, "=")
		case strings.Contains(s, "://") || strings.HasPrefix(s, "http:/") || strings.HasPrefix(s, "https:/"):
			if target == "" {
				target = s
			}
		}
	}
	endpoint := apiPath(target)
	switch {
	case socket != "" && (isEngineSocket(socket) || engineEndpoint(endpoint)):
		// The engine's socket, or any socket (a copy, a link, a relay) asked for its API.
	case socket == "" && engineEndpoint(endpoint) && enginePort(target):
		socket = "the engine's TCP port"
	default:
		return ""
	}
	method := ""
	for _, o := range v.opts {
		if (o.name == "X" || o.name == "request") && o.hasValue {
			method = strings.ToUpper(o.val.lit)
		}
	}
	body, hasBody := requestBody(v)
	if method == "" {
		method = "GET"
		if hasBody {
			method = "POST"
		} else if v.flag("I", "head") {
			method = "HEAD"
		}
	}
	if method == "GET" || method == "HEAD" {
		return ""
	}
	what := method + " " + endpoint + " on " + socket
	switch {
	case strings.HasSuffix(endpoint, "/containers/create") || strings.HasSuffix(endpoint, "/exec") && strings.HasPrefix(endpoint, "/containers/"):
		if escape := hostConfigEscape(body); escape != "" {
			a.report(findContainerHost, what+": "+escape)
			return "engine API"
		}
	case strings.HasSuffix(endpoint, "/services/create"):
		if escape := hostConfigEscape(body); escape != "" {
			a.report(findContainerHost, what+": "+escape)
			return "engine API"
		}
	}
	a.report(findContainerAPI, what)
	return "engine API"
}

// engineEndpoints are the first segments of the paths of the Docker and Podman APIs
// (after the version): a request for one of them is a request to an engine.
var engineEndpoints = []string{"containers", "exec", "images", "build", "plugins", "swarm", "services", "secrets", "configs", "volumes", "networks", "nodes", "tasks", "session", "libpod", "commit", "auth"}

// enginePorts are the TCP ports container engines listen on when asked to (Docker's
// 2375 and 2376, Podman's service on 8080 when started that way is too common a port to
// tell).
var enginePorts = []string{"2375", "2376"}

func engineEndpoint(p string) bool {
	first, _, _ := strings.Cut(strings.TrimPrefix(p, "/"), "/")
	return slices.Contains(engineEndpoints, first)
}

func enginePort(target string) bool {
	u, err := url.Parse(target)
	return err == nil && slices.Contains(enginePorts, u.Port())
}

// requestBody is the literal body of a curl request, "" when there is none or it is only
// known at run time (a file, standard input, a variable); has says there is one.
func requestBody(v *view) (body string, has bool) {
	for _, o := range v.opts {
		switch o.name {
		case "d", "data", "data-raw", "data-binary", "data-ascii", "data-urlencode", "json", "F", "form", "T", "upload-file":
			has = true
			if o.hasValue && !o.val.dynamic && !strings.HasPrefix(o.val.lit, "@") && o.name != "T" && o.name != "upload-file" {
				body = o.val.lit
			}
		}
	}
	return body, has
}

// apiPath is the path of an engine API URL without its version prefix: /containers/create
// for http://localhost/v1.45/containers/create?name=x.
func apiPath(target string) string {
	p := target
	if u, err := url.Parse(target); err == nil && u.Path != "" {
		p = u.Path
	} else if _, rest, ok := strings.Cut(target, ":/"); ok {
		p = "/" + strings.TrimLeft(rest, "/")
	}
	if rest, ok := strings.CutPrefix(p, "/v"); ok {
		if i := strings.IndexByte(rest, '/'); i > 0 && strings.Trim(rest[:i], "0123456789.") == "" {
			p = rest[i:]
		}
	}
	if rest, ok := strings.CutPrefix(p, "/libpod/"); ok && engineEndpoint("/"+rest) {
		p = "/" + rest // podman's own API, beside its Docker-compatible one
	}
	return p
}

// hostConfigEscape reads the JSON body of a create or exec request for what gives the
// container the host; a body that cannot be read is "": asked, not denied. The engine
// decodes its JSON without regard to the case of keys, so neither does this.
func hostConfigEscape(body string) string {
	var req map[string]any
	if body == "" || json.Unmarshal([]byte(body), &req) != nil {
		return ""
	}
	if escape := specEscape(req); escape != "" {
		return escape // an exec, or podman's libpod specification, which is flat
	}
	if hc, _ := field(req, "HostConfig").(map[string]any); hc != nil {
		if escape := specEscape(hc); escape != "" {
			return "HostConfig." + escape
		}
	}
	// A swarm service: TaskTemplate.ContainerSpec.
	if tt, _ := field(req, "TaskTemplate").(map[string]any); tt != nil {
		if cs, _ := field(tt, "ContainerSpec").(map[string]any); cs != nil {
			return specEscape(cs)
		}
	}
	return ""
}

// specEscape reads one level of a container's specification for what gives the host.
func specEscape(hc map[string]any) string {
	if b, _ := field(hc, "Privileged").(bool); b {
		return "Privileged"
	}
	if binds, _ := field(hc, "Binds").([]any); len(binds) > 0 {
		for _, b := range binds {
			if s, _ := b.(string); strings.HasPrefix(s, "/") || strings.HasPrefix(s, "~") || strings.HasPrefix(s, ".") {
				return "Binds " + s
			}
		}
	}
	if ms, _ := field(hc, "Mounts").([]any); len(ms) > 0 {
		for _, m := range ms {
			if mm, _ := m.(map[string]any); mm != nil {
				if t, _ := field(mm, "Type").(string); strings.EqualFold(t, "bind") {
					src, _ := field(mm, "Source").(string)
					return "Mounts bind " + src
				}
			}
		}
	}
	for _, ns := range []string{"PidMode", "IpcMode", "UTSMode", "UsernsMode", "CgroupnsMode", "NetworkMode"} {
		if s, _ := field(hc, ns).(string); strings.EqualFold(s, "host") {
			return ns + " host"
		}
	}
	for _, ns := range []string{"pidns", "ipcns", "utsns", "userns", "cgroupns", "netns"} {
		// podman: {"pidns": {"nsmode": "host"}}
		if m, _ := field(hc, ns).(map[string]any); m != nil {
			if s, _ := field(m, "nsmode").(string); strings.EqualFold(s, "host") {
				return ns + " host"
			}
		}
	}
	caps, _ := field(hc, "CapAdd").([]any)
	if more, _ := field(hc, "cap_add").([]any); len(more) > 0 {
		caps = append(caps, more...)
	}
	if len(caps) > 0 {
		for _, c := range caps {
			if s, _ := c.(string); slices.Contains(escapeCapabilities, strings.TrimPrefix(strings.ToLower(s), "cap_")) {
				return "CapAdd " + s
			}
		}
	}
	if ds, _ := field(hc, "Devices").([]any); len(ds) > 0 {
		return "Devices"
	}
	if so, _ := field(hc, "SecurityOpt").([]any); len(so) > 0 {
		for _, o := range so {
			if s, _ := o.(string); slices.Contains(unconfinedOptions, strings.Replace(strings.ToLower(s), ":", "=", 1)) {
				return "SecurityOpt " + s
			}
		}
	}
	return ""
}

// field is the value of the key of m, whatever its case.
func field(m map[string]any, key string) any {
	if v, ok := m[key]; ok {
		return v
	}
	for k, v := range m {
		if strings.EqualFold(k, key) {
			return v
		}
	}
	return nil
}

// engineStream: socat or nc connected to an engine's socket carry whatever they are fed
// to the engine's API; socat that also listens on the network hands the engine to anyone
// who connects.
func engineStream(a *analyzer, v *view) string {
	socket := ""
	listens := false
	for _, x := range v.args {
		lower := strings.ToLower(x.lit)
		kind, addr, hasColon := strings.Cut(lower, ":")
		switch {
		case !hasColon && isEngineSocket(lower): // nc -U /var/run/docker.sock
			socket = x.lit
		case hasColon && (strings.HasPrefix(kind, "unix") || strings.HasPrefix(kind, "abstract")) && isEngineSocket(strings.Split(addr, ",")[0]):
			socket = x.lit
		case hasColon && strings.Contains(kind, "listen"):
			listens = true
		}
	}
	if socket == "" {
		return ""
	}
	if listens || v.flag("l", "listen") {
		a.report(findContainerHost, v.name+" exposes the engine's socket "+socket+" on the network")
		return "engine socket"
	}
	a.report(findContainerAPI, v.name+" talks to the engine's socket "+socket+" directly")
	return "engine socket"
}
