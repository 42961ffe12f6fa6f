package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/daemon"
)

// A client of another moat binary is refused the binding: the daemon's decisions protect
// the daemon's binary, and the client's would go unprotected.
func TestDaemonBindSameMoat(t *testing.T) {
	home := t.TempDir()
	bin := filepath.Join(home, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	own := filepath.Join(bin, "moat")
	other := filepath.Join(bin, "moat-copy")
	link := filepath.Join(bin, "moat-link")
	for _, f := range []string{own, other} {
		if err := os.WriteFile(f, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(own, link); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"HOME": home}
	services, _, _ := hookDaemon(t, vars, home)
	services.base.env.Executable = func() (string, error) { return own, nil }
	tests := []struct {
		exe     string
		refused bool
	}{
		{"", false},
		{own, false},
		{link, false},
		{other, true},
		{filepath.Join(bin, "missing"), true},
	}
	for _, tt := range tests {
		_, err := services.bind(daemon.BindParams{Env: vars, Executable: tt.exe})
		if got := err != nil; got != tt.refused {
			t.Errorf("bind with executable %q: err %v, want refused %v", tt.exe, err, tt.refused)
		}
		if err != nil && !strings.Contains(err.Error(), "another moat") {
			t.Errorf("bind with executable %q: %v does not say why", tt.exe, err)
		}
	}
}
