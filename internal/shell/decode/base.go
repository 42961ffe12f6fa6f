package decode

import "sync"

// digits maps each byte to its value as a digit of a base-2^n encoding, or -1.
type digits [256]int8

func newDigits(alphabets ...string) *digits {
	var d digits
	for i := range d {
		d[i] = -1
	}
	for _, a := range alphabets {
		for v, c := range []byte(a) {
			d[c] = int8(v)
		}
	}
	return &d
}

// The alphabets, built on first use rather than at every start of moat, and read only
// after. Base64 takes both the standard and the URL-safe alphabet, which differ only in the
// last two digits.
var (
	base64Digits = sync.OnceValue(func() *digits {
		return newDigits(
			"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
			"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
	})
	base32Digits = sync.OnceValue(func() *digits { return newDigits("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") })
)

// Base64 returns what `base64 -d` prints for s: s decoded as standard or URL-safe base64,
// padded or not, with ASCII whitespace anywhere ignored. Like GNU base64 it accepts padded
// groups one after another ("cm0=cm0=") and does not insist that unused bits be zero.
//
// ok is false when s is not valid base64: it holds a character outside both alphabets, a
// group ends after a single digit, or padding does not end a partial group. The string
// returned then holds what was decoded before the error. GNU base64 writes the same before
// it fails, except that it stops at whitespace other than newlines, which this skips; a
// caller that passes the output on must still inspect it.
func Base64(s string) (string, bool) {
	return decodeBase(s, base64Digits(), 6)
}

// Base32 returns what `base32 -d` prints for s: s decoded as RFC 4648 base32 (upper-case
// letters and 2-7, as GNU base32 reads it), padded or not, with ASCII whitespace anywhere
// ignored. Its other rules, and what it returns when ok is false, are those of Base64.
func Base32(s string) (string, bool) {
	return decodeBase(s, base32Digits(), 5)
}

// decodeBase decodes s, whose digits are worth bits bits each. It keeps the bits of the
// digits read but not yet output in acc, n of them; a group may end (at padding or at the
// end of s) only where its last digit completed a byte, that is where 0 <= n < bits.
func decodeBase(s string, d *digits, bits uint) (string, bool) {
	var w buffer
	var acc uint32
	var n uint
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isSpace(c) {
			continue
		}
		if c == '=' {
			if n == 0 || n >= bits {
				return w.String(), false
			}
			for i+1 < len(s) && (s[i+1] == '=' || isSpace(s[i+1])) {
				i++
			}
			acc, n = 0, 0
			continue
		}
		v := d[c]
		if v < 0 {
			return w.String(), false
		}
		acc = acc<<bits | uint32(v)
		n += bits
		if n >= 8 {
			n -= 8
			w.addByte(byte(acc >> n))
			acc &= 1<<n - 1
		}
	}
	if n >= bits || w.full {
		return w.String(), false
	}
	return w.String(), true
}

// Hex returns what `xxd -r -p` prints for s: pairs of hexadecimal digits of either case,
// each written as a byte, with the spaces, tabs, newlines and carriage returns that xxd
// skips ignored. As in xxd, a digit left over at the end is dropped.
//
// ok is false when s holds any other character; the string returned then holds the bytes
// decoded before it. (xxd itself skips or resynchronises over such characters in ways that
// depend on its version, so a caller should treat the output as unknown.)
func Hex(s string) (string, bool) {
	var w buffer
	high := -1
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		v := hexValue(c)
		if v < 0 {
			return w.String(), false
		}
		if high < 0 {
			high = v
			continue
		}
		w.addByte(byte(high<<4 | v))
		high = -1
	}
	if w.full {
		return w.String(), false
	}
	return w.String(), true
}

// isSpace reports whether c is ASCII whitespace.
func isSpace(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\v', '\f', '\r':
		return true
	}
	return false
}
