package fleetdb

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/moatdev/moat/internal/audit"
)

// Row is one record as moat_records stores it: the machine that made it, its number
// there, the columns queries filter on, and the line exactly as the machine's log holds
// it. RowOf is the one place the columns are derived from a record, for the shipper that
// inserts rows and the tests that stand in for it.
type Row struct {
	MachineID     string
	Seq           uint64
	Machine       string
	OSUser        string
	Time          time.Time
	Agent         string
	Session       string
	Event         string
	Class         string
	Tool          string
	MCP           string
	Decision      string
	Rule          string
	Failure       bool
	Policy        string
	ManagedSerial int64
	Cwd           string
	Line          string
}

// RowOf derives the row of the record numbered seq on the machine machineID (named
// machine, its records made as osUser), whose line is as the JSONL log holds it (a
// trailing newline is dropped). The line must be a record numbered seq: a row's key is
// what makes a retried insert idempotent, so it may not disagree with the line.
func RowOf(machineID, machine, osUser string, seq uint64, line []byte) (Row, error) {
	line = bytes.TrimRight(line, "\r\n")
	rec, err := audit.ParseLine(line)
	if err != nil {
		return Row{}, fmt.Errorf("record %d of machine %s: %w", seq, machineID, err)
	}
	switch {
	case seq == 0:
		return Row{}, fmt.Errorf("record of machine %s: no number (seq 0)", machineID)
	case rec.Seq != seq:
		return Row{}, fmt.Errorf("record %d of machine %s: the line is numbered %d", seq, machineID, rec.Seq)
	case machineID == "":
		return Row{}, fmt.Errorf("record %d: no machine id", seq)
	}
	return RowFrom(Machine{ID: machineID, Name: machine, OSUser: osUser}, seq, rec, string(line)), nil
}

// RowFrom is RowOf for a record already parsed from line (the shipper reads both from
// its spool): the one place a row's columns are derived from a record.
func RowFrom(m Machine, seq uint64, rec audit.Record, line string) Row {
	return Row{
		MachineID: m.ID, Seq: seq, Machine: m.Name, OSUser: m.OSUser,
		Time: rec.Time.UTC(), Agent: rec.Agent, Session: rec.Session, Event: rec.Event,
		Class: rec.Class, Tool: rec.Tool, MCP: rec.MCP, Decision: rec.Decision.String(),
		Rule: rec.Rule, Failure: rec.Failure, Policy: rec.Policy, ManagedSerial: rec.ManagedSerial,
		Cwd: rec.Cwd, Line: strings.TrimRight(line, "\r\n"),
	}
}
