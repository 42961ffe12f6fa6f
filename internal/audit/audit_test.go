package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/findings"
	"github.com/moatdev/moat/internal/testbin"
)

// maskRedactor masks the marker SECRET followed by any digits, as a secret detector would
// mask a token.
type maskRedactor struct{}

var secretRE = regexp.MustCompile(`SECRET[0-9]*`)

func (maskRedactor) RedactString(s string) string { return secretRE.ReplaceAllString(s, "[MASKED]") }

// identity redacts nothing.
type identity struct{}

func (identity) RedactString(s string) string { return s }

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 600, time.UTC)

// record returns a small well-formed record numbered seq.
func record(seq int) Record {
	return Record{
		Time:      t0.Add(time.Duration(seq) * time.Millisecond),
		Agent:     "claude-code",
		Session:   "s1",
		Event:     "pre_tool_use",
		Class:     "shell",
		Tool:      "Bash",
		Args:      map[string]any{"command": "ls -la", "seq": json.Number(strconv.Itoa(seq))},
		Cwd:       "/home/u/project",
		Decision:  call.Allow,
		Rule:      "allow-ls",
		LatencyMS: 0.25,
		Policy:    "embedded:recommended",
	}
}

func seqOf(t *testing.T, r Record) int {
	t.Helper()
	n, err := strconv.Atoi(fmt.Sprint(r.Args["seq"]))
	if err != nil {
		t.Fatalf("record without seq: %+v", r)
	}
	return n
}

func openLog(t *testing.T, opts Options) *Log {
	t.Helper()
	if opts.Redactor == nil {
		opts.Redactor = identity{}
	}
	l, err := Open(opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func appendAll(t *testing.T, l *Log, rs ...Record) {
	t.Helper()
	for _, r := range rs {
		if err := l.Append(r); err != nil {
			t.Fatalf("Append: %v", err)
		}
	}
}

// readAll returns every record Read delivers and the error it returns.
func readAll(t *testing.T, path string) ([]Record, error) {
	t.Helper()
	var rs []Record
	err := Read(path, func(r Record) error {
		rs = append(rs, r)
		return nil
	})
	return rs, err
}

func seqs(t *testing.T, rs []Record) []int {
	t.Helper()
	var out []int
	for _, r := range rs {
		out = append(out, seqOf(t, r))
	}
	return out
}

func TestOpenOptions(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name    string
		opts    Options
		wantErr string
	}{
		{name: "no redactor", opts: Options{Path: filepath.Join(dir, "a.jsonl")}, wantErr: "Redactor is required"},
		{name: "no path", opts: Options{Redactor: identity{}}, wantErr: "no path"},
		{name: "negative keep", opts: Options{Path: filepath.Join(dir, "a.jsonl"), Keep: -1, Redactor: identity{}}, wantErr: "negative Keep"},
		{name: "negative max", opts: Options{Path: filepath.Join(dir, "a.jsonl"), MaxBytes: -1, Redactor: identity{}}, wantErr: "negative MaxBytes"},
		{name: "creates directories", opts: Options{Path: filepath.Join(dir, "state", "moat", "audit.jsonl"), Redactor: identity{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := Open(tt.opts)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Open error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			defer l.Close()
			if l.maxBytes != DefaultMaxBytes || l.keep != DefaultKeep {
				t.Errorf("defaults: MaxBytes %d Keep %d", l.maxBytes, l.keep)
			}
			for name, want := range map[string]fs.FileMode{
				filepath.Dir(tt.opts.Path): 0o700,
				tt.opts.Path:               0o600,
				lockPath(tt.opts.Path):     0o600,
			} {
				fi, err := os.Stat(name)
				if err != nil {
					t.Fatal(err)
				}
				if fi.Mode().Perm() != want {
					t.Errorf("%s: mode %v, want %v", name, fi.Mode().Perm(), want)
				}
			}
		})
	}
}

func TestAppendRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l := openLog(t, Options{Path: path, Now: func() time.Time { return t0 }})
	in := record(1)
	in.Time = time.Date(2026, 1, 2, 4, 4, 5, 123456789, time.FixedZone("CET", 3600))
	in.Args["command"] = "a && b < c > d"
	in.Findings = []call.Finding{findings.New("input.too-large", "args.content")}
	unstamped := record(2)
	unstamped.Time = time.Time{}
	appendAll(t, l, in, unstamped)

	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("file holds %d lines, want 2:\n%s", len(lines), raw)
	}
	for _, want := range []string{`"time":"2026-01-02T03:04:05.123456789Z"`, `"a && b < c > d"`, `"decision":"allow"`, `"severity":"medium"`} {
		if !strings.Contains(lines[0], want) {
			t.Errorf("line %s lacks %s", lines[0], want)
		}
	}
	got, err := readAll(t, path)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if len(got) != 2 {
		t.Fatalf("Read returned %d records, want 2", len(got))
	}
	if !got[0].Time.Equal(in.Time) || got[0].Decision != call.Allow || got[0].Findings[0] != in.Findings[0] {
		t.Errorf("round trip: got %+v, want %+v", got[0], in)
	}
	if !got[1].Time.Equal(t0) {
		t.Errorf("zero time stamped as %v, want the injected clock's %v", got[1].Time, t0)
	}
}

