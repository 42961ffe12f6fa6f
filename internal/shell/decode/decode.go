// Package decode computes what the programs commonly used to hide a command (base64 -d,
// base32 -d, xxd -r -p, printf, echo, rev, tr) print for a given static input, so that the
// shell analyser can inspect the text a pipeline would hand to a shell. It does not parse
// shell syntax, run anything, decompress, or decide what is dangerous, and it models bash 5
// and GNU coreutils in a UTF-8 locale, not BSD, busybox or other locales. Every function
// takes time and memory in proportion to its input and produces at most MaxOutput bytes.
package decode

import "strings"

// MaxOutput is the most output, in bytes, that a function of this package produces. The
// functions that report ok report false when the output would be longer; the others
// truncate it.
const MaxOutput = 1 << 20

// buffer collects output up to MaxOutput bytes. A write that does not fit is cut to fit
// and sets full, and every later write is dropped, so what the buffer holds is always a
// prefix of the whole output.
type buffer struct {
	b    []byte
	full bool
}

func (w *buffer) addByte(c byte) {
	if w.full || len(w.b) == MaxOutput {
		w.full = true
		return
	}
	w.b = append(w.b, c)
}

// add writes s.
func (w *buffer) add(s string) {
	if w.full {
		return
	}
	if room := MaxOutput - len(w.b); len(s) > room {
		s = s[:room]
		w.full = true
	}
	w.b = append(w.b, s...)
}

// pad writes n copies of c.
func (w *buffer) pad(c byte, n int) {
	if w.full || n <= 0 {
		return
	}
	if room := MaxOutput - len(w.b); n > room {
		n = room
		w.full = true
	}
	for range n {
		w.b = append(w.b, c)
	}
}

func (w *buffer) String() string { return string(w.b) }

// cString returns s up to its first NUL byte. A program's arguments are C strings, so a
// NUL ends them: the shell could not have passed anything after it.
func cString(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}

// appendCodePoint appends r encoded as bash encodes \u and \U escapes in a UTF-8 locale: the
// original, unrestricted UTF-8 scheme, so surrogates and values above U+10FFFF up to
// 0x7FFFFFFF are encoded too (in up to six bytes) and larger values produce nothing.
func appendCodePoint(w *buffer, r uint32) {
	switch {
	case r < 0x80:
		w.addByte(byte(r))
	case r < 0x800:
		w.addByte(0xc0 | byte(r>>6))
		w.addByte(0x80 | byte(r)&0x3f)
	case r < 0x10000:
		w.addByte(0xe0 | byte(r>>12))
		w.addByte(0x80 | byte(r>>6)&0x3f)
		w.addByte(0x80 | byte(r)&0x3f)
	case r < 0x200000:
		w.addByte(0xf0 | byte(r>>18))
		w.addByte(0x80 | byte(r>>12)&0x3f)
		w.addByte(0x80 | byte(r>>6)&0x3f)
		w.addByte(0x80 | byte(r)&0x3f)
	case r < 0x4000000:
		w.addByte(0xf8 | byte(r>>24))
		w.addByte(0x80 | byte(r>>18)&0x3f)
		w.addByte(0x80 | byte(r>>12)&0x3f)
		w.addByte(0x80 | byte(r>>6)&0x3f)
		w.addByte(0x80 | byte(r)&0x3f)
	case r < 0x80000000:
		w.addByte(0xfc | byte(r>>30))
		w.addByte(0x80 | byte(r>>24)&0x3f)
		w.addByte(0x80 | byte(r>>18)&0x3f)
		w.addByte(0x80 | byte(r>>12)&0x3f)
		w.addByte(0x80 | byte(r>>6)&0x3f)
		w.addByte(0x80 | byte(r)&0x3f)
	}
}

func isOctal(c byte) bool { return '0' <= c && c <= '7' }

// hexValue returns the value of the hexadecimal digit c, or -1.
func hexValue(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}
