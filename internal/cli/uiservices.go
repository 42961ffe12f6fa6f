package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"

	"github.com/moatdev/moat/internal/approval"
	"github.com/moatdev/moat/internal/audit/auditdb"
	"github.com/moatdev/moat/internal/dashboard"
	"github.com/moatdev/moat/internal/decide"
	"github.com/moatdev/moat/internal/proc"
	"github.com/moatdev/moat/internal/scan"
)

// strictUnmarshal decodes the JSON value raw into v, every field known.
func strictUnmarshal(raw json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// checkDashboardOpener refuses a login to the dashboard for process pid when it runs
// under an agent, as approval.CheckApprover refuses an approval.
func checkDashboardOpener(pid int) error {
	if _, err := approval.CheckApprover(pid, proc.Lineage, true); err != nil {
		var r *approval.Refused
		if errors.As(err, &r) {
			return fmt.Errorf("refusing to open the dashboard for %s: %s", r.Approver, r.Why)
		}
		return err
	}
	return nil
}

// uiState is an environment's dashboard: started by the first moat ui of that
// environment, served until the daemon stops.
type uiState struct {
	once    sync.Once
	srv     *dashboard.Server
	err     error
	stop    context.CancelFunc
	served  chan error
	changes *dashboard.Hub
	records *uiRecords
}

// dashboardServer returns the environment's dashboard, starting it on a loopback port
// the first time.
func (ds *daemonService) dashboardServer(services *daemonServices) (*dashboard.Server, error) {
	ui := ds.ui
	ui.once.Do(func() {
		d, err := ds.app.dirs()
		if err != nil {
			ui.err = err
			return
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			ui.err = fmt.Errorf("dashboard: %w", err)
			return
		}
		ui.records = &uiRecords{path: auditdb.Path(d.State)}
		ui.srv = dashboard.New(dashboard.Options{
			Records:   ui.records,
			Approvals: &uiApprovals{ds: ds, changes: ui.changes},
			Policies:  &uiPolicies{svc: ds.svc},
			Changes:   ui.changes,
			Now:       ds.app.env.Now,
			Log:       services.base.daemonLog,
		})
		if err := ui.srv.Bind(ln.Addr()); err != nil {
			ln.Close()
			ui.err = err
			return
		}
		ctx, cancel := context.WithCancel(context.Background())
		ui.stop, ui.served = cancel, make(chan error, 1)
		go func() { ui.served <- ui.srv.Serve(ctx, ln) }()
		services.base.daemonLog("dashboard on " + ui.srv.Origin())
	})
	return ui.srv, ui.err
}

// close stops the environment's dashboard, if it was started.
func (ui *uiState) close() {
	if ui == nil || ui.stop == nil {
		return
	}
	ui.stop()
	<-ui.served
	ui.records.close()
}

// uiRecords reads an environment's audit database for the dashboard, opening it read-only
// on first use (it exists once the daemon has imported the first record).
type uiRecords struct {
	path string
	mu   sync.Mutex
	db   *auditdb.DB
}

func (r *uiRecords) open(ctx context.Context) (*auditdb.DB, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.db != nil {
		return r.db, nil
	}
	db, err := auditdb.Open(ctx, auditdb.Options{Path: r.path, ReadOnly: true, Redactor: scan.Redactor{}})
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, errors.New("no records yet: the audit database is created when the daemon records its first decision")
		}
		return nil, err
	}
	r.db = db
	return db, nil
}

func (r *uiRecords) Query(ctx context.Context, f auditdb.Filter, p auditdb.Page) (auditdb.Result, error) {
	db, err := r.open(ctx)
	if err != nil {
		return auditdb.Result{}, err
	}
	return db.Query(ctx, f, p)
}

func (r *uiRecords) close() {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.db != nil {
		r.db.Close()
		r.db = nil
	}
}

// uiApprovals is an environment's approval queue, answered as the dashboard.
type uiApprovals struct {
	ds      *daemonService
	changes *dashboard.Hub
}

func (q *uiApprovals) store() (*approval.Store, error) {
	d, err := q.ds.app.dirs()
	if err != nil {
		return nil, err
	}
	return q.ds.app.approvalQueue().Store(d), nil
}

func (q *uiApprovals) List(context.Context) ([]approval.Listed, error) {
	store, err := q.store()
	if err != nil {
		return nil, err
	}
	return store.List()
}

// Answer answers approval id as the dashboard: the browser holding the session of a
// login that only a process outside every agent could get (daemonUIMethod).
func (q *uiApprovals) Answer(_ context.Context, id string, state approval.State) (approval.Listed, error) {
	store, err := q.store()
	if err != nil {
		return approval.Listed{}, err
	}
	who := approval.Approver{UID: os.Getuid(), How: "dashboard"}
	write := q.ds.audit.write
	if q.ds.rec != nil {
		write = q.ds.rec.write
	}
	l, warn, err := answerAs(store, who, nil, id, state, write)
	if warn != nil {
		q.ds.app.daemonLog("warning: " + warn.Error())
	}
	if err == nil {
		q.changes.Notify()
	}
	return l, err
}

// uiPolicies tries calls with an environment's decision service.
type uiPolicies struct {
	svc decide.Service
}

func (p *uiPolicies) Try(ctx context.Context, req decide.CallRequest) (decide.CallResult, error) {
	req.Record = false
	return p.svc.Decide(ctx, req)
}