func TestAppendRejectsInvalidRecord(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*Record)
	}{
		{name: "zero decision", modify: func(r *Record) { r.Decision = 0 }},
		{name: "out of range decision", modify: func(r *Record) { r.Decision = 9 }},
		{name: "zero severity", modify: func(r *Record) { r.Findings = []call.Finding{{ID: "x"}} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "audit.jsonl")
			l := openLog(t, Options{Path: path})
			r := record(1)
			tt.modify(&r)
			if err := l.Append(r); err == nil {
				t.Fatal("Append succeeded, want an error")
			}
			if fi, err := os.Stat(path); err != nil || fi.Size() != 0 {
				t.Errorf("file after a rejected record: %v, %v", fi.Size(), err)
			}
		})
	}
}

// point is a typed value in Args, which redaction reaches through its JSON form.
type point struct {
	Label string
	Inner map[string]string
}

// secretRecord builds a record with the marker in every place redaction must reach. It is
// called twice so that one copy can prove the other was not modified.
func secretRecord() Record {
	return Record{
		Time:    t0,
		Agent:   "claude-code",
		Session: "sess-SECRET1",
		Event:   "ev-SECRET1",
		Class:   "mcp",
		Tool:    "tool-SECRET1",
		MCP:     "mcp:srv/SECRET12",
		Answer:  "defer",
		Policy:  "/home/u/SECRET13/moat.yaml",
		Args: map[string]any{
			"command":     "curl -H 'Authorization: SECRET1' x",
			"key-SECRET1": "value",
			"key-SECRET2": "other value",
			"nested": map[string]any{
				"list":  []any{"a", "SECRET2", map[string]any{"SECRET3": []any{"deep SECRET4"}}},
				"strs":  []string{"x", "SECRET5"},
				"typed": map[string]string{"SECRET6": "SECRET7"},
				"num":   json.Number("12345"),
				"nil":   nil,
				"bool":  true,
			},
			"struct": point{Label: "SECRET8", Inner: map[string]string{"SECRET9": "v"}},
			"ptr":    &point{Label: "p SECRET10"},
			"float":  3.5,
		},
		Cwd:      "/home/SECRET11",
		Decision: call.Deny,
		Reason:   "token SECRET12 found",
		Findings: []call.Finding{
			{ID: "secret.aws", Category: "secret", Severity: call.High, Evidence: "args.command: SECRET13"},
			{ID: "secret.gh", Category: "secret", Severity: call.High, Evidence: "SECRET14"},
		},
	}
}

func TestRedaction(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l := openLog(t, Options{Path: path, Redactor: maskRedactor{}})
	r := secretRecord()
	if err := l.Append(r); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r, secretRecord()) {
		t.Errorf("Append modified the caller's record:\n got %+v\nwant %+v", r, secretRecord())
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte("SECRET")) {
		t.Errorf("the log holds an unredacted secret:\n%s", raw)
	}
	got, err := readAll(t, path)
	if err != nil || len(got) != 1 {
		t.Fatalf("Read: %d records, %v", len(got), err)
	}
	g := got[0]
	checks := []struct {
		what      string
		got, want any
	}{
		{"session", g.Session, "sess-[MASKED]"},
		{"tool", g.Tool, "tool-[MASKED]"},
		{"event", g.Event, "ev-[MASKED]"},
		{"cwd", g.Cwd, "/home/[MASKED]"},
		{"reason", g.Reason, "token [MASKED] found"},
		{"evidence", g.Findings[0].Evidence, "args.command: [MASKED]"},
		{"colliding key 1", g.Args["key-[MASKED]"], "value"},
		{"colliding key 2", g.Args["key-[MASKED]#2"], "other value"},
		{"struct", g.Args["struct"], map[string]any{"Label": "[MASKED]", "Inner": map[string]any{"[MASKED]": "v"}}},
		{"number kept", g.Args["nested"].(map[string]any)["num"], json.Number("12345")},
		{"float kept", g.Args["float"], json.Number("3.5")},
		{"agent", g.Agent, "claude-code"},
		{"mcp tool name", g.MCP, "mcp:srv/[MASKED]"},
		{"policy path", g.Policy, "/home/u/[MASKED]/moat.yaml"},
		{"answer", g.Answer, "defer"},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s = %#v, want %#v", c.what, c.got, c.want)
		}
	}
}

