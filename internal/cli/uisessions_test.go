package cli

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/audit/auditdb"
	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/scan"
)

// Before the daemon recorded anything there are no sessions, not a failure; after, the
// sessions and their records are read from the database, read-only.
func TestUISessions(t *testing.T) {
	path := filepath.Join(t.TempDir(), auditdb.FileName)
	records := &uiRecords{path: path}
	defer records.close()
	s := &uiSessions{records: records}
	ctx := context.Background()
	if list, err := s.Sessions(ctx, auditdb.SessionFilter{}); err != nil || len(list) != 0 {
		t.Fatalf("sessions before any record: %+v, %v", list, err)
	}
	if page, err := s.SessionRecords(ctx, "codex", "s1", 0, 0); err != nil || len(page.Records) != 0 {
		t.Fatalf("records before any: %+v, %v", page, err)
	}
	db, err := auditdb.Open(ctx, auditdb.Options{Path: path, Redactor: scan.Redactor{}})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	if err := db.Append(ctx, audit.Record{Time: now, Agent: "codex", Session: "s1", Class: "shell", Tool: "Bash", Args: map[string]any{"command": "ls"}, Decision: call.Allow}); err != nil {
		t.Fatal(err)
	}
	list, err := s.Sessions(ctx, auditdb.SessionFilter{})
	if err != nil || len(list) != 1 || list[0].Agent != "codex" || list[0].Calls != 1 {
		t.Fatalf("sessions: %+v, %v", list, err)
	}
	page, err := s.SessionRecords(ctx, "codex", "s1", 0, 0)
	if err != nil || len(page.Records) != 1 || page.Records[0].Seq != 1 {
		t.Fatalf("records: %+v, %v", page, err)
	}
}
