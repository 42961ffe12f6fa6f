package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/logview"
)

type logsOptions struct {
	since                              string
	decisions, agents, tools, sessions []string
	seqs                               []string
	follow, json, summary, failures    bool
	verify                             bool
	last                               int
	file                               string
	// poll is how often --follow looks for new records; zero means audit.DefaultPoll.
	poll time.Duration
	// remote reads the fleet's database instead (logsremote.go).
	remote   bool
	machines []string
	fleetDB  remoteOptions
}

func newLogsCmd(a *app) *cobra.Command {
	var o logsOptions
	cmd := &cobra.Command{
		Use:   "logs [--since DUR] [--decision D]… [--agent A]… [--tool T]… [--session S]… [--seq N]… [--failures] [--follow] [--json|--summary] [--remote [--machine M]…] | --verify [--json]",
		Short: "Show the decisions moat has recorded",
		Long: `Logs shows the decisions moat has recorded in its audit log ($XDG_STATE_HOME/moat/audit.jsonl,
with its rotated files), oldest first, as a table: the record's number, time, decision, agent, tool and the
call (the command, path or URL, cut to fit the line); under each row, the rule that
decided and its reason (left out for what the policy's default allowed). Colours are used
only when the output is a terminal and NO_COLOR is not set. Records are redacted when they are written; logs shows only what
they hold.

Filters combine: a record is shown when it passes all of them. --decision, --agent,
--tool and --session may be repeated or given a comma-separated list; a record passes
when it has any of the values. --tool takes a native tool name (Bash, read_file) or a
class (shell, file.read, mcp), in any case. --failures keeps only the decisions moat could
not make (a malformed or unknown event, a policy that did not load, an internal error),
which the policy's fail mode answered; their rule is fail-closed or fail-open.
--seq keeps the records of the numbers given: the seq field of --json, by which a
decision names an earlier call of its session ("runs a file downloaded by record 41").

--since takes a span back from now (90m, 2h, 7d, 1d12h), a date (2026-01-02, local
midnight) or an RFC 3339 time (2026-01-02T15:04:05Z).

--remote reads the fleet's PostgreSQL database, where the daemons of many machines ship
their records (fleet.yaml's audit: section names it, or --postgres and --password-file),
with the same filters and formats, ordered by time across machines; each record shows the
machine it comes from (--json adds "machine", "machine_id" and "os_user"), and --machine
keeps those of the machines named. --follow asks the database every few seconds.

--follow prints the matching records, then waits for new ones and prints those that
match as they are written, through the rotation of the log, until interrupted.
--json prints one JSON object per record, exactly as the audit log holds it.
--summary counts the matching records by decision, by rule and by agent instead.
A malformed line is skipped and reported on stderr with its file and line; every other
record is printed.

--verify checks the whole trail instead (no filters): every record carries the hash of
the line before it, across rotations, so an edited, deleted, inserted or reordered
record, or a cut tail, shows. It lists each problem with its file and line, and with
--json prints the report as one JSON object. Records written by moats before chaining
are reported as unchained, not as problems.

Exit status: 0, also when no record matches; 1 on a bad flag or an unreadable log; with
--verify, 1 when the trail is broken too.`,
		Example: `  moat logs --since 1h
  moat logs --decision deny,ask --agent claude-code
  moat logs --follow --decision deny
  moat logs --failures --since 1d
  moat logs --since 7d --summary
  moat logs --json --session 5f1c… | jq .args.command
  moat logs --seq 41
  moat logs --verify
  moat logs --remote --since 1d --decision deny
  moat logs --remote --machine build-01 --last 20
  moat logs --remote --follow --decision deny,ask`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return a.logs(ctx, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.since, "since", "", "only records from this span back (90m, 2h, 7d) or time (2026-01-02, RFC 3339) on")
	f.StringSliceVar(&o.decisions, "decision", nil, "only these decisions: deny, ask, audit, allow (repeatable, or comma-separated)")
	f.StringSliceVar(&o.agents, "agent", nil, "only these agents (repeatable, or comma-separated)")
	f.StringSliceVar(&o.tools, "tool", nil, "only these tools, by native name or class (repeatable, or comma-separated)")
	f.StringSliceVar(&o.sessions, "session", nil, "only these sessions (repeatable, or comma-separated)")
	f.StringSliceVar(&o.seqs, "seq", nil, "only the records of these numbers, as logs --json shows them (seq) and decisions name them (repeatable, or comma-separated)")
	f.BoolVar(&o.failures, "failures", false, "only the decisions moat could not make (unreadable events, a policy that did not load, internal errors), answered by the fail mode")
	f.BoolVarP(&o.follow, "follow", "f", false, "keep printing new records as they are written, until interrupted")
	f.BoolVar(&o.json, "json", false, "print one JSON record per line, as the audit log holds it")
	f.BoolVar(&o.summary, "summary", false, "count the records by decision, rule and agent")
	f.IntVarP(&o.last, "last", "n", 0, "show only the last N matching records (0: all); with --follow, of those already written")
	f.StringVar(&o.file, "file", "", "read this audit log instead of yours (its rotated files FILE.1… too)")
	f.BoolVar(&o.verify, "verify", false, "check the hash chain of the whole trail and report every record edited, deleted, inserted or reordered")
	o.remoteFlags(f)
	return cmd
}

func (a *app) logs(ctx context.Context, o logsOptions) error {
	filter, err := a.logFilter(o)
	if err != nil {
		return usageError(err)
	}
	switch {
	case o.summary && o.follow:
		return usageError(errors.New("--summary counts what is written so far; it does not go with --follow"))
	case o.last < 0:
		return usageError(fmt.Errorf("--last %d: want a count, 0 for all", o.last))
	}
	if o.remote || len(o.machines) > 0 || o.fleetDB != (remoteOptions{}) {
		return a.logsRemote(ctx, o, filter)
	}
	if o.verify {
		if o.follow || o.summary || o.last != 0 || !filter.Empty() {
			return usageError(errors.New("--verify checks the whole trail; it takes no filter, --last, --follow or --summary"))
		}
	}
	path, stateDir, err := a.auditLogPath(o.file)
	if err != nil {
		return err
	}
	if o.verify {
		return a.verifyLog(path, o.json)
	}
	defer a.spoolNotice(path)
	// The database is not asked for records by number: the log holds them all; and
	// --follow reads the log, which every writer appends to, daemon or not.
	if o.follow || len(filter.Seqs) > 0 {
		stateDir = ""
	}
	store, closeStore, err := a.recordStoreFor(ctx, path, stateDir, filter)
	if err != nil {
		return err
	}
	defer closeStore()

	if o.summary {
		var s logview.Summary
		err := store.Read(func(r audit.Record) error {
			if filter.Match(r) {
				s.Add(r)
			}
			return nil
		})
		if err := a.readProblem(path, err); err != nil {
			return err
		}
		s.Finish()
		if o.json {
			return writeJSON(a.env.Stdout, s)
		}
		return s.WriteText(a.env.Stdout, time.Local)
	}

	// Records are written through a buffer: a log holds tens of thousands of them. Once
	// --follow has caught up, each is flushed as it comes.
	out := bufio.NewWriter(a.env.Stdout)
	live := false
	printTo := a.recordPrinter(out, o.json)
	print := func(r audit.Record) error {
		if err := printTo(r); err != nil {
			return err
		}
		if live {
			return out.Flush()
		}
		return nil
	}
	// --last holds back the records already written until the last of them is known.
	var held []audit.Record
	shown := 0
	deliver := func(r audit.Record) error {
		if !filter.Match(r) {
			return nil
		}
		if o.last > 0 {
			held = append(held, r)
			if len(held) > o.last {
				held = held[1:]
			}
			return nil
		}
		shown++
		return print(r)
	}
	flush := func() error {
		for _, r := range held {
			shown++
			if err := print(r); err != nil {
				return err
			}
		}
		held = nil
		return nil
	}

	if !o.follow {
		err := store.Read(deliver)
		if err := a.readProblem(path, err); err != nil {
			return err
		}
		if err := flush(); err != nil {
			return err
		}
		if err := out.Flush(); err != nil {
			return err
		}
		if shown == 0 {
			fmt.Fprintln(a.env.Stderr, "moat: no record matches")
		}
		return nil
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(a.env.Stderr, "moat: no audit log at %s yet; waiting for the first decision\n", path)
	}
	caught := func() error {
		if err := flush(); err != nil {
			return err
		}
		o.last, live = 0, true // from now on every matching record is printed at once
		return out.Flush()
	}
	return store.Follow(ctx, audit.FollowOptions{
		History: true, Poll: o.poll, Caught: caught,
		Bad: func(err error) { fmt.Fprintf(a.env.Stderr, "moat: warning: %v\n", err) },
	}, deliver)
}

// recordStore is where `moat logs` reads decisions: the JSONL audit log, or the daemon's
// database mirroring it (see logsdb.go).
type recordStore interface {
	// Read delivers every record, oldest first.
	Read(fn func(audit.Record) error) error
	// Follow delivers the records (the history first when opts ask for it), then new ones
	// as they are written, until ctx ends.
	Follow(ctx context.Context, opts audit.FollowOptions, fn func(audit.Record) error) error
}

// jsonlStore is the audit log at path with its rotated files.
type jsonlStore struct{ path string }

func (s jsonlStore) Read(fn func(audit.Record) error) error { return audit.Read(s.path, fn) }

func (s jsonlStore) Follow(ctx context.Context, opts audit.FollowOptions, fn func(audit.Record) error) error {
	return audit.Follow(ctx, s.path, opts, fn)
}

func (a *app) logFilter(o logsOptions) (logview.Filter, error) {
	var f logview.Filter
	if o.since != "" {
		t, err := logview.ParseSince(o.since, a.env.Now(), time.Local)
		if err != nil {
			return f, err
		}
		f.Since = t
	}
	d, err := logview.ParseDecisions(o.decisions)
	if err != nil {
		return f, err
	}
	f.Decisions = d
	f.Agents = logview.SplitList(o.agents)
	f.Tools = logview.SplitList(o.tools)
	f.Sessions = logview.SplitList(o.sessions)
	f.Failures = o.failures
	if f.Seqs, err = logview.ParseSeqs(o.seqs); err != nil {
		return f, err
	}
	return f, nil
}

// readProblem turns what audit.Read returned into the command's answer: no log yet is
// said and is no failure, malformed lines and refused files are warnings (every good
// record was shown), anything else fails.
func (a *app) readProblem(path string, err error) error {
	var le *audit.LineError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, fs.ErrNotExist):
		fmt.Fprintf(a.env.Stderr, "moat: no audit log at %s yet: moat records a decision there each time a hook or `moat check --record` decides\n", path)
		return nil
	case errors.As(err, &le), errors.Is(err, audit.ErrRefused):
		fmt.Fprintf(a.env.Stderr, "moat: warning: lines or files of the audit log that hold no record were skipped:\n%v\n", err)
		return nil
	}
	return err
}

