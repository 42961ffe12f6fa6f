package secrets

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// CorpusCase is one case of testdata: an input and the secrets expected in it. It is
// exported for the tests of scan.Redact, which redact the same corpus.
type CorpusCase struct {
	Name  string // file:line of the case header and its description
	Input string
	Want  []Secret
}

const (
	openMark  = "«"
	closeMark = "»"
)

// LoadCorpus reads every case of testdata/*.txt (see the README there).
func LoadCorpus(t testing.TB) []CorpusCase {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus files: %v", err)
	}
	var cases []CorpusCase
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var header string
		var headerLine int
		var body []string
		flush := func() {
			if header == "" {
				return
			}
			cases = append(cases, parseCase(t, file, headerLine, header, strings.Join(body, "\n")))
		}
		for i, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
			if strings.HasPrefix(line, "### ") {
				flush()
				header, headerLine, body = strings.TrimPrefix(line, "### "), i+1, nil
				continue
			}
			if header == "" {
				t.Fatalf("%s:%d: text before the first case", file, i+1)
			}
			body = append(body, line)
		}
		flush()
	}
	return cases
}

// parseCase removes the markers from text and turns them into expected secrets, whose
// rule ids the header lists in order.
func parseCase(t testing.TB, file string, line int, header, text string) CorpusCase {
	t.Helper()
	ids, desc, _ := strings.Cut(header, " -- ")
	c := CorpusCase{Name: file + ":" + strconv.Itoa(line) + " " + desc}
	var want []string
	if ids = strings.TrimSpace(ids); ids != "none" {
		want = strings.Fields(ids)
	}
	var b strings.Builder
	for {
		i := strings.Index(text, openMark)
		if i < 0 {
			break
		}
		j := strings.Index(text[i:], closeMark)
		if j < 0 {
			t.Fatalf("%s: unclosed %s", c.Name, openMark)
		}
		b.WriteString(text[:i])
		start := b.Len()
		b.WriteString(text[i+len(openMark) : i+j])
		if len(c.Want) >= len(want) {
			t.Fatalf("%s: more marked secrets than ids in the header", c.Name)
		}
		c.Want = append(c.Want, Secret{RuleID: "secret." + want[len(c.Want)], Start: start, End: b.Len()})
		text = text[i+j+len(closeMark):]
	}
	b.WriteString(text)
	if len(c.Want) != len(want) {
		t.Fatalf("%s: header names %d secrets, %d are marked", c.Name, len(want), len(c.Want))
	}
	c.Input = b.String()
	return c
}
