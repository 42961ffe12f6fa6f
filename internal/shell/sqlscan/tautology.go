package sqlscan

import "strings"

// maxCondition is how many tokens of a WHERE condition are kept to see whether it is
// always true; a longer condition is taken to limit the rows, as any WHERE is.
const maxCondition = 32

// condition follows the WHERE condition of a DELETE or UPDATE, so that one that holds
// for every row (WHERE 1=1, WHERE true, WHERE id = 5 OR 'a' = 'a') is known to be no
// limit at all.
type condition struct {
	active bool
	depth  int // the depth of parentheses of its WHERE
	long   bool
	tokens []token
}

// conditionEnds are the clauses that follow a WHERE condition at its depth.
var conditionEnds = []string{"RETURNING", "ORDER", "LIMIT", "GROUP", "HAVING", "UNION", "WINDOW", "FOR"}

// start begins following the condition of a WHERE at depth.
func (c *condition) start(depth int) {
	*c = condition{active: true, depth: depth, tokens: c.tokens[:0]}
}

// add takes the condition's next token, at depth; it reports false when the token is
// past the condition (a clause after it at its depth, or the parenthesis closing it).
func (c *condition) add(t token, depth int) bool {
	if depth < c.depth {
		return false
	}
	if depth == c.depth && t.kind == word {
		for _, end := range conditionEnds {
			if strings.EqualFold(t.text, end) {
				return false
			}
		}
	}
	if len(c.tokens) == maxCondition {
		c.long = true
		return true
	}
	c.tokens = append(c.tokens, token{kind: t.kind, text: t.text, quote: t.quote})
	return true
}

// always reports whether the condition followed holds for every row.
func (c *condition) always() bool {
	return c.active && !c.long && alwaysTrue(c.tokens)
}

// alwaysTrue reports whether the condition ts is true whatever the row: a constant that
// is true, a comparison of a value with itself, a LIKE of everything, or such terms
// joined so that they decide (any of an OR, all of an AND), in parentheses or not.
func alwaysTrue(ts []token) bool {
	ts = unwrap(ts)
	if len(ts) == 0 {
		return false
	}
	if parts := splitTop(ts, "OR"); len(parts) > 1 {
		for _, p := range parts {
			if alwaysTrue(p) {
				return true
			}
		}
		return false
	}
	if parts := splitTop(ts, "AND"); len(parts) > 1 {
		for _, p := range parts {
			if !alwaysTrue(p) {
				return false
			}
		}
		return true
	}
	switch {
	case len(ts) == 1:
		return trueConstant(ts[0])
	case len(ts) == 2 && isWord(ts[0], "NOT"):
		return falseConstant(ts[1])
	case len(ts) == 3 && isWord(ts[1], "LIKE") && ts[2].kind == str:
		return strings.Trim(ts[2].text, "%") == "" && ts[2].text != ""
	}
	// A value compared with itself: 1 = 1, 'a' = 'a', id = id, x >= x.
	for _, op := range [][]string{{"="}, {"=", "="}, {">", "="}, {"<", "="}, {"<", "=", ">"}} {
		n := len(op)
		if len(ts) != 2+n {
			continue
		}
		if samePunct(ts[1:1+n], op) && sameValue(ts[0], ts[1+n]) {
			return true
		}
	}
	// Two different constants compared as different: 1 <> 2, 'a' != 'b'.
	for _, op := range [][]string{{"<", ">"}, {"!", "="}} {
		if len(ts) == 4 && samePunct(ts[1:3], op) && constant(ts[0]) && constant(ts[3]) && !sameValue(ts[0], ts[3]) {
			return true
		}
	}
	return false
}

// unwrap removes parentheses around the whole of ts.
func unwrap(ts []token) []token {
	for len(ts) >= 2 && isPunct(ts[0], "(") && isPunct(ts[len(ts)-1], ")") && closes(ts) {
		ts = ts[1 : len(ts)-1]
	}
	return ts
}

// closes reports whether the parenthesis opening ts is the one its last token closes.
func closes(ts []token) bool {
	depth := 0
	for i, t := range ts {
		switch {
		case isPunct(t, "("):
			depth++
		case isPunct(t, ")"):
			depth--
			if depth == 0 && i != len(ts)-1 {
				return false
			}
		}
	}
	return depth == 0
}

// splitTop splits ts at the keyword op outside parentheses; || stands for OR too (MySQL).
func splitTop(ts []token, op string) [][]token {
	var parts [][]token
	depth, from := 0, 0
	for i := 0; i < len(ts); i++ {
		t := ts[i]
		switch {
		case isPunct(t, "("):
			depth++
		case isPunct(t, ")"):
			depth--
		case depth == 0 && isWord(t, op):
			parts = append(parts, ts[from:i])
			from = i + 1
		case depth == 0 && op == "OR" && isPunct(t, "|") && i+1 < len(ts) && isPunct(ts[i+1], "|"),
			depth == 0 && op == "AND" && isPunct(t, "&") && i+1 < len(ts) && isPunct(ts[i+1], "&"):
			parts = append(parts, ts[from:i])
			i++
			from = i + 1
		}
	}
	return append(parts, ts[from:])
}

func isWord(t token, w string) bool  { return t.kind == word && strings.EqualFold(t.text, w) }
func isPunct(t token, p string) bool { return t.kind == punct && t.text == p }

func samePunct(ts []token, ps []string) bool {
	for i, p := range ps {
		if !isPunct(ts[i], p) {
			return false
		}
	}
	return true
}

// constant reports whether t is a number or a string.
func constant(t token) bool { return t.kind == str || number(t) }

func number(t token) bool {
	if t.kind != word || t.text == "" {
		return false
	}
	for i := 0; i < len(t.text); i++ {
		if c := t.text[i]; (c < '0' || c > '9') && c != '.' {
			return false
		}
	}
	return true
}

// sameValue reports whether a and b are the same value or name, written alike.
func sameValue(a, b token) bool {
	if a.kind != b.kind || a.kind == punct || a.quote != b.quote {
		return false
	}
	if a.kind == word {
		if k := keyword(a); k.id != otherKeyword || k.roles != 0 {
			return false // NULL = NULL is not true
		}
		return strings.EqualFold(a.text, b.text)
	}
	return a.text == b.text
}

func trueConstant(t token) bool {
	if isWord(t, "TRUE") {
		return true
	}
	return number(t) && strings.Trim(t.text, "0.") != ""
}

func falseConstant(t token) bool {
	return isWord(t, "FALSE") || number(t) && strings.Trim(t.text, "0.") == ""
}
