package decode

// escapes says which backslash escapes a reader understands. bash reads them in three
// places, each slightly differently:
//
//	                     \NNN octal     \0NNN octal      \' \" \?   \c
//	printf's format      1-3 digits     1-3 digits, 0 too  the char   not an escape
//	printf's %b          1-3 digits     0, then 0-3 digits not one    ends all output
//	echo -e              not one        0, then 0-3 digits not one    ends all output
//
// All three read \a \b \e \E \f \n \r \t \v \\, \xHH (1-2 digits), \uHHHH (1-4) and
// \UHHHHHHHH (1-8). Anything else is not an escape: the backslash is printed and the
// character after it is read as if it had not been there.
type escapes int

const (
	formatEscapes escapes = iota
	bEscapes
	echoEscapes
)

// readEscape reads the escape whose backslash is at s[i], writes what it stands for to w,
// and returns the index of the first byte after it. stop is true for \c where it ends
// all output.
func readEscape(w *buffer, s string, i int, e escapes) (next int, stop bool) {
	if i+1 == len(s) {
		w.addByte('\\')
		return i + 1, false
	}
	c := s[i+1]
	switch c {
	case 'a':
		w.addByte('\a')
	case 'b':
		w.addByte('\b')
	case 'e', 'E':
		w.addByte(0x1b)
	case 'f':
		w.addByte('\f')
	case 'n':
		w.addByte('\n')
	case 'r':
		w.addByte('\r')
	case 't':
		w.addByte('\t')
	case 'v':
		w.addByte('\v')
	case '\\':
		w.addByte('\\')
	case '\'', '"', '?':
		if e != formatEscapes {
			return notEscape(w, i)
		}
		w.addByte(c)
	case 'c':
		if e == formatEscapes {
			return notEscape(w, i)
		}
		return i + 2, true
	case 'x':
		v, end := number(s, i+2, 2, 16)
		if end == i+2 {
			return notEscape(w, i)
		}
		w.addByte(byte(v))
		return end, false
	case 'u', 'U':
		n := 4
		if c == 'U' {
			n = 8
		}
		v, end := number(s, i+2, n, 16)
		if end == i+2 {
			return notEscape(w, i)
		}
		appendCodePoint(w, v)
		return end, false
	default:
		if !isOctal(c) {
			return notEscape(w, i)
		}
		start := i + 1
		switch {
		case c == '0' && e != formatEscapes:
			start = i + 2 // \0NNN: the 0 is not one of the digits
		case e == echoEscapes:
			return notEscape(w, i)
		}
		v, end := number(s, start, 3, 8)
		w.addByte(byte(v)) // bash keeps the low 8 bits of \400 and above
		return end, false
	}
	return i + 2, false
}

// notEscape prints the backslash at s[i] as itself; the text after it is read normally.
func notEscape(w *buffer, i int) (int, bool) {
	w.addByte('\\')
	return i + 1, false
}

// number reads up to n digits in base 8 or 16 from s[i:]. It returns their value and the
// index after the last digit, which is i when there are none.
func number(s string, i, n, base int) (uint32, int) {
	var v uint32
	end := i
	for end < len(s) && end-i < n {
		d := hexValue(s[end])
		if d < 0 || d >= base {
			break
		}
		v = v*uint32(base) + uint32(d)
		end++
	}
	return v, end
}
