package dirs

import (
	"maps"
	"slices"
	"testing"
)

func TestFromEnv(t *testing.T) {
	tests := []struct {
		name       string
		env        map[string]string
		wantConfig string
		wantState  string
		wantTemp   int
		wantErr    bool
	}{
		{"defaults", map[string]string{"HOME": "/home/u"}, "/home/u/.config/moat", "/home/u/.local/state/moat", 3, false},
		{"xdg", map[string]string{"HOME": "/home/u", "XDG_CONFIG_HOME": "/cfg", "XDG_STATE_HOME": "/st/"}, "/cfg/moat", "/st/moat", 3, false},
		{"relative xdg ignored", map[string]string{"HOME": "/home/u", "XDG_CONFIG_HOME": "cfg"}, "/home/u/.config/moat", "/home/u/.local/state/moat", 3, false},
		{"tmpdir added", map[string]string{"HOME": "/home/u", "TMPDIR": "/var/folders/x/T/"}, "/home/u/.config/moat", "/home/u/.local/state/moat", 4, false},
		{"tmpdir duplicate", map[string]string{"HOME": "/home/u", "TMPDIR": "/tmp"}, "/home/u/.config/moat", "/home/u/.local/state/moat", 3, false},
		{"no home", map[string]string{}, "", "", 0, true},
		{"relative home", map[string]string{"HOME": "home"}, "", "", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := FromEnv(func(k string) string { return tt.env[k] })
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if d.Config != tt.wantConfig || d.State != tt.wantState || len(d.Temp) != tt.wantTemp {
				t.Errorf("got %+v", d)
			}
			if d.UserPolicy() != tt.wantConfig+"/moat.yaml" || d.AuditLog() != tt.wantState+"/audit.jsonl" {
				t.Errorf("derived paths wrong: %s %s", d.UserPolicy(), d.AuditLog())
			}
		})
	}
}

func TestRuntimeDirs(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		uid  int
		want []string
	}{
		{"xdg first", map[string]string{"XDG_RUNTIME_DIR": "/run/user/1000/"}, 1000, []string{"/run/user/1000/moat", "/tmp/moat-1000"}},
		{"no xdg", map[string]string{}, 1000, []string{"/tmp/moat-1000"}},
		{"relative xdg ignored", map[string]string{"XDG_RUNTIME_DIR": "run"}, 0, []string{"/tmp/moat-0"}},
		{"tmpdir", map[string]string{"TMPDIR": "/var/folders/x/T/"}, 501, []string{"/var/folders/x/T/moat-501"}},
		{"no uid", map[string]string{"XDG_RUNTIME_DIR": "/run/user/1"}, -1, []string{"/run/user/1/moat"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := runtimeDirs(func(k string) string { return tt.env[k] }, tt.uid)
			if !slices.Equal(got, tt.want) {
				t.Errorf("runtimeDirs = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestManagedPaths(t *testing.T) {
	d, err := FromEnv(func(k string) string { return map[string]string{"HOME": "/home/u", "MOAT_MANAGED": "/tmp/x"}[k] })
	if err != nil {
		t.Fatal(err)
	}
	// The managed directory is the OS's, whatever the environment says.
	if d.Managed != ManagedDir {
		t.Errorf("Managed = %q, want %q", d.Managed, ManagedDir)
	}
	tests := []struct {
		managed, policy, key string
	}{
		{"", "", ""},
		{"/etc/moat", "/etc/moat/managed.yaml", "/etc/moat/managed.pub"},
	}
	for _, tt := range tests {
		d := Dirs{Managed: tt.managed}
		if got := d.ManagedPolicy(); got != tt.policy {
			t.Errorf("ManagedPolicy() = %q, want %q", got, tt.policy)
		}
		if got := d.ManagedKey(); got != tt.key {
			t.Errorf("ManagedKey() = %q, want %q", got, tt.key)
		}
	}
}

func TestXDGVars(t *testing.T) {
	env := map[string]string{"XDG_STATE_HOME": "/st/", "XDG_CONFIG_HOME": "cfg", "XDG_RUNTIME_DIR": "/run/user/1000", "XDG_DATA_HOME": "/data"}
	got := xdgVars(func(k string) string { return env[k] })
	want := map[string]string{"XDG_STATE_HOME": "/st", "XDG_RUNTIME_DIR": "/run/user/1000"}
	if !maps.Equal(got, want) {
		t.Errorf("xdgVars = %v, want %v (relative values and other variables left out)", got, want)
	}
	if got := xdgVars(func(string) string { return "" }); got != nil {
		t.Errorf("xdgVars of an empty environment = %v, want nil", got)
	}
}
