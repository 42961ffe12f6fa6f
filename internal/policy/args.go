package policy

import (
	"encoding/json"
	"math"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/moatdev/moat/internal/glob"
)

// argCond is one entry of a rule's `args` condition: a value found by dotted path and the
// tests it must pass. A `*` segment stands for every element of a list or value of a map;
// like paths, an ask or deny rule needs one value to pass, an allow or audit rule needs
// all of them to.
type argCond struct {
	text string
	path []string
	ops  []argOp
	// exists, when set, tests presence instead of values.
	exists *bool
}

type opKind uint8

const (
	opEq opKind = iota + 1
	opGlob
	opRegex
	opContains
	opGt
	opGte
	opLt
	opLte
)

var opNames = map[string]opKind{"eq": opEq, "glob": opGlob, "regex": opRegex, "contains": opContains, "gt": opGt, "gte": opGte, "lt": opLt, "lte": opLte}

var argOpKeys = []string{"eq", "glob", "regex", "contains", "gt", "gte", "lt", "lte", "exists"}

type argOp struct {
	kind opKind
	// The operand, in the form the op needs.
	str   string
	num   float64
	isNum bool
	val   any // eq: the YAML value (string, float64, bool or nil)
	re    *regexp.Regexp
	w     *glob.Word
}

func (l *loader) argConds(n *yaml.Node) []*argCond {
	fields, ok := l.mapping(n, "args", nil)
	if !ok {
		return nil
	}
	if len(fields) == 0 {
		l.errorf(n, "args names no argument, so it can never match")
		return nil
	}
	var conds []*argCond
	for _, f := range fields {
		if c := l.argCond(f); c != nil {
			conds = append(conds, c)
		}
	}
	return conds
}

func (l *loader) argCond(f field) *argCond {
	segs, ok := splitArgPath(f.key)
	if !ok {
		l.errorf(f.knode, "argument path %q has an empty segment", f.key)
		return nil
	}
	c := &argCond{text: f.key, path: segs}
	v := resolve(f.value)
	if v.Kind != yaml.MappingNode {
		// A bare value means eq.
		val, ok := l.value(v)
		if !ok {
			return nil
		}
		if _, isList := val.([]any); isList {
			l.errorf(v, "args.%s: compare with one value, or use contains for a list", f.key)
			return nil
		}
		c.ops = []argOp{eqOp(val)}
		return c
	}
	ops, ok := l.mapping(v, "args."+f.key, argOpKeys)
	if !ok {
		return nil
	}
	if len(ops) == 0 {
		l.errorf(v, "args.%s has no test (%s)", f.key, strings.Join(argOpKeys, ", "))
		return nil
	}
	lower, upper := math.Inf(-1), math.Inf(1)
	lowerStrict, upperStrict := false, false
	for _, o := range ops {
		if o.key == "exists" {
			b := resolve(o.value)
			if b.Kind != yaml.ScalarNode || b.Tag != "!!bool" {
				l.errorf(b, "args.%s.exists must be true or false", f.key)
				return nil
			}
			e := strings.EqualFold(b.Value, "true")
			c.exists = &e
			continue
		}
		op, ok := l.argOp(opNames[o.key], o, f.key)
		if !ok {
			return nil
		}
		switch op.kind {
		case opGt, opGte:
			if op.num > lower || (op.num == lower && op.kind == opGt) {
				lower, lowerStrict = op.num, op.kind == opGt
			}
		case opLt, opLte:
			if op.num < upper || (op.num == upper && op.kind == opLt) {
				upper, upperStrict = op.num, op.kind == opLt
			}
		}
		c.ops = append(c.ops, op)
	}
	if c.exists != nil && len(c.ops) > 0 {
		l.errorf(v, "args.%s: exists cannot be combined with value tests (a value that is tested exists)", f.key)
		return nil
	}
	if lower > upper || (lower == upper && (lowerStrict || upperStrict)) {
		l.errorf(v, "args.%s can never match: no number is both above %v and below %v", f.key, lower, upper)
		return nil
	}
	return c
}

func eqOp(val any) argOp {
	op := argOp{kind: opEq, val: val}
	if f, ok := val.(float64); ok {
		op.num, op.isNum = f, true
	}
	return op
}

