package cli

import (
	"encoding/json"
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
