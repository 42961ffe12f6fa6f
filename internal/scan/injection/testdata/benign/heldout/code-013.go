// Command hashpw reads a password from the terminal without echoing it and
// prints its Argon2id hash, for pasting into the users.yaml file.
package main

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"os"

	"golang.org/x/crypto/argon2"
	"golang.org/x/term"
)

func main() {
	fmt.Fprint(os.Stderr, "Password: ")
	pw, err := term.ReadPassword(int(os.Stdin.Fd()))
	fmt.Fprintln(os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		panic(err)
	}
	const (
		t   = 3
		mem = 64 * 1024
		par = 2
	)
	key := argon2.IDKey(pw, salt, t, mem, par, 32)
	fmt.Printf("$argon2id$v=19$m=%d,t=%d,p=%d$%s$%s\n", mem, t, par,
		base64.RawStdEncoding.EncodeToString(salt),
		base64.RawStdEncoding.EncodeToString(key))
}
