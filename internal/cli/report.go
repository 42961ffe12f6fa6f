package cli

import (
	"bufio"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/logview"
	"github.com/moatdev/moat/internal/report"
)

type reportOptions struct {
	since, format, file string
	top                 int
	// remote reports across the fleet's database instead (reportremote.go).
	remote     bool
	quietAfter time.Duration
	fleetDB    remoteOptions
}

func newReportCmd(a *app) *cobra.Command {
	var o reportOptions
	cmd := &cobra.Command{
		Use:   "report [--since DUR|TIME] [--format md|json|html] [--top N] [--file LOG | --remote [--quiet-after DUR]]",
		Short: "Summarise the recorded decisions for a period, with findings mapped to OWASP LLM Top 10, ATT&CK and ATLAS",
		Long: `Report summarises the decisions moat has recorded in its audit log (or the daemon's
database, when it holds what the log holds) for a period: decisions by verdict, findings by
category, by OWASP Top 10 for LLM Applications (2025) entry, by MITRE ATT&CK and MITRE ATLAS
technique and by id, the rules that decided most, the agents that called most, and the calls
denied most often, as recorded (records are redacted when they are written).

Finding counts count decisions: a decision with two findings of one category counts once
for it. ` + "`moat findings --json`" + ` lists the mapping of every finding kind.

--since takes a span back from now (90m, 2h, 7d, 1d12h), a date (2026-01-02, local
midnight) or an RFC 3339 time; without it the report covers the whole trail.
--format md (the default) writes Markdown, json an object with stable field names for
scripts, html one self-contained page (no script, no external asset).

--remote reports across the fleet's PostgreSQL database, where the daemons of many
machines ship their records (fleet.yaml's audit: section names it, or --postgres and
--password-file): the same sections, and a fleet section with the machines that decided
most, the count of machines, the machines that shipped nothing for --quiet-after (24h by
default), and the managed policy serials the decisions were made with.

Exit status: 0, also when no record is in the period; 1 on an unreadable log or database; 64 on a bad flag.`,
		Example: `  moat report --since 7d
  moat report --since 2026-01-01 --format html > moat-report.html
  moat report --since 30d --format json | jq '.owasp_llm'
  moat report --remote --since 7d --format html > fleet-report.html`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.report(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.since, "since", "", "only records from this span back (90m, 2h, 7d) or time (2026-01-02, RFC 3339) on")
	f.StringVar(&o.format, "format", "md", "output format: "+strings.Join(report.Formats(), ", "))
	f.IntVar(&o.top, "top", report.DefaultTop, "how many rules, agents and denied calls to list")
	f.StringVar(&o.file, "file", "", "read this audit log instead of yours (its rotated files FILE.1… too)")
	o.remoteFlags(f)
	return cmd
}

func (a *app) report(ctx context.Context, o reportOptions) error {
	if !slices.Contains(report.Formats(), o.format) {
		return usageError(fmt.Errorf("--format %q: want one of %s", o.format, strings.Join(report.Formats(), ", ")))
	}
	if o.top < 1 {
		return usageError(fmt.Errorf("--top %d: want a count of at least 1", o.top))
	}
	if o.remote || o.fleetDB != (remoteOptions{}) || o.quietAfter != defaultQuietAfter {
		return a.reportRemote(ctx, o)
	}
	now := a.env.Now()
	var filter logview.Filter
	if o.since != "" {
		t, err := logview.ParseSince(o.since, now, time.Local)
		if err != nil {
			return usageError(err)
		}
		filter.Since = t
	}
	path, stateDir, err := a.auditLogPath(o.file)
	if err != nil {
		return err
	}
	defer a.spoolNotice(path)
	store, closeStore, err := a.recordStoreFor(ctx, path, stateDir, filter)
	if err != nil {
		return err
	}
	defer closeStore()
	b := report.NewBuilder(filter.Since, o.top)
	err = store.Read(func(r audit.Record) error {
		if filter.Match(r) {
			b.Add(r)
		}
		return nil
	})
	if err := a.readProblem(path, err); err != nil {
		return err
	}
	out := bufio.NewWriter(a.env.Stdout)
	if err := report.Write(out, b.Report(now), o.format, time.Local); err != nil {
		return err
	}
	return out.Flush()
}
