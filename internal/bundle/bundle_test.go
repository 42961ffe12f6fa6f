package bundle

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/pem"
	"errors"
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
	"github.com/moatdev/moat/internal/decide"
	"github.com/moatdev/moat/internal/dirs"
	"github.com/moatdev/moat/internal/policy"
	"github.com/moatdev/moat/internal/policysign"
)

// fleetTest is one installation that fetches bundles: its directories, its fleet.yaml
// (written by the test), and a key pair whose public half fleet.yaml pins.
type fleetTest struct {
	t    *testing.T
	env  map[string]string
	dirs dirs.Dirs
	priv policysign.PrivateKey
	key  string // the pinned key's file
}

func newFleetTest(t *testing.T) *fleetTest {
	t.Helper()
	home := t.TempDir()
	env := map[string]string{"HOME": home, "PATH": "/usr/bin:/bin"}
	d, err := dirs.FromEnv(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	d.Managed = ""
	priv, pub, err := policysign.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ft := &fleetTest{t: t, env: env, dirs: d, priv: priv, key: filepath.Join(d.Config, "fleet.moat-pub")}
	ft.write(ft.key, string(policysign.MarshalPublic(pub)))
	return ft
}

func (ft *fleetTest) write(path, content string) {
	ft.t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		ft.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		ft.t.Fatal(err)
	}
}

// configure writes fleet.yaml's policy section: the lines given, and the pinned key.
func (ft *fleetTest) configure(lines string) {
	ft.write(filepath.Join(ft.dirs.Config, "fleet.yaml"), "policy:\n"+lines+"  key: "+ft.key+"\n")
}

// bundle is a signed bundle of serial whose one rule denies `curl NAME`.
func (ft *fleetTest) bundle(serial int, name string) []byte {
	ft.t.Helper()
	doc, err := policysign.Sign([]byte(bundleText(serial, name)), ft.priv)
	if err != nil {
		ft.t.Fatal(err)
	}
	return doc
}

func bundleText(serial int, name string) string {
	return fmt.Sprintf("version: 1\nserial: %d\nrules:\n  - {id: %s, command: \"curl %s\", decision: deny}\n", serial, name, name)
}

// decides returns the verdict and rule a fresh decision service (a new process, as a
// hook is) gives `curl name` for this installation, or the lookup's error.
func (ft *fleetTest) decides(name string) (string, error) {
	ft.t.Helper()
	verify := func(file string, data, key []byte) (int64, error) {
		pub, err := policysign.ParsePublic(key)
		if err != nil {
			return 0, err
		}
		_, serial, err := policysign.VerifyManaged(file, data, pub, policysign.NewSerialStore(ft.dirs.ManagedSerials()))
		return serial, err
	}
	svc := decide.NewLocal(decide.Options{Getenv: func(k string) string { return ft.env[k] }, Now: time.Now, VerifyManaged: verify, Write: func(audit.Record) error { return nil }})
	ctx := context.Background()
	pol, err := svc.Lookup(ctx, decide.Scope{Cwd: ft.dirs.Home})
	if err != nil {
		return "", err
	}
	cl, err := call.Canonicalize("", string(call.Shell), map[string]any{call.ArgCommand: "curl " + name})
	if err != nil {
		ft.t.Fatal(err)
	}
	cl.Cwd = ft.dirs.Home
	res, err := svc.Decide(ctx, decide.CallRequest{Policy: pol.Key, Calls: []call.Call{cl}})
	if err != nil {
		ft.t.Fatal(err)
	}
	return res.Decision.Verdict.String() + " " + res.Decision.Rule, nil
}

func compilePolicy(name string, doc []byte) error {
	_, err := policy.Load(name, doc, policy.Host{})
	return err
}

// bundleServer serves one document over HTTPS, with an ETag, and counts what it sent.
type bundleServer struct {
	mu       sync.Mutex
	doc      []byte
	etag     string
	sent     int // 200s
	unchange int // 304s
	srv      *httptest.Server
}

func newBundleServer(t *testing.T) *bundleServer {
	b := &bundleServer{}
	b.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b.mu.Lock()
		defer b.mu.Unlock()
		if b.doc == nil {
			http.NotFound(w, r)
			return
		}
		if r.Header.Get("If-None-Match") == b.etag {
			b.unchange++
			w.WriteHeader(http.StatusNotModified)
			return
		}
		b.sent++
		w.Header().Set("ETag", b.etag)
		w.Write(b.doc)
	}))
	t.Cleanup(b.srv.Close)
	return b
}

