//go:build linux || darwin

package daemon

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/decide"
)

// DialBound hands decide.Remote a connection bound to the client's environment; a
// refused binding or an absent daemon is an error of the dial, never a connection
// served by another environment's service.
func TestDialBound(t *testing.T) {
	env := newTestEnv(t)
	bind := func(p BindParams) (decide.Service, error) {
		e := p.Env
		if e["HOME"] == "" {
			return nil, errors.New("no HOME")
		}
		return boundService{home: e["HOME"]}, nil
	}
	p := serve(t, newServer(t, Options{Service: env.local(), Bind: bind}))
	tests := []struct {
		name    string
		socket  string
		env     map[string]string
		want    string // the policy's name, when bound
		wantErr string
	}{
		{"bound", p.Socket, map[string]string{"HOME": "/other"}, "bound to /other", ""},
		{"refused", p.Socket, map[string]string{}, "", "bind: no HOME"},
		{"no daemon", filepath.Join(filepath.Dir(p.Socket), "none.sock"), map[string]string{"HOME": "/h"}, "", "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := decide.NewRemote(DialBound(tt.socket, BindParams{Env: tt.env}))
			defer r.Close()
			pol, err := r.Lookup(context.Background(), decide.Scope{Cwd: "/"})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Lookup: %v, want an error with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if pol.Name != tt.want {
				t.Errorf("answered by %q, want %q", pol.Name, tt.want)
			}
		})
	}
}
