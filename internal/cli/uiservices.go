package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"sync"

	"github.com/moatdev/moat/internal/approval"
	"github.com/moatdev/moat/internal/audit/auditdb"
	"github.com/moatdev/moat/internal/dashboard"
	"github.com/moatdev/moat/internal/proc"
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
			Approvals: newUIApprovals(ds, ui.changes),
			Sessions:  &uiSessions{records: ui.records},
			Policies:  &uiPolicies{app: ds.app, svc: ds.svc, records: ui.records},
			Stats:     &uiStats{records: ui.records, now: ds.app.env.Now},
			Fleet:     &uiFleet{dirs: d},
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
	if ui == nil {
		return
	}
	// Once more: waits for a start under way, and keeps a later moat ui from starting
	// one; after it, stop is safe to read.
	ui.once.Do(func() { ui.err = errors.New("the daemon is stopping") })
	if ui.stop == nil {
		return
	}
	ui.stop()
	<-ui.served
	ui.records.close()
}
