package auditdb

import (
	"context"
	"fmt"

	"github.com/moatdev/moat/internal/audit"
)

// Problem is a record whose number or chain does not follow the record before it: it, or
// one before it, was edited, removed or inserted by something other than Append.
type Problem struct {
	Seq  uint64
	What string
}

func (p Problem) String() string { return fmt.Sprintf("record %d: %s", p.Seq, p.What) }

// Verify checks the chain of every record, from the first one kept (chained to the last
// pruned one, or the start) to the newest, and returns the problems it found and how many
// records it checked. The chain is the JSONL log's: each record holds the SHA-256 of the
// line before it, so that a copy of the rows exported as lines verifies as a log does.
func (d *DB) Verify(ctx context.Context) ([]Problem, int, error) {
	wantSeq, wantChain, err := prunedTip(ctx, d.db)
	if err != nil {
		return nil, 0, fmt.Errorf("verify audit database %s: %w", d.path, err)
	}
	var problems []Problem
	n := 0
	err = d.scanAll(ctx, func(seq uint64, line []byte) error {
		n++
		wantSeq++
		r, perr := audit.ParseLine(line)
		switch {
		case perr != nil:
			problems = append(problems, Problem{seq, "not a record: " + perr.Error()})
		case r.Seq != seq:
			problems = append(problems, Problem{seq, fmt.Sprintf("its line says it is record %d", r.Seq)})
		case seq != wantSeq:
			problems = append(problems, Problem{seq, fmt.Sprintf("records %d to %d are missing", wantSeq, seq-1)})
		case r.Chain != wantChain:
			problems = append(problems, Problem{seq, "its chain does not match the record before it"})
		}
		wantSeq, wantChain = seq, audit.ChainOf(line)
		return nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("verify audit database %s: %w", d.path, err)
	}
	return problems, n, nil
}

// scanAll calls fn with every stored line, oldest first.
func (d *DB) scanAll(ctx context.Context, fn func(uint64, []byte) error) error {
	var after int64
	for {
		rows, err := d.db.QueryContext(ctx, `SELECT seq, line FROM records WHERE seq > ? ORDER BY seq LIMIT ?`, after, readBatch)
		if err != nil {
			return err
		}
		n := 0
		for rows.Next() {
			var line []byte
			if err := rows.Scan(&after, &line); err != nil {
				rows.Close()
				return err
			}
			n++
			if err := fn(uint64(after), line); err != nil {
				rows.Close()
				return err
			}
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return err
		}
		if n < readBatch {
			return nil
		}
	}
}
