package policy

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/call"
)

const teamPack = `version: 1
pack: team-deploy
description: Deny deploys from laptops
rules:
  - id: team-deploy.deny
    decision: deny
    command: "deploy **"
    reason: deploys go through CI
tests:
  - command: deploy prod
    expect: deny
    rule: team-deploy.deny
`

func writePack(t *testing.T, dir, name, text string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name+".yaml")
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDropInPacks(t *testing.T) {
	root := t.TempDir()
	managed, user := filepath.Join(root, "managed", "packs"), filepath.Join(root, "user", "packs")
	dirs := []string{managed, user}
	userFile := writePack(t, user, "team-deploy", teamPack)

	tests := []struct {
		name    string
		policy  string
		dirs    []string
		wantErr string
		check   func(t *testing.T, p *Policy)
	}{
		{name: "packs names a drop-in", policy: "version: 1\npacks: [team-deploy]\n", dirs: dirs, check: func(t *testing.T, p *Policy) {
			if !slices.Contains(p.Packs, "team-deploy") || !slices.Contains(p.Included, userFile) {
				t.Errorf("packs %v, included %v", p.Packs, p.Included)
			}
			if len(p.Rules) != 1 || p.Rules[0].ID != "team-deploy.deny" || p.Rules[0].Decision != call.Deny {
				t.Errorf("rules: %+v", p.Rules)
			}
		}},
		{name: "extends names a drop-in", policy: "version: 1\nextends: [team-deploy]\n", dirs: dirs, check: func(t *testing.T, p *Policy) {
			if !slices.Contains(p.Included, userFile) {
				t.Errorf("included %v", p.Included)
			}
		}},
		{name: "without drop-in directories", policy: "version: 1\npacks: [team-deploy]\n", wantErr: `unknown pack "team-deploy"`},
		{name: "unknown name suggests drop-ins", policy: "version: 1\npacks: [team-deplo]\n", dirs: dirs, wantErr: `did you mean "team-deploy"`},
		{name: "unknown name says where packs go", policy: "version: 1\npacks: [nothing]\n", dirs: dirs, wantErr: "a team's own packs go in " + managed},
		{name: "embedded packs come first", policy: "version: 1\npacks: [containers]\n", dirs: dirs, check: func(t *testing.T, p *Policy) {
			if len(p.Included) != 0 {
				t.Errorf("an embedded pack read a file: %v", p.Included)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := LoadWith("/w/moat.yaml", []byte(tt.policy), testHost(), LoadOptions{Path: "/w/moat.yaml", PackDirs: tt.dirs})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, p)
		})
	}

	t.Run("the managed directory's pack wins", func(t *testing.T) {
		managedFile := writePack(t, managed, "team-deploy", strings.ReplaceAll(teamPack, "decision: deny", "decision: ask"))
		defer os.Remove(managedFile)
		p, err := LoadWith("/w/moat.yaml", []byte("version: 1\npacks: [team-deploy]\n"), testHost(), LoadOptions{PackDirs: dirs})
		if err != nil {
			t.Fatal(err)
		}
		if p.Rules[0].Decision != call.Ask || !slices.Contains(p.Included, managedFile) || slices.Contains(p.Included, userFile) {
			t.Errorf("rules %+v included %v", p.Rules[0], p.Included)
		}
		list, err := DropIns(dirs)
		if err != nil {
			t.Fatal(err)
		}
		var hidden bool
		for _, d := range list {
			if d.Path == userFile {
				hidden = strings.Contains(d.Ignored, "hidden by "+managedFile)
			}
		}
		if !hidden {
			t.Errorf("the user's file hidden by the managed one is not reported: %+v", list)
		}
	})

	t.Run("a broken drop-in names its file and line", func(t *testing.T) {
		bad := writePack(t, user, "broken", "version: 1\npack: broken\nrules:\n  - id: x\n    decision: maybe\n")
		_, err := LoadWith("/w/moat.yaml", []byte("version: 1\npacks: [broken]\n"), testHost(), LoadOptions{PackDirs: dirs})
		if err == nil || !strings.Contains(err.Error(), bad+":5:") {
			t.Fatalf("error %v, want %s:5", err, bad)
		}
	})
}

func TestDropInsReportsIgnoredFiles(t *testing.T) {
	dir := t.TempDir()
	writePack(t, dir, "containers", teamPack)
	writePack(t, dir, "Team Deploy", teamPack)
	writePack(t, dir, "fine", strings.ReplaceAll(teamPack, "team-deploy", "fine"))
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	list, err := DropIns([]string{dir, filepath.Join(dir, "missing")})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, d := range list {
		got[d.Name] = d.Ignored
	}
	if len(got) != 3 || got["fine"] != "" || !strings.Contains(got["containers"], "embedded") || !strings.Contains(got["Team Deploy"], "name") {
		t.Errorf("DropIns: %+v", list)
	}
}
