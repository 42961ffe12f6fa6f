package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/moatdev/moat/internal/bundle"
	"github.com/moatdev/moat/internal/daemon"
	"github.com/moatdev/moat/internal/decide"
	"github.com/moatdev/moat/internal/dirs"
	"github.com/moatdev/moat/internal/doctor"
	"github.com/moatdev/moat/internal/fleet"
	"github.com/moatdev/moat/internal/fleetdb"
	"github.com/moatdev/moat/internal/metrics"
	"github.com/moatdev/moat/internal/policy"
	"github.com/moatdev/moat/internal/policysign"
	"github.com/moatdev/moat/internal/regfile"
)

// bundleWatch fetches one daemon environment's policy bundle at start and every
// interval, in its own goroutine: a decision never waits on it. A new bundle kept in
// the state directory is put in force by refreshing the environment's service; fallback
// hooks and moat check read the same file.
type bundleWatch struct {
	dirs    dirs.Dirs
	keyPath string
	updater *bundle.Updater
	svc     *decide.Local
	log     func(string)
	metrics *metrics.Metrics // nil when not served

	cancel context.CancelFunc
	done   chan struct{}

	mu        sync.Mutex
	refused   map[bundle.Reason]uint64
	lastError string // the last error logged, so that a refusal repeated is logged once
	setupErr  string // why the watch could not start (a bad ca_file)
	// checked is the bundle's state as the last check left it, read with the refusals
	// counted so far: status reports its outcome (last check, error, reason) with the
	// counts, never a refusal's reason before its count (the updater writes the state
	// file before the check returns); what is in force, and any problem with it, is read
	// live.
	checked *bundle.Status
}

// startBundle starts fetching the policy bundle of the environment of a (directories d)
// when its fleet.yaml configures `policy:`; nil otherwise. The fleet configuration is
// read once: a change applies when the daemon restarts.
func (s *daemonServices) startBundle(a *app, d dirs.Dirs, svc *decide.Local) *bundleWatch {
	cfg, err := fleet.Load(d)
	if err != nil {
		a.daemonLog("warning: " + err.Error())
		return nil
	}
	if cfg == nil || cfg.Policy == nil {
		return nil
	}
	w := &bundleWatch{dirs: d, keyPath: cfg.Policy.Key, svc: svc, log: a.daemonLog, refused: map[bundle.Reason]uint64{}, done: make(chan struct{})}
	if s.sinks != nil {
		w.metrics = s.sinks.metrics
	}
	f, err := newBundleFetcher(cfg.Policy)
	if err != nil {
		w.setupErr = err.Error()
		a.daemonLog("policy bundle: " + err.Error())
		close(w.done)
		return w
	}
	w.updater = bundle.NewUpdater(d, cfg.Policy.Key, f, a.bundleCompiler(d), a.env.Now)
	ctx, cancel := context.WithCancel(context.Background())
	w.cancel = cancel
	go w.run(ctx, cfg.Policy.Interval)
	return w
}

// newBundleFetcher is the fetcher of the source p names.
func newBundleFetcher(p *fleet.Policy) (bundle.Fetcher, error) {
	if p.URL != "" {
		return bundle.NewHTTPFetcher(p.URL, p.CAFile)
	}
	return bundle.NewPostgresFetcher(p.Postgres, p.PasswordFile), nil
}

// bundleCompiler checks that a bundle is a policy moat can decide with for the user
// whose directories are d.
func (a *app) bundleCompiler(d dirs.Dirs) bundle.Compile {
	return func(name string, doc []byte) error {
		_, err := policy.Load(name, doc, a.host(d, d.FleetBundle()))
		return err
	}
}

func (w *bundleWatch) run(ctx context.Context, interval time.Duration) {
	defer close(w.done)
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		w.check(ctx)
		t.Reset(interval)
	}
}

// check asks the source once, and logs, counts and applies what it brought.
func (w *bundleWatch) check(ctx context.Context) {
	res, err := w.updater.Check(ctx)
	if ctx.Err() != nil {
		return // the daemon is stopping
	}
	if w.metrics != nil {
		w.metrics.BundleInForce(res.Serial)
	}
	if res.Changed {
		w.log(fmt.Sprintf("policy bundle: serial %d in force, from %s", res.Serial, w.updater.Source()))
		w.svc.Refresh()
	}
	st := bundle.Describe(w.dirs, w.keyPath)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.checked = &st
	if err == nil {
		w.lastError = ""
		return
	}
	reason := bundle.ReasonOf(err)
	w.refused[reason]++
	if w.metrics != nil {
		w.metrics.BundleRefused(string(reason))
	}
	if msg := err.Error(); msg != w.lastError {
		w.lastError = msg
		inForce := "no bundle is in force yet"
		if res.Serial > 0 {
			inForce = fmt.Sprintf("serial %d stays in force", res.Serial)
		}
		w.log(fmt.Sprintf("warning: %s; %s", msg, inForce))
	}
}

// stop ends the watch and waits for a check under way.
func (w *bundleWatch) stop() {
	if w == nil {
		return
	}
	if w.cancel != nil {
		w.cancel()
	}
	<-w.done
}

