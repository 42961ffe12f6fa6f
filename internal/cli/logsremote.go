package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/moatdev/moat/internal/fleetdb"
	"github.com/moatdev/moat/internal/logview"
)

// machineWidth is the width of the machine column of `moat logs --remote`.
const machineWidth = 14

func (o *logsOptions) remoteFlags(f *pflag.FlagSet) {
	f.BoolVar(&o.remote, "remote", false, "read the fleet's PostgreSQL database (every machine's shipped records) instead of this machine's log")
	f.StringSliceVar(&o.machines, "machine", nil, "with --remote: only the records of these machines, by name or id (repeatable, or comma-separated)")
	o.fleetDB.flags(f)
}

// logsRemote is `moat logs --remote`: the records of the fleet's database, with the
// filters and formats of moat logs, each record with the machine it comes from.
func (a *app) logsRemote(ctx context.Context, o logsOptions, lf logview.Filter) error {
	switch {
	case !o.remote:
		return usageError(errors.New("--machine, --postgres and --password-file read the fleet's database: add --remote"))
	case o.verify:
		return usageError(errors.New("--verify checks this machine's log; the fleet's database keeps each machine's records under their numbers (moat logs --remote --seq N --machine M)"))
	case o.file != "":
		return usageError(errors.New("--file reads a log; --remote reads the fleet's database: give one"))
	case o.summary && o.follow:
		return usageError(errors.New("--summary counts what is written so far; it does not go with --follow"))
	case o.last < 0:
		return usageError(fmt.Errorf("--last %d: want a count, 0 for all", o.last))
	}
	f := fleetdb.Filter{Filter: lf, Machines: logview.SplitList(o.machines)}
	conn, err := a.fleetConn(ctx, o.fleetDB)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())

	if o.summary {
		var s logview.Summary
		if _, err := fleetdb.Read(ctx, conn, f, fleetdb.Cursor{}, func(rr fleetdb.RemoteRecord) error {
			s.Add(rr.Record)
			return nil
		}); err != nil {
			return err
		}
		s.Finish()
		if o.json {
			return writeJSON(a.env.Stdout, s)
		}
		return s.WriteText(a.env.Stdout, time.Local)
	}

	out := bufio.NewWriter(a.env.Stdout)
	print := a.remotePrinter(out, o.json)
	shown := 0
	switch {
	case o.follow:
		// As moat logs does: the history (its last records with --last), then every
		// new record as it is shipped, flushed at once.
		var held []fleetdb.RemoteRecord
		live := false
		deliver := func(rr fleetdb.RemoteRecord) error {
			if o.last > 0 && !live {
				held = append(held, rr)
				if len(held) > o.last {
					held = held[1:]
				}
				return nil
			}
			if err := print(rr); err != nil {
				return err
			}
			if live {
				return out.Flush()
			}
			return nil
		}
		caught := func() error {
			for _, rr := range held {
				if err := print(rr); err != nil {
					return err
				}
			}
			held, live = nil, true
			return out.Flush()
		}
		return fleetdb.Follow(ctx, conn, f, true, o.poll, caught, deliver)
	case o.last > 0:
		// The newest records, a page at a time, shown oldest first.
		var recs []fleetdb.RemoteRecord
		page := fleetdb.Page{Limit: min(o.last, fleetdb.MaxPageSize)}
		for len(recs) < o.last {
			res, err := fleetdb.Query(ctx, conn, f, page)
			if err != nil {
				return err
			}
			recs = append(recs, res.Records...)
			if !res.More {
				break
			}
			page.Before = res.Next
		}
		recs = recs[:min(len(recs), o.last)]
		slices.Reverse(recs)
		for _, rr := range recs {
			if err := print(rr); err != nil {
				return err
			}
		}
		shown = len(recs)
	default:
		if _, err := fleetdb.Read(ctx, conn, f, fleetdb.Cursor{}, func(rr fleetdb.RemoteRecord) error {
			shown++
			return print(rr)
		}); err != nil {
			return err
		}
	}
	if err := out.Flush(); err != nil {
		return err
	}
	if shown == 0 {
		fmt.Fprintln(a.env.Stderr, "moat: no record matches")
	}
	return nil
}

// remotePrinter returns the function that prints one record of the fleet: as moat logs
// --json prints it, with "machine", "machine_id" and "os_user" first, or as
// a row of the table of moat logs after a column naming the machine.
func (a *app) remotePrinter(w io.Writer, asJSON bool) func(fleetdb.RemoteRecord) error {
	if asJSON {
		return func(rr fleetdb.RemoteRecord) error {
			// The record as moat logs --json prints it, after the machine's fields.
			var head, body bytes.Buffer
			for _, enc := range []struct {
				buf *bytes.Buffer
				v   any
			}{{&head, struct {
				Machine   string `json:"machine"`
				MachineID string `json:"machine_id"`
				OSUser    string `json:"os_user"`
			}{rr.Machine, rr.MachineID, rr.OSUser}}, {&body, rr.Record}} {
				e := json.NewEncoder(enc.buf)
				e.SetEscapeHTML(false) // as the audit log writes them
				if err := e.Encode(enc.v); err != nil {
					return fmt.Errorf("record %d of machine %s: %w", rr.Record.Seq, rr.MachineID, err)
				}
			}
			// Both are JSON objects, and a record has no field named as the machine's.
			line := append(bytes.TrimSuffix(bytes.TrimSpace(head.Bytes()), []byte("}")), ',')
			line = append(line, bytes.TrimPrefix(body.Bytes(), []byte("{"))...)
			_, err := w.Write(line)
			return err
		}
	}
	width, term := logview.Terminal(a.env.Stdout)
	if !term || width <= 0 {
		width = logview.DefaultWidth
	}
	var row bytes.Buffer
	t := &logview.Table{W: &row, Width: width - machineWidth - 1, Color: term && a.env.Getenv("NO_COLOR") == "", Loc: time.Local}
	header := false
	// Each line of the table gets the machine column: its name on the record's first
	// line, blank under it.
	prefixed := func(first string) error {
		lines := strings.SplitAfter(row.String(), "\n")
		row.Reset()
		for i, l := range lines {
			if l == "" {
				continue
			}
			col := strings.Repeat(" ", machineWidth)
			if i == 0 {
				col = padRight(first, machineWidth)
			}
			if _, err := io.WriteString(w, col+" "+l); err != nil {
				return err
			}
		}
		return nil
	}
	return func(rr fleetdb.RemoteRecord) error {
		if !header {
			header = true
			if err := t.Header(); err != nil {
				return err
			}
			if err := prefixed("MACHINE"); err != nil {
				return err
			}
		}
		if err := t.Write(rr.Record); err != nil {
			return err
		}
		return prefixed(logview.Clean(rr.Machine))
	}
}

// padRight cuts s to n runes, or pads it with spaces to n.
func padRight(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s + strings.Repeat(" ", n-len(r))
}