func (l *loader) argOp(kind opKind, o field, path string) (argOp, bool) {
	what := "args." + path + "." + o.key
	switch kind {
	case opEq:
		val, ok := l.value(o.value)
		if !ok {
			return argOp{}, false
		}
		switch val.(type) {
		case map[string]any, []any:
			l.errorf(o.value, "%s compares with one value, not %s", what, describe(o.value))
			return argOp{}, false
		}
		return eqOp(val), true
	case opGt, opGte, opLt, opLte:
		n := resolve(o.value)
		if n.Kind != yaml.ScalarNode || (n.Tag != "!!int" && n.Tag != "!!float") {
			l.errorf(n, "%s must be a number, not %s", what, describe(n))
			return argOp{}, false
		}
		f, ok := parseNumber(n.Value)
		if i, err := strconv.ParseInt(n.Value, 0, 64); !ok && err == nil && n.Tag == "!!int" {
			f, ok = float64(i), true
		}
		if !ok {
			l.errorf(n, "%s: %q is not a finite number", what, n.Value)
			return argOp{}, false
		}
		return argOp{kind: kind, num: f, isNum: true}, true
	}
	n := resolve(o.value)
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		l.errorf(n, "%s must be a string, not %s", what, describe(n))
		return argOp{}, false
	}
	op := argOp{kind: kind, str: n.Value}
	switch kind {
	case opRegex:
		re, err := regexp.Compile(n.Value)
		if err != nil {
			l.errorf(n, "%s: invalid regular expression: %v", what, err)
			return argOp{}, false
		}
		op.re = re
	case opGlob:
		w, err := glob.CompileWord(n.Value)
		if err != nil {
			l.errorf(n, "%s: %v", what, err)
			return argOp{}, false
		}
		op.w = w
	}
	return op, true
}

// splitArgPath splits a dotted path; `\.` is a dot inside a key.
func splitArgPath(s string) ([]string, bool) {
	var segs []string
	var cur strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == '.':
			cur.WriteByte('.')
			i++
		case s[i] == '.':
			segs = append(segs, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(s[i])
		}
	}
	segs = append(segs, cur.String())
	for _, s := range segs {
		if s == "" {
			return nil, false
		}
	}
	return segs, true
}

func (c *argCond) match(args map[string]any, permissive bool) bool {
	var vals []any
	collect(args, c.path, &vals)
	if c.exists != nil {
		return (len(vals) > 0) == *c.exists
	}
	if permissive {
		if len(vals) == 0 {
			return false
		}
		for _, v := range vals {
			if !c.passes(v, permissive) {
				return false
			}
		}
		return true
	}
	for _, v := range vals {
		if c.passes(v, permissive) {
			return true
		}
	}
	return false
}

func (c *argCond) passes(v any, permissive bool) bool {
	for i := range c.ops {
		if !c.ops[i].test(v, permissive) {
			return false
		}
	}
	return true
}

// collect appends the values at path below v.
func collect(v any, path []string, out *[]any) {
	if len(path) == 0 {
		*out = append(*out, v)
		return
	}
	seg, rest := path[0], path[1:]
	switch x := v.(type) {
	case map[string]any:
		if seg == "*" {
			for _, e := range x {
				collect(e, rest, out)
			}
			return
		}
		if e, ok := x[seg]; ok {
			collect(e, rest, out)
		}
	case []any:
		if seg == "*" {
			for _, e := range x {
				collect(e, rest, out)
			}
			return
		}
		if i, err := strconv.Atoi(seg); err == nil && i >= 0 && i < len(x) {
			collect(x[i], rest, out)
		}
	}
}

func (op *argOp) test(v any, permissive bool) bool {
	switch op.kind {
	case opEq:
		if op.isNum {
			f, ok := number(v)
			return ok && f == op.num
		}
		switch want := op.val.(type) {
		case nil:
			return v == nil
		case bool:
			b, ok := v.(bool)
			return ok && b == want
		case string:
			s, ok := text(v)
			return ok && s == want
		}
		return false
	case opGt, opGte, opLt, opLte:
		f, ok := number(v)
		if !ok {
			// A value that is present but is not a number cannot be shown to be within
			// bounds: restrictive rules hold, permissive ones do not.
			return !permissive && v != nil
		}
		switch op.kind {
		case opGt:
			return f > op.num
		case opGte:
			return f >= op.num
		case opLt:
			return f < op.num
		}
		return f <= op.num
	case opContains:
		if list, ok := v.([]any); ok {
			for _, e := range list {
				if s, ok := text(e); ok && s == op.str {
					return true
				}
			}
			return false
		}
		s, ok := text(v)
		return ok && strings.Contains(s, op.str)
	case opGlob:
		s, ok := text(v)
		return ok && op.w.Match(s)
	case opRegex:
		s, ok := text(v)
		return ok && op.re.MatchString(s)
	}
	return false
}

// number reads a numeric value, including one that arrives as a string ("1000").
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, !math.IsNaN(x)
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case json.Number:
		return parseNumber(string(x))
	case string:
		return parseNumber(strings.TrimSpace(x))
	}
	return 0, false
}

func parseNumber(s string) (float64, bool) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// text renders a scalar as the string a pattern is matched against.
func text(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case json.Number:
		return string(x), true
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true
	case int:
		return strconv.Itoa(x), true
	case int64:
		return strconv.FormatInt(x, 10), true
	case bool:
		return strconv.FormatBool(x), true
	}
	return "", false
}
