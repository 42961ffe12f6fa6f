package audit_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/call"
)

// tokenMasker stands in for moat's secret scanner.
type tokenMasker struct{}

func (tokenMasker) RedactString(s string) string {
	return strings.ReplaceAll(s, "ghp_example123", "ghp_****")
}

func Example() {
	dir, err := os.MkdirTemp("", "moat-audit")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "moat", "audit.jsonl")

	l, err := audit.Open(audit.Options{Path: path, Redactor: tokenMasker{}})
	if err != nil {
		fmt.Println(err)
		return
	}
	err = l.Append(audit.Record{
		Time:     time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC),
		Agent:    "claude-code",
		Class:    "shell",
		Tool:     "Bash",
		Args:     map[string]any{"command": "curl -H 'Authorization: token ghp_example123' https://api.github.com"},
		Decision: call.Deny,
		Rule:     "no-secret-egress",
	})
	if err := l.Close(); err != nil {
		fmt.Println(err)
	}
	if err != nil {
		fmt.Println(err)
		return
	}

	err = audit.Read(path, func(r audit.Record) error {
		fmt.Println(r.Time.Format(time.RFC3339), r.Decision, r.Rule, r.Args["command"])
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// 2026-03-01T12:00:00Z deny no-secret-egress curl -H 'Authorization: token ghp_****' https://api.github.com
}
