package decide

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"
	"go.yaml.in/yaml/v3"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/policy/source"
	"github.com/moatdev/moat/internal/trust"
)

// layerCase is the test.yaml of one case of testdata/layers: the policies are the other
// files of the archive (managed/…, user.yaml, project/…, and any file MOAT_POLICY or
// --policy names).
type layerCase struct {
	// Trust lists the project files the user trusted (relative to the archive).
	Trust []string `yaml:"trust"`
	Env   string   `yaml:"env"`  // MOAT_POLICY, relative to the archive
	Flag  string   `yaml:"flag"` // --policy, relative to the archive
	// Verify is what the managed policy's verifier answers: "" (no verifier), "reject",
	// or a serial.
	Verify string `yaml:"verify"`
	// Error, when set, is part of the error the lookup must fail with.
	Error string `yaml:"error"`
	// ManagedSerial is the managed_serial every call's record carries.
	ManagedSerial int64             `yaml:"managed_serial"`
	Settings      map[string]string `yaml:"settings"`
	Overrides     []string          `yaml:"overrides"`
	Calls         []struct {
		Command string         `yaml:"command"`
		Tool    string         `yaml:"tool"`
		Args    map[string]any `yaml:"args"`
		Expect  string         `yaml:"expect"`
		Rule    string         `yaml:"rule"`
		// Layer is the layer whose source the decision names ("managed", "user",
		// "project", "env", "flag"), or "-" when one policy decides alone.
		Layer string `yaml:"layer"`
	} `yaml:"calls"`
}

// TestLayerCorpus runs every case of testdata/layers: managed, user and project policies
// combined, including each way a lower layer might try to loosen the managed one.
func TestLayerCorpus(t *testing.T) {
	files, err := filepath.Glob("testdata/layers/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no layer cases: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			runLayerCase(t, file)
		})
	}
}

