package decode

import "sync"

// Tr returns what GNU `tr SET1 SET2` prints for s: each byte of s that is in SET1 replaced
// by the byte at the same place in SET2. tr works on bytes, not characters. SET2 is padded
// with its last byte when shorter than SET1, and when a byte is in SET1 more than once its
// last place counts, as in GNU tr.
//
// Sets are written as tr reads them: single bytes, ranges (a-z), the escapes \\ \a \b \f \n
// \r \t \v and \NNN (octal; any other escaped character is itself), and the classes
// [:alnum:] [:alpha:] [:blank:] [:cntrl:] [:digit:] [:graph:] [:lower:] [:print:]
// [:punct:] [:space:] [:upper:] [:xdigit:] of the C locale. As in tr, SET2 may hold only
// [:upper:] and [:lower:], each at the place of [:lower:] or [:upper:] in SET1, to change
// case.
//
// ok is false, with the output empty, for what tr rejects (a range written backwards, an
// unknown class, an empty SET2 with a non-empty SET1, a misplaced class) and for what this
// function does not support: equivalence classes [=c=], repeats [c*n], and sets that
// expand to more than MaxOutput bytes. ok is false, with the first MaxOutput bytes of
// output, when s is longer than MaxOutput. Like any argument word, each set ends at a NUL
// byte. The options -c, -s and -t are not supported; -d is TrDelete.
func Tr(set1, set2, s string) (string, bool) {
	r1, ok := parseSet(cString(set1), false)
	if !ok {
		return "", false
	}
	r2, ok := parseSet(cString(set2), true)
	if !ok {
		return "", false
	}
	table, ok := translation(r1, r2)
	if !ok {
		return "", false
	}
	n := min(len(s), MaxOutput)
	out := make([]byte, n)
	for i := range n {
		out[i] = table[s[i]]
	}
	return string(out), len(s) <= MaxOutput
}

// TrDelete returns what `tr -d SET1` prints for s: s without the bytes in SET1, written as
// for Tr. ok is false, with the output empty, for a set Tr rejects and, with the first
// MaxOutput bytes of output, when the output is longer than MaxOutput.
func TrDelete(set1, s string) (string, bool) {
	runs, ok := parseSet(cString(set1), false)
	if !ok {
		return "", false
	}
	var del [256]bool
	for _, r := range runs {
		for c := int(r.lo); c <= int(r.hi); c++ {
			del[c] = true
		}
	}
	var w buffer
	for i := 0; i < len(s) && !w.full; i++ {
		if !del[s[i]] {
			w.addByte(s[i])
		}
	}
	return w.String(), !w.full
}

// caseClass marks the runs that are a [:upper:] or [:lower:] construct, the only classes
// SET2 may hold.
type caseClass int

const (
	noCase caseClass = iota
	upperCase
	lowerCase
)

// A run is the bytes lo through hi of a set, in that order.
type run struct {
	lo, hi byte
	class  caseClass
}

func (r run) len() int { return int(r.hi) - int(r.lo) + 1 }

// classes are the character classes of the C locale, as runs, built on first use: Go
// builds a map literal at run time, and most processes read no tr sets.
var classes = sync.OnceValue(func() map[string][]run {
	return map[string][]run{
		"alnum":  {{'0', '9', noCase}, {'A', 'Z', noCase}, {'a', 'z', noCase}},
		"alpha":  {{'A', 'Z', noCase}, {'a', 'z', noCase}},
		"blank":  {{'\t', '\t', noCase}, {' ', ' ', noCase}},
		"cntrl":  {{0, 31, noCase}, {127, 127, noCase}},
		"digit":  {{'0', '9', noCase}},
		"graph":  {{'!', '~', noCase}},
		"lower":  {{'a', 'z', lowerCase}},
		"print":  {{' ', '~', noCase}},
		"punct":  {{'!', '/', noCase}, {':', '@', noCase}, {'[', '`', noCase}, {'{', '~', noCase}},
		"space":  {{'\t', '\r', noCase}, {' ', ' ', noCase}},
		"upper":  {{'A', 'Z', upperCase}},
		"xdigit": {{'0', '9', noCase}, {'A', 'F', noCase}, {'a', 'f', noCase}},
	}
})

// char is a byte of a set after its escapes are read; escaped bytes never start or join a
// construct.
type char struct {
	c       byte
	escaped bool
}

