// Package logview selects, formats and counts audit records for `moat logs`.
package logview

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/call"
)

// Filter selects records. Its conditions combine with AND; a list holds when the record
// has any of its values; an empty condition holds for every record.
type Filter struct {
	// Since keeps records made at or after it; zero keeps all.
	Since     time.Time
	Decisions []call.Verdict
	Agents    []string
	// Tools are native tool names ("Bash"), canonical classes ("shell") or MCP tools
	// ("mcp:github/create_issue"), compared without regard to case.
	Tools    []string
	Sessions []string
	// Failures keeps only the decisions moat could not make (Record.Failure).
	Failures bool
	// Seqs keeps the records of these numbers (Record.Seq), as decisions name them
	// ("downloaded by record 41") and moat fix takes them.
	Seqs []uint64
}

// Empty reports whether f has no condition: it passes every record.
func (f Filter) Empty() bool {
	return f.Since.IsZero() && len(f.Decisions) == 0 && len(f.Agents) == 0 && len(f.Tools) == 0 && len(f.Sessions) == 0 && !f.Failures && len(f.Seqs) == 0
}

// Match reports whether r passes every condition of f.
func (f Filter) Match(r audit.Record) bool {
	switch {
	case !f.Since.IsZero() && r.Time.Before(f.Since):
		return false
	case len(f.Decisions) > 0 && !slices.Contains(f.Decisions, r.Decision):
		return false
	case len(f.Agents) > 0 && !slices.Contains(f.Agents, r.Agent):
		return false
	case len(f.Sessions) > 0 && !slices.Contains(f.Sessions, r.Session):
		return false
	case f.Failures && !r.Failure:
		return false
	case len(f.Seqs) > 0 && !slices.Contains(f.Seqs, r.Seq):
		return false
	case len(f.Tools) > 0 && !slices.ContainsFunc(f.Tools, func(t string) bool {
		return strings.EqualFold(t, r.Tool) || strings.EqualFold(t, r.Class) || r.MCP != "" && strings.EqualFold(t, r.MCP)
	}):
		return false
	}
	return true
}

// ParseSeqs reads record numbers given as a list (41, 42,43), each at least 1.
func ParseSeqs(list []string) ([]uint64, error) {
	var out []uint64
	for _, s := range SplitList(list) {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil || n == 0 {
			return nil, fmt.Errorf("--seq %q: want a record number as moat logs shows it (1 or more)", s)
		}
		out = append(out, n)
	}
	return out, nil
}

// durationRE is a span of days, hours, minutes and seconds: 7d, 1d12h, 90m, 1.5h.
var durationRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:(\d+)d)?((?:\d+(?:\.\d+)?(?:h|m|s|ms))*)$`)
})

// ParseSince reads the value of --since: a span back from now (a Go duration such as
// 90m or 2h, with days allowed: 7d, 1d12h), an RFC 3339 time, or a date (2006-01-02,
// midnight in loc).
func ParseSince(s string, now time.Time, loc *time.Location) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, errors.New("--since is empty; give a span such as 90m, 2h or 7d, or a time such as 2026-01-02T15:04:05Z")
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	if t, err := time.ParseInLocation(time.DateOnly, s, loc); err == nil {
		return t, nil
	}
	if m := durationRE().FindStringSubmatch(s); m != nil && (m[1] != "" || m[2] != "") {
		var d time.Duration
		if m[1] != "" {
			days, err := strconv.Atoi(m[1])
			if err != nil || days > 100000 {
				return time.Time{}, fmt.Errorf("--since %q: too many days", s)
			}
			d = time.Duration(days) * 24 * time.Hour
		}
		if m[2] != "" {
			rest, err := time.ParseDuration(m[2])
			if err != nil {
				return time.Time{}, fmt.Errorf("--since %q: %w", s, err)
			}
			d += rest
		}
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("--since %q is neither a span (90m, 2h, 7d, 1d12h) nor a time (2026-01-02 or 2026-01-02T15:04:05Z)", s)
}

// ParseDecisions reads the values of --decision: names, each flag possibly holding
// several separated by commas.
func ParseDecisions(vals []string) ([]call.Verdict, error) {
	var out []call.Verdict
	for _, s := range SplitList(vals) {
		v, ok := call.ParseVerdict(strings.ToLower(s))
		if !ok {
			return nil, fmt.Errorf("--decision %q: want deny, ask, audit or allow", s)
		}
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out, nil
}

// SplitList splits each value at commas and drops empty items, so that a repeated flag
// and a comma-separated one mean the same.
func SplitList(vals []string) []string {
	var out []string
	for _, v := range vals {
		for item := range strings.SplitSeq(v, ",") {
			if item = strings.TrimSpace(item); item != "" {
				out = append(out, item)
			}
		}
	}
	return out
}
