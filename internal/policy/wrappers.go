package policy

import (
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Wrapper is a program the policy declares as running the program named in its arguments,
// like sudo or nice, so that shell analysis judges the program it runs:
//
//	wrappers:
//	  - name: with-vault
//	    value_options: [-r, --role]   # options that take a value
//	    assignments: true             # NAME=value words may come before the program
//	    operands: 1                   # leading operands to skip (like timeout's duration)
type Wrapper struct {
	Name       string
	ValueShort string   // single-letter options that take a value
	ValueLong  []string // long options that take a value
	Assigns    bool
	Operands   int
	Line       int
}

var wrapperKeys = []string{"name", "value_options", "assignments", "operands"}

func (l *loader) wrappers(n *yaml.Node) []Wrapper {
	nodes, ok := l.seq(n, "wrappers")
	if !ok {
		return nil
	}
	var out []Wrapper
	seen := map[string]int{}
	for _, wn := range nodes {
		fields, ok := l.mapping(wn, "a wrapper", wrapperKeys)
		if !ok {
			continue
		}
		w := Wrapper{Line: wn.Line}
		for _, f := range fields {
			switch f.key {
			case "name":
				if s, ok := l.str(f.value, "a wrapper's name"); ok {
					if s == "" || strings.ContainsAny(s, "/ \t") {
						l.errorf(f.value, "a wrapper's name is a program name (no slash or space), not %q", s)
						continue
					}
					w.Name = s
				}
			case "value_options":
				items, ok := l.strs(f.value, "value_options")
				if !ok {
					continue
				}
				for _, it := range items {
					switch {
					case strings.HasPrefix(it.val, "--") && len(it.val) > 2:
						w.ValueLong = append(w.ValueLong, it.val[2:])
					case len(it.val) == 2 && it.val[0] == '-' && it.val[1] != '-':
						w.ValueShort += it.val[1:]
					default:
						l.errorf(it.node, "value_options entries are options such as -u or --user, not %q", it.val)
					}
				}
			case "assignments":
				v := resolve(f.value)
				if v == nil || v.Kind != yaml.ScalarNode || v.Tag != "!!bool" {
					l.errorf(f.value, "assignments must be true or false, not %s", describe(v))
					continue
				}
				w.Assigns = v.Value == "true"
			case "operands":
				v := resolve(f.value)
				n, err := strconv.Atoi(v.Value)
				if v.Kind != yaml.ScalarNode || v.Tag != "!!int" || err != nil || n < 0 || n > 8 {
					l.errorf(f.value, "operands must be a whole number from 0 to 8, not %s", describe(v))
					continue
				}
				w.Operands = n
			}
		}
		if w.Name == "" {
			l.errorf(wn, "a wrapper needs a name")
			continue
		}
		if prev, dup := seen[w.Name]; dup {
			l.errorf(wn, "wrapper %q is declared twice (first at line %d)", w.Name, prev)
			continue
		}
		seen[w.Name] = wn.Line
		out = append(out, w)
	}
	return out
}
