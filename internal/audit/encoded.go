package audit

import (
	"cmp"
	"errors"
	"fmt"
	"time"
)

// Records in another store. The daemon keeps its records in a database rather than in
// this log; it encodes, seals and parses them with the functions below, so that each
// store holds the same line for the same record: redacted, capped and chained alike.

// ChainStart is the chain value of the first record of a trail.
const ChainStart = chainStart

// Encode returns the line Append would write for r, without its seq and chain: redacted
// through red, stamped with now when r.Time is zero, in UTC, and summarised when longer
// than maxRecordBytes (zero means DefaultMaxRecordBytes; below 4 KiB is an error).
func Encode(r Record, red Redactor, now func() time.Time, maxRecordBytes int) ([]byte, error) {
	switch {
	case red == nil:
		return nil, errors.New("encode audit record: a Redactor is required")
	case maxRecordBytes != 0 && maxRecordBytes < minRecordBytes:
		return nil, fmt.Errorf("encode audit record: MaxRecordBytes %d is below %d", maxRecordBytes, minRecordBytes)
	}
	l := &Log{maxRecord: cmp.Or(maxRecordBytes, DefaultMaxRecordBytes), redactor: red, now: now}
	if l.now == nil {
		l.now = time.Now
	}
	return l.encode(r)
}

// Seal completes a line returned by Encode with its number and chain: ChainStart for the
// first record of a trail, ChainOf the previous record's line otherwise. The result ends
// with a newline, as in the log.
func Seal(body []byte, seq uint64, chain string) []byte { return seal(body, seq, chain) }

// ChainOf is the chain value of the record that follows line (with or without its
// newline).
func ChainOf(line []byte) string { return lineHash(line) }

// ParseLine decodes one line of a log (or of another store holding the same lines) into
// its record, as Read does: numbers in Args stay json.Number, and a line without a time,
// a valid decision or graded findings is an error.
func ParseLine(line []byte) (Record, error) { return parseLine(line) }
