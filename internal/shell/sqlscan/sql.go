package sqlscan

import "strings"

// SQL returns the destructive statements in an SQL script, each distinct finding once, in
// the order of the script:
//
//   - DROP of a table, database, schema, view, index, user, role, sequence, function or
//     other object, TRUNCATE, and, in an ALTER statement, DROP of a column, constraint,
//     partition or key: IDDrop. DROP … IF EXISTS is reported too: it still drops.
//   - DELETE FROM and UPDATE … SET with no WHERE clause at their level of parentheses:
//     IDUnboundedWrite.
//
// Keywords are matched without regard to case, anywhere in a statement, so that
// statements inside BEGIN … END blocks, CTEs and rules are seen. Statements end at ';'
// (and at the mysql client's DELIMITER and psql's backslash commands). Quoted text and
// comments are skipped, except the strings run as SQL by DO, EXECUTE and PREPARE … FROM,
// which are read as scripts in turn.
//
// SQL clients disagree about quoting, and a script may be meant for any of them, so the
// script is read twice and the findings of both readings are returned: once as PostgreSQL
// (and SQLite) read it, and once as MySQL does, with backslash escapes in strings, `…`
// names, # comments and /*! … */ comments whose text runs. Dollar quotes ($$…$$,
// $tag$…$tag$) are skipped in both readings, so a MySQL name written like one (AS $$) is
// misread. Text the other reading would run is therefore not hidden by quoting that only
// one client understands, at the cost of reporting, say, a PostgreSQL statement inside
// backquotes.
func SQL(script string) []Finding {
	var found []placed
	for _, d := range []dialect{standard, mysql} {
		r := reading{d: d, src: script, out: &found}
		r.scan()
	}
	return collect(found)
}

type dialect int

const (
	// standard reads quoting as PostgreSQL does, and SQLite where it matters here: no
	// backslash escapes but in E'…', "…" quotes a name, -- and nesting /* */ comments,
	// dollar quotes, and psql's backslash commands, which run to the end of the line.
	standard dialect = iota
	// mysql reads quoting as MySQL and its client do: backslash escapes in '…' and "…",
	// `…` quotes a name, # comments, -- comments only before whitespace, /* */ comments
	// that do not nest, /*! … */ comments whose text is run, the client's DELIMITER
	// command and backslash commands (\g, \G…), which end a statement.
	mysql
)

// maxLevel bounds how deeply SQL in string literals (DO blocks, EXECUTE) is read. Each
// level may read the text of the script once more, so this keeps SQL linear.
const maxLevel = 3

// maxDelimiter is the longest DELIMITER honoured; a longer one is ignored.
const maxDelimiter = 16

type tokenKind int

const (
	word  tokenKind = iota // a keyword or an unquoted name
	name                   // a quoted name
	str                    // a string literal
	punct                  // any other character
)

type token struct {
	kind       tokenKind
	text       string // the source text; for a string, its contents
	quote      byte   // for a string, its quote: ' " or $
	start, end int    // offsets in the text read
}

// A reading reads one text as one dialect.
type reading struct {
	d     dialect
	level int    // 0 for the script; 1 and more for SQL in its strings
	base  int    // offset of src in the script, to order findings
	src   string // the text read
	delim string // the mysql client's delimiter, when DELIMITER changed it from ";"
	stmt  statement
	out   *[]placed
}

// scan lexes the text into statements and examines each. Every branch moves past what it
// read, so scanning is linear in the length of the text.
func (r *reading) scan() {
	src := r.src
	runningComments := 0 // mysql: /*! comments open, whose */ is not the end of a comment
	for i := 0; i < len(src); {
		c := src[i]
		next := byte(0)
		if i+1 < len(src) {
			next = src[i+1]
		}
		switch {
		case r.delim != "" && strings.HasPrefix(src[i:], r.delim):
			r.statement()
			i += len(r.delim)
		case c == ';':
			r.statement()
			i++
		case isSpace(c):
			i++
		case c == '-' && next == '-' && (r.d == standard || i+2 == len(src) || src[i+2] <= ' '):
			i = lineEnd(src, i)
		case c == '#' && r.d == mysql:
			i = lineEnd(src, i)
		case c == '/' && next == '*' && r.d == mysql && i+2 < len(src) && src[i+2] == '!':
			i += 3
			for i < len(src) && '0' <= src[i] && src[i] <= '9' {
				i++
			}
			runningComments++
		case c == '/' && next == '*':
			i = r.comment(i)
		case c == '*' && next == '/' && runningComments > 0:
			runningComments--
			i += 2
		case c == '\\':
			r.statement()
			if r.d == standard {
				i = metaCommandEnd(src, i)
			} else {
				i = min(i+2, len(src))
			}
		case c == '\'':
			i = r.quoted(i, i+1, '\'', r.d == mysql)
		case c == '"' && r.d == mysql:
			i = r.quoted(i, i+1, '"', true)
		case c == '"':
			i = r.quotedName(i, '"')
		case c == '`' && r.d == mysql:
			i = r.quotedName(i, '`')
		case c == '$' && dollarTag(src, i) != "":
			i = r.dollarQuoted(i)
		case isWordByte(c):
			i = r.word(i)
		default:
			r.add(token{kind: punct, text: src[i : i+1], start: i, end: i + 1})
			i++
		}
	}
	r.statement()
}

