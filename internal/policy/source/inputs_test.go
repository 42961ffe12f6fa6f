package source

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/moatdev/moat/internal/dirs"
)

func TestInputs(t *testing.T) {
	home := t.TempDir()
	repo := filepath.Join(home, "repo")
	sub := filepath.Join(repo, "a", "b")
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	d := dirs.Dirs{Home: home, Config: filepath.Join(home, ".config", "moat"), State: filepath.Join(home, ".local", "state", "moat")}
	tests := []struct {
		name string
		o    Options
		want []string
	}{
		{"flag, relative to cwd", Options{Flag: "p.yaml", Cwd: sub, Dirs: d}, []string{filepath.Join(sub, "p.yaml")}},
		{"environment", Options{Env: "/etc/moat/p.yaml", Cwd: sub, Dirs: d}, []string{"/etc/moat/p.yaml"}},
		{"relative environment is refused by Find", Options{Env: "p.yaml", Cwd: sub, Dirs: d}, nil},
		{"project chain, user, trust", Options{Cwd: sub, Dirs: d}, []string{
			filepath.Join(sub, ProjectFile), filepath.Join(repo, "a", ProjectFile), filepath.Join(repo, ProjectFile),
			d.UserPolicy(), d.TrustStore(),
		}},
		{"outside the project: from the project", Options{Cwd: home, Project: sub, Dirs: d}, []string{
			filepath.Join(sub, ProjectFile), filepath.Join(repo, "a", ProjectFile), filepath.Join(repo, ProjectFile),
			d.UserPolicy(), d.TrustStore(),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The fleet's configuration and kept bundle come first, whatever else applies.
			want := append([]string{filepath.Join(d.Config, "fleet.yaml"), d.FleetBundle()}, tt.want...)
			if got := Inputs(tt.o); !slices.Equal(got, want) {
				t.Errorf("Inputs = %q\nwant %q", got, want)
			}
		})
	}
}
