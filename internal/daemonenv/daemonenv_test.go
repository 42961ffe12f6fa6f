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
