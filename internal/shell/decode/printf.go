package decode

import (
	"math"
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Printf returns what bash's builtin `printf FORMAT ARGS...` prints. The caller removes
// printf's own options (`--`, and `-v NAME`, with which nothing is printed).
//
// The format's backslash escapes are \a \b \e \E \f \n \r \t \v \\ \' \" \?, \NNN (1-3
// octal digits), \xHH, \uHHHH and \UHHHHHHHH; other backslashes print as themselves. Its
// conversions are %%, %s, %b (the argument with the escapes of echo -e, plus \NNN), %c, %d,
// %i, %o, %u, %x and %X, with the flags - + space 0 #, a width and a precision (either
// may be *), and C's length modifiers, which bash ignores. As in bash, a missing argument
// reads as "" or 0, a number may be decimal, 0-prefixed octal, 0x-prefixed hex or a
// quote followed by a character (whose code is the number), and the format is used again
// while arguments remain, provided it consumed some. Widths and precisions count bytes and
// %c prints the first byte of its argument, as in bash 5.2.
//
// ok is false, and the string holds only the output before that point, where bash would
// fail (an invalid or incomplete conversion such as %y or a trailing %), where the output
// depends on the locale or on floating point (%e %f %g %a, the ' flag, %q, %(...)T), and
// where the output would exceed MaxOutput. A \c in a %b argument ends the output with ok
// true, as in bash. Like any argument word, format and arguments end at a NUL byte.
func Printf(format string, args []string) (string, bool) {
	f := parseFormat(cString(format))
	var w buffer
	p := printer{w: &w, args: args}
	for {
		start := p.next
		for i := range f.pieces {
			pc := &f.pieces[i]
			switch pc.kind {
			case literal:
				w.add(f.text[pc.from:pc.to])
			case fail:
				return w.String(), false
			case convert:
				switch p.convert(pc.conv) {
				case stopped:
					return w.String(), !w.full
				case failed:
					return w.String(), false
				}
			}
			if w.full {
				return w.String(), false
			}
		}
		if p.next == start || p.next >= len(args) {
			return w.String(), !w.full
		}
	}
}

// A format is parsed once, into pieces, which keeps Printf linear: each use of the format
// costs one step per conversion, and each conversion but the last use's consumes an
// argument. The pieces hold no pointers, so that a long format costs the garbage collector
// nothing; the literal text, escapes read, is all in text.
type parsedFormat struct {
	pieces []piece
	text   string
}

type pieceKind uint8

const (
	literal pieceKind = iota // text[from:to], printed as is
	convert                  // a conversion
	fail                     // where bash fails, or this package cannot follow it
)

// A piece is one part of a parsed format.
type piece struct {
	kind     pieceKind
	from, to int
	conv     conversion
}

// conversion is one %-directive.
type conversion struct {
	verb                          byte // one of "sbcdiouxX"
	minus, plus, space, zero, alt bool // the flags - + space 0 #
	width, prec                   int  // -1 when not given
	widthArg, precArg             bool // given as *: taken from the arguments
}

// parseFormat splits a format into pieces, reading its escapes. It ends with a fail piece
// at the first conversion it cannot handle, since bash stops there too (or this package
// must).
func parseFormat(s string) parsedFormat {
	// At most two pieces per %, and one more for the text after the last.
	pieces := make([]piece, 0, 2*strings.Count(s, "%")+2)
	var lit buffer
	from := 0
	flush := func() {
		if len(lit.b) > from {
			pieces = append(pieces, piece{kind: literal, from: from, to: len(lit.b)})
			from = len(lit.b)
		}
	}
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == '\\':
			i, _ = readEscape(&lit, s, i, formatEscapes)
		case c == '%' && i+1 < len(s) && s[i+1] == '%':
			lit.addByte('%')
			i += 2
		case c == '%':
			flush()
			conv, end, ok := parseConversion(s, i+1)
			if !ok {
				pieces = append(pieces, piece{kind: fail})
				return parsedFormat{pieces, lit.String()}
			}
			pieces = append(pieces, piece{kind: convert, conv: conv})
			i = end
		default:
			lit.addByte(c)
			i++
		}
	}
	flush()
	if lit.full {
		// One use of the format alone prints more than MaxOutput.
		pieces = append(pieces, piece{kind: fail})
	}
	return parsedFormat{pieces, lit.String()}
}

