package setup

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func ptr[T any](v T) *T { return &v }

// TestCodexHookHash checks the hash against the currentHash that the real Codex 0.169.0
// reported through `codex app-server` hooks/list for the same handlers: a matcher kept,
// dropped (UserPromptSubmit) or empty, the default timeout and a given one, a timeout of
// 0 (Codex makes it 1), a statusMessage, and strings that Go's JSON would escape but
// Codex's does not (<, &, U+2028, non-ASCII).
func TestCodexHookHash(t *testing.T) {
	for _, tc := range []struct {
		label   string
		matcher *string
		h       codexHandler
		want    string
	}{
		{"pre_tool_use", ptr(".*"), codexHandler{Type: "command", Command: "/usr/local/bin/moat hook codex"},
			"sha256:b39717ad258c24c775b412596467e05c376cc13057588fd1ecff69d66a42301d"},
		{"user_prompt_submit", nil, codexHandler{Type: "command", Command: "/usr/local/bin/moat hook codex"},
			"sha256:0e38ef86ab6515f1924d83900b3d2784c10b7a6419a90d2a9513433ef1a2da4b"},
		{"pre_tool_use", ptr("Bash"), codexHandler{Type: "command", Command: "/opt/x"},
			"sha256:16bd5ccc3e455be4bdd364768a67df0ad1bab4306469bac7bce18a209f92c0cd"},
		{"pre_tool_use", ptr(""), codexHandler{Type: "command", Command: "/opt/y", Timeout: ptr[uint64](30), StatusMessage: ptr("checking <&> é")},
			"sha256:f7d0a5497d090eecd75329f3bf11dd795e35652bf103a117776a03906e319ac2"},
		{"pre_tool_use", ptr(""), codexHandler{Type: "command", Command: "'/opt/my moat/moat' hook codex", Timeout: ptr[uint64](0)},
			"sha256:a1380f360ccdb94c76ea59360103791d9da92f64747405698426b1684fe1ed92"},
		{"user_prompt_submit", nil, codexHandler{Type: "command", Command: "\"/opt/q\\\"uote\u2028/moat\" hook codex\t"},
			"sha256:f3fe88d5152a0c33f2ef86c4bc0ea23bab1743fe9fde192f72db6824bd1f95da"},
		{"stop", nil, codexHandler{Type: "command", Command: "x"},
			"sha256:6f14477468be127a92604ce05b51030268ccd6077fa7a807515589cfcfc7fd17"},
	} {
		if got := codexHookHash(tc.label, tc.matcher, tc.h); got != tc.want {
			t.Errorf("%s %q: %s, want %s", tc.label, tc.h.Command, got, tc.want)
		}
	}
}

