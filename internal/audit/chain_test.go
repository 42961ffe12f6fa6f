package audit

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// trail is a log's files as lines, for tests to tamper with.
type trail struct {
	dir   string
	files map[string][]string // base name → lines, each without its newline
}

func readTrail(t *testing.T, dir string) *trail {
	t.Helper()
	tr := &trail{dir: dir, files: map[string][]string{}}
	for _, name := range files(t, dir) {
		if !strings.HasPrefix(name, "audit.jsonl") || strings.HasSuffix(name, ".lock") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		tr.files[name] = strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	}
	return tr
}

func (tr *trail) write(t *testing.T) {
	t.Helper()
	for name, lines := range tr.files {
		text := strings.Join(lines, "\n")
		if len(lines) > 0 {
			text += "\n"
		}
		if err := os.WriteFile(filepath.Join(tr.dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// find returns the file and index of the line of the record whose argument seq is n.
func (tr *trail) find(t *testing.T, n int) (string, int) {
	t.Helper()
	want := fmt.Sprintf(`"seq":%d}`, n) // the argument, at the end of args
	for name, lines := range tr.files {
		for i, l := range lines {
			if strings.Contains(l, want) {
				return name, i
			}
		}
	}
	t.Fatalf("no record %d in the trail", n)
	return "", 0
}

// chainedLog writes n records, rotating every few, and returns the log's path.
func chainedLog(t *testing.T, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	line := int64(len(goodLine(t, 10)) + maxSealLen)
	l := openLog(t, Options{Path: path, MaxBytes: 4 * line, Keep: 100})
	for i := range n {
		appendAll(t, l, record(i))
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestChainVerifies(t *testing.T) {
	path := chainedLog(t, 20)
	rep := verify(t, path)
	if !rep.OK || !rep.FromStart || rep.FirstSeq != 1 || rep.LastSeq != 20 || rep.Records != 20 || len(rep.Issues) != 0 {
		t.Errorf("a log as written: %s; issues %v", rep.Summary(), rep.Issues)
	}
	if len(rep.Files) < 5 {
		t.Errorf("the log was not rotated enough to test the boundaries: %v", rep.Files)
	}
	got, err := readAll(t, path)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range got {
		if r.Seq != uint64(i+1) || (i == 0) != (r.Chain == chainStart) {
			t.Errorf("record %d: seq %d chain %q", i, r.Seq, r.Chain)
		}
	}
}

// TestVerifyDetectsTampering changes a chained log as someone covering their tracks
// would, and checks that Verify names what was done, where.
func TestVerifyDetectsTampering(t *testing.T) {
	tests := []struct {
		name   string
		tamper func(t *testing.T, tr *trail)
		// want are the issues expected, as "kind seq" (seq: the log's number).
		want []string
	}{
		{
			name: "edited record",
			tamper: func(t *testing.T, tr *trail) {
				f, i := tr.find(t, 6)
				tr.files[f][i] = strings.Replace(tr.files[f][i], "ls -la", "ls -l ", 1)
			},
			want: []string{"edited 7"},
		},
		{
			name: "edited record, its number kept and the next one's chain left",
			tamper: func(t *testing.T, tr *trail) {
				f, i := tr.find(t, 6)
				tr.files[f][i] = strings.Replace(tr.files[f][i], `"decision":"allow"`, `"decision":"deny"`, 1)
			},
			want: []string{"edited 7"},
		},
		{
			name: "deleted record",
			tamper: func(t *testing.T, tr *trail) {
				f, i := tr.find(t, 6)
				tr.files[f] = slices.Delete(tr.files[f], i, i+1)
			},
			want: []string{"deleted 8"},
		},
		{
			name: "deleted rotated file",
			tamper: func(t *testing.T, tr *trail) {
				f, _ := tr.find(t, 6)
				tr.files[f] = nil
			},
			want: []string{"deleted"},
		},
		{
			name: "reordered records",
			tamper: func(t *testing.T, tr *trail) {
				f, i := tr.find(t, 6)
				g, j := tr.find(t, 7)
				tr.files[f][i], tr.files[g][j] = tr.files[g][j], tr.files[f][i]
			},
			want: []string{"reordered 8", "reordered 7", "reordered 9"},
		},
		{
			name: "inserted record, chained to the one before",
			tamper: func(t *testing.T, tr *trail) {
				f, i := tr.find(t, 6)
				prev := tr.files[f][i]
				var forged Record
				forged = record(99)
				body, err := (&Log{redactor: identity{}}).encode(forged)
				if err != nil {
					t.Fatal(err)
				}
				line := strings.TrimSuffix(string(seal(body, 8, lineHash([]byte(prev)))), "\n")
				tr.files[f] = slices.Insert(tr.files[f], i+1, line)
			},
			want: []string{"inserted 8"},
		},
		{
			name: "last record deleted",
			tamper: func(t *testing.T, tr *trail) {
				tr.files["audit.jsonl"] = tr.files["audit.jsonl"][:len(tr.files["audit.jsonl"])-1]
			},
			want: []string{"truncated 19"},
		},
		{
			name: "last record edited",
			tamper: func(t *testing.T, tr *trail) {
				lines := tr.files["audit.jsonl"]
				lines[len(lines)-1] = strings.Replace(lines[len(lines)-1], `"decision":"allow"`, `"decision":"deny"`, 1)
			},
			want: []string{"edited 20"},
		},
		{
			name: "active file emptied",
			tamper: func(t *testing.T, tr *trail) {
				tr.files["audit.jsonl"] = nil
			},
			want: []string{"truncated"},
		},
		{
			name: "line that is not a record",
			tamper: func(t *testing.T, tr *trail) {
				f, i := tr.find(t, 6)
				tr.files[f] = slices.Insert(tr.files[f], i, "not a record")
			},
			want: []string{"malformed 0"},
		},
		{
			name: "oldest files dropped, as rotation does",
			tamper: func(t *testing.T, tr *trail) {
				f, _ := tr.find(t, 0)
				delete(tr.files, f)
				os.Remove(filepath.Join(tr.dir, f))
			},
			want: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := chainedLog(t, 20)
			tr := readTrail(t, filepath.Dir(path))
			tt.tamper(t, tr)
			tr.write(t)
			rep := verify(t, path)
			var got []string
			for _, i := range rep.Issues {
				s := i.Kind
				if len(tt.want) > 0 && strings.Contains(tt.want[0], " ") {
					s = fmt.Sprintf("%s %d", i.Kind, i.Seq)
				}
				got = append(got, s)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("issues = %q, want %q\n%v", got, tt.want, rep.Issues)
			}
			if rep.OK != (len(tt.want) == 0) {
				t.Errorf("OK = %v with issues %v", rep.OK, rep.Issues)
			}
		})
	}
}

// TestChainAfterOlderMoat: records an older moat wrote, without seq or chain, are
// reported as unchained, not as tampering, and the chain begins after them.
func TestChainAfterOlderMoat(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	var old bytes.Buffer
	for i := range 3 {
		old.WriteString(goodLine(t, i)) // no seq, no chain: as moats before chaining wrote
	}
	write(t, path, old.String())
	l := openLog(t, Options{Path: path})
	appendAll(t, l, record(3), record(4))
	rep := verify(t, path)
	if !rep.OK || rep.Unchained != 3 || rep.Records != 5 || rep.FromStart || len(rep.Issues) != 0 {
		t.Errorf("%s; %v", rep.Summary(), rep.Issues)
	}
}

// TestWriterStoppedBeforeTheHead: a writer that dies between its record and the head
// leaves the head one record behind; the next writer chains to the record, not the head.
func TestWriterStoppedBeforeTheHead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l := openLog(t, Options{Path: path})
	appendAll(t, l, record(0))
	stale, err := os.ReadFile(lockPath(path))
	if err != nil {
		t.Fatal(err)
	}
	appendAll(t, l, record(1))
	write(t, lockPath(path), string(stale))
	if rep := verify(t, path); !rep.OK {
		t.Errorf("a head one record behind is reported: %v", rep.Issues)
	}
	appendAll(t, l, record(2))
	if rep := verify(t, path); !rep.OK || rep.LastSeq != 3 {
		t.Errorf("%s: %v", rep.Summary(), rep.Issues)
	}
}

// TestRemovedLogBreaksTheChain: removing the active file between two records is not
// hidden by the records after it.
func TestRemovedLogBreaksTheChain(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l := openLog(t, Options{Path: path})
	appendAll(t, l, record(0), record(1))
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	appendAll(t, l, record(2))
	rep := verify(t, path)
	if rep.OK || len(rep.Issues) != 0 && rep.Issues[0].Kind != IssueTruncated && rep.Issues[0].Kind != IssueDeleted {
		t.Errorf("a removed log went unnoticed: %s %v", rep.Summary(), rep.Issues)
	}
}

func TestHeadRoundTrip(t *testing.T) {
	h := head{seq: 42, hash: lineHash([]byte("x")), dev: 1 << 40, ino: 7, size: 1 << 33}
	b := h.bytes()
	if len(b) != headLen {
		t.Errorf("head is %d bytes, want %d", len(b), headLen)
	}
	got, ok := parseHead(b)
	if !ok || got != h {
		t.Errorf("parseHead = %+v, %v; want %+v", got, ok, h)
	}
	for _, bad := range []string{"", "moat-audit-head 1 seq=1 hash=sha256:00 dev=1 ino=1 size=1", "garbage\n"} {
		if _, ok := parseHead([]byte(bad)); ok {
			t.Errorf("parseHead(%q) accepted", bad)
		}
	}
}

// FuzzParseHead: a head parseHead accepts is written back the same.
func FuzzParseHead(f *testing.F) {
	f.Add(head{seq: 1, hash: lineHash(nil)}.bytes())
	f.Add(head{seq: 1 << 63, hash: lineHash([]byte("x")), dev: 1, ino: 2, size: 3}.bytes())
	f.Add([]byte("moat-audit-head 1 seq=-1 hash=sha256:00 dev=x ino=1 size=1\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, ok := parseHead(b)
		if !ok {
			return
		}
		if again, ok := parseHead(h.bytes()); !ok || again != h {
			t.Fatalf("head %+v written as %q reads back as %+v, %v", h, h.bytes(), again, ok)
		}
	})
}

func TestLastLine(t *testing.T) {
	long := strings.Repeat("y", 100<<10)
	tests := []struct{ content, want string }{
		{"", ""},
		{"a\n", "a"},
		{"a\nb\n", "b"},
		{"a\nb\npartial", "b"},
		{"partial", ""},
		{"a\n" + long + "\n", long},
		{long + "\n", long},
	}
	for _, tt := range tests {
		name := filepath.Join(t.TempDir(), "f")
		write(t, name, tt.content)
		if got := string(lastLineOf(name)); got != tt.want {
			t.Errorf("lastLine(%.20q…) = %.20q…, want %.20q…", tt.content, got, tt.want)
		}
	}
}

func verify(t *testing.T, path string) *Report {
	t.Helper()
	rep, err := Verify(path)
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	return rep
}

func write(t *testing.T, name, text string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestNextFromLockState: the head read once under the lock decides the next record's seal
// without reading the active file when the file is as the head left it, and only then.
func TestNextFromLockState(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l := openLog(t, Options{Path: path})
	appendAll(t, l, record(0), record(1))
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	wantChain := lineHash(lastLineOfBytes(data))
	l.mu.Lock()
	defer l.mu.Unlock()
	st := l.readLockState()
	if !st.haveHead || st.spoolsPending() || st.head.seq != 2 || st.head.hash != wantChain {
		t.Fatalf("lock state %+v: want the head of record 2, no spools pending", st)
	}
	fi, err := l.active()
	if err != nil {
		t.Fatal(err)
	}
	stale := st
	stale.head.size--
	for _, tc := range []struct {
		name       string
		st         lockState
		wantAsLeft bool
	}{
		{"as left", st, true},
		{"head of another size", stale, false},
		{"no head", lockState{flagged: true}, false},
	} {
		seq, chain, asLeft := l.next(fi, tc.st)
		if seq != 3 || chain != wantChain || asLeft != tc.wantAsLeft {
			t.Errorf("%s: next = %d, %s, %v; want 3, %s, %v", tc.name, seq, chain, asLeft, wantChain, tc.wantAsLeft)
		}
	}
}

// TestLockStateSpoolFlag: the spool flag is read with the head, in the same read.
func TestLockStateSpoolFlag(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l := openLog(t, Options{Path: path})
	appendAll(t, l, record(0))
	l.markSpooled()
	l.mu.Lock()
	defer l.mu.Unlock()
	if st := l.readLockState(); !st.haveHead || !st.spoolsPending() {
		t.Errorf("lock state %+v after markSpooled: want a head and spools pending", st)
	}
}

// lastLineOfBytes is the last line of data, without its newline.
func lastLineOfBytes(data []byte) []byte {
	data = bytes.TrimSuffix(data, []byte{'\n'})
	return data[bytes.LastIndexByte(data, '\n')+1:]
}

// TestWriterKilledMidRecord: a writer killed in the middle of a record (kill -9 can stop
// a write between two pages) leaves the start of it; the next writer ends that line and
// chains to the record before it. Verify reports the line as cut off, not as a problem,
// both before and after the next record; the same line where the chain does not run over
// it is a problem.
func TestWriterKilledMidRecord(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l := openLog(t, Options{Path: path})
	appendAll(t, l, record(0), record(1))
	torn := goodLine(t, 2)[:40]
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(torn); err != nil {
		t.Fatal(err)
	}
	f.Close()

	kinds := func(rep *Report) []string {
		var got []string
		for _, i := range rep.Issues {
			got = append(got, fmt.Sprintf("%s:%d", i.Kind, i.Line))
		}
		return got
	}
	rep := verify(t, path)
	if !rep.OK || !slices.Equal(kinds(rep), []string{"cut-off:3"}) {
		t.Errorf("cut off at the end: OK %v, issues %v", rep.OK, rep.Issues)
	}

	l2 := openLog(t, Options{Path: path})
	appendAll(t, l2, record(3))
	rep = verify(t, path)
	if !rep.OK || rep.Records != 3 || !slices.Equal(kinds(rep), []string{"cut-off:3"}) {
		t.Errorf("cut off, then a record: OK %v, %d records, issues %v", rep.OK, rep.Records, rep.Issues)
	}
	if !strings.Contains(rep.Issues[0].Message, "record 2") {
		t.Errorf("the message does not name the record the chain runs on from: %s", rep.Issues[0].Message)
	}

	// The cut-off line with the record after it removed: the chain no longer runs over
	// it to the head, and both are problems.
	tr := readTrail(t, filepath.Dir(path))
	lines := tr.files["audit.jsonl"]
	tr.files["audit.jsonl"] = lines[:len(lines)-1]
	tr.write(t)
	rep = verify(t, path)
	if rep.OK || !slices.Contains(kinds(rep), "malformed:3") {
		t.Errorf("cut off with the record after it deleted: OK %v, issues %v", rep.OK, rep.Issues)
	}
}
