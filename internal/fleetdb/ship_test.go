package fleetdb

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

func TestRefused(t *testing.T) {
	for _, tt := range []struct {
		name string
		err  error
		want bool
	}{
		{"index row too large", &pgconn.PgError{Code: "54000"}, true},
		{"invalid byte sequence", &pgconn.PgError{Code: "22021"}, true},
		{"value too long", &pgconn.PgError{Code: "22001"}, true},
		{"wrapped", fmt.Errorf("shipping: %w", &pgconn.PgError{Code: "22P05"}), true},
		{"check constraint", &pgconn.PgError{Code: "23514"}, false},
		{"undefined table", &pgconn.PgError{Code: "42P01"}, false},
		{"admin shutdown", &pgconn.PgError{Code: "57P01"}, false},
		{"malformed code", &pgconn.PgError{Code: "22"}, false},
		{"not from the database", errors.New("connection refused"), false},
		{"a timeout", context.DeadlineExceeded, false},
		{"none", nil, false},
	} {
		if got := Refused(tt.err); got != tt.want {
			t.Errorf("%s: Refused(%v) = %v, want %v", tt.name, tt.err, got, tt.want)
		}
	}
}
