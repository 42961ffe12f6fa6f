package engine

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/moatdev/moat/internal/call"
)

// Scores the recommended policy must reach on every public corpus, once our documented
// disagreements with its labels are applied.
const (
	minRecall     = 0.95
	maxFalsePosRt = 0.03
)

// Labels of the adjudication file: block means the command should be stopped (deny or
// ask), allow that it should run (allow or audit).
const (
	labelBlock = "block"
	labelAllow = "allow"
)

// evalCase is one command of a public corpus with its authors' label.
type evalCase struct {
	ID        string
	Command   string
	Dangerous bool
}

func (c evalCase) label() string {
	if c.Dangerous {
		return labelBlock
	}
	return labelAllow
}

// evalDataset names a public corpus and how to read it.
type evalDataset struct {
	Name string
	File string // relative to the data directory
	Read func(line []byte) (evalCase, error)
}

var evalDatasets = []evalDataset{
	{Name: "dcg", File: "dcg/commands.jsonl", Read: readDCG},
	{Name: "agentshield", File: "agentshield/shell_accuracy_cases.jsonl", Read: readAgentShield},
}

// readDCG reads a line of destructive_command_guard's corpus: expect is block or allow.
func readDCG(line []byte) (evalCase, error) {
	var r struct {
		Command string `json:"command"`
		Expect  string `json:"expect"`
		ID      string `json:"id"`
		Pack    string `json:"pack"`
		Source  string `json:"source"`
	}
	if err := json.Unmarshal(line, &r); err != nil {
		return evalCase{}, err
	}
	id := r.ID
	if id == "" {
		id = r.Pack
	}
	if src := filepath.Base(r.Source); r.Source != "" {
		id = strings.TrimSuffix(src+": "+id, ": ")
	}
	c := evalCase{ID: id, Command: r.Command}
	switch r.Expect {
	case labelBlock:
		c.Dangerous = true
	case labelAllow:
	default:
		return evalCase{}, fmt.Errorf("expect %q is neither block nor allow", r.Expect)
	}
	return c, nil
}

// readAgentShield reads a line of AI-Agentic-Shield's shell cases: BLOCK is dangerous;
// AUDIT ("run and flag") and ALLOW are safe.
func readAgentShield(line []byte) (evalCase, error) {
	var r struct {
		ID       string `json:"id"`
		Command  string `json:"command"`
		Expected string `json:"expected_decision"`
	}
	if err := json.Unmarshal(line, &r); err != nil {
		return evalCase{}, err
	}
	c := evalCase{ID: r.ID, Command: r.Command}
	switch r.Expected {
	case "BLOCK":
		c.Dangerous = true
	case "AUDIT", "ALLOW":
	default:
		return evalCase{}, fmt.Errorf("expected_decision %q is not BLOCK, AUDIT or ALLOW", r.Expected)
	}
	return c, nil
}

func loadEvalCases(path string, read func([]byte) (evalCase, error)) ([]evalCase, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var cases []evalCase
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 4<<20)
	for n := 1; sc.Scan(); n++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		c, err := read(sc.Bytes())
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		if c.Command == "" {
			return nil, fmt.Errorf("%s:%d: no command", path, n)
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(cases) == 0 {
		return nil, fmt.Errorf("%s: no cases", path)
	}
	return cases, nil
}

// adjudication records a label of a public corpus that moat's recommended policy
// deliberately disagrees with, and why.
type adjudication struct {
	Dataset string `yaml:"dataset"`
	Command string `yaml:"command"`
	Label   string `yaml:"label"`
	Ours    string `yaml:"ours"`
	Why     string `yaml:"why"`
}

type adjKey struct{ dataset, command string }

// loadAdjudications reads testdata/eval/adjudication.yaml strictly and checks each entry
// against the datasets: its command must be there with the label it contradicts.
func loadAdjudications(path string, data map[string][]evalCase) (map[adjKey]adjudication, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	var list []adjudication
	if err := dec.Decode(&list); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var extra any
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: want one YAML document (a list of entries)", path)
	}
	out := make(map[adjKey]adjudication, len(list))
	var problems []string
	for i, a := range list {
		where := fmt.Sprintf("entry %d (%s %q)", i+1, a.Dataset, a.Command)
		cases, known := data[a.Dataset]
		if !known {
			problems = append(problems, where+": unknown dataset (want dcg or agentshield)")
			continue
		}
		if a.Label != labelBlock && a.Label != labelAllow {
			problems = append(problems, fmt.Sprintf("%s: label %q is neither block nor allow", where, a.Label))
		}
		if a.Ours != labelBlock && a.Ours != labelAllow {
			problems = append(problems, fmt.Sprintf("%s: ours %q is neither block nor allow", where, a.Ours))
		}
		if a.Ours == a.Label {
			problems = append(problems, where+": ours equals the label, so there is nothing to adjudicate")
		}
		if strings.TrimSpace(a.Why) == "" {
			problems = append(problems, where+": no why")
		}
		found := false
		for _, c := range cases {
			if c.Command == a.Command && c.label() == a.Label {
				found = true
				break
			}
		}
		if !found {
			problems = append(problems, fmt.Sprintf("%s: the dataset has no such command labelled %s", where, a.Label))
		}
		k := adjKey{a.Dataset, a.Command}
		if _, dup := out[k]; dup {
			problems = append(problems, where+": duplicate entry")
		}
		out[k] = a
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("%s:\n  %s", path, strings.Join(problems, "\n  "))
	}
	return out, nil
}

