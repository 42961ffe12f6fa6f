package audit

import (
	"path/filepath"
	"testing"
)

// AppendSeq returns the number each record got, the one the log shows, across two Logs
// of the same file (two processes).
func TestAppendSeqReturnsTheRecordsNumber(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	a := openLog(t, Options{Path: path})
	b := openLog(t, Options{Path: path})
	var got []uint64
	for i, l := range []*Log{a, b, a} {
		seq, err := l.AppendSeq(record(i))
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, seq)
	}
	recs, err := readAll(t, path)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 3 {
		t.Fatalf("%d records", len(recs))
	}
	for i, r := range recs {
		if r.Seq != got[i] || got[i] != uint64(i+1) {
			t.Errorf("record %d: AppendSeq said %d, the log says %d", i, got[i], r.Seq)
		}
	}
}