func TestRedactValueNumbersAndUnencodable(t *testing.T) {
	red := maskRedactor{}
	numRed := redactorFunc(func(s string) string { return strings.ReplaceAll(s, "4111", "[CARD]") })
	tests := []struct {
		name string
		red  Redactor
		in   any
		want any
	}{
		{name: "json number masked", red: numRed, in: json.Number("41111111"), want: "[CARD]1111"},
		{name: "int masked", red: numRed, in: 41111111, want: "[CARD]1111"},
		{name: "int kept", red: numRed, in: 7, want: 7},
		{name: "channel", red: red, in: make(chan int), want: "!unencodable chan int"},
		{name: "typed slice", red: red, in: []int{1, 2}, want: []any{json.Number("1"), json.Number("2")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := redactValue(tt.in, tt.red); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("redactValue(%#v) = %#v, want %#v", tt.in, got, tt.want)
			}
		})
	}
}

type redactorFunc func(string) string

func (f redactorFunc) RedactString(s string) string { return f(s) }

// files returns the names in dir, sorted.
func files(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, de := range des {
		names = append(names, de.Name())
	}
	return names
}

func TestRotation(t *testing.T) {
	lineLen := func() int64 {
		b, err := (&Log{redactor: identity{}, now: time.Now}).encode(record(0))
		if err != nil {
			t.Fatal(err)
		}
		return int64(len(b) + maxSealLen) // what rotation reserves for seq and chain
	}()
	tests := []struct {
		name      string
		maxBytes  int64
		keep      int
		n         int
		wantFiles []string
		wantSeqs  []int
	}{
		{
			name:      "one record per file, keep 3",
			maxBytes:  1,
			keep:      3,
			n:         10,
			wantFiles: []string{"audit.jsonl", "audit.jsonl.1", "audit.jsonl.2", "audit.jsonl.3", "audit.jsonl.lock"},
			wantSeqs:  []int{6, 7, 8, 9},
		},
		{
			name:      "two records per file, keep 1",
			maxBytes:  2*lineLen + 2, // seq numbers of two digits make lines a little longer
			keep:      1,
			n:         7,
			wantFiles: []string{"audit.jsonl", "audit.jsonl.1", "audit.jsonl.lock"},
			wantSeqs:  []int{4, 5, 6},
		},
		{
			name:      "no rotation below the limit",
			maxBytes:  100 * lineLen,
			keep:      2,
			n:         5,
			wantFiles: []string{"audit.jsonl", "audit.jsonl.lock"},
			wantSeqs:  []int{0, 1, 2, 3, 4},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "audit.jsonl")
			l := openLog(t, Options{Path: path, MaxBytes: tt.maxBytes, Keep: tt.keep})
			for i := range tt.n {
				appendAll(t, l, record(i))
			}
			if got := files(t, dir); !reflect.DeepEqual(got, tt.wantFiles) {
				t.Errorf("files = %q, want %q", got, tt.wantFiles)
			}
			got, err := readAll(t, path)
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			if s := seqs(t, got); !reflect.DeepEqual(s, tt.wantSeqs) {
				t.Errorf("records = %v, want %v", s, tt.wantSeqs)
			}
		})
	}
}

func TestRecordLargerThanMaxBytes(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	l := openLog(t, Options{Path: path, MaxBytes: 1024, Keep: 10})
	big := record(1)
	big.Args["content"] = strings.Repeat("x", 5000)
	appendAll(t, l, big, record(2), record(3), big, big)

	got, err := readAll(t, path)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if s := seqs(t, got); !reflect.DeepEqual(s, []int{1, 2, 3, 1, 1}) {
		t.Errorf("records = %v, want [1 2 3 1 1]", s)
	}
	// Each big record is alone in its file; the two small ones share one.
	for name, want := range map[string]int{"audit.jsonl.3": 1, "audit.jsonl.2": 2, "audit.jsonl.1": 1, "audit.jsonl": 1} {
		raw, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if n := bytes.Count(raw, []byte("\n")); n != want {
			t.Errorf("%s holds %d lines, want %d", name, n, want)
		}
	}
}

