package policy

import (
	"crypto/sha256"

	"go.yaml.in/yaml/v3"
)

// preparsedDoc is the parse tree of one YAML document embedded in moat, made when moat
// is built (preparsed_gen.go). Every hook process loads the embedded default policy, the
// recommended pack and the self-protection rules; the YAML parser took half of that
// load's time and most of its allocations, for the same text every time. The generated
// trees are static data: using one costs neither parsing nor allocation.
type preparsedDoc struct {
	path string // in the source tree, below internal/policy
	size int
	sum  [sha256.Size]byte
	root *yaml.Node
}

// preparsed returns the generated parse tree of data when data is the exact text of an
// embedded document, and nil otherwise. The text is compared by hash, not by name, so a
// tree can never stand for a text it was not made from.
func preparsed(data []byte) *yaml.Node {
	var sum [sha256.Size]byte
	hashed := false
	for i := range preparsedDocs {
		d := &preparsedDocs[i]
		if d.size != len(data) {
			continue
		}
		if !hashed {
			sum, hashed = sha256.Sum256(data), true
		}
		if d.sum == sum {
			return d.root
		}
	}
	return nil
}
