package cli

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/policysign"
)

// TestSignedManagedPolicy runs Claude Code's hook under a managed policy whose key is
// pinned: a correctly signed policy decides; a tampered one, one signed by another key,
// an older serial than one accepted before, and an unsigned one are refused, and the
// hook fails closed saying why.
func TestSignedManagedPolicy(t *testing.T) {
	home := t.TempDir()
	managed := t.TempDir()
	priv, pub, err := policysign.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	otherPriv, _, err := policysign.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(managed, "managed.pub"), policysign.MarshalPublic(pub), 0o644); err != nil {
		t.Fatal(err)
	}
	policyText := func(serial int) []byte {
		return []byte("version: 1\nserial: " + string(rune('0'+serial)) + "\nrules:\n  - {id: corp-no-curl, command: \"curl **\", decision: deny}\n")
	}
	sign := func(doc []byte, key policysign.PrivateKey) []byte {
		out, err := policysign.Sign(doc, key)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	hook := func(command string) (decision, reason string) {
		t.Helper()
		a, stdout, stderr := testApp(home)
		a.env.ManagedDir = managed
		a.env.Getenv = func(k string) string {
			return map[string]string{"HOME": home, "PATH": "/usr/bin:/bin", "MOAT_DAEMON": "off"}[k]
		}
		ev, _ := json.Marshal(map[string]any{"session_id": "s1", "hook_event_name": "PreToolUse", "cwd": home, "permission_mode": "default",
			"tool_name": "Bash", "tool_input": map[string]any{"command": command}})
		a.env.Stdin = bytes.NewReader(ev)
		Main([]string{"hook", "claude-code"}, a.env)
		var out struct {
			HookSpecificOutput struct {
				PermissionDecision       string `json:"permissionDecision"`
				PermissionDecisionReason string `json:"permissionDecisionReason"`
			} `json:"hookSpecificOutput"`
		}
		if s := strings.TrimSpace(stdout.String()); s != "" {
			if err := json.Unmarshal([]byte(s), &out); err != nil {
				t.Fatalf("hook answer %q: %v (stderr %q)", s, err, stderr)
			}
		}
		return out.HookSpecificOutput.PermissionDecision, out.HookSpecificOutput.PermissionDecisionReason + stderr.String()
	}
	install := func(doc []byte) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(managed, "managed.yaml"), doc, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// Signed, serial 5: the managed rule decides, other calls are the user's to decide.
	install(sign(policyText(5), priv))
	if d, r := hook("curl https://example.com"); d != "deny" || !strings.Contains(r, "corp-no-curl") {
		t.Fatalf("signed policy: %s %q, want its deny", d, r)
	}
	if d, r := hook("ls"); d == "deny" {
		t.Fatalf("signed policy: ls denied: %q", r)
	}

	tampered := sign(policyText(5), priv)
	tampered = bytes.Replace(tampered, []byte("decision: deny"), []byte("decision: allow"), 1)
	for _, tt := range []struct {
		name string
		doc  []byte
		why  string
	}{
		{"tampered", tampered, "changed after it was signed"},
		{"another key", sign(policyText(6), otherPriv), "signed by another key"},
		{"older serial", sign(policyText(4), priv), "serial 4"},
		{"unsigned", policyText(7), "the policy is not signed"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			install(tt.doc)
			d, r := hook("ls")
			if d != "deny" || !strings.Contains(r, tt.why) {
				t.Errorf("hook: %s %q; want a deny (failing closed) saying %q", d, r, tt.why)
			}
		})
	}
	// A newer signed policy is accepted, and then the one before it is an older serial.
	install(sign(policyText(8), priv))
	if d, r := hook("ls"); d == "deny" {
		t.Fatalf("serial 8: ls denied: %q", r)
	}
	install(sign(policyText(5), priv))
	if d, r := hook("ls"); d != "deny" || !strings.Contains(r, "serial 5") {
		t.Errorf("back to serial 5 after 8: %s %q; want refused as a rollback", d, r)
	}
}
