package jsonrpc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// readAll reads every frame, writing a frame as itself and an error as "!" and its text.
func readAll(r *Reader) ([]string, error) {
	var out []string
	for {
		line, err := r.Next()
		if err == io.EOF {
			return out, nil
		}
		var fe *FrameError
		if errors.As(err, &fe) {
			out = append(out, fmt.Sprintf("!%s id=%s", fe.Msg, fe.ID))
			continue
		}
		if err != nil {
			return out, err
		}
		out = append(out, string(line))
	}
}

var readerCases = []struct {
	name string
	in   string
	max  int
	want []string
}{
	{"lines", "a\nb\n", 0, []string{"a", "b"}},
	{"no final newline", "a\nb", 0, []string{"a", "b"}},
	{"empty input", "", 0, nil},
	{"crlf", "a\r\nb\r\n", 0, []string{"a", "b"}},
	{"crlf at eof", "a\r\nb\r", 0, []string{"a", "b"}},
	{"only one cr stripped", "a\r\r\n", 0, []string{"a\r"}},
	{"inner cr kept", "a\rb\n", 0, []string{"a\rb"}},
	{"blank lines", "\n\n a\n  \n\r\n\t\n \r \nb\n\n", 0, []string{" a", "b"}},
	{"only blank lines", "\n \r\n\t", 0, nil},
	{"at the limit", "0123456789\nx\n", 10, []string{"0123456789", "x"}},
	{"crlf counts toward the limit", "0123456789\r\nx\n", 10, []string{"!frame of 11 bytes is longer than the limit of 10 id=", "x"}},
	{"over the limit", "01234567890\nx\n", 10, []string{"!frame of 11 bytes is longer than the limit of 10 id=", "x"}},
	{"over the limit at eof", "x\n01234567890", 10, []string{"x", "!frame of 11 bytes is longer than the limit of 10 id="}},
	{"two over the limit", "01234567890\n01234567890123\n", 10, []string{"!frame of 11 bytes is longer than the limit of 10 id=", "!frame of 14 bytes is longer than the limit of 10 id="}},
	{"id from the kept prefix", `{"jsonrpc":"2.0","id":"q1","method":"tools/call","params":{}}` + "\nx", 40, []string{`!frame of 61 bytes is longer than the limit of 40 id="q1"`, "x"}},
	// The prefix ends inside the id: 12 might be the start of 123.
	{"no id cut at the limit", `{"jsonrpc":"2.0","id":123}`, 24, []string{`!frame of 26 bytes is longer than the limit of 24 id=`}},
	{"no id cut in a string", `{"jsonrpc":"2.0","id":"abc"}`, 25, []string{`!frame of 28 bytes is longer than the limit of 25 id=`}},
}

func TestReader(t *testing.T) {
	for _, tc := range readerCases {
		// The same frames must come out however the input is split by reads.
		for _, wrap := range []struct {
			name string
			fn   func(io.Reader) io.Reader
		}{
			{"whole", func(r io.Reader) io.Reader { return r }},
			{"bytewise", iotest.OneByteReader},
			{"halves", iotest.HalfReader},
			{"eof with data", iotest.DataErrReader},
		} {
			t.Run(tc.name+"/"+wrap.name, func(t *testing.T) {
				got, err := readAll(NewReader(wrap.fn(strings.NewReader(tc.in)), tc.max))
				if err != nil {
					t.Fatal(err)
				}
				if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", tc.want) {
					t.Errorf("read %q:\n got %q\nwant %q", tc.in, got, tc.want)
				}
			})
		}
	}
}

func TestReaderKeepsEOF(t *testing.T) {
	r := NewReader(strings.NewReader("a"), 0)
	for i, want := range []string{"a", "EOF", "EOF"} {
		line, err := r.Next()
		got := string(line)
		if err != nil {
			got = err.Error()
		}
		if got != want {
			t.Errorf("call %d: got %q, want %q", i, got, want)
		}
	}
}

// failOnce returns its error once, then reads from r.
type failOnce struct {
	err error
	r   io.Reader
}

func (f *failOnce) Read(p []byte) (int, error) {
	if err := f.err; err != nil {
		f.err = nil
		return 0, err
	}
	return f.r.Read(p)
}

func TestReaderError(t *testing.T) {
	boom := errors.New("boom")
	r := NewReader(io.MultiReader(strings.NewReader("a\nhalf a line"), &failOnce{boom, strings.NewReader("more\n")}), 0)
	if line, err := r.Next(); err != nil || string(line) != "a" {
		t.Fatalf("got %q, %v", line, err)
	}
	for range 2 {
		if line, err := r.Next(); !errors.Is(err, boom) {
			t.Fatalf("got %q, %v; want the reader's error, again and again", line, err)
		}
	}
}

