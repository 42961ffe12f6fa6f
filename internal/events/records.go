package events

import (
	"context"

	"github.com/moatdev/moat/internal/audit"
)

// Records adapts a store of audit records (the JSONL log's Append, the audit database's)
// to a Sink: it is handed the record of each Decision and no other event. Register it
// with Lossless, so that a record that cannot be stored is an error for its publisher.
func Records(write func(context.Context, audit.Record) error) Sink {
	return SinkFunc(func(ctx context.Context, ev Event) error {
		if d, ok := ev.(Decision); ok {
			return write(ctx, d.Record)
		}
		return nil
	})
}

// Record publishes the decision r records, for a decision service's record writer
// (decide.Options.Write): its error is the lossless sinks', so a record the audit did not
// take is reported to the caller as not recorded.
func (b *Bus) Record(r audit.Record) error {
	return b.Publish(context.Background(), Decision{Record: r})
}
