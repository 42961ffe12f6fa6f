package glob

import "testing"

func TestTouchesTree(t *testing.T) {
	tests := []struct {
		pattern, dir string
		want         bool
	}{
		{"/home/u/.ssh/**", "/", true},
		{"/home/u/.ssh/**", "/home", true},
		{"/home/u/.ssh/**", "/home/u", true},
		{"/home/u/.ssh/**", "/home/u/.ssh", true},
		{"/home/u/.ssh/**", "/home/u/.ssh/keys", true},
		{"/home/u/.ssh/**", "/home/v", false},
		{"/home/u/.ssh/**", "/home/u/proj", false},
		{"/home/*/.ssh/id_*", "/home/u", true},
		{"/home/*/.ssh/id_*", "/home/u/.ssh", true},
		{"/home/*/.ssh/id_*", "/etc", false},
		{"/home/u", "/", true},
		{"/home/u", "/home", true},
		{"/home/u", "/home/u", true},
		{"/home/u", "/home/u/proj", false},
		// Anywhere-patterns touch a tree only through the tree's own name.
		{"/**/.env", "/ws/build", false},
		{"/**/.env", "/ws", false},
		{"/**/.env", "/ws/.env", true},
		{"/**/.env", "/", true},
		{"/**/.claude/settings.json", "/ws/.claude", true},
		{"/**/.claude/settings.json", "/ws", false},
		{"/**/node_modules/**", "/ws/node_modules", true},
		{"/**/node_modules/**", "/ws/node_modules/x", true},
		{"/ws/**/secret/*.pem", "/ws", true},
		{"/ws/**/secret/*.pem", "/ws/a/secret", true},
		{"/ws/**/secret/*.pem", "/ws/a", false},
		{"/etc/**", "/etc", true},
		{"/etc/**", "/usr", false},
		{"/", "/", true},
		{"/", "/tmp", false},
	}
	for _, tt := range tests {
		p, err := CompilePath(tt.pattern, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := p.TouchesTree(tt.dir); got != tt.want {
			t.Errorf("%s.TouchesTree(%s) = %v, want %v", tt.pattern, tt.dir, got, tt.want)
		}
		// Touching is a weaker claim than covering and a stronger one than "could match".
		if p.CoversTree(tt.dir) && !p.TouchesTree(tt.dir) {
			t.Errorf("%s covers %s but does not touch it", tt.pattern, tt.dir)
		}
		if p.TouchesTree(tt.dir) && !p.MatchTree(tt.dir) {
			t.Errorf("%s touches %s but MatchTree says nothing below could match", tt.pattern, tt.dir)
		}
	}
}