// unescape reads the backslash escapes of a set.
func unescape(set string) []char {
	out := make([]char, 0, len(set))
	for i := 0; i < len(set); i++ {
		c := set[i]
		if c != '\\' || i+1 == len(set) {
			out = append(out, char{c: c})
			continue
		}
		i++
		switch c = set[i]; c {
		case 'a':
			c = '\a'
		case 'b':
			c = '\b'
		case 'f':
			c = '\f'
		case 'n':
			c = '\n'
		case 'r':
			c = '\r'
		case 't':
			c = '\t'
		case 'v':
			c = '\v'
		default:
			if isOctal(c) {
				// Up to three digits, but a third only while the value stays below 0400.
				v := int(c - '0')
				for n := 1; n < 3 && i+1 < len(set) && isOctal(set[i+1]) && v*8+int(set[i+1]-'0') < 0400; n++ {
					i++
					v = v*8 + int(set[i]-'0')
				}
				c = byte(v)
			}
		}
		out = append(out, char{c: c, escaped: true})
	}
	return out
}

// parseSet reads a set into runs. ok is false for a set tr rejects or this package does
// not support (see Tr); in SET2 only case classes are allowed.
func parseSet(set string, second bool) ([]run, bool) {
	cs := unescape(set)
	is := func(i int, c byte) bool { return i < len(cs) && cs[i].c == c && !cs[i].escaped }
	var runs []run
	total := 0
	for i := 0; i < len(cs); {
		if is(i, '[') {
			switch {
			case is(i+1, ':'):
				if end := closing(cs, i+2, ':'); end >= 0 {
					name := make([]byte, 0, end-i-2)
					for _, c := range cs[i+2 : end] {
						name = append(name, c.c)
					}
					class, ok := classes()[string(name)]
					if !ok || second && class[0].class == noCase {
						return nil, false
					}
					runs = append(runs, class...)
					for _, r := range class {
						total += r.len()
					}
					if total > MaxOutput {
						return nil, false
					}
					i = end + 2
					continue
				}
			case is(i+1, '='):
				if closing(cs, i+2, '=') >= 0 {
					return nil, false // an equivalence class
				}
			case is(i+2, '*'):
				j := i + 3
				for j < len(cs) && isDigit(cs[j].c) && !cs[j].escaped {
					j++
				}
				if is(j, ']') {
					return nil, false // a repeat
				}
			}
		}
		r := run{lo: cs[i].c, hi: cs[i].c}
		if is(i+1, '-') && i+2 < len(cs) {
			r.hi = cs[i+2].c
			if r.hi < r.lo {
				return nil, false
			}
			i += 3
		} else {
			i++
		}
		runs = append(runs, r)
		total += r.len()
		if total > MaxOutput {
			return nil, false
		}
	}
	return runs, true
}

// closing returns the index of the first unescaped "c]" at or after cs[i], or -1.
func closing(cs []char, i int, c byte) int {
	for ; i+1 < len(cs); i++ {
		if cs[i].c == c && !cs[i].escaped && cs[i+1].c == ']' && !cs[i+1].escaped {
			return i
		}
	}
	return -1
}

// translation returns the table that maps each byte to what tr SET1 SET2 prints for it.
// ok is false where GNU tr rejects the pair of sets.
func translation(r1, r2 []run) (table [256]byte, ok bool) {
	for i := range table {
		table[i] = byte(i)
	}
	len1, len2 := 0, 0
	for _, r := range r1 {
		len1 += r.len()
	}
	for _, r := range r2 {
		len2 += r.len()
	}
	switch {
	case len1 > 0 && len2 == 0:
		return table, false // tr: string2 must be non-empty
	case len1 > len2 && r2[len(r2)-1].class != noCase:
		return table, false // tr: string2 must not end with a character class
	}
	var pad byte
	if len2 > 0 {
		pad = r2[len(r2)-1].hi
	}
	i2, off2 := 0, 0 // the next byte of SET2 is r2[i2].lo + off2
	for _, a := range r1 {
		for off1 := 0; off1 < a.len(); {
			if i2 == len(r2) {
				table[int(a.lo)+off1] = pad
				off1++
				continue
			}
			b := r2[i2]
			if b.class != noCase {
				// A case class in SET2 must face a whole case class in SET1.
				if off1 != 0 || a.class == noCase {
					return table, false
				}
				if a.class != b.class {
					for c := int(a.lo); c <= int(a.hi); c++ {
						table[c] = byte(c) ^ 0x20 // ASCII letters differ in case by this bit
					}
				}
				i2++
				break
			}
			table[int(a.lo)+off1] = byte(int(b.lo) + off2)
			off1++
			if off2++; off2 == b.len() {
				i2, off2 = i2+1, 0
			}
		}
	}
	// tr reads SET2 one byte past the end of SET1, so a case class there faces nothing.
	// Beyond that it does not look.
	if i2 < len(r2) && off2 == 0 && r2[i2].class != noCase {
		return table, false
	}
	return table, true
}
