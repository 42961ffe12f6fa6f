package shell

import (
	"encoding/json"
	"testing"
)

func TestContainerSpec(t *testing.T) {
	const home = "/home/u"
	for _, tt := range []struct {
		name string
		args map[string]any
		id   string
	}{
		{"root mounted", map[string]any{"volumes": []any{"/:/host"}}, findContainerHost},
		{"engine socket", map[string]any{"binds": []any{"/var/run/docker.sock:/var/run/docker.sock"}}, findContainerHost},
		{"etc read-only", map[string]any{"volumes": []any{"/etc:/e:ro"}}, findContainerEscape},
		{"docker-py volumes map", map[string]any{"volumes": map[string]any{"/etc": map[string]any{"bind": "/e", "mode": "rw"}}}, findContainerHost},
		{"mount objects", map[string]any{"mounts": []any{map[string]any{"type": "bind", "source": "/root", "target": "/r"}}}, findContainerHost},
		{"mount object read-only", map[string]any{"mounts": []any{map[string]any{"source": "/", "target": "/h", "readOnly": true}}}, findContainerEscape},
		{"privileged", map[string]any{"privileged": true}, findContainerEscape},
		{"pid host", map[string]any{"pid_mode": "host"}, findContainerEscape},
		{"capability", map[string]any{"cap_add": []any{"SYS_ADMIN"}}, findContainerEscape},
		{"host config", map[string]any{"HostConfig": map[string]any{"Binds": []any{"/:/h"}}}, findContainerHost},
		{"host over escape", map[string]any{"privileged": true, "volumes": []any{"/:/h"}}, findContainerHost},
		// Nothing of the host.
		{"project directory", map[string]any{"volumes": []any{"./src:/app/src"}}, ""},
		{"named volume", map[string]any{"volumes": []any{"pgdata:/var/lib/postgresql/data"}}, ""},
		{"above the server's directory", map[string]any{"volumes": []any{"../../..:/h"}}, findContainerEscape},
		{"own home", map[string]any{"volumes": []any{"~:/h"}}, ""},
		{"host network", map[string]any{"network_mode": "host"}, ""},
		{"not privileged", map[string]any{"privileged": false}, ""},
		{"no settings", map[string]any{"image": "alpine"}, ""},
	} {
		if id, ev := ContainerSpec(tt.args, home); id != tt.id {
			t.Errorf("%s: %q (%s); want %q", tt.name, id, ev, tt.id)
		}
	}
}

// FuzzContainerSpec: any JSON object of settings is judged without a panic, and a
// finding always comes with its evidence.
func FuzzContainerSpec(f *testing.F) {
	for _, s := range []string{
		`{"volumes":["/:/host"],"privileged":true}`,
		`{"volumes":{"/etc":{"bind":"/e","mode":"ro"}}}`,
		`{"mounts":[{"source":"~/x","readOnly":true}],"HostConfig":{"CapAdd":["ALL"]}}`,
		`{"binds":"/:/h:ro,/var/run/docker.sock:/s"}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var args map[string]any
		if json.Unmarshal([]byte(s), &args) != nil {
			return
		}
		if id, ev := ContainerSpec(args, "/home/u"); id != "" && ev == "" {
			t.Fatalf("%s: %s without evidence", s, id)
		}
	})
}