// status is the watch's part of `moat daemon status`.
func (w *bundleWatch) status() daemon.BundleStatus {
	st := bundle.Describe(w.dirs, w.keyPath)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.checked != nil {
		st.LastCheck, st.LastError, st.LastReason = w.checked.LastCheck, w.checked.LastError, w.checked.LastReason
	}
	out := daemon.BundleStatus{
		State: w.dirs.State, Source: st.Source, InForce: st.InForce, Serial: st.Serial, KeyID: st.KeyID,
		FetchedAt: st.FetchedAt, LastCheck: st.LastCheck, LastError: st.LastError, LastReason: string(st.LastReason), Problem: st.Problem,
	}
	if w.setupErr != "" {
		out.LastError = w.setupErr
	}
	for r, n := range w.refused {
		if out.Refused == nil {
			out.Refused = map[string]uint64{}
		}
		out.Refused[string(r)] = n
	}
	return out
}

// bundleStatus is daemon.Options.PolicyBundle: the bundle of each environment that
// fetches one.
func (s *daemonServices) bundleStatus() *daemon.PolicyBundleStatus {
	s.mu.Lock()
	var watches []*bundleWatch
	for _, ds := range s.byKey {
		if ds.bundle != nil {
			watches = append(watches, ds.bundle)
		}
	}
	s.mu.Unlock()
	if len(watches) == 0 {
		return nil
	}
	st := &daemon.PolicyBundleStatus{}
	for _, w := range watches {
		st.Environments = append(st.Environments, w.status())
	}
	slices.SortFunc(st.Environments, func(a, b daemon.BundleStatus) int { return strings.Compare(a.State, b.State) })
	return st
}

// writeBundleStatus is the policy bundle's part of `moat daemon status`.
func writeBundleStatus(w io.Writer, st *daemon.PolicyBundleStatus) {
	if st == nil {
		return
	}
	for _, b := range st.Environments {
		writeBundleLines(w, "  ", bundle.Status{
			State:   bundle.State{Source: b.Source, Serial: b.Serial, KeyID: b.KeyID, FetchedAt: b.FetchedAt, LastCheck: b.LastCheck, LastError: b.LastError, LastReason: bundle.Reason(b.LastReason)},
			InForce: b.InForce, Problem: b.Problem,
		})
		if len(b.Refused) > 0 {
			var parts []string
			for _, r := range slices.Sorted(maps.Keys(b.Refused)) {
				parts = append(parts, fmt.Sprintf("%s %d", r, b.Refused[r]))
			}
			fmt.Fprintf(w, "  bundle     refused since start: %s\n", strings.Join(parts, ", "))
		}
	}
}

// writeBundleLines describes a policy bundle in a few lines, each starting with indent.
func writeBundleLines(w io.Writer, indent string, st bundle.Status) {
	if st.InForce {
		fmt.Fprintf(w, "%sbundle     serial %d in force (key %s), from %s, fetched %s\n", indent, st.Serial, st.KeyID, st.Source, localTime(st.FetchedAt))
	} else {
		fmt.Fprintf(w, "%sbundle     none in force: %s\n", indent, st.Problem)
		if st.Source != "" {
			fmt.Fprintf(w, "%sbundle     source %s\n", indent, st.Source)
		}
	}
	if !st.LastCheck.IsZero() {
		fmt.Fprintf(w, "%sbundle     last check %s", indent, localTime(st.LastCheck))
		if st.LastError != "" {
			fmt.Fprintf(w, ": %s", st.LastError)
		} else {
			fmt.Fprintf(w, ": ok")
		}
		fmt.Fprintln(w)
	}
}

func localTime(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return t.Local().Format(time.DateTime)
}

// statusBundle is the policy bundle of this user's installation, for `moat status`:
// nil when fleet.yaml configures none.
func (a *app) statusBundle() (*bundle.Status, error) {
	d, err := a.dirs()
	if err != nil {
		return nil, err
	}
	cfg, err := fleet.Load(d)
	if err != nil || cfg == nil || cfg.Policy == nil {
		return nil, err
	}
	st := bundle.Describe(d, cfg.Policy.Key)
	if st.Source == "" {
		st.Source = cfg.Policy.URL
		if st.Source == "" {
			st.Source = "postgres"
		}
	}
	return &st, nil
}

