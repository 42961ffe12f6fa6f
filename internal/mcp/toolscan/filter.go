package toolscan

import (
	"encoding/json"
	"fmt"
)

// Filter returns the tools/list result object listResult without the tools whose names
// drop holds. What it keeps is kept byte for byte: the other members of the result
// (nextCursor, ttlMs, cacheScope, _meta…), the whitespace, and each remaining tool as
// the server wrote it, so that nothing moat did not mean to change is changed, and a
// tool's definition reaches the agent exactly as Inspect and Pins saw it. The tools
// array is spliced, never re-encoded.
//
// The result must pass the checks of ParseList; when nothing is to be dropped it is
// returned as it is (the same slice).
func Filter(listResult json.RawMessage, drop map[string]bool) (json.RawMessage, error) {
	l, err := splitList(listResult)
	if err != nil {
		return nil, err
	}
	keep := make([]bool, len(l.elems))
	dropped := 0
	for i, e := range l.elems {
		t, err := parseTool(listResult[e.lo:e.hi])
		if err != nil {
			return nil, fmt.Errorf("tools/list result: tools[%d] at byte %d: %w", i, e.lo, err)
		}
		keep[i] = !drop[t.Name]
		if !keep[i] {
			dropped++
		}
	}
	if dropped == 0 {
		return listResult, nil
	}
	out := make([]byte, 0, len(listResult))
	// Up to the first element: the members before tools, '[' and the whitespace after it.
	first := l.close
	if len(l.elems) > 0 {
		first = l.elems[0].lo
	}
	out = append(out, listResult[:first]...)
	wrote := false
	for i, e := range l.elems {
		if !keep[i] {
			continue
		}
		if wrote {
			// The separator that preceded this element in the listing: one comma and the
			// server's whitespace.
			out = append(out, listResult[l.elems[i-1].hi:e.lo]...)
		}
		out = append(out, listResult[e.lo:e.hi]...)
		wrote = true
	}
	// From the end of the last element: the whitespace before ']' and the rest.
	if n := len(l.elems); n > 0 {
		out = append(out, listResult[l.elems[n-1].hi:]...)
	} else {
		out = append(out, listResult[l.close:]...)
	}
	return out, nil
}
