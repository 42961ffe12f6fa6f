package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// secretSample is one block of the scanner's corpus: a text that carries secrets of the
// kinds ids, with the secret values marked «…».
type secretSample struct {
	ids    string
	text   string
	values []string
}

// secretSamples reads the blocks of the secret corpora that hold secrets.
func secretSamples(t *testing.T) []secretSample {
	t.Helper()
	var out []secretSample
	for _, name := range []string{"tokens.txt", "structured.txt", "assignments.txt"} {
		raw, err := os.ReadFile(filepath.Join("..", "..", "internal", "scan", "secrets", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		for _, block := range strings.Split(string(raw), "### ")[1:] {
			head, body, _ := strings.Cut(block, "\n")
			ids, _, _ := strings.Cut(head, " -- ")
			s := secretSample{ids: strings.TrimSpace(ids)}
			for rest := body; ; {
				i := strings.Index(rest, "«")
				if i < 0 {
					break
				}
				j := strings.Index(rest[i:], "»")
				if j < 0 {
					t.Fatalf("%s: unclosed « in %q", name, head)
				}
				s.values = append(s.values, rest[i+len("«"):i+j])
				rest = rest[i+j:]
			}
			s.text = strings.NewReplacer("«", "", "»", "").Replace(strings.TrimSuffix(body, "\n"))
			if s.ids != "" && len(s.values) > 0 {
				out = append(out, s)
			}
		}
	}
	return out
}

// fiftyKinds picks 50 samples: one of every secret kind the corpus has first, then
// further formats and contexts of them.
func fiftyKinds(t *testing.T) []secretSample {
	t.Helper()
	all := secretSamples(t)
	var picked []secretSample
	seen := map[string]bool{}
	used := map[int]bool{}
	for i, s := range all {
		first := strings.Fields(s.ids)[0]
		if !seen[first] {
			seen[first] = true
			used[i] = true
			picked = append(picked, s)
		}
	}
	for i, s := range all {
		if len(picked) == 50 {
			break
		}
		if !used[i] {
			picked = append(picked, s)
		}
	}
	if len(picked) < 50 {
		t.Fatalf("the secret corpora hold only %d samples", len(picked))
	}
	return picked
}

// TestSecretsNeverReachStateDir records calls that carry 50 kinds of secrets — as shell
// commands, file writes, edits and MCP arguments, through --stdin, --explain and --json —
// and then asserts that no secret value appears anywhere under the fake HOME (where
// moat's state directory and audit log are) nor in anything moat printed.
func TestSecretsNeverReachStateDir(t *testing.T) {
	home := t.TempDir()
	work := filepath.Join(home, "project")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	samples := fiftyKinds(t)

	var requests bytes.Buffer
	enc := json.NewEncoder(&requests)
	type request struct {
		Version int            `json:"version"`
		Agent   string         `json:"agent"`
		Event   string         `json:"event"`
		Tool    string         `json:"tool"`
		Args    map[string]any `json:"args"`
		Cwd     string         `json:"cwd"`
		Session string         `json:"session"`
	}
	for i, s := range samples {
		r := request{Version: 1, Agent: "claude-code", Event: "pre_tool_use", Cwd: work, Session: fmt.Sprintf("s%d", i)}
		switch i % 4 {
		case 0:
			r.Tool, r.Args = "Bash", map[string]any{"command": s.text}
		case 1:
			r.Tool, r.Args = "Write", map[string]any{"file_path": filepath.Join(work, "config", "settings.txt"), "content": s.text}
		case 2:
			r.Tool, r.Args = "Edit", map[string]any{"file_path": filepath.Join(work, "app.py"), "old_string": "PLACEHOLDER", "new_string": s.text}
		case 3:
			r.Tool, r.Args = "mcp__notes__create", map[string]any{"title": "setup", "body": s.text, "tags": []any{"ops", s.values[0]}}
		}
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
	}
	// Secrets where a detector's word boundaries used to miss them: a token inside an MCP
	// tool's name, and URL passwords holding #, ? and @ unencoded.
	awkward := []string{"ghp_R8fK2mQ7xLp4Zt9Vb3Nc6Wd1Ys5Hj0Ae2Gu4", "s3cr#t?Kx7mQ2", "p@ss/w0rd#9x"}
	for _, r := range []request{
		{Version: 1, Agent: "claude-code", Event: "pre_tool_use", Cwd: work, Tool: "mcp__gh__" + awkward[0], Args: map[string]any{"q": "x"}},
		{Version: 1, Agent: "claude-code", Event: "pre_tool_use", Cwd: work, Tool: "Bash", Args: map[string]any{"command": "curl https://admin:" + awkward[1] + "@db.example.com:5432/x"}},
		{Version: 1, Agent: "claude-code", Event: "pre_tool_use", Cwd: work, Tool: "Bash", Args: map[string]any{"command": "psql postgres://app:" + awkward[2] + "@db.internal/app"}},
	} {
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
	}
	samples = append(samples, secretSample{ids: "awkward", values: awkward})
	// A request moat cannot evaluate echoes what it could not read in its error.
	fmt.Fprintf(&requests, "{\"version\":1,\"tool\":\"Frobnicate %s\",\"args\":{},\"cwd\":%q}\n", samples[0].values[0], work)

	var printed bytes.Buffer
	run := func(stdin []byte, args ...string) {
		t.Helper()
		stdout, stderr, _ := runInProcess(t, work, []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}, string(stdin), args...)
		printed.WriteString(stdout + stderr)
	}
	run(requests.Bytes(), "check", "--stdin", "--record")
	for i, s := range samples[:10] {
		run(nil, "check", "--record", "--explain", "--session", fmt.Sprintf("explain%d", i), "--", s.text)
		args, _ := json.Marshal(map[string]any{"file_path": filepath.Join(work, "notes.md"), "content": s.text})
		run(nil, "check", "--record", "--json", "--tool", "Write", "--args", string(args))
	}

	records := 0
	var stored bytes.Buffer
	err := filepath.WalkDir(home, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.HasSuffix(path, "audit.jsonl") {
			records += bytes.Count(b, []byte("\n"))
		}
		fmt.Fprintf(&stored, "== %s\n%s\n", path, b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := len(samples) + 20; records < want {
		t.Fatalf("the audit log holds %d records, want at least %d: the calls were not recorded", records, want)
	}
	for _, s := range samples {
		for _, v := range s.values {
			if bytes.Contains(stored.Bytes(), []byte(v)) {
				t.Errorf("a %s secret (%.8s…) is stored under the state directory", s.ids, v)
			}
			if bytes.Contains(printed.Bytes(), []byte(v)) {
				t.Errorf("a %s secret (%.8s…) was printed", s.ids, v)
			}
		}
	}
	if !bytes.Contains(stored.Bytes(), []byte("[REDACTED:")) {
		t.Error("no redaction marker in the audit log")
	}
}