// doctorBundle is doctor's finding on the fleet's policy bundle: none when fleet.yaml
// configures no bundle.
func (a *app) doctorBundle() []doctor.Finding {
	st, err := a.statusBundle()
	f := doctor.Finding{ID: "fleet.policy_bundle"}
	switch {
	case err != nil:
		f.Status, f.Message, f.Fix = doctor.Fail, err.Error(), "fix the fleet configuration (fleet.yaml)"
	case st == nil:
		return nil
	case st.Kept && !st.InForce:
		// A kept bundle that fails to verify fails every decision closed.
		f.Status, f.Message = doctor.Fail, st.Problem
		f.Fix = "let the daemon fetch a good bundle (moat daemon start), or ask the administrator to publish one"
	case !st.InForce:
		f.Status, f.Message = doctor.Warn, fmt.Sprintf("no policy bundle from %s is in force yet: decisions use the other layers", st.Source)
		if st.LastError != "" {
			f.Message += "; the last check: " + st.LastError
		}
		f.Fix = "start the daemon (moat daemon start), which fetches the bundle; `moat daemon status` shows the last check"
	case st.LastError != "":
		f.Status, f.Message = doctor.Warn, fmt.Sprintf("policy bundle serial %d (key %s) is in force, but the last check failed: %s", st.Serial, st.KeyID, st.LastError)
		f.Fix = "check the bundle's source; a refused bundle must be signed by the pinned key with a higher serial"
	default:
		f.Status, f.Message = doctor.OK, fmt.Sprintf("policy bundle serial %d (key %s) in force, from %s, fetched %s", st.Serial, st.KeyID, st.Source, localTime(st.FetchedAt))
	}
	return []doctor.Finding{f}
}

// fleetPublishOptions are the flags of `moat fleet publish`.
type fleetPublishOptions struct {
	key          string
	postgres     string
	passwordFile string
	asJSON       bool
}

func newFleetPublishCmd(a *app) *cobra.Command {
	var o fleetPublishOptions
	cmd := &cobra.Command{
		Use:   "publish --key PUB [--postgres DSN] [--password-file FILE] [--json] FILE",
		Short: "Publish a signed policy as the fleet's policy bundle in PostgreSQL",
		Long: `Publish checks that FILE (written by 'moat policy sign') is intact, signed by the
public key PUB, has a serial and is a valid policy, then inserts it into the fleet's
table moat_policy_bundles. Machines whose fleet.yaml reads their bundle from that
database fetch it at their next check, verify it again with the key they pin, and put
it in force as the managed layer.

A serial not above the newest published one is refused: machines would refuse it as a
rollback. The database is fleet.yaml's policy section's, unless --postgres names
another; the connection string holds no password (--password-file, or PGPASSFILE).

Exit status: 0 when published; 1 when refused or the database fails; 64 for wrong
arguments.`,
		Example: `  moat policy sign --key corp.moat-key --serial 7 policy.yaml
  moat fleet publish --key corp.moat-pub policy.yaml
  moat fleet publish --key corp.moat-pub --postgres postgres://admin@db.example.com/moat --password-file ~/.pg-admin policy.yaml`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.key == "" {
				return usageError(errors.New("fleet publish needs --key PUB, the public key the machines pin (*.moat-pub)"))
			}
			return a.fleetPublish(cmd.Context(), o, args[0])
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.key, "key", "", "the public key the bundle must be signed with (*.moat-pub)")
	f.StringVar(&o.postgres, "postgres", "", "the database's connection string (default: fleet.yaml's policy postgres)")
	f.StringVar(&o.passwordFile, "password-file", "", "a file whose first line is the password (default: fleet.yaml's policy password_file)")
	f.BoolVar(&o.asJSON, "json", false, "print the result as JSON")
	return cmd
}

// fleetPublishResult is what `moat fleet publish --json` prints.
type fleetPublishResult struct {
	File   string `json:"file"`
	Serial int64  `json:"serial"`
	Key    string `json:"key"`
	Target string `json:"target"`
}

func (a *app) fleetPublish(ctx context.Context, o fleetPublishOptions, file string) error {
	cwd, err := a.cwd()
	if err != nil {
		return err
	}
	file = absFrom(cwd, file)
	pub, err := policysign.ReadPublic(absFrom(cwd, o.key))
	if err != nil {
		return err
	}
	doc, err := regfile.Read(file, bundle.MaxBytes)
	if err != nil {
		return err
	}
	serial, _, err := verifySigned(file, doc, pub)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	if _, err := a.compileFile(file); err != nil {
		return err
	}
	dsn, passwordFile := o.postgres, absFromIf(cwd, o.passwordFile)
	if dsn == "" {
		cfgDSN, cfgPasswordFile, err := a.fleetDatabase(policyDatabase, errors.New("fleet publish needs --postgres DSN: fleet.yaml names no policy database"))
		if err != nil {
			return err
		}
		dsn = cfgDSN
		if passwordFile == "" {
			passwordFile = cfgPasswordFile
		}
	}
	conn, err := fleetdb.Connect(ctx, dsn, passwordFile)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if err := fleetdb.CheckSchema(ctx, conn); err != nil {
		return err
	}
	if err := fleetdb.PublishBundle(ctx, conn, serial, string(doc)); err != nil {
		return err
	}
	res := fleetPublishResult{File: file, Serial: serial, Key: pub.KeyID(), Target: "postgres " + fleetdb.Target(dsn)}
	if o.asJSON {
		return writeJSON(a.env.Stdout, res)
	}
	_, err = fmt.Fprintf(a.env.Stdout, "published %s as serial %d (key %s) to %s\n", res.File, res.Serial, res.Key, res.Target)
	return err
}

// absFromIf is absFrom for an optional path.
func absFromIf(cwd, p string) string {
	if p == "" {
		return ""
	}
	return absFrom(cwd, p)
}
