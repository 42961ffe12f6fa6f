//go:build unix

package doctor

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/dirs"
	"golang.org/x/sys/unix"
)

type noRedaction struct{}

func (noRedaction) RedactString(s string) string { return s }

func appendRecord(t *testing.T, path string, lockWait time.Duration) error {
	t.Helper()
	l, err := audit.Open(audit.Options{Path: path, Redactor: noRedaction{}, LockWait: lockWait})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Append(audit.Record{Class: "shell", Tool: "Bash", Decision: call.Deny, Args: map[string]any{"command": "rm -rf ~"}})
}

// TestAuditChecks: doctor fails when the trail cannot be written (a link at the log, a
// record stuck in a spool) or was changed, warns on past incidents, and is content with a
// log written normally.
func TestAuditChecks(t *testing.T) {
	tests := []struct {
		name   string
		setup  func(t *testing.T, path string)
		status map[string]Status
		want   string // in the failing or warning finding's message
		fix    string
	}{
		{
			name:   "written normally",
			setup:  func(t *testing.T, path string) { appendRecord(t, path, 0) },
			status: map[string]Status{"audit.writes": OK, "audit.log": OK, "audit.chain": OK},
		},
		{
			name: "log is a link to /dev/null",
			setup: func(t *testing.T, path string) {
				appendRecord(t, path, 0)
				os.Remove(path)
				os.Symlink("/dev/null", path)
				if err := appendRecord(t, path, 0); !errors.Is(err, audit.ErrSpooled) {
					t.Fatalf("Append = %v", err)
				}
			},
			status: map[string]Status{"audit.writes": Fail},
			want:   "it is a symbolic link (to /dev/null)",
			fix:    "rm ",
		},
		{
			name: "a record stuck in a spool file",
			setup: func(t *testing.T, path string) {
				appendRecord(t, path, 0)
				f, err := os.OpenFile(path+".lock", os.O_RDWR, 0)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				unix.Flock(int(f.Fd()), unix.LOCK_EX)
				defer unix.Flock(int(f.Fd()), unix.LOCK_UN)
				if err := appendRecord(t, path, 20*time.Millisecond); !errors.Is(err, audit.ErrSpooled) {
					t.Fatalf("Append = %v", err)
				}
			},
			status: map[string]Status{"audit.writes": Fail, "audit.chain": OK},
			want:   "1 record has waited in spool files",
			fix:    "fuser -v",
		},
		{
			name: "a spooled record merged since",
			setup: func(t *testing.T, path string) {
				os.MkdirAll(filepath.Dir(path), 0o700)
				f, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
				if err != nil {
					t.Fatal(err)
				}
				unix.Flock(int(f.Fd()), unix.LOCK_EX)
				if err := appendRecord(t, path, 20*time.Millisecond); !errors.Is(err, audit.ErrSpooled) {
					t.Fatalf("Append = %v", err)
				}
				f.Close()
				appendRecord(t, path, 0)
			},
			status: map[string]Status{"audit.writes": Warn, "audit.chain": OK},
			want:   "1 spooled",
		},
		{
			name: "a record removed",
			setup: func(t *testing.T, path string) {
				for range 3 {
					appendRecord(t, path, 0)
				}
				data, _ := os.ReadFile(path)
				lines := strings.SplitAfter(string(data), "\n")
				os.WriteFile(path, []byte(lines[0]+lines[2]), 0o600)
			},
			status: map[string]Status{"audit.writes": OK, "audit.log": OK, "audit.chain": Fail},
			want:   "deleted: records 2 are missing",
			fix:    "moat logs --verify",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			state := filepath.Join(t.TempDir(), "state")
			in := Inputs{Dirs: dirs.Dirs{State: state}, GOOS: "linux"}
			tt.setup(t, in.Dirs.AuditLog())
			findings := append([]Finding{checkAuditWrites(in)}, checkAuditLog(in)...)
			got := map[string]Finding{}
			for _, f := range findings {
				got[f.ID] = f
			}
			for id, want := range tt.status {
				f := got[id]
				if f.Status != want {
					t.Errorf("%s = %s (%s), want %s", id, f.Status, f.Message, want)
				}
				if want == OK {
					continue
				}
				if !strings.Contains(f.Message, tt.want) {
					t.Errorf("%s message %q lacks %q", id, f.Message, tt.want)
				}
				if !strings.Contains(f.Fix, tt.fix) {
					t.Errorf("%s fix %q lacks %q", id, f.Fix, tt.fix)
				}
			}
		})
	}
}