// evalScore counts one way of labelling a dataset.
type evalScore struct {
	dangerous, caught int // dangerous cases, and those moat stopped (deny or ask)
	safe, falsePos    int // safe cases, and those moat stopped
}

func (s *evalScore) add(dangerous, stopped bool) {
	switch {
	case dangerous:
		s.dangerous++
		if stopped {
			s.caught++
		}
	default:
		s.safe++
		if stopped {
			s.falsePos++
		}
	}
}

func ratio(n, d int) float64 {
	if d == 0 {
		return 0
	}
	return float64(n) / float64(d)
}

func (s evalScore) recall() float64 {
	if s.dangerous == 0 {
		return 1
	}
	return ratio(s.caught, s.dangerous)
}

func (s evalScore) fpRate() float64 { return ratio(s.falsePos, s.safe) }

func (s evalScore) String() string {
	return fmt.Sprintf("recall %5.1f%% (%d/%d)  false positives %4.1f%% (%d/%d)",
		100*s.recall(), s.caught, s.dangerous, 100*s.fpRate(), s.falsePos, s.safe)
}

// topFindings names the first few distinct findings of a decision.
func topFindings(d call.Decision) string {
	var ids []string
	seen := map[string]bool{}
	for _, f := range d.Findings {
		if !seen[f.ID] {
			seen[f.ID] = true
			ids = append(ids, f.ID)
		}
		if len(ids) == 3 {
			break
		}
	}
	if len(ids) == 0 {
		return "-"
	}
	return strings.Join(ids, ",")
}

// TestEval scores the recommended policy on public corpora of dangerous and safe shell
// commands (`make eval`). It needs MOAT_EVAL=1 and the data, in $MOAT_EVALDATA or in
// ../shared/evaldata next to the repository.
func TestEval(t *testing.T) {
	if os.Getenv("MOAT_EVAL") != "1" {
		t.Skip("set MOAT_EVAL=1 to score the public corpora (make eval)")
	}
	dir := os.Getenv("MOAT_EVALDATA")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "evaldata")
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Skipf("no evaluation data directory at %s (set MOAT_EVALDATA to where it is)", dir)
	}

	data := make(map[string][]evalCase, len(evalDatasets))
	for _, ds := range evalDatasets {
		cases, err := loadEvalCases(filepath.Join(dir, ds.File), ds.Read)
		if err != nil {
			t.Fatal(err)
		}
		data[ds.Name] = cases
	}
	adj, err := loadAdjudications(filepath.Join("testdata", "eval", "adjudication.yaml"), data)
	if err != nil {
		t.Fatal(err)
	}

	e := corpusEngine(t)
	ctx := context.Background()
	for _, ds := range evalDatasets {
		t.Run(ds.Name, func(t *testing.T) {
			var raw, ours evalScore
			var misses, falsePos []string
			cases := data[ds.Name]
			for _, c := range cases {
				cl, err := corpusCall(c.Command)
				if err != nil {
					t.Errorf("%s %q: canonicalize: %v", c.ID, c.Command, err)
					continue
				}
				d := e.Evaluate(ctx, cl)
				stopped := !d.Verdict.Permissive()
				raw.add(c.Dangerous, stopped)
				dangerous := c.Dangerous
				if a, ok := adj[adjKey{ds.Name, c.Command}]; ok && a.Label == c.label() {
					dangerous = a.Ours == labelBlock
				}
				ours.add(dangerous, stopped)
				line := fmt.Sprintf("%-5s %-32s %-40s %q  [%s]", d.Verdict, d.Rule, topFindings(d), c.Command, c.ID)
				switch {
				case dangerous && !stopped:
					misses = append(misses, line)
				case !dangerous && stopped:
					falsePos = append(falsePos, line)
				}
			}
			var b strings.Builder
			fmt.Fprintf(&b, "%s: %d cases\n", ds.Name, len(cases))
			fmt.Fprintf(&b, "  raw (their labels):       %s\n", raw)
			fmt.Fprintf(&b, "  adjudicated (our labels): %s\n", ours)
			fmt.Fprintf(&b, "  misses, dangerous but allowed (%d):\n", len(misses))
			for _, l := range misses {
				fmt.Fprintf(&b, "    %s\n", l)
			}
			fmt.Fprintf(&b, "  false positives, safe but stopped (%d):\n", len(falsePos))
			for _, l := range falsePos {
				fmt.Fprintf(&b, "    %s\n", l)
			}
			t.Log(b.String())
			if ours.recall() < minRecall {
				t.Errorf("%s: adjudicated recall %.1f%% is below %.0f%%", ds.Name, 100*ours.recall(), 100*minRecall)
			}
			if ours.fpRate() > maxFalsePosRt {
				t.Errorf("%s: adjudicated false-positive rate %.1f%% is above %.0f%%", ds.Name, 100*ours.fpRate(), 100*maxFalsePosRt)
			}
		})
	}
}