func (b *bundleServer) serve(doc []byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.doc = doc
	b.etag = fmt.Sprintf(`"%x"`, sha256.Sum256(doc))
}

// caFile writes the server's certificate as a PEM file, as fleet.yaml's ca_file.
func (b *bundleServer) caFile(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "ca.pem")
	data := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: b.srv.Certificate().Raw})
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func (ft *fleetTest) httpUpdater(b *bundleServer) *Updater {
	ft.t.Helper()
	ca := b.caFile(ft.t)
	ft.configure("  url: " + b.srv.URL + "/bundle.yaml\n  ca_file: " + ca + "\n")
	f, err := NewHTTPFetcher(b.srv.URL+"/bundle.yaml", ca)
	if err != nil {
		ft.t.Fatal(err)
	}
	return NewUpdater(ft.dirs, ft.key, f, compilePolicy, nil)
}

func TestHTTPBundle(t *testing.T) {
	ft := newFleetTest(t)
	srv := newBundleServer(t)
	u := ft.httpUpdater(srv)
	ctx := context.Background()

	// Before the first fetch, the other layers decide (the embedded policy).
	if got, err := ft.decides("v1.example"); err != nil || strings.HasPrefix(got, "deny v1") {
		t.Fatalf("before any bundle: %q, %v", got, err)
	}
	if st := Describe(ft.dirs, ft.key); st.InForce || !strings.Contains(st.Problem, "no bundle fetched yet") {
		t.Errorf("status before any bundle: %+v", st)
	}

	srv.serve(ft.bundle(2, "v1.example"))
	res, err := u.Check(ctx)
	if err != nil || !res.Changed || res.Serial != 2 {
		t.Fatalf("first fetch: %+v, %v", res, err)
	}
	wantDeny := func(name string) {
		t.Helper()
		got, err := ft.decides(name)
		if err != nil || got != "deny "+name {
			t.Fatalf("curl %s: %q, %v; want denied by the bundle's rule %s", name, got, err, name)
		}
	}
	wantDeny("v1.example")

	// Unchanged: one conditional request, answered 304, costs no download.
	if res, err := u.Check(ctx); err != nil || res.Changed {
		t.Fatalf("unchanged: %+v, %v", res, err)
	}
	if srv.sent != 1 || srv.unchange != 1 {
		t.Errorf("server sent %d bundles and %d not-modified, want 1 and 1", srv.sent, srv.unchange)
	}

	good := ft.bundle(3, "v3.example")
	other, _, err := policysign.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	wrongKey, err := policysign.Sign([]byte(bundleText(4, "wrong.example")), other)
	if err != nil {
		t.Fatal(err)
	}
	uncompilable, err := policysign.Sign([]byte("version: 1\nserial: 4\nrules: [{id: x, decision: maybe}]\n"), ft.priv)
	if err != nil {
		t.Fatal(err)
	}
	noSerial, err := policysign.Sign([]byte("version: 1\nrules: []\n"), ft.priv)
	if err != nil {
		t.Fatal(err)
	}
	refusals := []struct {
		name   string
		doc    []byte
		reason Reason
	}{
		{"tampered", []byte(strings.Replace(string(good), "decision: deny", "decision: allow", 1)), ReasonSignature},
		{"wrong key", wrongKey, ReasonWrongKey},
		{"unsigned", []byte(bundleText(4, "unsigned.example")), ReasonUnsigned},
		{"older serial", ft.bundle(1, "old.example"), ReasonRollback},
		{"uncompilable", uncompilable, ReasonCompile},
		{"no serial", noSerial, ReasonNoSerial},
	}
	for _, r := range refusals {
		t.Run(r.name, func(t *testing.T) {
			srv.serve(r.doc)
			res, err := u.Check(ctx)
			if ReasonOf(err) != r.reason || res.Changed || res.Serial != 2 {
				t.Fatalf("Check = %+v, %v; want refused for %s with serial 2 in force", res, err, r.reason)
			}
			// The last good bundle still decides: its rule, which no refused bundle has.
			wantDeny("v1.example")
			st := Describe(ft.dirs, ft.key)
			if !st.InForce || st.Serial != 2 || st.LastReason != r.reason || st.LastError == "" {
				t.Errorf("status after a refusal: %+v", st)
			}
		})
	}

	srv.serve(good)
	if res, err := u.Check(ctx); err != nil || !res.Changed || res.Serial != 3 {
		t.Fatalf("v3: %+v, %v", res, err)
	}
	wantDeny("v3.example")
	if got, _ := ft.decides("v1.example"); got == "deny v1.example" {
		t.Error("v1's rule still decides after v3 was put in force")
	}
	if st := Describe(ft.dirs, ft.key); !st.InForce || st.Serial != 3 || st.LastError != "" || st.FetchedAt.IsZero() || st.Source != srv.srv.URL+"/bundle.yaml" {
		t.Errorf("status with v3: %+v", st)
	}

	// The server goes away: a new process (a restart) still decides with the kept v3.
	srv.srv.Close()
	res, err = NewUpdater(ft.dirs, ft.key, u.fetch, compilePolicy, nil).Check(ctx)
	if ReasonOf(err) != ReasonFetch || res.Serial != 3 {
		t.Fatalf("server down: %+v, %v", res, err)
	}
	wantDeny("v3.example")

	// A kept bundle modified on disk fails every decision closed.
	kept, err := os.ReadFile(Path(ft.dirs))
	if err != nil {
		t.Fatal(err)
	}
	ft.write(Path(ft.dirs), strings.Replace(string(kept), "decision: deny", "decision: allow", 1))
	if got, err := ft.decides("v3.example"); err == nil || !strings.Contains(err.Error(), "refusing the fleet's policy bundle") {
		t.Fatalf("modified kept bundle: %q, %v; want the lookup refused", got, err)
	}
	if st := Describe(ft.dirs, ft.key); st.InForce || !strings.Contains(st.Problem, "fails closed") {
		t.Errorf("status of a modified kept bundle: %+v", st)
	}
}