// add hands a token to the statement being read.
func (r *reading) add(t token) {
	r.stmt.token(r, t)
}

// statement ends the statement being read.
func (r *reading) statement() {
	r.stmt.end(r)
}

func lineEnd(src string, i int) int {
	if j := strings.IndexByte(src[i:], '\n'); j >= 0 {
		return i + j + 1
	}
	return len(src)
}

// metaCommandEnd returns the end of the psql backslash command at src[i]: the end of the
// line, or a \\ after which SQL resumes.
func metaCommandEnd(src string, i int) int {
	for j := i + 1; j < len(src); j++ {
		switch {
		case src[j] == '\n':
			return j + 1
		case src[j] == '\\' && j+1 < len(src) && src[j+1] == '\\':
			return j + 2
		}
	}
	return len(src)
}

// comment returns the end of the /* comment at src[i]. PostgreSQL's comments nest,
// MySQL's and SQLite's do not; an unterminated one runs to the end.
func (r *reading) comment(i int) int {
	src := r.src
	if r.d == mysql {
		if j := strings.Index(src[i+2:], "*/"); j >= 0 {
			return i + 2 + j + 2
		}
		return len(src)
	}
	depth := 0
	for i < len(src)-1 {
		switch {
		case src[i] == '/' && src[i+1] == '*':
			depth++
			i += 2
		case src[i] == '*' && src[i+1] == '/':
			depth--
			i += 2
			if depth == 0 {
				return i
			}
		default:
			i++
		}
	}
	return len(src)
}

// quoted reads the string literal whose opening quote q is at src[start] and whose
// contents begin at from. A doubled quote stands for one, and with backslash a backslash
// escapes the next byte. An unterminated literal runs to the end.
func (r *reading) quoted(start, from int, q byte, backslash bool) int {
	src := r.src
	i := from
	for i < len(src) {
		if backslash && src[i] == '\\' {
			i += 2
			continue
		}
		if src[i] == q {
			if i+1 < len(src) && src[i+1] == q {
				i += 2
				continue
			}
			break
		}
		i++
	}
	end := min(i, len(src)) // past the end after a final backslash
	stop := min(i+1, len(src))
	r.add(token{kind: str, text: src[from:end], quote: q, start: start, end: stop})
	return stop
}

// quotedName reads the quoted name whose quote q is at src[i].
func (r *reading) quotedName(i int, q byte) int {
	src := r.src
	j := i + 1
	for j < len(src) {
		if src[j] == q {
			if j+1 < len(src) && src[j+1] == q {
				j += 2
				continue
			}
			break
		}
		j++
	}
	end := min(j+1, len(src))
	r.add(token{kind: name, text: src[i:end], start: i, end: end})
	return end
}

// dollarTag returns the dollar quote ($$ or $tag$) that starts at src[i], or "".
func dollarTag(src string, i int) string {
	j := i + 1
	if j < len(src) && src[j] != '$' {
		if !isWordByte(src[j]) || '0' <= src[j] && src[j] <= '9' {
			return ""
		}
		for j < len(src) && isWordByte(src[j]) && src[j] != '$' {
			j++
		}
	}
	if j < len(src) && src[j] == '$' {
		return src[i : j+1]
	}
	return ""
}

// dollarQuoted reads the dollar-quoted string at src[i].
func (r *reading) dollarQuoted(i int) int {
	src := r.src
	tag := dollarTag(src, i)
	from := i + len(tag)
	end, stop := len(src), len(src)
	if j := strings.Index(src[from:], tag); j >= 0 {
		end, stop = from+j, from+j+len(tag)
	}
	r.add(token{kind: str, text: src[from:end], quote: '$', start: i, end: stop})
	return stop
}

// word reads the word at src[i], which ends where a DELIMITER-set delimiter starts. In
// PostgreSQL a word E or e just before a quote makes the string one with backslash
// escapes. For mysql a DELIMITER command at the start of a statement sets the delimiter.
func (r *reading) word(i int) int {
	src := r.src
	j := i
	for j < len(src) && isWordByte(src[j]) && (r.delim == "" || !strings.HasPrefix(src[j:], r.delim)) {
		j++
	}
	w := src[i:j]
	switch {
	case r.d == standard && (w == "E" || w == "e") && j < len(src) && src[j] == '\'':
		return r.quoted(i, j+1, '\'', true)
	case r.d == mysql && r.stmt.tokens == 0 && strings.EqualFold(w, "DELIMITER"):
		return r.delimiter(j)
	}
	r.add(token{kind: word, text: w, start: i, end: j})
	return j
}

// delimiter reads the rest of a DELIMITER command line, from src[i].
func (r *reading) delimiter(i int) int {
	src := r.src
	for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	j := i
	for j < len(src) && !isSpace(src[j]) {
		j++
	}
	switch d := src[i:j]; {
	case d == ";":
		r.delim = ""
	case d != "" && len(d) <= maxDelimiter:
		r.delim = d
	}
	return lineEnd(src, j)
}

func isWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '$' || c >= 0x80
}

// body reads the SQL in the string literal t.
func (r *reading) body(t token) {
	if r.level >= maxLevel {
		return
	}
	text := t.text
	if t.quote != '$' {
		q := string(t.quote)
		text = strings.ReplaceAll(text, q+q, q)
	}
	sub := reading{d: r.d, level: r.level + 1, base: r.base + t.start, src: text, out: r.out}
	sub.scan()
}
