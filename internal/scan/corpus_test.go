package scan

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// corpusCase is one case of testdata/secrets: an input and the secrets expected in it.
type corpusCase struct {
	name  string // file:line of the case header and its description
	input string
	want  []Secret
}

const (
	openMark  = "«"
	closeMark = "»"
)

// loadCorpus reads every case of testdata/secrets/*.txt (see the README there).
func loadCorpus(t testing.TB) []corpusCase {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "secrets", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus files: %v", err)
	}
	var cases []corpusCase
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
func parseCase(t testing.TB, file string, line int, header, text string) corpusCase {
	t.Helper()
	ids, desc, _ := strings.Cut(header, " -- ")
	c := corpusCase{name: file + ":" + strconv.Itoa(line) + " " + desc}
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
			t.Fatalf("%s: unclosed %s", c.name, openMark)
		}
		b.WriteString(text[:i])
		start := b.Len()
		b.WriteString(text[i+len(openMark) : i+j])
		if len(c.want) >= len(want) {
			t.Fatalf("%s: more marked secrets than ids in the header", c.name)
		}
		c.want = append(c.want, Secret{RuleID: "secret." + want[len(c.want)], Start: start, End: b.Len()})
		text = text[i+j+len(closeMark):]
	}
	b.WriteString(text)
	if len(c.want) != len(want) {
		t.Fatalf("%s: header names %d secrets, %d are marked", c.name, len(want), len(c.want))
	}
	c.input = b.String()
	return c
}
