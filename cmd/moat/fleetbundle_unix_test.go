//go:build unix

package main

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/daemon"
	"github.com/moatdev/moat/internal/daemonenv"
	"github.com/moatdev/moat/internal/decide"
	"github.com/moatdev/moat/internal/policysign"
)

// bundleHost serves one signed policy bundle over HTTPS on loopback.
type bundleHost struct {
	mu  sync.Mutex
	doc []byte
	srv *httptest.Server
}

func (b *bundleHost) serve(doc []byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.doc = doc
}

func (b *bundleHost) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	defer b.mu.Unlock()
	etag := fmt.Sprintf(`"%x"`, sha256.Sum256(b.doc))
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("ETag", etag)
	w.Write(b.doc)
}

// TestFleetBundleThroughDaemon: the real daemon fetches the fleet's signed bundle over
// HTTPS (fleet.yaml in $XDG_CONFIG_HOME/moat); v1 decides, a tampered v2 and an older
// bundle are refused while v1 keeps deciding, v3 replaces v1, and after a restart with
// the server gone v3 still decides. Records carry the serial in force.
func TestFleetBundleThroughDaemon(t *testing.T) {
	e := newDaemonEnv(t)
	cfg := filepath.Join(e.home, ".config", "moat")
	if err := os.MkdirAll(cfg, 0o700); err != nil {
		t.Fatal(err)
	}
	priv, pub, err := policysign.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	keyPath := filepath.Join(cfg, "fleet.moat-pub")
	if err := os.WriteFile(keyPath, policysign.MarshalPublic(pub), 0o644); err != nil {
		t.Fatal(err)
	}
	host := &bundleHost{}
	host.srv = httptest.NewTLSServer(host)
	defer host.srv.Close()
	caPath := filepath.Join(cfg, "fleet-ca.pem")
	if err := os.WriteFile(caPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: host.srv.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	fleetYAML := fmt.Sprintf("policy:\n  url: %s/bundle.yaml\n  key: fleet.moat-pub\n  ca_file: fleet-ca.pem\n  interval: 1s\n", host.srv.URL)
	if err := os.WriteFile(filepath.Join(cfg, "fleet.yaml"), []byte(fleetYAML), 0o600); err != nil {
		t.Fatal(err)
	}
	sign := func(serial int, name string) []byte {
		t.Helper()
		doc, err := policysign.Sign([]byte(fmt.Sprintf("version: 1\nserial: %d\nrules:\n  - {id: %s, command: \"curl %s\", decision: deny}\n", serial, name, name)), priv)
		if err != nil {
			t.Fatal(err)
		}
		return doc
	}
	ctx := context.Background()
	auditLog := filepath.Join(e.home, ".local", "state", "moat", "audit.jsonl")
	// decideCurl decides `curl name` through the daemon, recorded, and returns the
	// decision and its record.
	decideCurl := func(name string) (call.Decision, audit.Record) {
		t.Helper()
		remote := decide.NewRemote(daemon.DialBound(e.socket(), daemon.BindParams{Env: daemonenv.Capture(e.getenv), Executable: moatBinary(t)}))
		defer remote.Close()
		pol, err := remote.Lookup(ctx, decide.Scope{Cwd: e.home})
		if err != nil {
			t.Fatal(err)
		}
		cl := call.Call{Agent: call.ClaudeCode, Class: call.Shell, Tool: "Bash", Args: map[string]any{"command": "curl " + name}, Cwd: e.home}
		res, err := remote.Decide(ctx, decide.CallRequest{Policy: pol.Key, Event: "PreToolUse", Calls: []call.Call{cl}, Record: true})
		if err != nil {
			t.Fatal(err)
		}
		return res.Decision, lastRecord(t, auditLog)
	}
	wantDenied := func(name string, serial int64) {
		t.Helper()
		d, rec := decideCurl(name)
		if d.Verdict != call.Deny || d.Rule != name {
			t.Fatalf("curl %s: %s by %s (%s); want denied by the bundle's rule %s", name, d.Verdict, d.Rule, d.Reason, name)
		}
		if rec.Rule != name || rec.ManagedSerial != serial {
			t.Fatalf("record of curl %s: rule %s, managed_serial %d; want %s, %d", name, rec.Rule, rec.ManagedSerial, name, serial)
		}
	}
	waitBundle := func(what string, ok func(daemon.BundleStatus) bool) daemon.BundleStatus {
		t.Helper()
		var last string
		for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			out, code := e.moatCmd(t, "daemon", "status", "--json")
			last = out
			var st daemon.Status
			if code == 0 && json.Unmarshal([]byte(out), &st) == nil && st.PolicyBundle != nil && len(st.PolicyBundle.Environments) == 1 && ok(st.PolicyBundle.Environments[0]) {
				return st.PolicyBundle.Environments[0]
			}
		}
		t.Fatalf("%s: the daemon's status never said so: %s", what, last)
		return daemon.BundleStatus{}
	}

	host.serve(sign(2, "v1.example"))
	cmd, log := e.startDaemon(t)
	waitBundle("v1 in force", func(b daemon.BundleStatus) bool { return b.InForce && b.Serial == 2 && b.LastError == "" })
	wantDenied("v1.example", 2)

	v2 := strings.Replace(string(sign(3, "v2.example")), "decision: deny", "decision: allow", 1)
	host.serve([]byte(v2))
	waitBundle("tampered v2 refused", func(b daemon.BundleStatus) bool { return b.LastReason == "signature" && b.Serial == 2 })
	wantDenied("v1.example", 2)

	host.serve(sign(1, "old.example"))
	st := waitBundle("older refused", func(b daemon.BundleStatus) bool { return b.LastReason == "rollback" && b.Serial == 2 })
	if st.Refused["signature"] == 0 || st.Refused["rollback"] == 0 {
		t.Errorf("refusals counted: %v", st.Refused)
	}
	wantDenied("v1.example", 2)

	host.serve(sign(4, "v3.example"))
	waitBundle("v3 in force", func(b daemon.BundleStatus) bool { return b.InForce && b.Serial == 4 && b.LastError == "" })
	wantDenied("v3.example", 4)
	if d, _ := decideCurl("v1.example"); d.Rule == "v1.example" {
		t.Error("v1's rule still decides with v3 in force")
	}
	out, _ := e.moatCmd(t, "daemon", "status")
	if !strings.Contains(out, "bundle     serial 4 in force (key "+pub.KeyID()+")") {
		t.Errorf("daemon status does not show the bundle:\n%s", out)
	}
	if l := log.String(); !strings.Contains(l, "policy bundle refused (signature)") || !strings.Contains(l, "serial 4 in force") {
		t.Errorf("the daemon's log does not tell the refusal and v3:\n%s", l)
	}

	// The server goes away and the daemon restarts: v3, kept, still decides.
	stopDaemon(t, cmd, log)
	host.srv.Close()
	e.startDaemon(t)
	waitBundle("server gone", func(b daemon.BundleStatus) bool { return b.InForce && b.Serial == 4 && b.LastReason == "fetch" })
	wantDenied("v3.example", 4)
	// moat check in its own process (no daemon) decides with the kept bundle as well.
	check := append([]string{"MOAT_DAEMON=off"}, e.env...)
	ec := daemonEnv{home: e.home, runtime: e.runtime, env: check}
	if out, code := ec.moatCmd(t, "check", "--", "curl", "v3.example"); code != 3 || !strings.Contains(out, "v3.example") {
		t.Errorf("moat check without the daemon: exit %d: %s", code, out)
	}
	if out, _ := ec.moatCmd(t, "status"); !strings.Contains(out, "bundle     serial 4 in force") {
		t.Errorf("moat status does not show the bundle:\n%s", out)
	}
}

// lastRecord is the newest record of the audit log at path.
func lastRecord(t *testing.T, path string) audit.Record {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	var rec audit.Record
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &rec); err != nil {
		t.Fatalf("the last record: %v", err)
	}
	return rec
}
