package hook

import (
	"bufio"
	"bytes"
	"errors"
)

// ReadLine reads one line without its newline. A line longer than limit is consumed and
// dropped, reported by tooLong, without holding more than limit bytes: moat's
// newline-delimited protocols (check --stdin, the daemon's socket) read requests with it.
func ReadLine(r *bufio.Reader, limit int) (line []byte, tooLong bool, err error) {
	var buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(buf)+len(chunk) > limit+1 {
				tooLong, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if tooLong {
			return nil, true, err
		}
		buf = bytes.TrimSuffix(buf, []byte("\n"))
		buf = bytes.TrimSuffix(buf, []byte("\r"))
		if len(buf) > limit {
			return nil, true, err
		}
		return buf, false, err
	}
}
