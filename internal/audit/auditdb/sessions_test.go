package auditdb

import (
	"context"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/audit"
)

// sessionsOf is what Sessions should say of records, computed the slow way.
func sessionsOf(all []audit.Record, since time.Time) []Session {
	byKey := map[[2]string]*Session{}
	var order []*Session
	for _, r := range all {
		if r.Session == "" || r.Time.Before(since) {
			continue
		}
		k := [2]string{r.Agent, r.Session}
		s := byKey[k]
		if s == nil {
			s = &Session{Agent: r.Agent, Session: r.Session, First: r.Time, Counts: map[string]int{"allow": 0, "audit": 0, "ask": 0, "deny": 0}}
			byKey[k] = s
			order = append(order, s)
		}
		s.Cwd, s.Last, s.LastSeq = r.Cwd, r.Time, r.Seq
		s.Calls++
		s.Counts[r.Decision.String()]++
	}
	out := make([]Session, len(order))
	for i, s := range order {
		out[i] = *s
	}
	slices.SortFunc(out, func(a, b Session) int { return int(b.LastSeq) - int(a.LastSeq) })
	return out
}

func TestSessions(t *testing.T) {
	d, _ := filled(t, 100)
	// A record of no session (moat's own) belongs to none; a session's directory is its
	// newest record's.
	extra := record(0, 100)
	extra.Session = ""
	moved := record(0, 101)
	moved.Cwd = "/home/u/other"
	if err := d.AppendBatch(context.Background(), []audit.Record{extra, moved}); err != nil {
		t.Fatal(err)
	}
	all := readAll(t, d)
	for _, tt := range []struct {
		name  string
		f     SessionFilter
		since time.Time
		n     int
	}{
		{"all", SessionFilter{}, time.Time{}, 28},
		{"limited", SessionFilter{Limit: 3}, time.Time{}, 3},
		{"since", SessionFilter{Since: t0.Add(90 * time.Second)}, t0.Add(90 * time.Second), 11},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := d.Sessions(context.Background(), tt.f)
			if err != nil {
				t.Fatal(err)
			}
			want := sessionsOf(all, tt.since)[:tt.n]
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Sessions(%+v):\n got %+v\nwant %+v", tt.f, got, want)
			}
		})
	}
	got, err := d.Sessions(context.Background(), SessionFilter{Limit: 1})
	if err != nil || len(got) != 1 || got[0].Cwd != "/home/u/other" || got[0].Session != moved.Session {
		t.Errorf("newest session: %+v, %v", got, err)
	}
	for _, limit := range []int{-1, MaxSessionPage + 1} {
		if _, err := d.Sessions(context.Background(), SessionFilter{Limit: limit}); err == nil {
			t.Errorf("Sessions accepted limit %d", limit)
		}
	}
}

func TestSessionRecordsPages(t *testing.T) {
	d, all := filled(t, 200)
	var want []audit.Record
	for _, r := range all {
		if r.Agent == "cursor" && r.Session == "s1" {
			want = append(want, r)
		}
	}
	if len(want) < 5 {
		t.Fatalf("only %d records of the session", len(want))
	}
	var got []audit.Record
	var after uint64
	pages := 0
	for {
		p, err := d.SessionRecords(context.Background(), "cursor", "s1", after, 2)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, p.Records...)
		pages++
		if p.Next == 0 {
			break
		}
		after = p.Next
	}
	if !reflect.DeepEqual(got, want) || pages != (len(want)+1)/2 {
		t.Errorf("%d pages of %d records, want %d records oldest first", pages, len(got), len(want))
	}
	p, err := d.SessionRecords(context.Background(), "cursor", "s1", want[len(want)-1].Seq, 0)
	if err != nil || len(p.Records) != 0 || p.Next != 0 {
		t.Errorf("after the newest: %+v, %v", p, err)
	}
	if _, err := d.SessionRecords(context.Background(), "cursor", "s1", 0, MaxSessionPage+1); err == nil {
		t.Error("SessionRecords accepted a page over the bound")
	}
}

// BenchmarkSessions lists the newest sessions of a database of 100,000 records, as the
// dashboard's sessions page does, and reads one session's first page.
func BenchmarkSessions(b *testing.B) {
	d, _ := filled(b, 100_000)
	ctx := context.Background()
	b.Run("list", func(b *testing.B) {
		for b.Loop() {
			if _, err := d.Sessions(ctx, SessionFilter{Limit: 200}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("list-last-hour", func(b *testing.B) {
		for b.Loop() {
			if _, err := d.Sessions(ctx, SessionFilter{Since: t0.Add(100_000*time.Second - time.Hour), Limit: 200}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("records", func(b *testing.B) {
		for b.Loop() {
			if _, err := d.SessionRecords(ctx, "cursor", "s1", 0, 500); err != nil {
				b.Fatal(err)
			}
		}
	})
}
