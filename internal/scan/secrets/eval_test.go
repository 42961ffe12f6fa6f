package secrets

import (
	"cmp"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// detectSecretsDir holds Yelp/detect-secrets' test data (../shared/evaldata relative to
// the module root), which is present on the project's machines but not in the repository.
var detectSecretsDir = filepath.Join("..", "..", "..", "..", "shared", "evaldata", "detect-secrets")

// secretsMinRecall is the share of detect-secrets' baseline that moat must find, once the
// labels judged wrong below are set aside.
const secretsMinRecall = 0.90

// secretsAdjudication lists the baseline labels moat disagrees with, by file:line, and why.
// The raw figure, with them, is reported too.
var secretsAdjudication = map[string]string{
	"config.yaml:3":  "`other_value_here: 1234567890a`: a run of sequential digits under a name that says nothing of secrets; a hex-entropy detector flags it, but it is neither random nor named as a secret",
	"config.yaml:4":  "stale label: line 4 is `nested:`, a mapping key with no value (the baseline predates the file's current layout)",
	"sample.diff:10": "`len(\"012345678a\")`: a literal of sequential digits inside a Python expression",
	"sample.diff:34": "a bare 32-hex-digit literal with no name: indistinguishable from an MD5 digest; flagging bare hex would flag the git SHAs and lockfile hashes that must pass",
	"sample.diff:72": "`\"hashed_secret\": \"a2480a…\"`: a SHA-1 digest in detect-secrets' own baseline format; the hash of a secret is not the secret",
}

// TestEvalSecrets measures Find on detect-secrets' test data: how many of the
// secrets its baseline.file lists (by file and line) moat finds, raw and with the labels of
// secretsAdjudication set aside. Under MOAT_EVAL=1 (make eval) the adjudicated figure must
// reach secretsMinRecall. Run with -v for every label.
func TestEvalSecrets(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(detectSecretsDir, "baseline.file"))
	if err != nil {
		t.Skipf("detect-secrets evaluation data not available: %v", err)
	}
	var baseline struct {
		Results map[string][]struct {
			Line   int    `json:"line_number"`
			Hashed string `json:"hashed_secret"`
			Type   string `json:"type"`
		} `json:"results"`
	}
	if err := json.Unmarshal(raw, &baseline); err != nil {
		t.Fatalf("baseline.file: %v", err)
	}

	type entry struct {
		file   string
		line   int
		hashes []string
		types  []string
	}
	var entries []*entry
	for file, results := range baseline.Results {
		byLine := map[int]*entry{}
		for _, r := range results {
			e := byLine[r.Line]
			if e == nil {
				e = &entry{file: file, line: r.Line}
				byLine[r.Line] = e
				entries = append(entries, e)
			}
			e.hashes = append(e.hashes, r.Hashed)
			e.types = append(e.types, r.Type)
		}
	}
	slices.SortFunc(entries, func(a, b *entry) int {
		return cmp.Or(cmp.Compare(a.file, b.file), cmp.Compare(a.line, b.line))
	})

	var listed, byLine, byValue, absent, judged, judgedFound int
	lines := map[string]map[int]bool{}     // file → lines a secret covers
	hashes := map[string]map[string]bool{} // file → SHA-1 of the values found
	for _, e := range entries {
		if _, ok := lines[e.file]; !ok {
			b, err := os.ReadFile(filepath.Join(detectSecretsDir, e.file))
			if err != nil {
				lines[e.file] = nil
			} else {
				lines[e.file], hashes[e.file] = map[int]bool{}, map[string]bool{}
				s := string(b)
				for _, f := range Find(s) {
					first := strings.Count(s[:f.Start], "\n") + 1
					last := first + strings.Count(s[f.Start:f.End], "\n")
					for l := first; l <= last; l++ {
						lines[e.file][l] = true
					}
					sum := sha1.Sum([]byte(s[f.Start:f.End]))
					hashes[e.file][hex.EncodeToString(sum[:])] = true
					t.Logf("found   %s:%d %s", e.file, first, shortID(f.RuleID))
				}
			}
		}
		if lines[e.file] == nil {
			absent++
			continue
		}
		listed++
		status := "MISSED"
		switch {
		case lines[e.file][e.line]:
			byLine++
			status = "ok"
		case slices.ContainsFunc(e.hashes, func(h string) bool { return hashes[e.file][h] }):
			byValue++
			status = "ok (same value, another line)"
		}
		if why, ok := secretsAdjudication[fmt.Sprintf("%s:%d", e.file, e.line)]; ok {
			judged++
			if status != "MISSED" {
				judgedFound++
			}
			status += " (label judged wrong: " + why + ")"
		}
		t.Logf("listed  %s:%d %v: %s", e.file, e.line, e.types, status)
	}
	if listed == 0 {
		t.Fatal("none of the files baseline.file lists is present")
	}
	t.Logf("detect-secrets baseline: %d of %d listed secrets found on their line (%.0f%%), %d of %d counting values found on another line (%.0f%%); %d listed in files not in the data set",
		byLine, listed, 100*float64(byLine)/float64(listed),
		byLine+byValue, listed, 100*float64(byLine+byValue)/float64(listed), absent)
	found, kept := byLine+byValue-judgedFound, listed-judged
	recall := float64(found) / float64(kept)
	t.Logf("detect-secrets baseline, adjudicated (%d labels judged wrong set aside): %d of %d (%.0f%%)", judged, found, kept, 100*recall)
	if os.Getenv("MOAT_EVAL") == "1" && recall < secretsMinRecall {
		t.Errorf("adjudicated recall %.0f%% is below the %.0f%% target", 100*recall, 100*secretsMinRecall)
	}
}