// spoolNotice tells, on stderr, of records that wait in spool files beside the log at
// path: they are not in the log yet, so no listing shows them.
func (a *app) spoolNotice(path string) {
	h, err := audit.Inspect(path)
	if err != nil || h.Waiting == 0 {
		return
	}
	fmt.Fprintf(a.env.Stderr, "moat: warning: %d %s wait in %d spool %s beside the log (it was locked or refused when they were written): the next decision recorded merges them\n",
		h.Waiting, plural(h.Waiting, "record", "records"), len(h.Spools), plural(len(h.Spools), "file", "files"))
}

// verifyLog checks the chain of the log at path: the report, then exit 1 when broken.
func (a *app) verifyLog(path string, asJSON bool) error {
	rep, err := audit.Verify(path)
	if errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(a.env.Stderr, "moat: no audit log at %s yet: there is nothing to verify\n", path)
		return nil
	}
	if err != nil {
		return err
	}
	if asJSON {
		err = writeJSON(a.env.Stdout, rep)
	} else {
		var b strings.Builder
		for _, i := range rep.Issues {
			b.WriteString(logview.Clean(i.String()))
			b.WriteByte('\n')
		}
		b.WriteString(rep.Summary())
		b.WriteString(".\n")
		_, err = io.WriteString(a.env.Stdout, b.String())
	}
	if err != nil {
		return err
	}
	if !rep.OK {
		return &exitCode{code: exitError}
	}
	return nil
}

