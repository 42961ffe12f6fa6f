package engine

import (
	"testing"

	"github.com/moatdev/moat/internal/call"
)

// TestKeyGenerationOverAKeyOnDisk decides ssh-keygen runs: a pair generated over a key
// on disk replaces it (the old key is lost), a new key file is the user's to make, and
// printing or fingerprinting reads.
func TestKeyGenerationOverAKeyOnDisk(t *testing.T) {
	c := newCanary(t)
	project := c.path("proj")
	c.files(t, map[string]string{
		".ssh/id_rsa":     "canary, not a key",
		".ssh/id_rsa.pub": "canary, not a key",
		"proj/README.md":  "x\n",
	})
	e := c.engine(t)
	decideEach(t, e, project, []verdictCase{
		{"yes | ssh-keygen -q -t rsa -N '' -f ~/.ssh/id_rsa", call.Ask, "the key on disk is replaced"},
		{"ssh-keygen -t ed25519 -f ~/.ssh/id_ed25519_work -N ''", call.Allow, "a new key beside the others"},
		{"ssh-keygen -t ed25519 -f testdata/host_key -N ''", call.Allow, "a test key in the project"},
		{"ssh-keygen -lf ~/.ssh/id_rsa.pub", call.Allow, "a fingerprint"},
		{"ssh-keygen -p -N '' -P old -f ~/.ssh/id_rsa", call.Ask, "the key's passphrase removed: the key file is rewritten"},
	})
}
