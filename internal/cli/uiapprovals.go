package cli

import (
	"context"
	"fmt"
	"os"

	"github.com/moatdev/moat/internal/approval"
	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/dashboard"
	"github.com/moatdev/moat/internal/scan"
)

// uiApprovals is an environment's approval queue, answered as the dashboard: the browser
// holding the session of a login that only a process outside every agent could get
// (daemonUIMethod).
type uiApprovals struct {
	app *app // the environment's
	// write records an answer, as the daemon records the environment's decisions.
	write func(audit.Record) error
	// log reports what failed beside an answer that stands.
	log     func(string)
	changes *dashboard.Hub
}

// newUIApprovals returns the queue of ds's environment, telling changes of each answer.
func newUIApprovals(ds *daemonService, changes *dashboard.Hub) *uiApprovals {
	write := ds.audit.write
	if ds.rec != nil {
		write = ds.rec.write
	}
	return &uiApprovals{app: ds.app, write: write, log: ds.app.daemonLog, changes: changes}
}

// approver is who answers through the dashboard.
func (q *uiApprovals) approver() approval.Approver {
	return approval.Approver{UID: os.Getuid(), How: "dashboard"}
}

func (q *uiApprovals) store() (*approval.Store, error) {
	d, err := q.app.dirs()
	if err != nil {
		return nil, err
	}
	return q.app.approvalQueue().Store(d), nil
}

func (q *uiApprovals) List(context.Context) ([]approval.Listed, error) {
	store, err := q.store()
	if err != nil {
		return nil, err
	}
	return store.List()
}

// Answer answers approval id with state as the dashboard, and records it.
func (q *uiApprovals) Answer(_ context.Context, id string, state approval.State) (approval.Listed, error) {
	store, err := q.store()
	if err != nil {
		return approval.Listed{}, err
	}
	l, warn, err := answerAs(store, q.approver(), nil, id, state, q.write)
	if warn != nil {
		q.log("warning: " + warn.Error())
	}
	if err == nil && q.changes != nil {
		q.changes.Notify()
	}
	return l, err
}

// Always answers approval id for good as moat approve ID --always does, through the same
// alwaysRules: the rules go into the user's own policy, are recorded, and the waiting
// call is granted once. With dryRun nothing is written and the approval still waits.
func (q *uiApprovals) Always(ctx context.Context, id string, dryRun bool) (dashboard.AlwaysResult, error) {
	d, err := q.app.dirs()
	if err != nil {
		return dashboard.AlwaysResult{}, err
	}
	store := q.app.approvalQueue().Store(d)
	l, err := store.Get(id)
	if err != nil {
		return dashboard.AlwaysResult{}, err
	}
	res := dashboard.AlwaysResult{DryRun: dryRun, File: d.UserPolicy(), Rules: []dashboard.AlwaysRule{}}
	rules, err := q.app.alwaysRules(ctx, d, l, dryRun, func(s alwaysStep) {
		res.Rules = append(res.Rules, dashboard.AlwaysRule{
			Call: printable(scan.Redact(s.Call.Describe())), Rule: s.Proposal.Rule, Already: s.Already, Preview: alwaysShown(s),
		})
	})
	if err != nil {
		return dashboard.AlwaysResult{}, err
	}
	if dryRun {
		return res, nil
	}
	who := q.approver()
	if len(rules) > 0 {
		if err := q.write(alwaysRecord(l, rules, res.File, who)); err != nil {
			q.log(fmt.Sprintf("warning: recording the rules written: %v", err))
		}
	}
	// As moat approve --always: the waiting call goes ahead once in any case.
	granted, warn, err := answerAs(store, who, nil, l.ID, approval.Once, q.write)
	if warn != nil {
		q.log("warning: " + warn.Error())
	}
	if q.changes != nil {
		q.changes.Notify()
	}
	if err != nil {
		return dashboard.AlwaysResult{}, fmt.Errorf("the rule is written, but approving the waiting call failed: %w", err)
	}
	res.Approval = &granted
	res.Note = q.app.alwaysNote(l, res.File)
	return res, nil
}
