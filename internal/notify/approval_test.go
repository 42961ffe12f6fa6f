//go:build unix

package notify

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

type bellBuffer struct{ strings.Builder }

func (*bellBuffer) Close() error { return nil }

func TestApprovalNotification(t *testing.T) {
	runs := fakeProgram(t, 0)
	var bell bellBuffer
	err := Approval("3f2a", "Bash: rm -rf build", "deleting needs a yes", ApprovalOptions{Bell: func() (io.WriteCloser, error) { return &bell, nil }})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(runs()) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	got := runs()
	if len(got) != 1 {
		t.Fatalf("%d runs of the notification program, want 1", len(got))
	}
	text := strings.Join(got[0], " ")
	for _, want := range []string{"approval 3f2a", "Bash: rm -rf build", "deleting needs a yes", "moat approve 3f2a"} {
		if !strings.Contains(text, want) {
			t.Errorf("notification %q does not say %q", text, want)
		}
	}
	if bell.Len() != 0 {
		t.Error("the bell rang as well as the notification")
	}
}

func TestApprovalBellFallback(t *testing.T) {
	var bell bellBuffer
	none := func(string) (string, error) { return "", errors.New("not found") }
	if err := Approval("3f2a", "x", "y", ApprovalOptions{LookPath: none, Bell: func() (io.WriteCloser, error) { return &bell, nil }}); err != nil {
		t.Fatal(err)
	}
	if bell.String() != "\a" {
		t.Errorf("bell got %q", bell.String())
	}
	if err := Approval("3f2a", "x", "y", ApprovalOptions{LookPath: none}); err == nil {
		t.Error("no program and no bell: no error")
	}
}
