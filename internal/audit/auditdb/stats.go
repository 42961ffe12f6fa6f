package auditdb

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/moatdev/moat/internal/call"
)

// Bounds of a Stats query: the dashboard's charts ask for them, and every answer is a
// handful of rows whatever the database holds.
const (
	// MaxStatsBuckets bounds the time buckets of one query.
	MaxStatsBuckets = 200
	// DefaultStatsTop is the length of each top list when StatsQuery.Top is zero.
	DefaultStatsTop = 10
	// MaxStatsTop bounds the length of each top list.
	MaxStatsTop = 50
	// maxStatsBucket bounds a bucket's width, so that MaxStatsBuckets of them fit a
	// time.Duration.
	maxStatsBucket = 366 * 24 * time.Hour
)

// StatsQuery says which records Stats counts: those made in [Since, Until), in time
// buckets Bucket wide from Since. Both ends are taken to the hour (truncated, in UTC):
// buckets are whole hours.
type StatsQuery struct {
	Since, Until time.Time
	// Bucket is the width of a time bucket, a whole number of hours.
	Bucket time.Duration
	// Top is the length of each top list: zero means DefaultStatsTop.
	Top int
}

// VerdictCounts counts decisions by verdict.
type VerdictCounts struct {
	Allow int64 `json:"allow"`
	Audit int64 `json:"audit"`
	Ask   int64 `json:"ask"`
	Deny  int64 `json:"deny"`
}

// Total is the number of decisions counted.
func (c VerdictCounts) Total() int64 { return c.Allow + c.Audit + c.Ask + c.Deny }

// Of is the count of verdict v.
func (c VerdictCounts) Of(v call.Verdict) int64 {
	switch v {
	case call.Allow:
		return c.Allow
	case call.Audit:
		return c.Audit
	case call.Ask:
		return c.Ask
	case call.Deny:
		return c.Deny
	}
	return 0
}

// Add counts n decisions of the verdict named name; a name that is no verdict is not
// counted (Append stores only verdicts).
func (c *VerdictCounts) Add(name string, n int64) {
	v, _ := call.ParseVerdict(name)
	switch v {
	case call.Allow:
		c.Allow += n
	case call.Audit:
		c.Audit += n
	case call.Ask:
		c.Ask += n
	case call.Deny:
		c.Deny += n
	}
}

// TimeBucket is the decisions of one time bucket.
type TimeBucket struct {
	Start  time.Time     `json:"start"`
	Counts VerdictCounts `json:"counts"`
}

// KeyCounts is the decisions sharing one key: a rule, an agent, a command.
type KeyCounts struct {
	Key    string        `json:"key"`
	Counts VerdictCounts `json:"counts"`
}

// Stats summarises the decisions of a time range.
type Stats struct {
	Since  time.Time `json:"since"`
	Until  time.Time `json:"until"`
	Bucket string    `json:"bucket"` // the width of a bucket, as time.Duration prints it
	// Total counts every decision of the range.
	Total VerdictCounts `json:"total"`
	// Buckets are every bucket of the range in order, empty ones included.
	Buckets []TimeBucket `json:"buckets"`
	// Rules are the rules that decided most, most first; "" is no rule.
	Rules []KeyCounts `json:"rules"`
	// Agents are the agents that made most calls, most first; "" is no agent.
	Agents []KeyCounts `json:"agents"`
	// Denied are the shell commands denied most often (as recorded: redacted), most first.
	Denied []KeyCounts `json:"denied"`
}

// Stats counts the decisions made in q's time range: by verdict per time bucket, and the
// top rules, agents and denied commands. Counting happens in SQL, over the time index.
func (d *DB) Stats(ctx context.Context, q StatsQuery) (Stats, error) {
	q.Since, q.Until = q.Since.UTC().Truncate(time.Hour), q.Until.UTC().Truncate(time.Hour)
	if err := q.check(); err != nil {
		return Stats{}, fmt.Errorf("audit statistics: %w", err)
	}
	top := cmp.Or(q.Top, DefaultStatsTop)
	since, until := timeKey(q.Since), timeKey(q.Until)
	n := int((q.Until.Sub(q.Since) + q.Bucket - 1) / q.Bucket)
	st := Stats{Since: q.Since, Until: q.Until, Bucket: q.Bucket.String(), Buckets: make([]TimeBucket, n)}
	for i := range st.Buckets {
		st.Buckets[i].Start = q.Since.Add(time.Duration(i) * q.Bucket)
	}
	agents := map[string]VerdictCounts{}
	// Records are counted per hour of the time column (fixed-width UTC text, whose first
	// 13 characters name the hour: cheaper than reading the clock of every row), and
	// the hours are summed into buckets, which are whole hours from an hour. The same
	// scan counts per agent, a closed set: one pass over the range rather than two.
	rows, err := d.db.QueryContext(ctx, `SELECT substr(time, 1, 13) AS hour, decision, agent, count(*)
		FROM records WHERE time >= ? AND time < ? GROUP BY hour, decision, agent`, since, until)
	if err != nil {
		return Stats{}, fmt.Errorf("audit statistics of %s: %w", d.path, err)
	}
	defer rows.Close()
	for rows.Next() {
		var hour, verdict, agent string
		var count int64
		if err := rows.Scan(&hour, &verdict, &agent, &count); err != nil {
			return Stats{}, fmt.Errorf("audit statistics of %s: %w", d.path, err)
		}
		at, err := time.Parse(hourLayout, hour)
		if err != nil {
			return Stats{}, fmt.Errorf("audit statistics of %s: time %q: %w", d.path, hour, err)
		}
		b := int(at.Sub(q.Since) / q.Bucket)
		if b < 0 || b >= n {
			continue // not in the range: no time Append writes
		}
		st.Buckets[b].Counts.Add(verdict, count)
		st.Total.Add(verdict, count)
		c := agents[agent]
		c.Add(verdict, count)
		agents[agent] = c
	}
	if err := rows.Err(); err != nil {
		return Stats{}, fmt.Errorf("audit statistics of %s: %w", d.path, err)
	}
	if st.Rules, err = d.topBy(ctx, "rule", "", since, until, top); err != nil {
		return Stats{}, err
	}
	st.Agents = topOf(agents, top)
	if st.Denied, err = d.topBy(ctx, "json_extract(line, '$.args.command')", "AND decision = 'deny' AND class = 'shell'", since, until, top); err != nil {
		return Stats{}, err
	}
	return st, nil
}

