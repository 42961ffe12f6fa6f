package auth

import (
	"crypto/subtle"
	"errors"
	"fmt"

	"golang.org/x/crypto/bcrypt"
)

// ErrInvalidCredentials is returned for both unknown users and wrong
// passwords so that callers cannot distinguish the two.
var ErrInvalidCredentials = errors.New("invalid username or password")

// MinPasswordLength is the shortest password accepted by SetPassword.
const MinPasswordLength = 12

type User struct {
	Name         string
	PasswordHash []byte
	IsAdmin      bool
}

// SetPassword hashes password with bcrypt and stores it on u.
func (u *User) SetPassword(password string) error {
	if len(password) < MinPasswordLength {
		return fmt.Errorf("password must be at least %d characters", MinPasswordLength)
	}
	h, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.DefaultCost)
	if err != nil {
		return err
	}
	u.PasswordHash = h
	return nil
}

// CheckPassword reports whether password matches the stored hash.
func (u *User) CheckPassword(password string) error {
	if u == nil {
		// Still spend time hashing so timing doesn't reveal whether the user exists.
		_ = bcrypt.CompareHashAndPassword(dummyHash, []byte(password))
		return ErrInvalidCredentials
	}
	if err := bcrypt.CompareHashAndPassword(u.PasswordHash, []byte(password)); err != nil {
		return ErrInvalidCredentials
	}
	return nil
}

// TokensEqual compares two API tokens in constant time.
func TokensEqual(a, b string) bool {
	return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

var dummyHash, _ = bcrypt.GenerateFromPassword([]byte("not-a-real-password"), bcrypt.DefaultCost)
