package auth

import (
	"crypto/subtle"
	"errors"
	"net/http"
	"strings"
)

// ErrNoToken is returned when the request has no bearer token.
var ErrNoToken = errors.New("auth: missing bearer token")

// BearerToken extracts the token from an "Authorization: Bearer <token>" header.
func BearerToken(r *http.Request) (string, error) {
	h := r.Header.Get("Authorization")
	if h == "" {
		return "", ErrNoToken
	}
	scheme, tok, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || tok == "" {
		return "", ErrNoToken
	}
	return tok, nil
}

// StaticTokenMiddleware rejects requests whose token does not match want.
// It is meant for internal admin endpoints only; use OIDC for user traffic.
func StaticTokenMiddleware(want string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, err := BearerToken(r)
		if err != nil || subtle.ConstantTimeCompare([]byte(got), []byte(want)) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="admin"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}
