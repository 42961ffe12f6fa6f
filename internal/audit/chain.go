package audit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
)

// How records are chained. Each line ends with "seq" (the record's number in the log)
// and "chain": "sha256:" and the hex SHA-256 of the previous line's bytes, without its
// newline. The first record of a log chains to "start". The chain runs across rotations:
// the first record of a fresh active file chains to the last one of Path.1.
//
// The chain makes the trail tamper-evident, not tamper-proof: whoever can write the log
// can also recompute every hash after an edit. It catches the edit, the deleted or
// reordered record and the truncated tail that leave the rest of the log as it was.
const (
	chainStart  = "start"
	chainPrefix = "sha256:"
)

// maxSealLen bounds what seal adds to a line.
var maxSealLen = len(`,"seq":18446744073709551615,"chain":"sha256:`) + sha256.Size*2 + len(`"`)

// lineHash is the chain value of the record that follows line (with or without its
// newline).
func lineHash(line []byte) string {
	sum := sha256.Sum256(bytes.TrimSuffix(line, []byte{'\n'}))
	return chainPrefix + hex.EncodeToString(sum[:])
}

// seal adds seq and chain to body, a record's JSON line without them. They are the
// Record's last fields, so the sealed line is what encoding the record with them gives.
func seal(body []byte, seq uint64, chain string) []byte {
	end := bytes.LastIndexByte(body, '}')
	out := make([]byte, 0, len(body)+maxSealLen)
	out = append(out, body[:end]...)
	if seq > 0 { // a record an older moat wrote, carried into the kept file, has none
		out = append(out, `,"seq":`...)
		out = strconv.AppendUint(out, seq, 10)
	}
	out = append(out, `,"chain":`...)
	out = strconv.AppendQuote(out, chain)
	return append(out, "}\n"...)
}

// head is what the lock file says about the last record written: its number, the chain
// value of the record to follow it, and the file and size the log had just after it. A
// writer that finds the active file as the head left it chains without reading the file;
// one that does not finds out why (see next). Verify checks the log still ends with it:
// a cut tail leaves the head naming a record that is gone.
type head struct {
	seq      uint64
	hash     string
	dev, ino uint64
	size     int64
}

// headLen is the fixed length of the head in the lock file, padding included, so that a
// shorter head overwrites a longer one whole.
const headLen = 200

const headFormat = "moat-audit-head 1 seq=%d hash=%s dev=%d ino=%d size=%d"

func (h head) bytes() []byte {
	b := fmt.Appendf(nil, headFormat, h.seq, h.hash, h.dev, h.ino, h.size)
	for len(b) < headLen-1 {
		b = append(b, ' ')
	}
	return append(b, '\n')
}

// readHead reads the head from the lock file; false when there is none (a log written by
// an older moat, or a lock file made afresh).
func readHead(f *os.File) (head, bool) {
	buf := make([]byte, headLen)
	n, err := f.ReadAt(buf, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return head{}, false
	}
	return parseHead(buf[:n])
}

// parseHead reads what head.bytes wrote. It is on every append's path, so it splits the
// fields itself rather than through fmt.Sscanf.
func parseHead(b []byte) (head, bool) {
	line, _, _ := bytes.Cut(b, []byte{'\n'})
	f := strings.Fields(string(line))
	if len(f) != 7 || f[0] != "moat-audit-head" || f[1] != "1" {
		return head{}, false
	}
	var h head
	var errs [4]error
	var ok [5]bool
	var v string
	v, ok[0] = strings.CutPrefix(f[2], "seq=")
	h.seq, errs[0] = strconv.ParseUint(v, 10, 64)
	h.hash, ok[1] = strings.CutPrefix(f[3], "hash=")
	v, ok[2] = strings.CutPrefix(f[4], "dev=")
	h.dev, errs[1] = strconv.ParseUint(v, 10, 64)
	v, ok[3] = strings.CutPrefix(f[5], "ino=")
	h.ino, errs[2] = strconv.ParseUint(v, 10, 64)
	v, ok[4] = strings.CutPrefix(f[6], "size=")
	h.size, errs[3] = strconv.ParseInt(v, 10, 64)
	if ok != [5]bool{true, true, true, true, true} || errors.Join(errs[:]...) != nil || !validHash(h.hash) || h.size < 0 {
		return head{}, false
	}
	return h, true
}