func runLayerCase(t *testing.T, file string) {
	ar, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	home := filepath.Join(root, "home")
	project := filepath.Join(root, "project")
	managed := filepath.Join(root, "managed")
	var tc layerCase
	for _, f := range ar.Files {
		if f.Name == "test.yaml" {
			if err := yaml.Unmarshal(f.Data, &tc); err != nil {
				t.Fatalf("test.yaml: %v", err)
			}
			continue
		}
		path := filepath.Join(root, filepath.FromSlash(f.Name))
		if f.Name == "user.yaml" {
			path = filepath.Join(home, ".config", "moat", "moat.yaml")
		}
		if err := mkdirWrite(path, string(f.Data)); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{filepath.Join(project, ".git"), managed} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{"HOME": home, "PATH": "/usr/bin:/bin"}
	if tc.Env != "" {
		env["MOAT_POLICY"] = filepath.Join(root, tc.Env)
	}
	getenv := func(k string) string { return env[k] }
	var recorded []audit.Record
	opts := Options{Getenv: getenv, Now: time.Now, ManagedDir: managed, Write: func(r audit.Record) error { recorded = append(recorded, r); return nil }}
	switch tc.Verify {
	case "":
	case "reject":
		opts.VerifyManaged = func(_ string, data, key []byte) (int64, error) { return 0, errors.New("signature does not match") }
	default:
		opts.VerifyManaged = func(_ string, data, key []byte) (int64, error) {
			var n int64
			err := yaml.Unmarshal([]byte(tc.Verify), &n)
			return n, err
		}
	}
	svc := NewLocal(opts)
	d, err := svc.Dirs()
	if err != nil {
		t.Fatal(err)
	}
	store := trust.Open(d.TrustStore())
	for _, f := range tc.Trust {
		path := filepath.Join(root, filepath.FromSlash(f))
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := store.Trust(path, data, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	scope := Scope{Cwd: project}
	if tc.Flag != "" {
		scope.Flag = filepath.Join(root, tc.Flag)
	}
	ctx := context.Background()
	pol, err := svc.Lookup(ctx, scope)
	if tc.Error != "" {
		if err == nil || !strings.Contains(err.Error(), tc.Error) {
			t.Fatalf("lookup error = %v, want one containing %q", err, tc.Error)
		}
		return
	}
	if err != nil {
		t.Fatalf("lookup: %v", err)
	}
	c, err := svc.byKey(pol.Key)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{
		"fail": string(pol.Fail), "hooks.allow": string(pol.Hooks.Allow), "hooks.ask": string(pol.Hooks.Ask),
		"approvals": string(pol.ApprovalQueue), "default": c.Policy.Default.String(),
	}
	for k, want := range tc.Settings {
		if got[k] != want {
			t.Errorf("setting %s = %q, want %q", k, got[k], want)
		}
	}
	var overrides []string
	for _, o := range c.Overrides {
		overrides = append(overrides, o.String())
	}
	if len(overrides) != len(tc.Overrides) {
		t.Errorf("overrides = %q, want %d like %q", overrides, len(tc.Overrides), tc.Overrides)
	}
	for i := range min(len(overrides), len(tc.Overrides)) {
		if !strings.Contains(overrides[i], tc.Overrides[i]) {
			t.Errorf("override %d = %q, want it to contain %q", i, overrides[i], tc.Overrides[i])
		}
	}
	kinds := map[string]string{"": "-", filepath.Join(managed, "managed.yaml"): "managed", d.UserPolicy(): "user", filepath.Join(project, "moat.yaml"): "project", d.FleetBundle(): "bundle"}
	if tc.Env != "" {
		kinds[env["MOAT_POLICY"]] = "env"
	}
	if tc.Flag != "" {
		kinds[scope.Flag] = "flag"
	}
	for _, cc := range tc.Calls {
		args, tool := cc.Args, cc.Tool
		if cc.Command != "" {
			args, tool = map[string]any{call.ArgCommand: cc.Command}, string(call.Shell)
		}
		cl, err := call.Canonicalize("", tool, args)
		if err != nil {
			t.Fatal(err)
		}
		cl.Cwd, cl.Project = project, project
		res, err := svc.Decide(ctx, CallRequest{Policy: pol.Key, Calls: []call.Call{cl}, Record: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(recorded) == 0 || recorded[len(recorded)-1].ManagedSerial != tc.ManagedSerial {
			t.Errorf("%s: records %+v, want the last with managed_serial %d", cl.Describe(), recorded, tc.ManagedSerial)
		}
		dec := res.Decision
		layer, ok := kinds[dec.Policy]
		if !ok {
			layer = dec.Policy
		}
		if dec.Verdict.String() != cc.Expect || (cc.Rule != "" && dec.Rule != cc.Rule) || (cc.Layer != "" && layer != cc.Layer) {
			t.Errorf("%s: got %s by %s in layer %s (%s), want %s by %s in layer %s", cl.Describe(), dec.Verdict, dec.Rule, layer, dec.Reason, cc.Expect, cc.Rule, cc.Layer)
		}
	}
}

// TestIncludedFileChange checks that a compiled policy is not reused once a file its
// extends read has changed: the cache key covers only the policy files themselves.
func TestIncludedFileChange(t *testing.T) {
	home := t.TempDir()
	dir := t.TempDir()
	main := filepath.Join(dir, "p.yaml")
	shared := filepath.Join(dir, "shared.moat.yaml")
	if err := mkdirWrite(main, "version: 1\ndefault: allow\nextends: [shared.moat.yaml]\n"); err != nil {
		t.Fatal(err)
	}
	decideCurl := func() call.Verdict {
		t.Helper()
		svc := NewLocal(Options{Getenv: func(k string) string { return map[string]string{"HOME": home}[k] }, Write: func(audit.Record) error { return nil }})
		pol, err := svc.Lookup(context.Background(), Scope{Flag: main, Cwd: dir})
		if err != nil {
			t.Fatal(err)
		}
		cl, _ := call.Canonicalize("", string(call.Shell), map[string]any{call.ArgCommand: "curl https://example.com"})
		cl.Cwd = dir
		res, err := svc.Decide(context.Background(), CallRequest{Policy: pol.Key, Calls: []call.Call{cl}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Decision.Verdict
	}
	svc := NewLocal(Options{Getenv: func(k string) string { return map[string]string{"HOME": home}[k] }})
	d, err := svc.Dirs()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		shared string
		want   call.Verdict
	}{
		{"version: 1\nrules:\n  - {id: no-curl, command: \"curl **\", decision: deny}\n", call.Deny},
		{"version: 1\nrules:\n  - {id: curl, command: \"curl **\", decision: allow}\n", call.Allow},
	} {
		if err := mkdirWrite(shared, tt.shared); err != nil {
			t.Fatal(err)
		}
		src, err := source.ReadFile(main)
		if err != nil {
			t.Fatal(err)
		}
		c, err := svc.Compile(src, d)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Policy.Rules[0].Decision; got != tt.want {
			t.Errorf("after writing the shared file: rule decides %s, want %s", got, tt.want)
		}
		if got := decideCurl(); got != tt.want {
			t.Errorf("decision %s, want %s", got, tt.want)
		}
	}
}