// TestLongLivedWriterNoticesRotation has one Log hold the active file while another
// rotates it; the first Log's next record must go to the new active file.
func TestLongLivedWriterNoticesRotation(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	long := openLog(t, Options{Path: path, MaxBytes: 1500, Keep: 50})
	appendAll(t, long, record(0))

	other := openLog(t, Options{Path: path, MaxBytes: 1500, Keep: 50})
	for i := 1; i <= 20; i++ {
		appendAll(t, other, record(i))
	}
	if _, err := os.Stat(filepath.Join(dir, "audit.jsonl.2")); err != nil {
		t.Fatalf("the other writer did not rotate twice: %v", err)
	}
	rotated, err := os.ReadFile(filepath.Join(dir, "audit.jsonl.1"))
	if err != nil {
		t.Fatal(err)
	}

	appendAll(t, long, record(21))
	after, err := os.ReadFile(filepath.Join(dir, "audit.jsonl.1"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(rotated, after) {
		t.Error("the long-lived writer wrote to a rotated file")
	}
	got, err := readAll(t, path)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	s := seqs(t, got)
	want := make([]int, 22)
	for i := range want {
		want[i] = i
	}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("records = %v, want 0…21 in order", s)
	}
}

// TestAppendAfterRemoval checks that a writer recreates an active file removed under it.
func TestAppendAfterRemoval(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l := openLog(t, Options{Path: path})
	appendAll(t, l, record(1))
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	appendAll(t, l, record(2))
	got, err := readAll(t, path)
	if err != nil {
		t.Fatal(err)
	}
	if s := seqs(t, got); !reflect.DeepEqual(s, []int{2}) {
		t.Errorf("records = %v, want [2]", s)
	}
}

func TestAppendAfterClose(t *testing.T) {
	l := openLog(t, Options{Path: filepath.Join(t.TempDir(), "audit.jsonl")})
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if err := l.Append(record(1)); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("Append after Close = %v, want fs.ErrClosed", err)
	}
	if err := l.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
}

// TestConcurrentGoroutines shares Logs between goroutines and has several Logs in one
// process, all rotating a small file.
func TestConcurrentGoroutines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	const logs, workers, each = 3, 4, 100
	var wg sync.WaitGroup
	for li := range logs {
		l := openLog(t, Options{Path: path, MaxBytes: 8 << 10, Keep: 1000})
		for w := range workers {
			wg.Go(func() {
				for i := range each {
					if err := l.Append(record((li*workers+w)*each + i)); err != nil {
						t.Error(err)
						return
					}
				}
			})
		}
	}
	wg.Wait()
	got, err := readAll(t, path)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	seen := map[int]bool{}
	for _, s := range seqs(t, got) {
		if seen[s] {
			t.Errorf("record %d read twice", s)
		}
		seen[s] = true
	}
	if len(seen) != logs*workers*each {
		t.Errorf("read %d distinct records, want %d", len(seen), logs*workers*each)
	}
}

const (
	childEnv   = "MOAT_AUDIT_TEST_CHILD"
	childDir   = "MOAT_AUDIT_TEST_DIR"
	children   = 8
	perChild   = 500
	crossLimit = 64 << 10
)

// TestCrossProcess has the test binary re-execute itself as several processes that append
// to one log at once, with a limit small enough to rotate many times, and checks that
// every record arrives exactly once, whole, and in an order consistent with when each
// Append ran.
func TestCrossProcess(t *testing.T) {
	if id := os.Getenv(childEnv); id != "" {
		crossProcessChild(t, id, os.Getenv(childDir))
		return
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	var cmds []*exec.Cmd
	var outs []*bytes.Buffer
	for i := range children {
		cmd := testbin.Rerun("TestCrossProcess", childEnv+"="+strconv.Itoa(i), childDir+"="+dir)
		cmd.Args = append(cmd.Args, "-test.v")
		out := new(bytes.Buffer)
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, cmd), append(outs, out)
	}
	// Release every child at once, so they contend from their first record.
	if err := os.WriteFile(filepath.Join(dir, "go"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("child %d: %v\n%s", i, err, outs[i])
		}
	}

	got, err := readAll(t, path)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if len(got) != children*perChild {
		t.Errorf("Read returned %d records, want %d", len(got), children*perChild)
	}
	next := make(map[string]int) // each child's next expected seq
	for _, r := range got {
		s := seqOf(t, r)
		if s != next[r.Session] {
			t.Fatalf("child %s: record %d where %d was expected (duplicate, loss or misordering)", r.Session, s, next[r.Session])
		}
		next[r.Session]++
	}
	if len(next) != children {
		t.Errorf("records from %d children, want %d", len(next), children)
	}
	if t.Failed() {
		return
	}
	checkLinearizable(t, dir, got)
	rotated := 0
	for _, name := range files(t, dir) {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() > crossLimit {
			t.Errorf("%s is %d bytes, over the %d limit", name, fi.Size(), crossLimit)
		}
		if strings.HasPrefix(name, "audit.jsonl.") && name != "audit.jsonl.lock" {
			rotated++
		}
	}
	if rotated < 5 {
		t.Errorf("only %d rotations; the test should rotate many times", rotated)
	}
	t.Logf("%d records from %d processes over %d rotated files", len(got), children, rotated)
}

