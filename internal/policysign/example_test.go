package policysign_test

import (
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"

	"github.com/moatdev/moat/internal/policysign"
)

// A managed policy is signed once by its author and checked on every machine that pins
// the public key; a policy older than one accepted there before is refused.
func Example() {
	priv, pub, err := policysign.GenerateKey(rand.Reader)
	if err != nil {
		panic(err)
	}
	signed, err := policysign.Sign([]byte("version: 1\nserial: 2\ndefault: ask\n"), priv)
	if err != nil {
		panic(err)
	}
	dir, err := os.MkdirTemp("", "serials")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	store := policysign.NewSerialStore(filepath.Join(dir, "policy-serials.json"))

	payload, serial, err := policysign.VerifyManaged("managed.yaml", signed, pub, store)
	fmt.Printf("%q, serial %d, %v\n", payload, serial, err)

	older, _ := policysign.Sign([]byte("version: 1\nserial: 1\ndefault: allow\n"), priv)
	_, _, err = policysign.VerifyManaged("managed.yaml", older, pub, store)
	fmt.Println(err != nil)
	// Output:
	// "version: 1\nserial: 2\ndefault: ask\n", serial 2, <nil>
	// true
}
