package sqlscan

import (
	"slices"
	"strings"
)

// Mongo returns the destructive calls in mongo shell JavaScript (mongosh --eval, mongo
// scripts), each distinct finding once, in the order of the script:
//
//   - the methods dropDatabase, drop, dropUser, dropAllUsers, dropRole, dropAllRoles,
//     dropIndex and dropIndexes, and the commands {drop: …} and {dropDatabase: …} given
//     to runCommand or adminCommand: IDDrop.
//   - deleteMany, remove and updateMany with an empty filter ({}): IDUnboundedWrite.
//
// Strings, comments and regular expressions are skipped; the code in a template literal's
// ${…} is read. Calls reached indirectly (coll["drop"](), a method or filter held in a
// variable, eval) are not seen.
func Mongo(js string) []Finding {
	toks := lexJS(js)
	var found []placed
	report := func(id string, from, to int) {
		start, end := toks.extent(from, to)
		found = append(found, placed{Finding{ID: id, Evidence: evidence(js[start:end])}, start})
	}
	for i := range toks.list {
		switch {
		case toks.is(i, ".") && toks.kind(i+1) == jsIdent && toks.is(i+2, "("):
			method := toks.text(i + 1)
			switch {
			case slices.Contains(mongoDrops, method):
				report(IDDrop, i, i+2)
			case slices.Contains(mongoFilters, method) && toks.is(i+3, "{") && toks.is(i+4, "}") && (toks.is(i+5, ")") || toks.is(i+5, ",")):
				report(IDUnboundedWrite, i, i+2)
			}
		case toks.kind(i) == jsIdent && (toks.text(i) == "runCommand" || toks.text(i) == "adminCommand") &&
			toks.is(i+1, "(") && toks.is(i+2, "{") && toks.is(i+4, ":"):
			if k := toks.kind(i + 3); (k == jsIdent || k == jsString) && slices.Contains(mongoDropCommands, toks.text(i+3)) {
				report(IDDrop, i, i+1)
			}
		}
	}
	return collect(found)
}

// The word lists below are slices rather than sets: a slice literal is laid out by the
// compiler, where a map would be built at every start of moat, and these are short enough
// that a scan is as fast as a hash.

// mongoDrops are the methods that drop what they are called on.
var mongoDrops = []string{"dropDatabase", "drop", "dropUser", "dropAllUsers", "dropRole", "dropAllRoles", "dropIndex", "dropIndexes"}

// mongoFilters are the methods whose first argument is a filter and that change every
// document it matches.
var mongoFilters = []string{"deleteMany", "remove", "updateMany"}

// mongoDropCommands are the database commands that drop.
var mongoDropCommands = []string{"drop", "dropDatabase"}

// maxChain bounds how many tokens extent walks, so that evidence stays cheap.
const maxChain = 24

// extent returns the source extent of the call whose method or function token is
// between token from and the "(" at token open: back over the receiver (db.users,
// db.getCollection("x")) and on to the closing parenthesis, each within maxChain tokens.
func (ts *jsTokens) extent(from, open int) (start, end int) {
	i := from
walk:
	for n := 0; i > 0 && n < maxChain; n++ {
		bracket := ts.is(i, ".") || ts.is(i, "(") || ts.is(i, "[")
		switch {
		case ts.kind(i) == jsIdent && ts.is(i-1, "."), bracket && ts.kind(i-1) == jsIdent,
			(ts.is(i, "(") || ts.is(i, "[")) && ts.is(i-1, "."): // a?.[k], f?.()
			i--
		case bracket && (ts.is(i-1, ")") || ts.is(i-1, "]")):
			j := ts.opener(i-1, maxChain-n)
			if j < 0 {
				break walk
			}
			n += i - j
			i = j
		default:
			break walk
		}
	}
	j, depth := open, 0
	for n := 0; j < len(ts.list) && n < maxChain; j, n = j+1, n+1 {
		switch {
		case ts.is(j, "(") || ts.is(j, "[") || ts.is(j, "{"):
			depth++
		case ts.is(j, ")") || ts.is(j, "]") || ts.is(j, "}"):
			depth--
		}
		if depth == 0 {
			break
		}
	}
	j = min(j, len(ts.list)-1)
	return ts.list[i].start, ts.list[j].end
}

// opener returns the index of the bracket that the ) or ] at token i closes, looking back
// at most limit tokens, or -1.
func (ts *jsTokens) opener(i, limit int) int {
	depth := 0
	for j := i; j >= 0 && i-j < limit; j-- {
		switch {
		case ts.is(j, ")") || ts.is(j, "]"):
			depth++
		case ts.is(j, "(") || ts.is(j, "["):
			depth--
		}
		if depth == 0 {
			return j
		}
	}
	return -1
}

type jsKind uint8

const (
	jsNone   jsKind = iota // past either end of the tokens
	jsPunct                // an operator or bracket
	jsIdent                // a name, keyword or number
	jsString               // a string literal or template text
)

// A jsToken is a token's kind and extent. It holds no pointers, so that a long list of
// them costs the garbage collector nothing.
type jsToken struct {
	kind       jsKind
	start, end int
}

