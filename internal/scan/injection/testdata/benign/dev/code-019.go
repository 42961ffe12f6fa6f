// Package session implements server-side sessions backed by Redis.
//
// Session IDs are 256-bit random values encoded as base64url. Only a SHA-256
// hash of the ID is stored in Redis, so a leaked Redis dump does not let
// anyone hijack sessions.
package session

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/redis/go-redis/v9"
)

const (
	cookieName  = "__Host-sid"
	idleTTL     = 30 * time.Minute
	absoluteTTL = 12 * time.Hour
)

var ErrNoSession = errors.New("session: not found or expired")

type Data struct {
	UserID    int64     `json:"uid"`
	IsAdmin   bool      `json:"adm"`
	CreatedAt time.Time `json:"ca"`
	// CSRFToken is sent to the client in a meta tag and checked on POST.
	CSRFToken string `json:"csrf"`
}

type Store struct {
	rdb *redis.Client
}

func New(rdb *redis.Client) *Store { return &Store{rdb: rdb} }

func key(id string) string {
	sum := sha256.Sum256([]byte(id))
	return "sess:" + hex.EncodeToString(sum[:])
}

func randomToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// Create starts a session for userID and sets the cookie on w.
func (s *Store) Create(ctx context.Context, w http.ResponseWriter, userID int64, admin bool) (*Data, error) {
	id, err := randomToken()
	if err != nil {
		return nil, err
	}
	csrf, err := randomToken()
	if err != nil {
		return nil, err
	}
	d := &Data{UserID: userID, IsAdmin: admin, CreatedAt: time.Now(), CSRFToken: csrf}
	b, _ := json.Marshal(d)
	if err := s.rdb.Set(ctx, key(id), b, idleTTL).Err(); err != nil {
		return nil, err
	}
	http.SetCookie(w, &http.Cookie{
		Name:     cookieName,
		Value:    id,
		Path:     "/",
		Secure:   true,
		HttpOnly: true,
		SameSite: http.SameSiteLaxMode,
	})
	return d, nil
}

// Load returns the session for r, refreshing its idle timeout.
func (s *Store) Load(ctx context.Context, r *http.Request) (*Data, error) {
	c, err := r.Cookie(cookieName)
	if err != nil {
		return nil, ErrNoSession
	}
	k := key(c.Value)
	b, err := s.rdb.Get(ctx, k).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, ErrNoSession
	} else if err != nil {
		return nil, err
	}
	var d Data
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, err
	}
	if time.Since(d.CreatedAt) > absoluteTTL {
		_ = s.rdb.Del(ctx, k).Err()
		return nil, ErrNoSession
	}
	// Admin sessions don't get their idle timeout extended beyond 10 minutes.
	ttl := idleTTL
	if d.IsAdmin {
		ttl = 10 * time.Minute
	}
	_ = s.rdb.Expire(ctx, k, ttl).Err()
	return &d, nil
}

// Destroy deletes the session and clears the cookie. Call on logout and on
// password change.
func (s *Store) Destroy(ctx context.Context, w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(cookieName); err == nil {
		_ = s.rdb.Del(ctx, key(c.Value)).Err()
	}
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: "", Path: "/", MaxAge: -1, Secure: true, HttpOnly: true})
}
