//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestInterpreterFileAPIsEndToEnd sends, through `moat hook claude-code` in a canary
// home, writes of the agent's settings made through interpreters' file APIs instead of
// the shell (issue 18.2): each is denied and the settings are unchanged. Its benign
// neighbour, the same API writing a file of the project, is allowed and runs.
func TestInterpreterFileAPIsEndToEnd(t *testing.T) {
	attacks := []struct{ name, command string }{
		{"python pathlib", `python3 -c "from pathlib import Path; (Path.home() / '.claude' / 'settings.json').write_text('{}')"`},
		{"python pathlib in a variable", `python3 -c "import pathlib; p = pathlib.Path.home() / '.claude' / 'settings.json'; p.write_text('{}')"`},
		{"python os.replace", `python3 -c "import os; os.replace('new.json', os.path.expanduser('~/.claude/settings.json'))"`},
		{"python here-document", "python3 - <<'EOF'\nimport os\np = os.path.join(os.environ['HOME'], '.claude', 'settings.json')\nopen(p, 'w').write('{}')\nEOF"},
		{"node writeFileSync", `node -e "require('fs').writeFileSync(require('os').homedir() + '/.claude/settings.json', '{}')"`},
		{"perl three-argument open", `perl -e 'open(my $f, ">", "$ENV{HOME}/.claude/settings.json"); print $f "{}"'`},
	}
	for _, tt := range attacks {
		t.Run(tt.name, func(t *testing.T) {
			h := newHookRun(t)
			settings := filepath.Join(h.home, ".claude", "settings.json")
			canary := `{"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "moat hook claude-code"}]}]}}` + "\n"
			if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(settings, []byte(canary), 0o644); err != nil {
				t.Fatal(err)
			}
			if !actAsAgent(t, h, "Bash", map[string]any{"command": tt.command}) {
				t.Errorf("moat did not deny it")
			}
			if got := fileText(t, settings); got != canary {
				t.Errorf("the settings changed: %q", got)
			}
		})
	}

	t.Run("benign: python pathlib writes a project file", func(t *testing.T) {
		if _, err := exec.LookPath("python3"); err != nil {
			t.Skip("python3 is not installed")
		}
		h := newHookRun(t)
		cmd := `python3 -c "from pathlib import Path; Path('notes.txt').write_text('hello')"`
		if actAsAgent(t, h, "Bash", map[string]any{"command": cmd}) {
			t.Fatalf("moat denied %s", cmd)
		}
		if got := fileText(t, filepath.Join(h.project, "notes.txt")); got != "hello" {
			t.Errorf("notes.txt = %q, want hello", got)
		}
	})
}
