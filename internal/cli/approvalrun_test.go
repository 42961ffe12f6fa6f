package cli

import (
	"context"
	"errors"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/approval"
)

// moat run without a terminal holds an ask for approval; approved, the identical
// command runs once; under approvals.queue: never it is refused as before approvals.
func TestGuardApproval(t *testing.T) {
	noTTY := func() (io.ReadWriteCloser, error) { return nil, errors.New("no tty") }
	a, stderr, pol := guardApp(t, guardPolicy, nil)
	o := guardOptions{policy: pol, agent: "aider", event: eventRun, deps: guardDeps{openTTY: noTTY}}
	if a.guard(context.Background(), o, "touch x") {
		t.Fatal("an ask without a terminal ran")
	}
	m := regexp.MustCompile("`moat approve ([0-9a-f]+)`").FindStringSubmatch(stderr.String())
	if m == nil {
		t.Fatalf("stderr %q names no approval", stderr)
	}
	d, _ := a.dirs()
	if _, err := a.approvalQueue().Store(d).Answer(m[1], approval.Once, "me"); err != nil {
		t.Fatal(err)
	}
	if !a.guard(context.Background(), o, "touch x") {
		t.Errorf("the approved command did not run: %s", stderr)
	}
	if a.guard(context.Background(), o, "touch x") {
		t.Error("the approved command ran twice on a once approval")
	}

	a, stderr, pol = guardApp(t, guardPolicy+"approvals: {queue: never}\n", nil)
	o.policy = pol
	if a.guard(context.Background(), o, "touch x") || !strings.Contains(stderr.String(), "no terminal to ask on, so it is denied") || strings.Contains(stderr.String(), "moat approve") {
		t.Errorf("queue: never: stderr %q", stderr)
	}
}
