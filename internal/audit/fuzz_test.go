package audit

import (
	"bytes"
	"testing"
)

// FuzzParseLine feeds parseLine the lines of TestReadMalformed's table and mutations of
// them. A line it accepts must encode again, and the encoding must be stable.
func FuzzParseLine(f *testing.F) {
	f.Add([]byte(goodLineF(f, 0)))
	for _, s := range []string{
		"not json", `{"time":"2026-01-02T03:04:05Z","decision":"maybe"}`, `{"decision":"deny"}`,
		"null", "[]", `{"time":"2026-01-02T03:0`, goodLineF(f, 1) + goodLineF(f, 2),
		`{"time":"2026-01-02T03:04:05Z","decision":"ask","findings":[{"id":"x","severity":"low"}],"args":{"a":[1,{"b":null}]}}`,
		`{"time":"2026-01-02T03:04:05Z","decision":"ask","findings":[{}]}`,
		`{"time":"2026-01-02T03:04:05Z","decision":"deny","clipped":"x","seq":3,"chain":"start"}`,
	} {
		f.Add([]byte(s))
	}
	l := &Log{redactor: identity{}}
	f.Fuzz(func(t *testing.T, line []byte) {
		r, err := parseLine(line)
		if err != nil {
			return
		}
		once, err := l.encode(r)
		if err != nil {
			t.Fatalf("parsed record does not encode: %v\n%q", err, line)
		}
		r2, err := parseLine(once)
		if err != nil {
			t.Fatalf("encoded record does not parse: %v\n%s", err, once)
		}
		twice, err := l.encode(r2)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(once, twice) {
			t.Fatalf("encoding is not stable:\n%s\n%s", once, twice)
		}
		if bytes.Count(once, []byte("\n")) != 1 {
			t.Fatalf("encoding is not one line: %q", once)
		}
	})
}

func goodLineF(f *testing.F, seq int) string {
	b, err := (&Log{redactor: identity{}}).encode(record(seq))
	if err != nil {
		f.Fatal(err)
	}
	return string(b)
}
