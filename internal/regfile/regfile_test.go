//go:build unix

package regfile

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRead reads each kind of file a policy location may hold, and checks that only a
// regular file (or a link to one) is read, that a missing file is fs.ErrNotExist and that
// nothing else is.
func TestRead(t *testing.T) {
	dir := t.TempDir()
	at := func(name string) string { return filepath.Join(dir, name) }
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(at("regular"), []byte("version: 1\n"), 0o600))
	must(os.WriteFile(at("big"), make([]byte, 65), 0o600))
	must(os.Symlink(at("regular"), at("link")))
	must(os.Symlink(at("nowhere"), at("dangling")))
	must(os.Symlink(at("nowhere-dir"), at("danglingdir")))
	must(os.Symlink(at("loop2"), at("loop1")))
	must(os.Symlink(at("loop1"), at("loop2")))
	must(syscall.Mkfifo(at("fifo"), 0o600))
	must(os.Symlink(at("fifo"), at("fifolink")))
	must(os.Symlink("/dev/null", at("devnull")))
	must(os.Mkdir(at("dir"), 0o700))
	l, err := net.Listen("unix", at("sock"))
	must(err)
	defer l.Close()

	var (
		notRegular *NotRegularError
		dangling   *DanglingLinkError
		tooLarge   *TooLargeError
	)
	tests := []struct {
		name     string
		path     string
		want     string // content, when it is read
		notExist bool
		as       any // the error type expected
		inErr    string
	}{
		{name: "regular file", path: at("regular"), want: "version: 1\n"},
		{name: "link to a regular file", path: at("link"), want: "version: 1\n"},
		{name: "missing", path: at("missing"), notExist: true},
		{name: "missing under a missing directory", path: at("no/such/file"), notExist: true},
		{name: "dangling link", path: at("dangling"), as: &dangling, inErr: "symbolic link to " + at("nowhere") + ", which does not exist"},
		{name: "under a dangling directory link", path: at("danglingdir/moat.yaml"), as: &dangling, inErr: "is in " + at("danglingdir")},
		{name: "link loop", path: at("loop1"), inErr: "too many levels"},
		{name: "FIFO", path: at("fifo"), as: &notRegular, inErr: "is a FIFO (named pipe), not a regular file"},
		{name: "link to a FIFO", path: at("fifolink"), as: &notRegular, inErr: "FIFO"},
		{name: "device", path: at("devnull"), as: &notRegular, inErr: "is a character device"},
		{name: "directory", path: at("dir"), as: &notRegular, inErr: "is a directory"},
		{name: "socket", path: at("sock"), as: &notRegular, inErr: "is a socket"},
		{name: "over the limit", path: at("big"), as: &tooLarge, inErr: "larger than 64 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			data, err := Read(tt.path, 64)
			if took := time.Since(start); took > time.Second {
				t.Errorf("Read took %s: it must never wait", took)
			}
			if tt.want != "" {
				if err != nil || string(data) != tt.want {
					t.Fatalf("Read = %q, %v; want %q", data, err, tt.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("Read = %q, want an error", data)
			}
			if errors.Is(err, fs.ErrNotExist) != tt.notExist {
				t.Errorf("errors.Is(%v, fs.ErrNotExist) = %v, want %v", err, !tt.notExist, tt.notExist)
			}
			if tt.as != nil && !errors.As(err, tt.as) {
				t.Errorf("error %v (%T) is not a %T", err, err, tt.as)
			}
			if tt.inErr != "" && !strings.Contains(err.Error(), tt.inErr) {
				t.Errorf("error %q does not say %q", err, tt.inErr)
			}
		})
	}
}

// A FIFO swapped in after the kind was checked is refused on the descriptor, without
// waiting for a writer: openNonBlocking must not block on it.
func TestOpenNonBlockingFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		f, err := openNonBlocking(fifo)
		if err == nil {
			f.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("openNonBlocking: %v", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("opening a FIFO without a writer blocked")
	}
}
