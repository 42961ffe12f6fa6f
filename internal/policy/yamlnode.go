package policy

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/moatdev/moat/internal/didyoumean"
)

// reader walks a YAML tree with the schema in hand, collecting every error with its
// position instead of stopping at the first.
type reader struct {
	file string
	errs ErrorList
}

func (r *reader) errorf(n *yaml.Node, format string, args ...any) {
	e := &Error{File: r.file, Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		e.Line, e.Col = n.Line, n.Column
	}
	r.errs = append(r.errs, e)
}

// resolve follows aliases so that anchors work as YAML users expect.
func resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// field is one key of a mapping with its value.
type field struct {
	key   string
	knode *yaml.Node
	value *yaml.Node
}

// mapping returns the fields of a mapping node, reporting duplicate keys, keys that are not
// strings, merge keys and keys outside known (when known is not nil).
func (r *reader) mapping(n *yaml.Node, what string, known []string) ([]field, bool) {
	n = resolve(n)
	if n == nil || n.Kind != yaml.MappingNode {
		r.errorf(n, "%s must be a mapping, not %s", what, describe(n))
		return nil, false
	}
	fields := make([]field, 0, len(n.Content)/2)
	seen := make(map[string]*yaml.Node, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := resolve(n.Content[i]), n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			r.errorf(k, "keys in %s must be plain strings", what)
			continue
		}
		if k.Tag == "!!merge" {
			r.errorf(k, "merge keys (<<) are not supported in %s: write the fields out", what)
			continue
		}
		if prev, dup := seen[k.Value]; dup {
			r.errorf(k, "duplicate key %q in %s (first at line %d)", k.Value, what, prev.Line)
			continue
		}
		seen[k.Value] = k
		if known != nil && !slices.Contains(known, k.Value) {
			r.errorf(k, "unknown key %q in %s%s (known: %s)", k.Value, what, suggest(k.Value, known), strings.Join(known, ", "))
			continue
		}
		fields = append(fields, field{key: k.Value, knode: k, value: v})
	}
	return fields, true
}

// str reads a string scalar. YAML would happily read `decision: yes` as a boolean and
// `id: 010` as a number; the schema says strings, so anything else is an error.
func (r *reader) str(n *yaml.Node, what string) (string, bool) {
	n = resolve(n)
	if n == nil || n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
		r.errorf(n, "%s must be a string, not %s", what, describe(n))
		return "", false
	}
	return n.Value, true
}

// item is one element of a string-or-list value, with its node for error positions.
type item struct {
	val  string
	node *yaml.Node
}

// strs reads a string or a list of strings. An empty list is an error: a condition over
// nothing can never hold.
func (r *reader) strs(n *yaml.Node, what string) ([]item, bool) {
	n = resolve(n)
	if n != nil && n.Kind == yaml.ScalarNode {
		s, ok := r.str(n, what)
		if !ok {
			return nil, false
		}
		return []item{{s, n}}, true
	}
	if n == nil || n.Kind != yaml.SequenceNode {
		r.errorf(n, "%s must be a string or a list of strings, not %s", what, describe(n))
		return nil, false
	}
	if len(n.Content) == 0 {
		r.errorf(n, "%s is an empty list, which can never match", what)
		return nil, false
	}
	out := make([]item, 0, len(n.Content))
	ok := true
	for _, c := range n.Content {
		s, good := r.str(c, what+" entry")
		if !good {
			ok = false
			continue
		}
		out = append(out, item{s, resolve(c)})
	}
	return out, ok
}

// seq reads a list. A key with no value (null) is an empty list, as in a template whose
// rules are all commented out.
func (r *reader) seq(n *yaml.Node, what string) ([]*yaml.Node, bool) {
	n = resolve(n)
	if n != nil && n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil, true
	}
	if n == nil || n.Kind != yaml.SequenceNode {
		r.errorf(n, "%s must be a list, not %s", what, describe(n))
		return nil, false
	}
	out := make([]*yaml.Node, len(n.Content))
	for i, c := range n.Content {
		out[i] = resolve(c)
	}
	return out, true
}

func describe(n *yaml.Node) string {
	n = resolve(n)
	if n == nil {
		return "nothing"
	}
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!null":
			return "null"
		case "!!bool":
			return fmt.Sprintf("the boolean %s", n.Value)
		case "!!int", "!!float":
			return fmt.Sprintf("the number %s", n.Value)
		case "!!str":
			return fmt.Sprintf("the string %q", n.Value)
		}
		return fmt.Sprintf("%s %q", n.Tag, n.Value)
	}
	return "a YAML document"
}

// suggest returns ` (did you mean "x"?)` when a known word is close to s.
func suggest(s string, known []string) string { return didyoumean.Hint(s, known) }
