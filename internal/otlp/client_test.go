package otlp

import (
	"context"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A collector whose certificate a private CA signed is reached with ca_file, and refused
// without it.
func TestNewClientCAFile(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, caFile string
		wantErr      string
	}{
		{name: "with ca_file", caFile: caFile},
		{name: "system roots only", wantErr: "certificate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client, err := NewClient(tc.caFile)
			if err != nil {
				t.Fatal(err)
			}
			e, err := New(Options{Endpoint: srv.URL, Client: client, Interval: time.Hour, RetryFor: time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			e.Offer(record(0))
			if err := e.Close(context.Background()); err != nil {
				t.Fatal(err)
			}
			st := e.Status()
			if tc.wantErr == "" && (st.Exported != 1 || st.LastError != "") {
				t.Errorf("status %+v; want the record exported", st)
			}
			if tc.wantErr != "" && (st.Exported != 0 || !strings.Contains(st.LastError, tc.wantErr)) {
				t.Errorf("status %+v; want an error with %q", st, tc.wantErr)
			}
		})
	}
	if _, err := NewClient(filepath.Join(t.TempDir(), "none.pem")); err == nil {
		t.Error("NewClient accepted a missing ca_file")
	}
	empty := filepath.Join(t.TempDir(), "empty.pem")
	os.WriteFile(empty, []byte("not a certificate"), 0o600)
	if _, err := NewClient(empty); err == nil {
		t.Error("NewClient accepted a ca_file without certificates")
	}
}
