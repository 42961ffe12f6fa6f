package netdest

import "testing"

func TestControlPlane(t *testing.T) {
	for _, tt := range []struct {
		url  string
		want bool
	}{
		{"http://127.0.0.1:2379/v2/keys/?recursive=true", true},
		{"http://localhost:2379/v3/kv/range", true},
		{"http://localhost:2379/health", false},
		{"https://127.0.0.1:10250/pods", true},
		{"https://10.0.0.5:10250/run/default/web/app", true},
		{"http://localhost:10255/pods", true},
		{"http://localhost:9222/json/list", true},
		{"ws://127.0.0.1:9222/devtools/page/ABC", true},
		{"http://[::1]:9229/json", true},
		{"http://localhost:8500/v1/kv/?recurse", true},
		{"http://localhost:8500/v1/status/leader", false},
		{"http://localhost:8888/api/kernels", true},
		{"http://localhost:8888/tree", false},
		{"http://localhost:15000/config_dump", true},
		{"http://consul:8500/v1/acl/tokens", true},
		{"http://0x7f000001:9222/json", true},
		{"https://etcd.example.com:2379/v2/keys", false},
		{"http://203.0.113.5:9222/json", false},
		{"http://localhost:3000/v2/keys", false},
		{"http://localhost/v2/keys", false},
		{"not a url", false},
	} {
		if _, got := ControlPlane(tt.url); got != tt.want {
			t.Errorf("ControlPlane(%q) = %v, want %v", tt.url, got, tt.want)
		}
	}
}

// TestControlPlaneAt: a raw connection reaches a control plane by its host and port alone
// (what it sends may be any request), on this machine or its network only.
func TestControlPlaneAt(t *testing.T) {
	for _, tt := range []struct {
		host, port string
		want       bool
	}{
		{"localhost", "9229", true},
		{"127.0.0.1", "2379", true},
		{"10.0.0.5", "10250", true},
		{"consul", "8500", true},
		{"localhost", "5432", false},
		{"example.com", "9229", false},
		{"localhost", "", false},
		{"", "2379", false},
	} {
		if _, got := ControlPlaneAt(tt.host, tt.port); got != tt.want {
			t.Errorf("ControlPlaneAt(%q, %q) = %v, want %v", tt.host, tt.port, got, tt.want)
		}
	}
}
