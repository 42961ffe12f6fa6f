package netdest

import (
	"net/netip"
	"net/url"
	"strings"
)

// A control plane is a service's API on this machine or its network that hands out the
// service's secrets or runs code for whoever asks, without the credentials its public
// face wants: etcd's keys (a Kubernetes cluster's every Secret), the kubelet's API (each
// pod's environment, a shell in any container), Chrome's remote debugging port (the
// browser's pages and cookies), Node's inspector, Consul's key-value store and tokens,
// Jupyter's kernels, Envoy's admin API. Reaching one is not something an agent's work
// needs; a request to one is asked, whatever its method.

// controlPlane is one such API: the port it listens on by default, what it is, and the
// paths that reach what it guards (none: every path does).
type controlPlane struct {
	port    string
	service string
	paths   []string
}

// controlPlanes is built on first use; it is small and read once per request.
func controlPlanes() []controlPlane {
	return []controlPlane{
		{"2379", "etcd's key-value API, which holds a Kubernetes cluster's every Secret", []string{"/v2/keys", "/v3/kv", "/v3beta/kv", "/v3alpha/kv"}},
		{"10250", "the kubelet's API, which lists each pod's environment and runs commands in any container", nil},
		{"10255", "the kubelet's read-only API, which lists each pod's environment", []string{"/pods", "/spec"}},
		{"9222", "Chrome's remote debugging port, which drives the browser's pages with their cookies and sessions", nil},
		{"9229", "Node's inspector, which runs code in the process it debugs", nil},
		{"8500", "Consul's API, its key-value store and ACL tokens", []string{"/v1/kv", "/v1/acl", "/v1/agent/token", "/v1/snapshot", "/v1/connect/ca"}},
		{"8888", "Jupyter's API, whose kernels and terminals run code", []string{"/api/kernels", "/api/sessions", "/api/terminals"}},
		{"15000", "Envoy's admin API, which dumps its configuration and certificates and shuts it down", []string{"/config_dump", "/certs", "/quitquitquit", "/clusters"}},
	}
}

// ControlPlane returns the control plane a URL reaches, when it names one on this
// machine or its network: a loopback, private or link-local address, localhost, or a
// name without dots, at the API's default port and one of the paths that reach what it
// guards.
func ControlPlane(raw string) (string, bool) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" {
		return "", false
	}
	return controlPlaneAt(u.Hostname(), u.Port(), u.EscapedPath())
}

// ControlPlaneAt returns the control plane a raw connection to host and port reaches, on
// this machine or its network: what it sends is any request, so every path is one.
func ControlPlaneAt(host, port string) (string, bool) {
	if port == "" || !nearby(host) {
		return "", false
	}
	for _, c := range controlPlanes() {
		if c.port == port {
			return c.service, true
		}
	}
	return "", false
}

func controlPlaneAt(host, port, p string) (string, bool) {
	if port == "" || !nearby(host) {
		return "", false
	}
	for _, c := range controlPlanes() {
		if c.port != port {
			continue
		}
		if len(c.paths) == 0 {
			return c.service, true
		}
		for _, prefix := range c.paths {
			if p == prefix || strings.HasPrefix(p, prefix+"/") || strings.HasPrefix(p, prefix+"?") {
				return c.service, true
			}
		}
	}
	return "", false
}

// nearby reports whether host is this machine or on a network of its own.
func nearby(host string) bool {
	h := Canonical(host)
	if h == "localhost" || strings.HasSuffix(h, ".localhost") || h != "" && !strings.Contains(h, ".") && !strings.Contains(h, ":") {
		return true
	}
	a, err := netip.ParseAddr(h)
	if err != nil {
		return false
	}
	a = a.Unmap()
	return a.IsLoopback() || a.IsUnspecified() || a.IsPrivate() || a.IsLinkLocalUnicast()
}