// repeat is an endless stream of one byte, to build huge lines without holding them.
type repeat byte

func (b repeat) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(b)
	}
	return len(p), nil
}

// TestReaderHugeLine: a 65 MiB line is skipped without being held, its id is still
// recovered, and the next line reads fine.
func TestReaderHugeLine(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 65 MiB")
	}
	const size = 65 << 20
	head := `{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"write","arguments":{"content":"`
	tail := `"}}}`
	next := `{"jsonrpc":"2.0","id":43,"method":"tools/list"}`
	in := io.MultiReader(
		strings.NewReader(head),
		io.LimitReader(repeat('a'), size-int64(len(head)+len(tail))),
		strings.NewReader(tail+"\n"+next+"\n"),
	)
	r := NewReader(in, 0)
	_, err := r.Next()
	var fe *FrameError
	if !errors.As(err, &fe) || !fe.TooLarge {
		t.Fatalf("got %v, want a TooLarge *FrameError", err)
	}
	if want := fmt.Sprintf("frame of %d bytes is longer than the limit of %d at offset %d", size, MaxFrame, MaxFrame); err.Error() != want {
		t.Errorf("got %q, want %q", err, want)
	}
	if string(fe.ID) != "42" {
		t.Errorf("ID = %q, want 42", fe.ID)
	}
	if cap(r.buf) > MaxFrame {
		t.Errorf("the reader grew its buffer to %d bytes, over the limit of %d", cap(r.buf), MaxFrame)
	}
	line, err := r.Next()
	if err != nil || string(line) != next {
		t.Fatalf("after the huge line: got %.80q, %v", line, err)
	}
	// The buffer that held the huge line's prefix is not kept for the small ones.
	if cap(r.buf) > keepBuffer {
		t.Errorf("the reader kept a buffer of %d bytes", cap(r.buf))
	}
	if _, err := r.Next(); err != io.EOF {
		t.Errorf("got %v, want EOF", err)
	}
}

// TestReaderBigMessage: a 16 MiB tools/call passes through Reader and Parse unchanged.
func TestReaderBigMessage(t *testing.T) {
	payload := strings.Repeat("x", 16<<20)
	msg := `{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"name":"write","arguments":{"content":"` + payload + `"}}}`
	r := NewReader(strings.NewReader(msg+"\r\n"+msg), 0)
	for range 2 {
		line, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		f, err := Parse(line)
		if err != nil {
			t.Fatal(err)
		}
		m := f.Messages[0]
		if m.Kind != Request || m.Method != "tools/call" || string(m.ID) != `"big"` || !bytes.Equal(m.Raw, []byte(msg)) {
			t.Fatalf("got %v %s %q, Raw of %d bytes", m.Kind, m.ID, m.Method, len(m.Raw))
		}
	}
	if _, err := r.Next(); err != io.EOF {
		t.Errorf("got %v, want EOF", err)
	}
}

// countingWriter records each Write.
type countingWriter struct {
	writes [][]byte
	n      int // bytes to accept per write; 0 means all
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.writes = append(w.writes, append([]byte(nil), p...))
	if w.n > 0 && w.n < len(p) {
		return w.n, nil
	}
	return len(p), nil
}

func TestWriteFrame(t *testing.T) {
	var w countingWriter
	line := make([]byte, 3, 10) // spare capacity must not be written into
	copy(line, "{}x")
	if err := WriteFrame(&w, line[:2]); err != nil {
		t.Fatal(err)
	}
	if len(w.writes) != 1 || string(w.writes[0]) != "{}\n" {
		t.Errorf("writes = %q, want one write of \"{}\\n\"", w.writes)
	}
	if string(line) != "{}x" {
		t.Errorf("WriteFrame changed the caller's slice: %q", line)
	}
	for _, bad := range []string{"", "{}\n", "{\n}", "{}\r", "\r"} {
		if err := WriteFrame(&w, []byte(bad)); err == nil {
			t.Errorf("WriteFrame(%q) = nil, want an error", bad)
		}
	}
	if len(w.writes) != 1 {
		t.Errorf("a refused frame was written: %q", w.writes)
	}
	if err := WriteFrame(&countingWriter{n: 1}, []byte("{}")); !errors.Is(err, io.ErrShortWrite) {
		t.Errorf("short write: got %v", err)
	}
}
