package hookrelay

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
)

// readEvent reads what io.ReadAll(io.LimitReader(r, limit)) reads, from every kind of
// input: a file (sized by its length), a pipe, a reader that gives a byte at a time, one
// that fails.
func TestReadEvent(t *testing.T) {
	const limit = 40 << 10
	big := bytes.Repeat([]byte("0123456789abcdef"), 4<<10) // 64 KiB, past the limit
	tests := []struct {
		name    string
		content []byte
	}{
		{"empty", nil},
		{"an event", []byte(`{"tool_name":"Bash"}`)},
		{"larger than the first buffer", big[:eventBuffer+100]},
		{"exactly the limit", big[:limit]},
		{"past the limit", big},
	}
	sources := map[string]func(t *testing.T, b []byte) io.Reader{
		"file": func(t *testing.T, b []byte) io.Reader {
			p := filepath.Join(t.TempDir(), "event")
			if err := os.WriteFile(p, b, 0o600); err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.Close() })
			return f
		},
		"pipe": func(t *testing.T, b []byte) io.Reader {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { r.Close() })
			go func() { w.Write(b); w.Close() }()
			return r
		},
		"byte by byte": func(t *testing.T, b []byte) io.Reader { return iotest.OneByteReader(bytes.NewReader(b)) },
	}
	for _, tt := range tests {
		for name, source := range sources {
			t.Run(tt.name+"/"+name, func(t *testing.T) {
				want, _ := io.ReadAll(io.LimitReader(bytes.NewReader(tt.content), limit))
				got, err := readEvent(source(t, tt.content), limit)
				if err != nil || !bytes.Equal(got, want) {
					t.Errorf("read %d bytes (%v), want %d", len(got), err, len(want))
				}
			})
		}
	}
	failing := io.MultiReader(strings.NewReader("{"), iotest.ErrReader(errors.New("broken pipe")))
	if got, err := readEvent(failing, limit); err == nil || string(got) != "{" {
		t.Errorf("a failing input: %q, %v", got, err)
	}
}
