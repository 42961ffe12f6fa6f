package cli

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestPacksListAndShowOptInPacks checks that `moat packs list` names every opt-in pack
// with its description, not enabled by default, and that `moat packs show` prints each of
// its rules with the tests that expect it.
func TestPacksListAndShowOptInPacks(t *testing.T) {
	for _, tt := range []struct {
		pack, description string
		rule, decision    string // one rule of the pack
		test              string // one of that rule's tests, as shown
	}{
		{"containers", "Deny containers that get the host", "containers.ask-host-network", "ask", "ask   shell: docker run --net=host nginx"},
		{"kubernetes", "Ask about changes to production-looking clusters", "kubernetes.deny-secret-values", "deny", "deny  shell: kubectl get secret db-creds -o yaml"},
		{"cloud", "Deny cloud deletions", "cloud.deny-destructive", "deny", "deny  shell: aws s3 rm s3://data --recursive"},
		{"databases", "Deny dropping, truncating or flushing", "databases.deny-drop", "deny", "deny  shell: redis-cli FLUSHALL"},
		{"publishing", "Ask before publishing", "publishing.ask-package-publish", "ask", "ask   shell: cargo publish -p moat-core"},
		{"git-hosting", "Deny deleting repositories", "git-hosting.deny-admin-merge", "deny", "deny  shell: gh pr merge 42 --admin --squash"},
		{"secrets-managers", "Deny printing or deleting secrets", "secrets-managers.deny-read", "deny", "deny  shell: vault kv get secret/app/db"},
	} {
		t.Run(tt.pack, func(t *testing.T) {
			a, stdout, _ := testApp(t.TempDir())
			if err := a.packsList(false); err != nil {
				t.Fatal(err)
			}
			line := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(tt.pack) + ` +\d+ +\d+ +no +` + regexp.QuoteMeta(tt.description))
			if !line.MatchString(stdout.String()) {
				t.Errorf("packs list: no line %s\n%s", line, stdout)
			}

			a, stdout, _ = testApp(t.TempDir())
			if err := a.packsShow(tt.pack, false); err != nil {
				t.Fatal(err)
			}
			out := stdout.String()
			for _, want := range []string{
				tt.pack + ": " + tt.description,
				"not enabled by the recommended policy",
				"\n" + tt.rule + "  " + tt.decision + "\n",
				"  test:   " + tt.test + "\n",
			} {
				if !strings.Contains(out, want) {
					t.Errorf("packs show %s lacks %q\n%s", tt.pack, want, out)
				}
			}

			a, stdout, _ = testApp(t.TempDir())
			if err := a.packsShow(tt.pack, true); err != nil {
				t.Fatal(err)
			}
			var det packDetail
			if err := json.Unmarshal([]byte(stdout.String()), &det); err != nil {
				t.Fatal(err)
			}
			for _, r := range det.Rules {
				if len(r.Tests) == 0 {
					t.Errorf("packs show %s --json: rule %s has no tests", tt.pack, r.ID)
				}
				if r.Reason == "" {
					t.Errorf("packs show %s --json: rule %s has no reason", tt.pack, r.ID)
				}
			}
		})
	}
}

// TestPacksDropIn checks that the packs commands see a team's own packs: list shows
// them with their file and warns about an ignored one, show prints their rules, and test
// runs their tests and fails (exit 1) when one does not hold.
func TestPacksDropIn(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, ".config", "moat", "packs")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) string {
		t.Helper()
		p := filepath.Join(dir, name+".yaml")
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	pack := func(expect string) string {
		return "version: 1\npack: team-deploy\ndescription: Deploys go through CI\nrules:\n" +
			"  - {id: team-deploy.no-deploy, command: \"deploy **\", decision: deny}\n" +
			"tests:\n  - {command: deploy prod, expect: " + expect + ", rule: team-deploy.no-deploy}\n"
	}
	file := write("team-deploy", pack("deny"))
	write("databases", pack("deny")) // hidden by moat's own pack of that name

	a, stdout, stderr := testApp(home)
	if err := a.packsList(false); err != nil {
		t.Fatal(err)
	}
	if line := regexp.MustCompile(`(?m)^team-deploy +1 +1 +no +Deploys go through CI \[` + regexp.QuoteMeta(file) + `\]$`); !line.MatchString(stdout.String()) {
		t.Errorf("packs list lacks the drop-in pack:\n%s", stdout)
	}
	if !strings.Contains(stderr.String(), filepath.Join(dir, "databases.yaml")+" is ignored: hidden by moat's embedded pack") {
		t.Errorf("packs list does not warn about the hidden file: %q", stderr)
	}

	a, stdout, _ = testApp(home)
	if err := a.packsShow("team-deploy", false); err != nil || !strings.Contains(stdout.String(), "team-deploy.no-deploy  deny") {
		t.Errorf("packs show: %v\n%s", err, stdout)
	}
	a, stdout, _ = testApp(home)
	if err := a.packsTest(context.Background(), []string{"team-deploy"}, false, false); err != nil || !strings.Contains(stdout.String(), "PASS "+file+": 1 test") {
		t.Errorf("packs test (passing): %v\n%s", err, stdout)
	}
	write("team-deploy", pack("ask"))
	a, stdout, _ = testApp(home)
	err := a.packsTest(context.Background(), []string{"team-deploy"}, false, false)
	var code *exitCode
	if !errors.As(err, &code) || code.code != exitError || !strings.Contains(stdout.String(), "FAIL "+file+":") {
		t.Errorf("packs test (failing): %v\n%s", err, stdout)
	}
	a, _, _ = testApp(home)
	if err := a.packsShow("team-deplo", false); !errors.As(err, &code) || code.code != exitUsage || !strings.Contains(err.Error(), `did you mean "team-deploy"`) {
		t.Errorf("packs show of a misspelt name: %v", err)
	}
}
