package cli

import (
	"context"
	"os"

	"github.com/moatdev/moat/internal/approval"
	"github.com/moatdev/moat/internal/dashboard"
)

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
