package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/moatdev/moat/internal/fleetdb"
	"github.com/moatdev/moat/internal/logview"
	"github.com/moatdev/moat/internal/report"
)

// defaultQuietAfter is how long without shipping makes a machine quiet in moat report
// --remote.
const defaultQuietAfter = 24 * time.Hour

func (o *reportOptions) remoteFlags(f *pflag.FlagSet) {
	f.BoolVar(&o.remote, "remote", false, "report across the fleet's PostgreSQL database (every machine's shipped records) instead of this machine's log")
	f.DurationVar(&o.quietAfter, "quiet-after", defaultQuietAfter, "with --remote: list the machines that have shipped nothing for this long")
	o.fleetDB.flags(f)
}

// reportRemote is `moat report --remote`: the report of the records of every machine of
// the fleet, with its fleet section. The records are streamed through the report's
// builder, which knows the findings and their compliance mapping; the counts by machine
// and serial are made in the database.
func (a *app) reportRemote(ctx context.Context, o reportOptions) error {
	switch {
	case !o.remote:
		return usageError(errors.New("--postgres, --password-file and --quiet-after read the fleet's database: add --remote"))
	case o.file != "":
		return usageError(errors.New("--file reads a log; --remote reads the fleet's database: give one"))
	case o.quietAfter <= 0:
		return usageError(fmt.Errorf("--quiet-after %s: want a positive span such as 24h", o.quietAfter))
	}
	now := a.env.Now()
	var f fleetdb.Filter
	if o.since != "" {
		t, err := logview.ParseSince(o.since, now, time.Local)
		if err != nil {
			return usageError(err)
		}
		f.Since = t
	}
	conn, err := a.fleetConn(ctx, o.fleetDB)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	b := report.NewBuilder(f.Since, o.top)
	if _, err := fleetdb.Read(ctx, conn, f, fleetdb.Cursor{}, func(rr fleetdb.RemoteRecord) error {
		b.Add(rr.Record)
		return nil
	}); err != nil {
		return err
	}
	sum, err := fleetdb.Summarize(ctx, conn, fleetdb.SummaryQuery{Since: f.Since, Top: o.top})
	if err != nil {
		return err
	}
	machines, err := fleetdb.Machines(ctx, conn)
	if err != nil {
		return err
	}
	rep := b.Report(now)
	rep.Fleet = fleetSection(sum, machines, now, o.quietAfter)
	out := bufio.NewWriter(a.env.Stdout)
	if err := report.Write(out, rep, o.format, time.Local); err != nil {
		return err
	}
	return out.Flush()
}

// fleetSection is the report's fleet section from the database's counts.
func fleetSection(sum fleetdb.Summary, machines []fleetdb.MachineStatus, now time.Time, quietAfter time.Duration) *report.Fleet {
	fl := &report.Fleet{
		Machines: sum.Machines, Known: len(machines), QuietAfter: quietAfter.String(),
		TopMachines: []report.MachineCount{}, Quiet: []report.QuietMachine{}, Serials: []report.SerialCount{},
	}
	for _, m := range sum.ByMachine {
		c := m.Counts
		fl.TopMachines = append(fl.TopMachines, report.MachineCount{Machine: m.Machine, MachineID: m.MachineID,
			Deny: c.Deny, Ask: c.Ask, Audit: c.Audit, Allow: c.Allow, Total: c.Total()})
	}
	for _, m := range fleetdb.Quiet(machines, now.Add(-quietAfter)) {
		fl.Quiet = append(fl.Quiet, report.QuietMachine{Machine: m.Machine, MachineID: m.MachineID, OSUser: m.OSUser, LastSeen: m.LastSeen})
	}
	for _, s := range sum.Serials {
		fl.Serials = append(fl.Serials, report.SerialCount{Serial: s.Serial, Machines: s.Machines, Decisions: s.Decisions})
	}
	return fl
}
