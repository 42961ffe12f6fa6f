//go:build unix

package logview

import (
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/creack/pty"
)

// TestTerminal: a terminal reports its width; a pipe, a file and a buffer are no terminal,
// so that logs and doctor print plain text there.
func TestTerminal(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	if err := pty.Setsize(ptmx, &pty.Winsize{Cols: 123, Rows: 40}); err != nil {
		t.Fatal(err)
	}
	if width, ok := Terminal(tty); !ok || width != 123 {
		t.Errorf("Terminal(pty) = %d, %v; want 123, true", width, ok)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	file, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	for name, out := range map[string]io.Writer{"pipe": w, "file": file, "buffer": &bytes.Buffer{}} {
		if width, ok := Terminal(out); ok {
			t.Errorf("Terminal(%s) = %d, true; want no terminal", name, width)
		}
	}
}