// TestHTTPRefusesAnUntrustedCertificate checks that without ca_file the test server's
// self-signed certificate is refused: the CA file is what trusts it.
func TestHTTPRefusesAnUntrustedCertificate(t *testing.T) {
	ft := newFleetTest(t)
	srv := newBundleServer(t)
	srv.serve(ft.bundle(1, "a.example"))
	f, err := NewHTTPFetcher(srv.srv.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	_, err = NewUpdater(ft.dirs, ft.key, f, compilePolicy, nil).Check(context.Background())
	if ReasonOf(err) != ReasonFetch || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("Check = %v, want a certificate error", err)
	}
}

func TestHTTPBounds(t *testing.T) {
	big := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(make([]byte, MaxBytes+10))
	}))
	defer big.Close()
	ft := newFleetTest(t)
	ca := (&bundleServer{srv: big}).caFile(t)
	f, err := NewHTTPFetcher(big.URL, ca)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Fetch(context.Background(), State{}); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("a bundle over the bound: %v", err)
	}
	for _, u := range []string{"http://policy.example.com/b.yaml", "ftp://127.0.0.1/b", "https:///b"} {
		if _, err := NewHTTPFetcher(u, ""); err == nil {
			t.Errorf("NewHTTPFetcher(%q) accepted", u)
		}
	}
	_ = ft
}

func TestReasonOf(t *testing.T) {
	if ReasonOf(errors.New("x")) != "" || ReasonOf(fmt.Errorf("w: %w", refused(ReasonCompile, errors.New("x")))) != ReasonCompile {
		t.Error("ReasonOf does not find the reason through wrapping")
	}
}

// TestHTTPQueryNotShown: a token in the URL's query is never in the source status and
// logs show, nor in a fetch error.
func TestHTTPQueryNotShown(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no", http.StatusForbidden)
	}))
	defer srv.Close()
	ca := (&bundleServer{srv: srv}).caFile(t)
	f, err := NewHTTPFetcher(srv.URL+"/b.yaml?token=s3cret", ca)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Fetch(context.Background(), State{})
	if err == nil || strings.Contains(err.Error(), "s3cret") || strings.Contains(f.Source(), "s3cret") || !strings.HasSuffix(f.Source(), "/b.yaml?…") {
		t.Fatalf("source %q, error %v: want the query left out", f.Source(), err)
	}
	down, err := NewHTTPFetcher("https://127.0.0.1:1/b.yaml?token=s3cret", ca)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := down.Fetch(context.Background(), State{}); err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("connection error %v: want the query left out", err)
	}
}
