package auditdb

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestAfterAndShipCursor(t *testing.T) {
	ctx := context.Background()
	d := open(t, filepath.Join(t.TempDir(), FileName), Options{})
	for n := range 10 {
		if err := d.Append(ctx, record(0, n)); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		after     uint64
		limit     int
		wantSeqs  []uint64
		wantCount int64
	}{
		{0, 3, []uint64{1, 2, 3}, 10},
		{7, 100, []uint64{8, 9, 10}, 3},
		{10, 5, nil, 0},
		{2, 0, nil, 8},
	}
	for _, tt := range tests {
		got, err := d.After(ctx, tt.after, tt.limit)
		if err != nil {
			t.Fatal(err)
		}
		var seqs []uint64
		for _, s := range got {
			seqs = append(seqs, s.Seq)
			if s.Record.Seq != s.Seq || !strings.HasSuffix(s.Line, "}") || strings.Contains(s.Line, password) {
				t.Errorf("record %d: %+v / %s", s.Seq, s.Record, s.Line)
			}
		}
		if len(seqs) != len(tt.wantSeqs) || (len(seqs) > 0 && (seqs[0] != tt.wantSeqs[0] || seqs[len(seqs)-1] != tt.wantSeqs[len(tt.wantSeqs)-1])) {
			t.Errorf("After(%d, %d) = %v, want %v", tt.after, tt.limit, seqs, tt.wantSeqs)
		}
		n, err := d.CountAfter(ctx, tt.after)
		if err != nil || n != tt.wantCount {
			t.Errorf("CountAfter(%d) = %d, %v; want %d", tt.after, n, err, tt.wantCount)
		}
	}
	if c, err := d.ShipCursor(ctx); err != nil || c != 0 {
		t.Fatalf("a fresh cursor: %d %v", c, err)
	}
	for _, seq := range []uint64{4, 2} { // lowered when a restored database says so
		if err := d.SetShipCursor(ctx, seq); err != nil {
			t.Fatal(err)
		}
		if c, err := d.ShipCursor(ctx); err != nil || c != seq {
			t.Fatalf("cursor %d, %v; want %d", c, err, seq)
		}
	}
}

// Retention never removes a record the fleet's database has not acknowledged.
func TestPruneKeepsUnshipped(t *testing.T) {
	now := t0.Add(100 * time.Second) // record(0, n) is 100-n seconds old, numbered n+1
	tests := []struct {
		name      string
		ret       Retention
		shipped   uint64 // 0: never set
		wantFirst uint64 // the seq of the oldest record left
	}{
		{"nothing shipped", Retention{MaxAge: time.Millisecond, KeepUnshipped: true}, 0, 1},
		{"some shipped", Retention{MaxAge: time.Millisecond, KeepUnshipped: true}, 40, 41},
		{"retention stricter than the cursor", Retention{MaxRecords: 90, KeepUnshipped: true}, 40, 11},
		{"all shipped", Retention{MaxAge: 50 * time.Second, KeepUnshipped: true}, 100, 51},
		{"cursor ignored without KeepUnshipped", Retention{MaxAge: 50 * time.Second}, 10, 51},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			d := open(t, filepath.Join(t.TempDir(), FileName), Options{Retention: tt.ret, Now: func() time.Time { return now }})
			for n := range 100 {
				if err := d.Append(ctx, record(0, n)); err != nil {
					t.Fatal(err)
				}
			}
			if tt.shipped > 0 {
				if err := d.SetShipCursor(ctx, tt.shipped); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := d.Prune(ctx); err != nil {
				t.Fatal(err)
			}
			got, err := d.After(ctx, 0, 1)
			if err != nil || len(got) != 1 {
				t.Fatalf("After: %v %v", got, err)
			}
			if got[0].Seq != tt.wantFirst {
				t.Errorf("oldest left is %d, want %d", got[0].Seq, tt.wantFirst)
			}
		})
	}
}
