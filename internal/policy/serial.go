package policy

import (
	"go.yaml.in/yaml/v3"
)

// serial reads the value of a policy's `serial:`, a positive integer, reporting anything
// else at its position.
func (r *reader) serial(n *yaml.Node) int64 {
	n = resolve(n)
	var v int64
	if n == nil || n.Kind != yaml.ScalarNode || n.Tag != "!!int" || n.Decode(&v) != nil || v < 1 {
		r.errorf(n, "serial must be a positive whole number (1, 2, …), not %s", describe(n))
		return 0
	}
	return v
}

// Serial reads the top-level `serial:` of the policy document data (from name) without
// compiling the rest, with the parser and the rules Load uses, so that what it reads is
// what Load would: one document, a mapping with no duplicate keys, the key at the top
// level only. It reports whether the key is there; a document that cannot be read, or a
// serial that is not a positive whole number, is an ErrorList with positions.
func Serial(name string, data []byte) (int64, bool, error) {
	root, err := parseDocument(name, data)
	if err != nil {
		return 0, false, err
	}
	r := &reader{file: name}
	fields, ok := r.mapping(root, "the policy", nil)
	if !ok || len(r.errs) > 0 {
		return 0, false, r.errs.sorted()
	}
	for _, f := range fields {
		if f.key != "serial" {
			continue
		}
		v := r.serial(f.value)
		if len(r.errs) > 0 {
			return 0, false, r.errs.sorted()
		}
		return v, true, nil
	}
	return 0, false, nil
}
