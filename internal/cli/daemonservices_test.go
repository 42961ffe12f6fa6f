package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/daemon"
	"github.com/moatdev/moat/internal/proc"
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

// A hook client beside another moat than the daemon's is refused (it falls back to its
// own moat, whose binary the decisions then protect); one the system cannot name is
// served.
func TestDaemonHookSameClientMoat(t *testing.T) {
	home := t.TempDir()
	own := filepath.Join(home, ".local", "bin", "moat")
	if err := os.MkdirAll(filepath.Dir(own), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(own, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	services, _, _ := hookDaemon(t, map[string]string{"HOME": home}, home)
	tests := []struct {
		name    string
		exe     string
		err     error
		refused bool
	}{
		{"beside the daemon's moat", filepath.Join(home, ".local", "bin", "moat-hook"), nil, false},
		{"beside another moat", filepath.Join(home, "other", "moat-hook"), nil, true},
		{"unknown (no /proc, or gone)", "", os.ErrNotExist, false},
	}
	for _, tt := range tests {
		services.clientExe = func(int) (string, error) { return tt.exe, tt.err }
		err := services.sameClientMoat(4242)
		if got := err != nil; got != tt.refused {
			t.Errorf("%s: err %v, want refused %v", tt.name, err, tt.refused)
		}
	}
	// The real reader names this test's own binary, which has no moat beside it.
	services.clientExe = proc.Executable
	if _, err := os.Stat("/proc/self/exe"); err == nil {
		if err := services.sameClientMoat(os.Getpid()); err == nil {
			t.Error("a client whose executable has no moat beside it was served")
		}
	}
}
