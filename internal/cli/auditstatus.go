package cli

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/moatdev/moat/internal/audit"
)

// auditStatus is the state of the audit trail as `moat status` shows it.
type auditStatus struct {
	audit.Health
	// Error is why the log's directory could not be looked at.
	Error string `json:"error,omitempty"`
}

// auditState looks at the audit log at path without writing.
func auditState(path string) auditStatus {
	h, err := audit.Inspect(path)
	st := auditStatus{Health: h}
	if err != nil {
		st.Error = err.Error()
	}
	return st
}

// line says in one line whether decisions reach the audit log, for `moat status`.
func (st auditStatus) line(loc *time.Location) string {
	var problems []string
	if st.Error != "" {
		problems = append(problems, "cannot be looked at: "+st.Error)
	}
	for _, r := range st.Refused {
		problems = append(problems, "REFUSED "+r.String())
	}
	if st.Unwritable != "" {
		problems = append(problems, "decisions cannot be recorded: "+st.Unwritable)
	}
	if st.Waiting > 0 {
		problems = append(problems, fmt.Sprintf("%d %s waiting in spool files since %s", st.Waiting, plural(st.Waiting, "record", "records"),
			st.Spools[0].Since.In(loc).Format("2006-01-02 15:04:05")))
	}
	if len(problems) > 0 {
		return fmt.Sprintf("audit log %s: %s (run `moat doctor`)", st.Path, strings.Join(problems, "; "))
	}
	s := fmt.Sprintf("audit log %s: decisions are written", st.Path)
	if st.Last != nil {
		var counts []string
		for _, k := range slices.Sorted(maps.Keys(st.Incidents)) {
			counts = append(counts, fmt.Sprintf("%d %s", st.Incidents[k], k))
		}
		s += fmt.Sprintf("; writers noted incidents (%s), the last at %s", strings.Join(counts, ", "), st.Last.Time.In(loc).Format("2006-01-02 15:04:05"))
	}
	return s
}

// statusAudit is the audit trail's part of `moat status`.
func (a *app) statusAudit() auditStatus {
	d, err := a.dirs()
	if err != nil {
		return auditStatus{Error: err.Error()}
	}
	return auditState(d.AuditLog())
}

// statusLine is line in local time.
func (st auditStatus) statusLine() string { return st.line(time.Local) }
