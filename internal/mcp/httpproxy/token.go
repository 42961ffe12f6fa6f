package httpproxy

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
)

// MinTokenLen is the shortest token a proxy accepts: a local user can try tokens as fast
// as the loopback answers, so a short one could be guessed.
const MinTokenLen = 16

// NewToken returns a random token (256 bits, base64url), what the proxy uses when it is
// given none.
func NewToken() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("httpproxy: making a token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// checkToken says what is wrong with a token for the Authorization header, or returns
// nil.
func checkToken(t string) error {
	if len(t) < MinTokenLen {
		return fmt.Errorf("the token must be at least %d characters long", MinTokenLen)
	}
	// RFC 6750's b64token: what a client can send after "Bearer " unquoted.
	for i := 0; i < len(t); i++ {
		c := t[i]
		ok := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~+/=", c) >= 0
		if !ok {
			return fmt.Errorf("the token may hold only letters, digits and -._~+/= (a character at offset %d is not one)", i)
		}
	}
	return nil
}

// authorized reports whether r carries the token. The scheme's name is case-insensitive
// (RFC 9110); the token is compared in constant time, which leaks only its length, a
// length not worth hiding.
func (h *handler) authorized(r *http.Request) bool {
	vs := r.Header.Values("Authorization")
	if len(vs) != 1 {
		return false
	}
	scheme, got, ok := strings.Cut(vs[0], " ")
	return ok && strings.EqualFold(scheme, "Bearer") && subtle.ConstantTimeCompare([]byte(strings.TrimLeft(got, " ")), []byte(h.o.Token)) == 1
}
