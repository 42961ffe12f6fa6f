package secrets

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/call"
)

func TestFindSecretsCorpus(t *testing.T) {
	for _, c := range LoadCorpus(t) {
		got := Find(c.Input)
		if !slices.Equal(got, c.Want) {
			t.Errorf("%s:\n got  %s\n want %s", c.Name, describe(c.Input, got), describe(c.Input, c.Want))
		}
	}
}

// describe lists secrets with their values, for failure messages.
func describe(s string, secrets []Secret) string {
	var parts []string
	for _, f := range secrets {
		parts = append(parts, fmt.Sprintf("%s[%d:%d]=%q", shortID(f.RuleID), f.Start, f.End, s[f.Start:f.End]))
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func TestEveryRuleHasCorpusCases(t *testing.T) {
	seen := map[string]int{}
	for _, c := range LoadCorpus(t) {
		for _, w := range c.Want {
			seen[w.RuleID]++
		}
	}
	for _, r := range secretRules {
		if seen[r.ID] == 0 {
			t.Errorf("%s: no positive case in testdata", r.ID)
		}
	}
}

func TestSecretRulesAreCatalogued(t *testing.T) {
	ids := map[string]bool{}
	for _, r := range Rules() {
		if ids[r.ID] {
			t.Errorf("%s: duplicate rule id", r.ID)
		}
		ids[r.ID] = true
		if !strings.HasPrefix(r.ID, "secret.") || r.Description == "" || r.Pattern == nil {
			t.Errorf("%s: rules need a secret.* id, a description and a pattern", r.ID)
		}
		k, ok := Kinds.Lookup(r.ID)
		switch {
		case !ok:
			t.Errorf("%s: not declared in Kinds (kinds.go)", r.ID)
		case k.Category != "credentials" || !strings.HasPrefix(k.Taxonomy, "T1552"):
			t.Errorf("%s: catalogued as %q/%q, want credentials/T1552*", r.ID, k.Category, k.Taxonomy)
		}
		for _, kw := range r.Keywords {
			if kw == "" || kw != strings.ToLower(kw) {
				t.Errorf("%s: keyword %q must be non-empty lower case", r.ID, kw)
			}
		}
		if len(r.Keywords) == 0 && r.LinesWhere == nil {
			t.Errorf("%s: a rule without keywords runs its pattern over every text; give it keywords or a line selector", r.ID)
		}
		if r.AtName && !strings.HasPrefix(r.Pattern.String(), "^") {
			t.Errorf("%s: AtName patterns must be anchored with ^", r.ID)
		}
	}
	for _, k := range Kinds {
		if strings.HasPrefix(k.ID, "secret.") && !ids[k.ID] {
			t.Errorf("%s: declared as a credential finding but no rule reports it", k.ID)
		}
	}
}

func TestSecretRulesIsACopy(t *testing.T) {
	rules := Rules()
	rules[0].ID = "changed"
	rules[0].Keywords[0] = "changed"
	if secretRules[0].ID == "changed" || secretRules[0].Keywords[0] == "changed" {
		t.Fatal("SecretRules exposes the built-in table")
	}
}

func TestSecretFindings(t *testing.T) {
	s := "line one\n\tAWS_ACCESS_KEY_ID=AKIAYBIZ4EA5AZKH5Q5I\npassword: Vq8nT2xLp4Rz # ünïcode before nothing\n"
	got := Findings(s, "content")
	want := []call.Finding{
		Kinds.New("secret.aws-access-key-id", "aws-access-key-id at content:2:20"),
		Kinds.New("secret.password-assignment", "password-assignment at content:3:11"),
	}
	if !slices.Equal(got, want) {
		t.Fatalf("SecretFindings:\n got  %+v\n want %+v", got, want)
	}
	if got := Findings("token: ghp_Ilrd6Vlu1fwYIqBkrW5lHOuCvkVaZ2jB0Fcf", ""); len(got) != 1 || got[0].Evidence != "github-token at 1:8" {
		t.Errorf("SecretFindings without a name: %+v", got)
	}
	if got := Findings("nothing to see", "command"); got != nil {
		t.Errorf("SecretFindings of clean text = %+v, want nil", got)
	}
}

// TestSentFindsDocumentationKeys: a documentation key (AWS's EXAMPLE pair) is a stand-in
// in a file and a key when sent; template stand-ins stay stand-ins either way.
func TestSentFindsDocumentationKeys(t *testing.T) {
	for _, tc := range []struct {
		text       string
		kept, sent int
	}{
		{"k=AKIAIOSFODNN7EXAMPLE", 0, 1},
		{"AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", 0, 1},
		{"aws_secret_access_key: SAMPLEsecretSAMPLE", 0, 0}, // mostly the mark
		{"api_key=YOUR_API_KEY_HERE", 0, 0},
		{"token=${GITHUB_TOKEN}", 0, 0},
		{"password: example-password-here", 0, 0},
		{"AWS_ACCESS_KEY_ID=AKIAYBIZ4EA5AZKH5Q5I", 1, 1},
		{"try my key: -----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ...\n-----END OPENSSH PRIVATE KEY-----", 0, 1},
		{"token: ghp_...", 0, 0},
	} {
		if got := len(Find(tc.text)); got != tc.kept {
			t.Errorf("Find(%q): %d secrets, want %d", tc.text, got, tc.kept)
		}
		if got := len(FindSent(tc.text)); got != tc.sent {
			t.Errorf("FindSent(%q): %d secrets, want %d", tc.text, got, tc.sent)
		}
	}
}

func TestSecretFindingsNeverHoldTheValue(t *testing.T) {
	for _, c := range LoadCorpus(t) {
		for _, f := range Findings(c.Input, "content") {
			for _, w := range c.Want {
				if v := c.Input[w.Start:w.End]; strings.Contains(f.Evidence, v) {
					t.Errorf("%s: evidence %q holds the secret", c.Name, f.Evidence)
				}
			}
			if f.Category != "credentials" || f.Severity == 0 {
				t.Errorf("%s: finding %+v is not catalogued", c.Name, f)
			}
		}
	}
}

func TestPlaceholders(t *testing.T) {
	for _, tc := range []struct {
		value string
		want  bool
	}{
		{"AKIAIOSFODNN7EXAMPLE", true},
		{"ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", true},
		{"<token>", true},
		{"<your-api-key>", true},
		{"${API_KEY}", true},
		{"$API_KEY", true},
		{"$(cat /run/secrets/token)", true},
		{"{{ .Values.token }}", true},
		{"{password}", true},
		{"changeme", true},
		{"your_api_key", true},
		{"YOUR-TOKEN", true},
		{"********", true},
		{"aaaaaaaaaaaa", true},
		{"password", true},
		{"sk-proj-abc...xyz", true},
		{"%s", true},
		{"Vq8nT2xLp4Rz", false},
		{"$2b$12$Vq8nT2xLp4RzGRg7nS", false}, // a bcrypt hash is not a shell variable
		{"ghp_Ilrd6Vlu1fwYIqBkrW5lHOuCvkVaZ2jB0Fcf", false},
		{"sk_test_jXRXoVsklEh6ir6aIoJmXRMo", false},
		// Short stand-in words are only looked for in short values: in long random
		// text they occur by chance.
		{"fake", true},
		{strings.Repeat("Ab3", 100) + "xxxx" + strings.Repeat("Cd4", 10), false},
	} {
		if got := isPlaceholder(tc.value); got != tc.want {
			t.Errorf("isPlaceholder(%q) = %v, want %v", tc.value, got, tc.want)
		}
	}
}

func TestEntropy(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want float64
	}{
		{"", 0},
		{"aaaa", 0},
		{"ab", 1},
		{"abcd", 2},
		{"0123456789abcdef", 4},
	} {
		if got := entropy(tc.s); got != tc.want {
			t.Errorf("entropy(%q) = %v, want %v", tc.s, got, tc.want)
		}
	}
}

func TestLooksLikeCode(t *testing.T) {
	for _, tc := range []struct {
		v    string
		want bool
	}{
		{"sha512-RdJUflcE3cUzKiMqQgsCu06FPu9UdIJO0beYbPhHN4k6apg==", true},
		{"h1:tsimM75w1tF/uws5rbeHzIWxEqElMehnc+iW793zsZs=", true},
		{"https://oauth2.googleapis.com/token", true},
		{"data:image/png;base64,iVBORw0KGgo", true},
		{"/run/secrets/db_password", true},
		{"./secrets.json", true},
		{"process.env.API_KEY", true},
		{"1.2.3", true},
		{"v2.0.0-rc1", true},
		{"-0x3f879678", true},
		{"4096", true},
		{"--verbose", true},
		{"nt._add_dll_directory(path)", true}, // cookie = nt._add_dll_directory(path), in os.py
		{"getCookie(req)", true},
		{"(Vq8nT2xLp4Rz)", false},
		{"MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEY6Ya7W", true},
		{"/Rz8nT2x+Lp4Rz/GRg7nS", false},
		{"Vq8nT2xLp4Rz", false},
		{"ya29.a0AfB_byC3kZ9pQ7x", false},
	} {
		if got := looksLikeCode(tc.v); got != tc.want {
			t.Errorf("looksLikeCode(%q) = %v, want %v", tc.v, got, tc.want)
		}
	}
}

func TestFindSecretsSpecialInputs(t *testing.T) {
	for _, tc := range []struct {
		name, s string
		want    []string // rule ids
	}{
		{"empty", "", nil},
		{"keyword at the very end", "password", nil},
		{"operator at the very end", "password=", nil},
		{"CRLF line ends", "DB_PASSWORD=Vq8nT2xLp4Rz\r\nSECRET_TOKEN=q7W2e9R4t1Y6u3I8o5P0\r\n", []string{"secret.password-assignment", "secret.generic-secret"}},
		{"upper-case keyword", "PASSWORD=Vq8nT2xLp4Rz", []string{"secret.password-assignment"}},
		{"token at the start", "ghp_Ilrd6Vlu1fwYIqBkrW5lHOuCvkVaZ2jB0Fcf", []string{"secret.github-token"}},
		{"token glued to a word", "xghp_Ilrd6Vlu1fwYIqBkrW5lHOuCvkVaZ2jB0Fcf", nil},
		{"token too long", "ghp_Ilrd6Vlu1fwYIqBkrW5lHOuCvkVaZ2jB0Fcf_more", nil},
		{"NUL bytes around", "\x00ghp_Ilrd6Vlu1fwYIqBkrW5lHOuCvkVaZ2jB0Fcf\x00", []string{"secret.github-token"}},
		{"unterminated private key", "-----BEGIN PRIVATE KEY-----", nil},
		{"long line", strings.Repeat("x", 10000) + " password=Vq8nT2xLp4Rz " + strings.Repeat("y", 10000), []string{"secret.password-assignment"}},
	} {
		var got []string
		for _, f := range Find(tc.s) {
			got = append(got, f.RuleID)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestFindSecretsInLongText(t *testing.T) {
	// Secrets spread over a text long enough for the keyword scan to split it into lanes,
	// including some that straddle the lane boundaries.
	token := "ghp_Ilrd6Vlu1fwYIqBkrW5lHOuCvkVaZ2jB0Fcf"
	filler := "func f() { return strings.TrimSpace(s) } // ordinary code\n"
	var b strings.Builder
	var want []Secret
	for b.Len() < 64<<10 {
		b.WriteString(filler[:b.Len()%len(filler)])
		b.WriteString(" ")
		want = append(want, Secret{RuleID: "secret.github-token", Start: b.Len(), End: b.Len() + len(token)})
		b.WriteString(token + "\n")
	}
	if got := Find(b.String()); !slices.Equal(got, want) {
		t.Fatalf("found %d secrets, want %d", len(got), len(want))
	}
}

func TestWindow(t *testing.T) {
	s := "first line\nkey = value\nnext line\nlast"
	ki := strings.Index(s, "key")
	for _, tc := range []struct {
		before, after, lines int
		want                 string
	}{
		{64, 64, 0, "key = value"},
		{2, 3, 0, "key = "},
		{64, 64, 1, "key = value\nnext line"},
		{64, 64, -1, "key = value\nnext line\nlast"},
		{64, 16, 1, "key = value\nnext li"},
	} {
		w := window(s, ki, ki+3, tc.before, tc.after, tc.lines)
		if got := s[w.Lo:w.Hi]; got != tc.want {
			t.Errorf("window(before %d, after %d, lines %d) = %q, want %q", tc.before, tc.after, tc.lines, got, tc.want)
		}
	}
}