func validHash(s string) bool {
	hexPart, ok := bytes.CutPrefix([]byte(s), []byte(chainPrefix))
	if !ok || len(hexPart) != sha256.Size*2 {
		return false
	}
	_, err := hex.DecodeString(string(hexPart))
	return err == nil
}

// writeHead records line, just written to the active file fi, whose size is now size,
// as the log's last record. A failure leaves the old head, which next recognises.
func (l *Log) writeHead(fi fs.FileInfo, size int64, seq uint64, line []byte) {
	h := head{seq: seq, hash: lineHash(bytes.TrimPrefix(line, []byte{'\n'})), size: size}
	h.dev, h.ino, _ = fileID(fi)
	_, _ = l.lock.WriteAt(h.bytes(), 0)
}

// next returns the number and chain value of the record about to be appended to the
// active file fi; the caller holds the lock.
//
// The head is trusted when the active file is as it left it, or fresh (just rotated or
// recreated: the head names the record before). Otherwise the file's last line decides:
// it is the head's record (the head was written by another path to the same state);
// or it chains to the head's record (its writer stopped before updating the head: it is
// the last record); or neither, and the record chains to the head's record anyway, so
// that Verify shows the break where records went missing. Without a head (a log of an
// older moat) the record chains to the last line, and numbering starts again.
//
// st is the lock file as read under the lock. asLeft reports that the active file is as
// the head left it, ending with the head's record and its newline.
func (l *Log) next(fi fs.FileInfo, st lockState) (seq uint64, chain string, asLeft bool) {
	h, haveHead := st.head, st.haveHead
	size := fi.Size()
	if haveHead {
		dev, ino, ok := fileID(fi)
		if ok && dev == h.dev && ino == h.ino && size == h.size {
			return h.seq + 1, h.hash, true
		}
		if size == 0 {
			return h.seq + 1, h.hash, false
		}
	}
	seq, chain = l.nextFromLastLine(fi, h, haveHead)
	return seq, chain, false
}

// nextFromLastLine is next for an active file the head does not describe: its last line
// decides (see next).
func (l *Log) nextFromLastLine(fi fs.FileInfo, h head, haveHead bool) (uint64, string) {
	size := fi.Size()
	last := lastLine(l.f, size)
	if last == nil && size == 0 {
		last = lastLineOf(rotatedPath(l.path, 1))
	}
	if last == nil {
		if haveHead {
			return h.seq + 1, h.hash
		}
		return 1, chainStart
	}
	hash := lineHash(last)
	seq, chain := sealOf(last)
	switch {
	case haveHead && hash == h.hash:
		return h.seq + 1, h.hash
	case haveHead && chain == h.hash && seq > 0:
		return seq + 1, hash
	case haveHead:
		return h.seq + 1, h.hash
	}
	return seq + 1, hash
}

// sealOf returns the seq and chain of a record line, zero when it has none.
func sealOf(line []byte) (uint64, string) {
	var s struct {
		Seq   uint64 `json:"seq"`
		Chain string `json:"chain"`
	}
	if json.Unmarshal(line, &s) != nil {
		return 0, ""
	}
	return s.Seq, s.Chain
}

// maxLastLine bounds how far back lastLine looks for the start of the last line: lines
// moat writes are far shorter; an older moat's could be longer, and is then not chained to.
const maxLastLine = 4 << 20

// lastLine returns the last complete line of the first size bytes of f, without its
// newline; nil when there is none, or it cannot be read. Bytes after the last newline are
// a line being written or cut off, and are not a line.
func lastLine(f *os.File, size int64) []byte {
	for n := min(size, 32<<10); n > 0; n = min(size, 4*n) {
		buf := make([]byte, n)
		if _, err := f.ReadAt(buf, size-n); err != nil {
			return nil
		}
		end := bytes.LastIndexByte(buf, '\n')
		if end < 0 && n == size {
			return nil
		}
		if end >= 0 {
			start := bytes.LastIndexByte(buf[:end], '\n') + 1
			if start > 0 || n == size {
				return buf[start:end]
			}
		}
		if n == size || n >= maxLastLine {
			return nil
		}
	}
	return nil
}

// lastLineOf is lastLine of the whole file at path.
func lastLineOf(path string) []byte {
	f, err := openChecked(path, os.O_RDONLY)
	if err != nil {
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil
	}
	return lastLine(f, fi.Size())
}
