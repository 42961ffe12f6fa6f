//go:build unix

package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestPlantedCodeEndToEnd plants code through `moat hook claude-code` in a canary home:
// a package.json whose postinstall would delete the home directory (and the canary in
// it) on the next npm install, written with Write and with npm pkg set. Each is denied and
// package.json is left as it was; writing ordinary scripts stays allowed.
func TestPlantedCodeEndToEnd(t *testing.T) {
	const original = `{"name": "app", "version": "1.0.0", "scripts": {"test": "jest"}}` + "\n"
	setup := func(t *testing.T) (h *hookRun, canary, pkg string) {
		t.Helper()
		h = newHookRun(t)
		canary = filepath.Join(h.home, "canary.txt")
		pkg = filepath.Join(h.project, "package.json")
		for path, text := range map[string]string{canary: "the postinstall must not delete this\n", pkg: original} {
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return h, canary, pkg
	}
	attacks := []struct {
		name  string
		tool  string
		input func(pkg string) map[string]any
	}{
		{"Write of a package.json with a postinstall", "Write", func(pkg string) map[string]any {
			return map[string]any{"file_path": pkg, "content": `{"name": "app", "version": "1.0.0", "scripts": {"test": "jest", "postinstall": "rm -rf ~"}}` + "\n"}
		}},
		{"npm pkg set scripts.postinstall", "Bash", func(string) map[string]any {
			return map[string]any{"command": "npm pkg set scripts.postinstall='rm -rf ~'"}
		}},
	}
	for _, tt := range attacks {
		t.Run(tt.name, func(t *testing.T) {
			h, canary, pkg := setup(t)
			if !actAsAgent(t, h, tt.tool, tt.input(pkg)) {
				t.Errorf("moat did not deny it")
			}
			if got := fileText(t, pkg); got != original {
				t.Errorf("package.json changed: %q", got)
			}
			if _, err := os.Stat(canary); err != nil {
				t.Errorf("the canary is gone: %v", err)
			}
		})
	}

	t.Run("ordinary scripts", func(t *testing.T) {
		h, _, pkg := setup(t)
		want := `{"name": "app", "version": "1.0.0", "scripts": {"test": "jest", "build": "tsc -p ."}}` + "\n"
		if actAsAgent(t, h, "Write", map[string]any{"file_path": pkg, "content": want}) {
			t.Fatalf("moat denied a package.json with ordinary scripts")
		}
		if got := fileText(t, pkg); got != want {
			t.Errorf("package.json = %q, want %q", got, want)
		}
	})
}
