package jsonrpc

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// MaxFrame is the default largest frame (one line without its newline): 64 MiB. Tool
// results carrying files or images in base64 reach tens of megabytes, and messages of at
// least 16 MiB must pass.
const MaxFrame = 64 << 20

// keepBuffer is the largest line buffer a Reader keeps between frames: a proxy that once
// relayed a 60 MiB result should not hold 60 MiB for the rest of the session.
const keepBuffer = 1 << 20

// Reader reads newline-delimited frames. It never holds more than max bytes of one frame:
// a longer line is consumed to its newline and reported as *FrameError{TooLarge: true},
// and the next Next continues with the following line. A final line without a newline at
// EOF is still a frame. A trailing "\r" is stripped (after the limit is applied to the
// line with it), and blank lines, made only of spaces, tabs and "\r", are skipped.
//
// A Reader is not safe for concurrent use; a proxy has one per direction.
type Reader struct {
	br  *bufio.Reader
	max int
	buf []byte
	err error // io.EOF or the underlying reader's error, once met
}

// NewReader returns a Reader of r for lines of at most max bytes, newline excluded; max <= 0
// means MaxFrame.
func NewReader(r io.Reader, max int) *Reader {
	if max <= 0 {
		max = MaxFrame
	}
	return &Reader{br: bufio.NewReaderSize(r, 64<<10), max: max}
}

// Next returns the next frame, without its line ending. The slice is only valid until the
// next call, which may overwrite it; so are the slices of a Frame parsed from it. At the
// end of the input Next returns io.EOF. An error from the underlying reader is returned
// as is, and a partial line read before it is dropped. Only a *FrameError leaves the
// Reader usable: after io.EOF or a read error, every call returns that error again, so a
// loop that goes on after an error it does not know cannot spin on a broken pipe.
func (r *Reader) Next() ([]byte, error) {
	if cap(r.buf) > keepBuffer {
		r.buf = nil
	}
	for {
		line, err := r.line()
		if err != nil {
			return nil, err
		}
		if !blank(line) {
			return line, nil
		}
	}
}

// line reads one line into r.buf, keeping at most r.max bytes of it.
func (r *Reader) line() ([]byte, error) {
	if r.err != nil {
		return nil, r.err
	}
	r.buf = r.buf[:0]
	var n int64 // the line's length so far, newline excluded
	for {
		chunk, err := r.br.ReadSlice('\n')
		ended := err == nil
		if ended {
			chunk = chunk[:len(chunk)-1]
		}
		n += int64(len(chunk))
		// Keep what fits; past the limit the first max bytes are kept all the same, to
		// recover the id of the request the proxy must refuse.
		if room := r.max - len(r.buf); room > 0 {
			r.buf = appendCapped(r.buf, chunk[:min(len(chunk), room)], r.max)
		}
		switch {
		case ended:
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF:
			r.err = io.EOF
			if n == 0 {
				return nil, io.EOF
			}
		default:
			r.err = err
			return nil, err
		}
		if n > int64(r.max) {
			return nil, &FrameError{
				Msg:      fmt.Sprintf("frame of %d bytes is longer than the limit of %d", n, r.max),
				Offset:   int64(r.max),
				TooLarge: true,
				ID:       recoverID(r.buf),
			}
		}
		line := r.buf
		if len(line) > 0 && line[len(line)-1] == '\r' {
			line = line[:len(line)-1]
		}
		return line, nil
	}
}

// appendCapped appends b to buf, never growing it beyond max bytes of capacity: append's
// own growth could double a 40 MiB buffer to 80 MiB for a line the limit then refuses.
func appendCapped(buf, b []byte, limit int) []byte {
	if len(buf)+len(b) > cap(buf) {
		c := min(max(2*cap(buf), len(buf)+len(b), 4096), limit)
		nb := make([]byte, len(buf), c)
		copy(nb, buf)
		buf = nb
	}
	return append(buf, b...)
}

func blank(line []byte) bool {
	for _, c := range line {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

// WriteFrame writes line and a newline in a single Write, so that writers serialised by
// the caller (one mutex per output stream: a proxy answers a client both with relayed
// server messages and with its own refusals) never interleave parts of two frames.
// WriteFrame itself does not lock. It refuses an empty line and a line containing CR or
// LF, which would reach the peer as more than one frame.
func WriteFrame(w io.Writer, line []byte) error {
	if len(line) == 0 {
		return errors.New("jsonrpc: refusing to write an empty frame")
	}
	if bytes.IndexByte(line, '\n') >= 0 || bytes.IndexByte(line, '\r') >= 0 {
		return errors.New("jsonrpc: refusing to write a frame containing CR or LF")
	}
	b := make([]byte, len(line)+1)
	copy(b, line)
	b[len(line)] = '\n'
	n, err := w.Write(b)
	if err == nil && n < len(b) {
		err = io.ErrShortWrite
	}
	return err
}
