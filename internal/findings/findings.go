// Package findings is the catalogue of every finding kind moat reports, derived from the lists each analyser declares beside the code that reports them.
package findings

import (
	"cmp"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/mcp/toolscan"
	"github.com/moatdev/moat/internal/planted"
	"github.com/moatdev/moat/internal/scan/injection"
	"github.com/moatdev/moat/internal/scan/secrets"
	"github.com/moatdev/moat/internal/scan/smuggling"
	"github.com/moatdev/moat/internal/selfguard"
	"github.com/moatdev/moat/internal/shell"
	"github.com/moatdev/moat/internal/shell/sqlscan"
)

// declared lists the kinds of every analyser, in no particular order. A package that
// reports findings declares its kinds as Kinds and is added here; a test keeps the ids
// unique and every id the analysers report declared.
func declared() []call.FindingKinds {
	return []call.FindingKinds{
		call.InputKinds,
		shell.Kinds,
		sqlscan.Kinds,
		planted.Kinds,
		secrets.Kinds,
		smuggling.Kinds,
		injection.Kinds,
		toolscan.Kinds,
		ToolKinds,
		selfguard.Kinds,
	}
}

// catalogue is every declared kind, sorted by id, built on first use: most hook calls
// never ask for it.
var catalogue = sync.OnceValue(func() call.FindingKinds {
	all := slices.Concat(declared()...)
	slices.SortFunc(all, func(a, b call.FindingKind) int { return cmp.Compare(a.ID, b.ID) })
	return all
})

// Kinds returns every finding kind moat reports, sorted by id.
func Kinds() []call.FindingKind {
	return slices.Clone(catalogue())
}

// Lookup returns the kind of id.
func Lookup(id string) (call.FindingKind, bool) {
	all := catalogue()
	i, ok := slices.BinarySearchFunc(all, id, func(k call.FindingKind, id string) int { return cmp.Compare(k.ID, id) })
	if !ok {
		return call.FindingKind{}, false
	}
	return all[i], true
}

// New returns a finding of the catalogued kind id with the given evidence; an id that
// no analyser declares yields call.Uncatalogued's finding.
func New(id, evidence string) call.Finding {
	if k, ok := Lookup(id); ok {
		return k.New(evidence)
	}
	return call.Uncatalogued(id, evidence)
}

// Match returns the catalogued ids that the glob pattern matches ("destructive.*").
func Match(pattern string) ([]string, error) {
	if _, err := path.Match(pattern, ""); err != nil {
		return nil, fmt.Errorf("invalid finding pattern %q: %w", pattern, err)
	}
	if !strings.ContainsAny(pattern, `*?[\`) {
		// Most rules name findings exactly: a lookup, not a match against every kind.
		if _, ok := Lookup(pattern); ok {
			return []string{pattern}, nil
		}
		return nil, nil
	}
	// An id the pattern matches starts with the pattern's text before its first
	// wildcard; testing that first spares path.Match on most of the catalogue, which a
	// short-lived hook process pays for every "destructive.*" its policy names.
	lead := pattern[:strings.IndexAny(pattern, `*?[\`)]
	var ids []string
	for _, k := range catalogue() {
		if !strings.HasPrefix(k.ID, lead) {
			continue
		}
		if ok, _ := path.Match(pattern, k.ID); ok {
			ids = append(ids, k.ID)
		}
	}
	return ids, nil
}
