package fleetdb

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/moatdev/moat/internal/audit/auditdb"
)

// MachineStatus is one machine of the fleet as moat_machines keeps it: what it last shipped,
// and with which moat and managed policy.
type MachineStatus struct {
	MachineID     string    `json:"machine_id"`
	Machine       string    `json:"machine"`
	OSUser        string    `json:"os_user"`
	Version       string    `json:"moat_version"`
	ManagedSerial int64     `json:"managed_serial"`
	LastSeq       uint64    `json:"last_seq"`
	FirstSeen     time.Time `json:"first_seen"`
	LastSeen      time.Time `json:"last_seen"`
}

// Machines returns the fleet's machines, by name, then id.
func Machines(ctx context.Context, db Reader) ([]MachineStatus, error) {
	rows, err := db.Query(ctx, `SELECT machine_id, machine, os_user, moat_version, managed_serial, last_seq, first_seen, last_seen
		FROM moat_machines ORDER BY machine, machine_id`)
	if err != nil {
		return nil, fmt.Errorf("read the fleet's machines: %w", err)
	}
	defer rows.Close()
	var out []MachineStatus
	for rows.Next() {
		var m MachineStatus
		var last int64
		if err := rows.Scan(&m.MachineID, &m.Machine, &m.OSUser, &m.Version, &m.ManagedSerial, &last, &m.FirstSeen, &m.LastSeen); err != nil {
			return nil, fmt.Errorf("read the fleet's machines: %w", err)
		}
		m.LastSeq = uint64(max(last, 0))
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read the fleet's machines: %w", err)
	}
	return out, nil
}

// Quiet returns the machines of ms last seen before cutoff, longest quiet first.
func Quiet(ms []MachineStatus, cutoff time.Time) []MachineStatus {
	var out []MachineStatus
	for _, m := range ms {
		if m.LastSeen.Before(cutoff) {
			out = append(out, m)
		}
	}
	slices.SortStableFunc(out, func(a, b MachineStatus) int { return a.LastSeen.Compare(b.LastSeen) })
	return out
}

// DefaultSummaryTop is how many machines a Summary lists when its query says zero.
const DefaultSummaryTop = 10

// SummaryQuery says what Summarize counts: the records made at or after Since (zero:
// all), with the Top machines of most decisions listed.
type SummaryQuery struct {
	Since time.Time
	Top   int
}

// Summary counts the fleet's decisions, in the database, where the counting is cheap.
type Summary struct {
	Since     time.Time             `json:"since,omitzero"`
	Decisions auditdb.VerdictCounts `json:"decisions"`
	// Machines counts the machines that made decisions in the period.
	Machines int `json:"machines"`
	// ByMachine are the machines of most decisions, at most the query's Top.
	ByMachine []MachineCounts `json:"by_machine"`
	// Serials are the managed policy serials the period's decisions were made with
	// (0: no signed managed policy), highest first.
	Serials []SerialCount `json:"managed_serials"`
}

// MachineCounts counts one machine's decisions by verdict.
type MachineCounts struct {
	MachineID string                `json:"machine_id"`
	Machine   string                `json:"machine"`
	Counts    auditdb.VerdictCounts `json:"counts"`
}

// SerialCount says how many machines and decisions used one managed policy serial.
type SerialCount struct {
	Serial    int64 `json:"serial"`
	Machines  int   `json:"machines"`
	Decisions int64 `json:"decisions"`
}

// Summarize counts the fleet's decisions of q's period.
func Summarize(ctx context.Context, db Reader, q SummaryQuery) (Summary, error) {
	top := cmp.Or(q.Top, DefaultSummaryTop)
	if top < 0 {
		return Summary{}, fmt.Errorf("summarise the fleet: negative top %d", top)
	}
	s := Summary{Since: q.Since}
	var w where
	if !q.Since.IsZero() {
		w.add("time >= " + w.arg(q.Since.Truncate(time.Microsecond)))
	}
	rows, err := db.Query(ctx, `SELECT machine_id, min(machine), decision, count(*) FROM moat_records`+w.sql()+
		` GROUP BY machine_id, decision`, w.args...)
	if err != nil {
		return Summary{}, fmt.Errorf("summarise the fleet: %w", err)
	}
	byID := map[string]*MachineCounts{}
	for rows.Next() {
		var id, name, decision string
		var n int64
		if err := rows.Scan(&id, &name, &decision, &n); err != nil {
			rows.Close()
			return Summary{}, fmt.Errorf("summarise the fleet: %w", err)
		}
		mc := byID[id]
		if mc == nil {
			mc = &MachineCounts{MachineID: id, Machine: name}
			byID[id] = mc
		}
		mc.Counts.Add(decision, n)
		s.Decisions.Add(decision, n)
	}
	if err := rows.Err(); err != nil {
		return Summary{}, fmt.Errorf("summarise the fleet: %w", err)
	}
	s.Machines = len(byID)
	for _, mc := range byID {
		s.ByMachine = append(s.ByMachine, *mc)
	}
	slices.SortFunc(s.ByMachine, func(a, b MachineCounts) int {
		return cmp.Or(cmp.Compare(b.Counts.Total(), a.Counts.Total()), strings.Compare(a.Machine, b.Machine), strings.Compare(a.MachineID, b.MachineID))
	})
	if len(s.ByMachine) > top {
		s.ByMachine = s.ByMachine[:top]
	}

	rows, err = db.Query(ctx, `SELECT managed_serial, count(DISTINCT machine_id), count(*) FROM moat_records`+w.sql()+
		` GROUP BY managed_serial ORDER BY managed_serial DESC`, w.args...)
	if err != nil {
		return Summary{}, fmt.Errorf("summarise the fleet's policy serials: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var sc SerialCount
		if err := rows.Scan(&sc.Serial, &sc.Machines, &sc.Decisions); err != nil {
			return Summary{}, fmt.Errorf("summarise the fleet's policy serials: %w", err)
		}
		s.Serials = append(s.Serials, sc)
	}
	if err := rows.Err(); err != nil {
		return Summary{}, fmt.Errorf("summarise the fleet's policy serials: %w", err)
	}
	return s, nil
}