// parseConversion reads the directive after a % at s[i:]. It returns the index after
// it, and ok false for a directive that bash rejects or this package does not handle.
func parseConversion(s string, i int) (c conversion, end int, ok bool) {
	c.width, c.prec = -1, -1
flags:
	for ; i < len(s); i++ {
		switch s[i] {
		case '-':
			c.minus = true
		case '+':
			c.plus = true
		case ' ':
			c.space = true
		case '0':
			c.zero = true
		case '#':
			c.alt = true
		default:
			break flags
		}
	}
	if i < len(s) && s[i] == '*' {
		c.widthArg = true
		i++
	} else if i < len(s) && isDigit(s[i]) {
		c.width, i = digitsValue(s, i)
	}
	if i < len(s) && s[i] == '.' {
		i++
		if i < len(s) && s[i] == '*' {
			c.precArg = true
			i++
		} else {
			c.prec, i = digitsValue(s, i)
		}
	}
	for i < len(s) && strings.IndexByte("hjlLtz", s[i]) >= 0 {
		i++
	}
	if i == len(s) || strings.IndexByte("sbcdiouxX", s[i]) < 0 {
		return c, i, false
	}
	c.verb = s[i]
	return c, i + 1, true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// digitsValue reads decimal digits at s[i:], saturating above MaxOutput, which no width or
// precision this package handles reaches.
func digitsValue(s string, i int) (int, int) {
	v := 0
	for ; i < len(s) && isDigit(s[i]); i++ {
		v = min(v*10+int(s[i]-'0'), MaxOutput+1)
	}
	return v, i
}

// printer prints conversions, taking their arguments in turn.
type printer struct {
	w    *buffer
	args []string
	next int // index of the next argument to take
}

type outcome int

const (
	printed outcome = iota
	stopped         // a \c in a %b argument ended the output
	failed          // the conversion cannot be printed
)

// arg takes the next argument; a missing one reads as "".
func (p *printer) arg() string {
	if p.next >= len(p.args) {
		return ""
	}
	p.next++
	return cString(p.args[p.next-1])
}

func (p *printer) convert(c conversion) outcome {
	if c.widthArg {
		v := signedArg(p.arg())
		if v < 0 {
			c.minus = true
			v = -max(v, -math.MaxInt64)
		}
		c.width = int(min(v, MaxOutput+1))
	}
	if c.precArg {
		c.prec = int(max(min(signedArg(p.arg()), MaxOutput+1), -1))
	}
	if c.width > MaxOutput {
		return failed
	}
	switch c.verb {
	case 's':
		p.pad(c, precise(c, p.arg()))
	case 'b':
		var b buffer
		arg := p.arg()
		stop := false
		for i := 0; i < len(arg) && !stop; {
			if arg[i] != '\\' {
				b.addByte(arg[i])
				i++
				continue
			}
			i, stop = readEscape(&b, arg, i, bEscapes)
		}
		p.pad(c, precise(c, b.String()))
		if stop {
			return stopped
		}
	case 'c':
		s := p.arg()
		if s == "" {
			s = "\x00" // bash prints a NUL for an empty or missing argument
		}
		p.pad(c, s[:1])
	default:
		if c.prec > MaxOutput {
			return failed
		}
		p.pad(c, formatInteger(c, p.arg()))
	}
	return printed
}

// precise returns s cut to the conversion's precision, counted in bytes as C's printf does.
func precise(c conversion, s string) string {
	if c.prec >= 0 && c.prec < len(s) {
		return s[:c.prec]
	}
	return s
}

// pad prints s in a field of the conversion's width, padded with spaces.
func (p *printer) pad(c conversion, s string) {
	n := c.width - len(s)
	if !c.minus {
		p.w.pad(' ', n)
	}
	p.w.add(s)
	if c.minus {
		p.w.pad(' ', n)
	}
}

// formatInteger formats arg as C's printf formats an integer for the conversion, before
// padding with spaces; zeros requested by the 0 flag are already in.
func formatInteger(c conversion, arg string) string {
	var neg bool
	var mag uint64
	base := 10
	switch c.verb {
	case 'd', 'i':
		v := signedArg(arg)
		neg = v < 0
		mag = uint64(v)
		if neg {
			mag = -mag
		}
	default:
		mag = unsignedArg(arg)
		switch c.verb {
		case 'o':
			base = 8
		case 'x', 'X':
			base = 16
		}
	}
	digits := strconv.FormatUint(mag, base)
	if c.verb == 'X' {
		digits = strings.ToUpper(digits)
	}
	if c.prec == 0 && mag == 0 {
		digits = ""
	}
	if c.prec > len(digits) {
		digits = strings.Repeat("0", c.prec-len(digits)) + digits
	}
	prefix := ""
	switch c.verb {
	case 'd', 'i':
		switch {
		case neg:
			prefix = "-"
		case c.plus:
			prefix = "+"
		case c.space:
			prefix = " "
		}
	case 'o':
		if c.alt && !strings.HasPrefix(digits, "0") {
			digits = "0" + digits
		}
	case 'x', 'X':
		if c.alt && mag != 0 {
			prefix = "0" + string(c.verb)
		}
	}
	if n := c.width - len(prefix) - len(digits); c.zero && !c.minus && c.prec < 0 && n > 0 {
		digits = strings.Repeat("0", n) + digits
	}
	return prefix + digits
}

// signedArg returns the number bash's printf reads from arg for %d, %i and *: as
// strtoimax reads it (so as much of it as is a number, clamped to 64 bits), or the code of
// the character after a leading quote.
func signedArg(arg string) int64 {
	neg, mag, overflow := parseNumber(arg)
	switch {
	case neg && (overflow || mag > 1<<63):
		return math.MinInt64
	case !neg && (overflow || mag > math.MaxInt64):
		return math.MaxInt64
	case neg:
		return int64(-mag) // two's complement: -mag as a uint64 is the negative value's bits
	}
	return int64(mag)
}

// unsignedArg returns the number bash's printf reads from arg for %o, %u, %x and %X, as
// strtoumax reads it: a negative number wraps around.
func unsignedArg(arg string) uint64 {
	neg, mag, overflow := parseNumber(arg)
	switch {
	case overflow:
		return math.MaxUint64
	case neg:
		return -mag
	}
	return mag
}

// parseNumber reads the sign and magnitude of a number argument; overflow reports a
// magnitude beyond 64 bits.
func parseNumber(s string) (neg bool, mag uint64, overflow bool) {
	if s != "" && (s[0] == '\'' || s[0] == '"') {
		if len(s) == 1 {
			return false, 0, false
		}
		r, size := utf8.DecodeRuneInString(s[1:])
		if r == utf8.RuneError && size <= 1 {
			return false, uint64(s[1]), false
		}
		return false, uint64(r), false
	}
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		neg = s[i] == '-'
		i++
	}
	base := 10
	switch {
	case i+2 < len(s) && s[i] == '0' && (s[i+1] == 'x' || s[i+1] == 'X') && hexValue(s[i+2]) >= 0:
		base = 16
		i += 2
	case i < len(s) && s[i] == '0':
		base = 8
	}
	for ; i < len(s); i++ {
		d := hexValue(s[i])
		if d < 0 || d >= base {
			break
		}
		hi, lo := bits.Mul64(mag, uint64(base))
		if hi != 0 || lo+uint64(d) < lo {
			overflow = true
			continue
		}
		mag = lo + uint64(d)
	}
	return neg, mag, overflow
}