// recordPrinter returns the function that prints one record: as JSON, or as a row of a
// table whose header it prints before the first row.
func (a *app) recordPrinter(w io.Writer, asJSON bool) func(audit.Record) error {
	if asJSON {
		return func(r audit.Record) error {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false) // as the audit log writes them
			if err := enc.Encode(r); err != nil {
				// Read delivers only records that encode; should one not, it is skipped
				// and said, and the others are still printed.
				fmt.Fprintf(a.env.Stderr, "moat: warning: a record of %s could not be printed: %v\n", r.Time.Format(time.RFC3339Nano), err)
				return nil
			}
			_, err := w.Write(buf.Bytes())
			return err
		}
	}
	width, term := logview.Terminal(a.env.Stdout)
	if !term || width <= 0 {
		width = logview.DefaultWidth
	}
	t := &logview.Table{W: w, Width: width, Color: term && a.env.Getenv("NO_COLOR") == "", Loc: time.Local}
	header := false
	return func(r audit.Record) error {
		if !header {
			header = true
			if err := t.Header(); err != nil {
				return err
			}
		}
		return t.Write(r)
	}
}

func writeJSON(w io.Writer, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", data)
	return err
}

// auditLogPath is the log a command reads: file when given, else the user's audit log,
// with the state directory where the daemon's database of that log lives ("" for file).
func (a *app) auditLogPath(file string) (path, stateDir string, err error) {
	if file != "" {
		return file, "", nil
	}
	d, err := a.dirs()
	if err != nil {
		return "", "", err
	}
	return d.AuditLog(), d.State, nil
}

// recordStoreFor reads the records of the log at path: from the daemon's database in
// stateDir when it holds what the log holds (its indexes answer f), else from the log.
// stateDir "" reads the log. The returned close releases what was opened.
func (a *app) recordStoreFor(ctx context.Context, path, stateDir string, f logview.Filter) (recordStore, func(), error) {
	if stateDir != "" {
		db, err := a.dbStoreFor(ctx, stateDir, path, f)
		if err != nil {
			return nil, nil, err
		}
		if db != nil {
			return db, db.close, nil
		}
	}
	return jsonlStore{path}, func() {}, nil
}