// jsTokens are the tokens of a script.
type jsTokens struct {
	src  string
	list []jsToken
}

func (ts *jsTokens) add(kind jsKind, start, end int) {
	ts.list = append(ts.list, jsToken{kind, start, end})
}

func (ts *jsTokens) kind(i int) jsKind {
	if i < 0 || i >= len(ts.list) {
		return jsNone
	}
	return ts.list[i].kind
}

// text returns token i's source text; for a string, its contents without quotes.
func (ts *jsTokens) text(i int) string {
	if i < 0 || i >= len(ts.list) {
		return ""
	}
	t := ts.list[i]
	s := ts.src[t.start:t.end]
	if t.kind == jsString && s != "" {
		q := s[0]
		s = s[1:]
		if s != "" && s[len(s)-1] == q {
			s = s[:len(s)-1]
		}
	}
	return s
}

// is reports whether token i is the punctuation p.
func (ts *jsTokens) is(i int, p string) bool {
	return ts.kind(i) == jsPunct && ts.text(i) == p
}

// regexAfter are the keywords after which a / starts a regular expression, not a division.
var regexAfter = []string{"return", "typeof", "case", "in", "of", "new", "delete", "void", "throw", "instanceof", "yield", "await", "else", "do"}

// lexJS splits JavaScript into tokens, skipping whitespace, comments and regular
// expressions. String and template text become string tokens, and ?. is read as . so that
// optional calls are seen.
func lexJS(src string) *jsTokens {
	ts := &jsTokens{src: src, list: make([]jsToken, 0, len(src)/4)}
	var templates []int // for each ${ open inside a template literal, the braces open then
	braces := 0
	for i := 0; i < len(src); {
		c := src[i]
		next := byte(0)
		if i+1 < len(src) {
			next = src[i+1]
		}
		switch {
		case isSpace(c):
			i++
		case c == '/' && next == '/':
			i = lineEnd(src, i)
		case c == '/' && next == '*':
			if j := strings.Index(src[i+2:], "*/"); j >= 0 {
				i += 2 + j + 2
			} else {
				i = len(src)
			}
		case c == '/' && ts.regexAllowed():
			if j := regexEnd(src, i); j > 0 {
				i = j
			} else {
				ts.add(jsPunct, i, i+1)
				i++
			}
		case c == '\'' || c == '"':
			// A string ends at its quote or, unterminated, at the end of the line.
			j := i + 1
			for j < len(src) && src[j] != c && src[j] != '\n' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j+1, len(src))
			ts.add(jsString, i, j)
			i = j
		case c == '`' || c == '}' && len(templates) > 0 && braces == templates[len(templates)-1]:
			// Template text, from a backquote or from the } that closes a ${.
			if c == '}' {
				templates = templates[:len(templates)-1]
			}
			j, open := templateEnd(src, i+1)
			if open {
				templates = append(templates, braces)
			}
			ts.add(jsString, i, j)
			i = j
		case isWordByte(c):
			j := i
			for j < len(src) && isWordByte(src[j]) {
				j++
			}
			ts.add(jsIdent, i, j)
			i = j
		case c == '?' && next == '.' && !(i+2 < len(src) && '0' <= src[i+2] && src[i+2] <= '9'):
			ts.add(jsPunct, i+1, i+2) // the . of ?.
			i += 2
		default:
			switch c {
			case '{':
				braces++
			case '}':
				braces--
			}
			ts.add(jsPunct, i, i+1)
			i++
		}
	}
	return ts
}

// regexAllowed reports whether a / after the tokens so far starts a regular expression:
// where a value cannot end, that is after an operator, an opening bracket or a keyword, not
// after a name, a number, a literal or a closing bracket.
func (ts *jsTokens) regexAllowed() bool {
	last := len(ts.list) - 1
	switch ts.kind(last) {
	case jsNone:
		return true
	case jsIdent:
		return slices.Contains(regexAfter, ts.text(last))
	case jsString:
		return false
	}
	return !ts.is(last, ")") && !ts.is(last, "]") && !ts.is(last, "}")
}

// regexEnd returns the end of the regular expression literal at src[i], or 0 when the line
// ends first, in which case it is not one.
func regexEnd(src string, i int) int {
	class := false
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\n':
			return 0
		case '\\':
			j++
		case '[':
			class = true
		case ']':
			class = false
		case '/':
			if !class {
				j++
				for j < len(src) && isWordByte(src[j]) { // flags
					j++
				}
				return j
			}
		}
	}
	return 0
}

// templateEnd returns the end of template literal text starting at src[i]: after the
// closing backquote (open false) or after a ${ (open true). Unterminated text runs to the
// end.
func templateEnd(src string, i int) (end int, open bool) {
	for ; i < len(src); i++ {
		switch {
		case src[i] == '\\':
			i++
		case src[i] == '`':
			return i + 1, false
		case src[i] == '$' && i+1 < len(src) && src[i+1] == '{':
			return i + 2, true
		}
	}
	return len(src), false
}