// crossProcessChild is one writer of TestCrossProcess. Even children keep one Log open, as
// the MCP proxy does; odd ones open a Log per record, as hooks do.
func crossProcessChild(t *testing.T, id, dir string) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("never released")
		}
		time.Sleep(time.Millisecond)
	}
	n, _ := strconv.Atoi(id)
	opts := Options{Path: filepath.Join(dir, "audit.jsonl"), MaxBytes: crossLimit, Keep: 1000, Redactor: identity{}}
	var long *Log
	if n%2 == 0 {
		long = openLog(t, opts)
	}
	after := make([]int64, perChild)
	for i := range perChild {
		r := record(i)
		r.Session = id
		r.Time = time.Now()
		l := long
		if l == nil {
			var err error
			if l, err = Open(opts); err != nil {
				t.Fatal(err)
			}
		}
		if err := l.Append(r); err != nil {
			t.Fatal(err)
		}
		after[i] = time.Now().UnixNano()
		if long == nil {
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
	b, err := json.Marshal(after)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "after-"+id), b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// checkLinearizable checks that no record is read before one whose Append had returned
// before the first record's Append began: a writer that kept writing to a rotated file
// would put a late record in an early file. Each record's Time is when its Append began;
// the children saved, per record, when it returned.
func checkLinearizable(t *testing.T, dir string, got []Record) {
	t.Helper()
	after := make(map[string][]int64)
	for i := range children {
		id := strconv.Itoa(i)
		b, err := os.ReadFile(filepath.Join(dir, "after-"+id))
		if err != nil {
			t.Fatal(err)
		}
		var a []int64
		if err := json.Unmarshal(b, &a); err != nil {
			t.Fatal(err)
		}
		after[id] = a
		if err := os.Remove(filepath.Join(dir, "after-"+id)); err != nil {
			t.Fatal(err)
		}
	}
	// Walk backwards keeping the earliest return among the records read later.
	minAfter, minAt := int64(math.MaxInt64), -1
	for i := len(got) - 1; i >= 0; i-- {
		r := got[i]
		if began := r.Time.UnixNano(); began > minAfter {
			t.Fatalf("record %s/%d (read at %d) began %v after record %s/%d (read later, at %d) had been appended",
				r.Session, seqOf(t, r), i, time.Duration(began-minAfter),
				got[minAt].Session, seqOf(t, got[minAt]), minAt)
		}
		if a := after[r.Session][seqOf(t, r)]; a < minAfter {
			minAfter, minAt = a, i
		}
	}
}

func BenchmarkAppend(b *testing.B) {
	path := filepath.Join(b.TempDir(), "audit.jsonl")
	l, err := Open(Options{Path: path, Redactor: maskRedactor{}})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	r := record(1)
	r.Args["command"] = "git commit -m 'fix SECRET1 handling' && git push origin main"
	r.Findings = []call.Finding{findings.New("input.too-large", "args.content")}
	for b.Loop() {
		if err := l.Append(r); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOpenAppendClose is what a hook process pays: open the log, append one record,
// close it.
func BenchmarkOpenAppendClose(b *testing.B) {
	path := filepath.Join(b.TempDir(), "audit.jsonl")
	r := record(1)
	for b.Loop() {
		l, err := Open(Options{Path: path, Redactor: maskRedactor{}})
		if err != nil {
			b.Fatal(err)
		}
		if err := l.Append(r); err != nil {
			b.Fatal(err)
		}
		if err := l.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