// TestCodexHooks reads the keys and hashes of moat's hooks from a hooks.json as Codex
// 0.169.0 listed them: the group and handler indexes count the user's hooks too, a
// UserPromptSubmit matcher is ignored, and hooks that are not moat's are not listed.
func TestCodexHooks(t *testing.T) {
	const file = "/tmp/bexp/h3/.codex/hooks.json"
	text := `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "/opt/x"}]}, {"matcher": "", "hooks": [{"type": "command", "command": "/opt/y", "timeout": 30, "statusMessage": "checking <&> é"}, {"type": "command", "command": "'/opt/my moat/moat' hook codex", "timeout": 0, "async": false}]}], "UserPromptSubmit": [{"matcher": "ignored", "hooks": [{"type": "command", "command": "/usr/local/bin/moat hook codex"}]}], "Stop": [{"hooks": [{"type": "command", "command": "x"}]}]}}`
	got, err := CodexHooks(file, text)
	if err != nil {
		t.Fatal(err)
	}
	want := []CodexHook{
		{"PreToolUse", file + ":pre_tool_use:1:1", "sha256:a1380f360ccdb94c76ea59360103791d9da92f64747405698426b1684fe1ed92"},
		{"UserPromptSubmit", file + ":user_prompt_submit:0:0", "sha256:0e38ef86ab6515f1924d83900b3d2784c10b7a6419a90d2a9513433ef1a2da4b"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("hook %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}

// goldenHooks are the hooks the golden files record trust for.
var goldenHooks = []CodexHook{
	{"PreToolUse", "/home/u/.codex/hooks.json:pre_tool_use:0:0", "sha256:b39717ad258c24c775b412596467e05c376cc13057588fd1ecff69d66a42301d"},
	{"UserPromptSubmit", "/home/u/.codex/hooks.json:user_prompt_submit:0:0", "sha256:0e38ef86ab6515f1924d83900b3d2784c10b7a6419a90d2a9513433ef1a2da4b"},
}

// TestRecordCodexTrustGolden records trust in each testdata/codex-trust/NAME.before.toml
// and compares with NAME.after.toml (-update rewrites those). It then checks that the
// result reads back as trusted, that recording again changes nothing, and, where setup
// added every record, that removing them gives the file back byte for byte.
func TestRecordCodexTrustGolden(t *testing.T) {
	befores, err := filepath.Glob("testdata/codex-trust/*.before.toml")
	if err != nil || len(befores) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	// Files in which a record existed before setup, which removing cannot restore.
	restored := map[string]bool{"empty": true, "user-settings": true, "crlf": true, "disabled-table": true}
	for _, before := range befores {
		name := strings.TrimSuffix(filepath.Base(before), ".before.toml")
		t.Run(name, func(t *testing.T) {
			in, err := os.ReadFile(before)
			if err != nil {
				t.Fatal(err)
			}
			got, err := RecordCodexTrust(string(in), goldenHooks)
			if err != nil {
				t.Fatal(err)
			}
			afterFile := strings.TrimSuffix(before, ".before.toml") + ".after.toml"
			if *update {
				if err := os.WriteFile(afterFile, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(afterFile)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("got:\n%s\nwant:\n%s", got, want)
			}
			states, err := CodexHookStates(got)
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range goldenHooks {
				if st := h.Status(states); st != Trusted && !(name == "disabled-table" && h.Event == "PreToolUse" && st == Disabled) {
					t.Errorf("%s reads back as %s", h.Key, st)
				}
			}
			if again, err := RecordCodexTrust(got, goldenHooks); err != nil || again != got {
				t.Errorf("recording twice changed the file (%v):\n%s", err, again)
			}
			if !restored[name] {
				return
			}
			removed, err := RemoveCodexTrust(got, []string{goldenHooks[0].Key, goldenHooks[1].Key})
			want = in
			if len(in) > 0 && !strings.HasSuffix(string(in), "\n") {
				// The new line setup ended the user's last line with stays.
				want = append(want, '\n')
			}
			if err != nil || removed != string(want) {
				t.Errorf("removing (%v) gave:\n%q\nwant:\n%q", err, removed, want)
			}
		})
	}
}

// TestRecordCodexTrustRefuses checks that trust written where a [table] header would be
// invalid TOML (an inline table, dotted keys under the hook's key) is left alone, with an
// error, rather than turned into a file Codex cannot read.
func TestRecordCodexTrustRefuses(t *testing.T) {
	for _, text := range []string{
		"hooks = { state = {} }\n",
		"[hooks]\nstate = {}\n",
		"[hooks.state]\n\"/home/u/.codex/hooks.json:pre_tool_use:0:0\".enabled = true\n",
		"[[hooks.state]]\nx = 1\n",
	} {
		got, err := RecordCodexTrust(text, goldenHooks[:1])
		if !errors.Is(err, errCodexTrustAt) {
			t.Errorf("RecordCodexTrust(%q) = %q, %v; want errCodexTrustAt", text, got, err)
		}
	}
	if _, err := RecordCodexTrust("a = \"open\n", goldenHooks); err == nil {
		t.Error("a config.toml that does not parse was edited")
	}
}

func TestCodexHookStatus(t *testing.T) {
	h := goldenHooks[0]
	for _, tc := range []struct {
		config string
		want   Trust
	}{
		{"", Untrusted},
		{"[hooks.state.\"" + h.Key + "\"]\ntrusted_hash = \"" + h.Hash + "\"\n", Trusted},
		{"[hooks.state.\"" + h.Key + "\"]\ntrusted_hash = \"sha256:0\"\n", Modified},
		{"[hooks.state.\"" + h.Key + "\"]\ntrusted_hash = \"" + h.Hash + "\"\nenabled = false\n", Disabled},
		{"[hooks.state]\n\"" + h.Key + "\".trusted_hash = '" + h.Hash + "'\n", Trusted},
		{"[hooks.state.\"" + h.Key + "x\"]\ntrusted_hash = \"" + h.Hash + "\"\n", Untrusted},
	} {
		states, err := CodexHookStates(tc.config)
		if err != nil {
			t.Fatal(err)
		}
		if got := h.Status(states); got != tc.want {
			t.Errorf("%q: %s, want %s", tc.config, got, tc.want)
		}
	}
}

func TestBackupPath(t *testing.T) {
	got := BackupPath("/home/u/.local/state/moat", "/home/u/src/app/.claude/settings.json")
	want := "/home/u/.local/state/moat/backups/home/u/src/app/.claude/settings.json.moat-backup"
	if got != want {
		t.Errorf("BackupPath = %s, want %s", got, want)
	}
}

// TestRetarget checks that setup run with another moat makes moat's hooks run it, and
// touches nothing else: not the user's own hooks, not hooks of another agent's moat.
func TestRetarget(t *testing.T) {
	codex, _ := ForAgent("codex")
	before := "{\"hooks\": {\"PreToolUse\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"/opt/check\"}]}, {\"matcher\": \".*\", \"hooks\": [{\"type\": \"command\", \"command\": \"/old/moat hook codex\"}]}],\n  \"UserPromptSubmit\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"/old/moat hook claude-code\"}]}]}}\n"
	got, changed, err := codex.Retarget(before, PortableCommand)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(before, "/old/moat hook codex", "moat hook codex", 1)
	if got != want || len(changed) != 1 || changed[0] != "PreToolUse" {
		t.Errorf("Retarget = %v:\n%s\nwant:\n%s", changed, got, want)
	}
	if again, changed, _ := codex.Retarget(got, PortableCommand); again != got || len(changed) != 0 {
		t.Errorf("a second Retarget changed %v", changed)
	}
}
