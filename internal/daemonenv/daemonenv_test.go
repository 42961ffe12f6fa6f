package daemonenv

import "testing"

func TestKey(t *testing.T) {
	tests := []struct {
		a, b  map[string]string
		equal bool
	}{
		{map[string]string{"HOME": "/h", "PATH": "/bin"}, map[string]string{"PATH": "/bin", "HOME": "/h"}, true},
		{map[string]string{"HOME": "/h"}, map[string]string{"HOME": "/h", "PATH": ""}, true},
		{map[string]string{"HOME": "/h"}, map[string]string{"HOME": "/g"}, false},
		{map[string]string{"HOME": "/h\nPATH=/x"}, map[string]string{"HOME": "/h", "PATH": "/x"}, false},
		{nil, map[string]string{}, true},
	}
	for _, tt := range tests {
		if got := Key(tt.a) == Key(tt.b); got != tt.equal {
			t.Errorf("Key(%v) == Key(%v): %v, want %v", tt.a, tt.b, got, tt.equal)
		}
	}
}

func TestCaptureAndCheck(t *testing.T) {
	vars := map[string]string{"HOME": "/h", "PATH": "/bin", "SECRET_TOKEN": "x", "MOAT_POLICY": ""}
	env := Capture(func(n string) string { return vars[n] })
	if len(env) != 2 || env["HOME"] != "/h" || env["PATH"] != "/bin" {
		t.Errorf("Capture = %v, want HOME and PATH only", env)
	}
	if err := Check(env); err != nil {
		t.Errorf("Check(%v): %v", env, err)
	}
	if err := Check(map[string]string{"SECRET_TOKEN": "x"}); err == nil {
		t.Error("Check took a variable the service does not depend on")
	}
}

func TestCaptureHookAndSplit(t *testing.T) {
	vars := map[string]string{"HOME": "/h", "CLAUDE_PROJECT_DIR": "/p", "CI": "true", "SECRET_TOKEN": "x", "MOAT_HOOK_DEADLINE": ""}
	env := CaptureHook(func(n string) string { return vars[n] })
	if len(env) != 3 || env["HOME"] != "/h" || env["CLAUDE_PROJECT_DIR"] != "/p" || env["CI"] != "true" {
		t.Errorf("CaptureHook = %v, want HOME, CLAUDE_PROJECT_DIR and CI", env)
	}
	tests := []struct {
		name        string
		env         map[string]string
		wantService map[string]string
		wantErr     bool
	}{
		{"service and hook", env, map[string]string{"HOME": "/h"}, false},
		{"empty", nil, map[string]string{}, false},
		{"another variable", map[string]string{"HOME": "/h", "SECRET_TOKEN": "x"}, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc, err := SplitHook(tt.env)
			if (err != nil) != tt.wantErr {
				t.Fatalf("SplitHook(%v): err %v, want error %v", tt.env, err, tt.wantErr)
			}
			if Key(svc) != Key(tt.wantService) || (svc == nil) != (tt.wantService == nil) {
				t.Errorf("SplitHook(%v) = %v, want %v", tt.env, svc, tt.wantService)
			}
		})
	}
	for _, n := range Hook() {
		if IsService(n) {
			t.Errorf("%s is in both Service and Hook", n)
		}
	}
}
