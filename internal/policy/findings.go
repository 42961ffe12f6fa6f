package policy

import (
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/findings"
)

// findingsCond is a rule's `findings` condition: finding ids or globs over them. An ask or
// deny rule holds when the unit has any named finding; an allow or audit rule only when the
// unit has findings and every one of them is named, so that allowing one finding never
// allows another that came with it.
type findingsCond struct {
	text []string
	ids  map[string]bool
}

func (l *loader) findingsCond(n *yaml.Node) *findingsCond {
	items, ok := l.strs(n, "findings")
	if !ok {
		return nil
	}
	fc := &findingsCond{ids: make(map[string]bool)}
	for _, it := range items {
		ids, err := findings.Match(it.val)
		if err != nil {
			l.errorf(it.node, "%v", err)
			continue
		}
		if len(ids) == 0 {
			kinds := findings.Kinds()
			known := make([]string, len(kinds))
			for i, k := range kinds {
				known[i] = k.ID
			}
			l.errorf(it.node, "findings: %q matches no finding moat reports%s; `moat findings` lists them", it.val, suggest(it.val, known))
			continue
		}
		for _, id := range ids {
			fc.ids[id] = true
		}
		fc.text = append(fc.text, it.val)
	}
	if len(fc.ids) == 0 {
		return nil
	}
	return fc
}

func (fc *findingsCond) match(fs []call.Finding, permissive bool) bool {
	if permissive {
		if len(fs) == 0 {
			return false
		}
		for _, f := range fs {
			if !fc.ids[f.ID] {
				return false
			}
		}
		return true
	}
	for _, f := range fs {
		if fc.ids[f.ID] {
			return true
		}
	}
	return false
}

func (fc *findingsCond) String() string { return strings.Join(fc.text, ", ") }