// topBy counts the decisions of [since, until) (and the condition and, which starts
// with AND) by the value of expr, a column or an expression of this file, and returns
// the top values, most decisions first.
func (d *DB) topBy(ctx context.Context, expr, and, since, until string, top int) ([]KeyCounts, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT coalesce(`+expr+`, '') AS k,
		sum(decision = 'allow'), sum(decision = 'audit'), sum(decision = 'ask'), sum(decision = 'deny'), count(*) AS n
		FROM records WHERE time >= ? AND time < ? `+and+`
		GROUP BY k ORDER BY n DESC, k LIMIT ?`, since, until, top)
	if err != nil {
		return nil, fmt.Errorf("audit statistics of %s: %w", d.path, err)
	}
	defer rows.Close()
	out := []KeyCounts{}
	for rows.Next() {
		var kc KeyCounts
		var n int64
		c := &kc.Counts
		if err := rows.Scan(&kc.Key, &c.Allow, &c.Audit, &c.Ask, &c.Deny, &n); err != nil {
			return nil, fmt.Errorf("audit statistics of %s: %w", d.path, err)
		}
		out = append(out, kc)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("audit statistics of %s: %w", d.path, err)
	}
	return out, nil
}

// topOf is the top keys of counts, most decisions first (then by key), at most top.
func topOf(counts map[string]VerdictCounts, top int) []KeyCounts {
	out := make([]KeyCounts, 0, len(counts))
	for k, c := range counts {
		out = append(out, KeyCounts{Key: k, Counts: c})
	}
	slices.SortFunc(out, func(a, b KeyCounts) int {
		return cmp.Or(cmp.Compare(b.Counts.Total(), a.Counts.Total()), cmp.Compare(a.Key, b.Key))
	})
	return out[:min(top, len(out))]
}

// check says what is wrong with q, nil when nothing is.
func (q StatsQuery) check() error {
	switch {
	case q.Since.IsZero() || q.Until.IsZero():
		return errors.New("a time range needs both ends")
	case !q.Until.After(q.Since):
		return fmt.Errorf("the range ends (%s) before it starts (%s)", q.Until.Format(time.RFC3339), q.Since.Format(time.RFC3339))
	case q.Bucket < time.Hour || q.Bucket%time.Hour != 0 || q.Bucket > maxStatsBucket:
		return fmt.Errorf("a bucket of %s (a whole number of hours, at most %s)", q.Bucket, maxStatsBucket)
	case q.Until.Sub(q.Since) > MaxStatsBuckets*q.Bucket:
		return fmt.Errorf("%s in buckets of %s is more than %d buckets", q.Until.Sub(q.Since), q.Bucket, MaxStatsBuckets)
	case q.Top < 0 || q.Top > MaxStatsTop:
		return fmt.Errorf("a top list of %d entries (at most %d)", q.Top, MaxStatsTop)
	}
	return nil
}

// hourLayout reads the hour of a time column's value.
const hourLayout = "2006-01-02T15"

// Place is a working directory the agents worked in, and when they last did.
type Place struct {
	Cwd  string    `json:"cwd"`
	Last time.Time `json:"last"`
}

// MaxPlaces bounds the directories RecentCwds returns.
const MaxPlaces = 500

// RecentCwds lists the working directories of the decisions made since since, the most
// recently used first, at most limit (at most MaxPlaces).
func (d *DB) RecentCwds(ctx context.Context, since time.Time, limit int) ([]Place, error) {
	if limit <= 0 || limit > MaxPlaces {
		return nil, fmt.Errorf("recent directories: a limit of %d (1 to %d)", limit, MaxPlaces)
	}
	rows, err := d.db.QueryContext(ctx, `SELECT cwd, max(time) AS last FROM records
		WHERE time >= ? AND cwd <> '' GROUP BY cwd ORDER BY last DESC, cwd LIMIT ?`, timeKey(since), limit)
	if err != nil {
		return nil, fmt.Errorf("recent directories in %s: %w", d.path, err)
	}
	defer rows.Close()
	var out []Place
	for rows.Next() {
		var p Place
		var last string
		if err := rows.Scan(&p.Cwd, &last); err != nil {
			return nil, fmt.Errorf("recent directories in %s: %w", d.path, err)
		}
		if p.Last, err = time.Parse(time.RFC3339Nano, last); err != nil {
			return nil, fmt.Errorf("recent directories in %s: time %q: %w", d.path, last, err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("recent directories in %s: %w", d.path, err)
	}
	return out, nil
}
