package secrets_test

import (
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/scan"
	"github.com/moatdev/moat/internal/scan/secrets"
)

// The tests of scan.Redact live beside the corpus of secrets they redact.

// redacted returns what Redact should make of s with secrets found.
func redacted(s string, found []secrets.Secret) string {
	var b strings.Builder
	prev := 0
	for _, f := range found {
		b.WriteString(s[prev:f.Start] + "[REDACTED:" + f.Kind() + "]")
		prev = f.End
	}
	return b.String() + s[prev:]
}

func TestRedactCorpus(t *testing.T) {
	for _, c := range secrets.LoadCorpus(t) {
		got := scan.Redact(c.Input)
		if want := redacted(c.Input, c.Want); got != want {
			t.Errorf("%s:\n got  %q\n want %q", c.Name, got, want)
		}
		for _, w := range c.Want {
			if v := c.Input[w.Start:w.End]; strings.Contains(got, v) {
				t.Errorf("%s: redacted text still holds %q", c.Name, v)
			}
		}
		if r := (scan.Redactor{}).RedactString(c.Input); r != got {
			t.Errorf("%s: Redactor and Redact disagree", c.Name)
		}
	}
}

func TestRedactLeavesTextAlone(t *testing.T) {
	for _, s := range []string{
		"",
		"no secrets here\n",
		"password:\n",
		"\x00\xff\xfe invalid UTF-8 \xc3",
		"İstanbul ǅ ﬁ — Unicode that changes length when case-mapped: KEY=",
	} {
		if got := scan.Redact(s); got != s {
			t.Errorf("scan.Redact(%q) = %q", s, got)
		}
	}
}

func BenchmarkRedactWithSecrets(b *testing.B) {
	var text strings.Builder
	for _, c := range secrets.LoadCorpus(b) {
		text.WriteString(c.Input + "\n")
	}
	s := text.String()
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		scan.Redact(s)
	}
}

// FuzzRedact checks that Redact masks exactly the secrets Find reports, and nothing else.
func FuzzRedact(f *testing.F) {
	for _, c := range secrets.LoadCorpus(f) {
		f.Add(c.Input)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := scan.Redact(s), redacted(s, secrets.Find(s)); got != want {
			t.Fatalf("Redact(%q) = %q, want %q", s, got, want)
		}
	})
}
