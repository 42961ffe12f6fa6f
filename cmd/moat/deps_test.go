package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
)

var updateDeps = flag.Bool("update", false, "rewrite the package lines of deps.txt from go list")

// depsFile lists, by module and with a reason for each module, the packages outside the
// standard library and moat that the moat binary links.
const depsFile = "deps.txt"

// depTargets are the platforms the CI builds (.ci/run): the binary's dependencies are
// checked for each, since build tags make them differ.
var depTargets = []string{"linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64", "windows/amd64"}

// mcpProxy are the MCP proxy's packages (the proxy, its HTTP side and its JSON-RPC
// framing). The tool-listing scanner under internal/mcp is not among them: it is pure
// reading of text, and its finding kinds are in the catalogue policies are checked against.
var mcpProxy = []string{
	"github.com/moatdev/moat/internal/mcp",
	"github.com/moatdev/moat/internal/mcp/httpproxy/...",
	"github.com/moatdev/moat/internal/mcp/jsonrpc/...",
}

// deniedDeps are packages that must never be linked by a package of moat, with the reason.
// A denied path ending in /... also denies the packages under it, as go list reads it.
// The decision path (the hook adapters, the engine and what it reads) runs once per tool
// call in a fresh process, and a thin hook client will be built from it: it links no
// network stack, no CLI framework, no proxy and no sandbox.
// cgoOptional are packages that use cgo when it is enabled and have a pure Go build
// besides, which the release (CGO_ENABLED=0) links; each with the reason it is linked.
var cgoOptional = map[string]string{}

var deniedDeps = []struct {
	pkg, why string
	deny     []string
}{
	{"github.com/moatdev/moat/cmd/moat", "the MCP SDK is a test peer: the proxy speaks the wire format itself, so what it relays is what it read, and the binary stays small",
		[]string{"github.com/modelcontextprotocol/go-sdk/..."}},
	{"github.com/moatdev/moat/cmd/moat", "Prometheus's client library registers collectors and protobuf descriptors when a process starts (measured: about 2.6 ms added to every moat process, each hook call and launch among them, for a daemon-only feature); internal/metrics writes the text exposition format itself, and Prometheus's parser is a test-only import",
		[]string{"github.com/prometheus/..."}},
	{"github.com/moatdev/moat/cmd/moat", "the OTLP export (internal/otlp) encodes the few OTLP messages it sends itself: the generated types of go.opentelemetry.io/proto/otlp register their descriptors when a process starts (measured: about 60 KB and 2 ms in every moat process, each hook call among them, for a daemon-only feature), and even protobuf's protowire links its internal/detrand, which opens and reads the running executable at init; the generated types are a test-only import that decodes what the export encodes, and the OpenTelemetry SDK, with its global providers, is not needed to send two kinds of message",
		[]string{"google.golang.org/protobuf/...", "go.opentelemetry.io/..."}},
	{"github.com/moatdev/moat/cmd/moat", "the JSON Schema validator is a test-only import: internal/policyschema's tests check with it that every shipped and test policy matches the generated schema and that wrong ones do not; moat prints the schema and never validates with it (moat validate reads the policy itself, with positions)",
		[]string{"github.com/santhosh-tekuri/jsonschema/..."}},
	{"github.com/moatdev/moat/cmd/moat", "test support is never shipped",
		[]string{"github.com/moatdev/moat/internal/testbin/...", "github.com/moatdev/moat/internal/modelstub/...", "github.com/rogpeppe/go-internal/testscript/...", "testing"}},
	{"github.com/moatdev/moat/cmd/moat", "chromedp (and its cdproto) drives a real Chromium in the dashboard's browser tests (ui_browser_test.go) only: a test dependency, never shipped",
		[]string{"github.com/chromedp/..."}},
	{"github.com/moatdev/moat/cmd/moat-hook", "the thin hook client runs once per tool call and only relays the event to the daemon or execs moat hook: it links no CLI framework, YAML, network stack (not even package net: its socket is system calls, and net's initialization alone cost more than the rest of the client's start), and none of the decision path (which is the daemon's or moat's)",
		append([]string{"github.com/spf13/cobra/...", "go.yaml.in/yaml/v3/...", "gopkg.in/yaml.v3/...", "github.com/goccy/go-yaml/...", "net", "net/http/...", "crypto/tls/...",
			"github.com/moatdev/moat/internal/daemon", "github.com/moatdev/moat/internal/decide/...", "github.com/moatdev/moat/internal/engine/...", "github.com/moatdev/moat/internal/hook",
			"github.com/moatdev/moat/internal/policy/...", "github.com/moatdev/moat/internal/shell/...", "github.com/moatdev/moat/internal/scan/...", "github.com/moatdev/moat/internal/audit/...",
			"github.com/moatdev/moat/internal/cli/...", "github.com/moatdev/moat/internal/sandbox/...", "modernc.org/sqlite/...", "github.com/fsnotify/fsnotify/...", "github.com/prometheus/...",
			"mvdan.cc/sh/...", "golang.org/x/text/..."}, mcpProxy...)},
	{"github.com/moatdev/moat/internal/hook", "a hook adapter only reads an agent's event and writes its answer: the thin hook client links it without YAML, the CLI framework or the network",
		append([]string{"go.yaml.in/yaml/v3/...", "github.com/spf13/cobra/...", "net/http/...", "crypto/tls/...", "github.com/moatdev/moat/internal/audit/...", "github.com/moatdev/moat/internal/sandbox/...", "modernc.org/sqlite/..."}, mcpProxy...)},
	{"github.com/moatdev/moat/internal/engine", "deciding a call is pure computation over the call and the policy: no network client, no CLI, no proxy, no sandbox, no recording",
		append([]string{"net/http/...", "crypto/tls/...", "github.com/spf13/cobra/...", "github.com/moatdev/moat/internal/sandbox/...", "github.com/moatdev/moat/internal/audit/...", "github.com/moatdev/moat/internal/cli/...", "modernc.org/sqlite/..."}, mcpProxy...)},
	{"github.com/moatdev/moat/internal/decide", "the decision service is what a hook and, through the daemon's socket, the thin hook client decide with: it records, but serves no HTTP and links no CLI, proxy or sandbox; a hook decides once and watches no file (the watcher is internal/decide/watch); the daemon, not the hook, writes the audit database (SQLite); the daemon serves decide, never the reverse",
		append([]string{"net/http/...", "crypto/tls/...", "github.com/spf13/cobra/...", "github.com/moatdev/moat/internal/sandbox/...", "github.com/moatdev/moat/internal/cli/...", "github.com/fsnotify/fsnotify/...", "github.com/moatdev/moat/internal/decide/watch", "github.com/moatdev/moat/internal/audit/auditdb/...", "modernc.org/sqlite/...", "github.com/moatdev/moat/internal/daemon/..."}, mcpProxy...)},
	{"github.com/moatdev/moat/internal/policy", "the policy language is read by every entry point, the hook's included",
		append([]string{"net/http/...", "crypto/tls/...", "github.com/spf13/cobra/...", "github.com/moatdev/moat/internal/sandbox/..."}, mcpProxy...)},
	{"github.com/moatdev/moat/internal/shell", "shell analysis is on the hook path",
		append([]string{"net/http/...", "crypto/tls/...", "github.com/spf13/cobra/...", "github.com/moatdev/moat/internal/sandbox/..."}, mcpProxy...)},
	{"github.com/moatdev/moat/internal/scan", "content scanning is on the hook path", scannerDenied},
	{"github.com/moatdev/moat/internal/scan/secrets", "content scanning is on the hook path", scannerDenied},
	{"github.com/moatdev/moat/internal/scan/injection", "content scanning is on the hook path", scannerDenied},
	{"github.com/moatdev/moat/internal/scan/smuggling", "content scanning is on the hook path", scannerDenied},
	{"github.com/moatdev/moat/internal/decide", "metrics and notifications are the daemon's sinks: the decision path (and the engine, policy, shell and scanners under it) counts and announces nothing itself", daemonSinks},
	{"github.com/moatdev/moat/internal/hook", "metrics and notifications are the daemon's sinks, never the hook adapters'", daemonSinks},
	{"github.com/moatdev/moat/internal/events", "the event bus only fans events out: each sink brings its own libraries, so a process links only the sinks it registers",
		append([]string{"net/http/...", "crypto/tls/...", "github.com/spf13/cobra/..."}, daemonSinks...)},
	{"github.com/moatdev/moat/internal/engine", "the audit database and the daemon's sinks are the daemon's, never on the decision path", daemonStores},
	{"github.com/moatdev/moat/internal/policy", "the audit database and the daemon's sinks are the daemon's, never on the decision path", daemonStores},
	{"github.com/moatdev/moat/internal/shell", "the audit database and the daemon's sinks are the daemon's, never on the decision path", daemonStores},
	{"github.com/moatdev/moat/internal/scan", "the audit database and the daemon's sinks are the daemon's, never on the decision path", daemonStores},
	{"github.com/moatdev/moat/internal/hook", "the audit database is the daemon's, never the hook adapters'", daemonStores},
}

// daemonStores are the daemon's sinks and its audit database, with what they link.
var daemonStores = append([]string{"modernc.org/sqlite/...", "github.com/moatdev/moat/internal/audit/auditdb/..."}, daemonSinks...)

// daemonSinks are the daemon's event sinks and what they link.
var daemonSinks = []string{"github.com/prometheus/...", "github.com/moatdev/moat/internal/metrics/...", "github.com/moatdev/moat/internal/notify/...", "github.com/moatdev/moat/internal/otlp/..."}

// scannerDenied is what no content scanner links.
var scannerDenied = append([]string{"net/http/...", "crypto/tls/...", "github.com/spf13/cobra/...", "go.yaml.in/yaml/v3/...", "github.com/moatdev/moat/internal/sandbox/..."}, mcpProxy...)

// TestDependencies checks, for every platform the CI builds, that the moat binary links
// exactly the packages deps.txt lists (each module with a reason), that no package it
// links outside the standard library uses cgo (the binary is static), and that no package
// of moat links what deniedDeps forbids. -update rewrites the package lines of deps.txt
// and keeps the reasons; a new module gets a placeholder the test refuses until replaced.
func TestDependencies(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list for every platform")
	}
	t.Parallel()
	// go list mostly waits (on the file system, and on the go command's start): the
	// platforms are listed at the same time.
	type listing struct {
		target string
		deps   []string // PACKAGE MODULE, for the non-standard packages linked
		cgo    []string // non-standard packages that use cgo when it is enabled
	}
	results := make([]listing, len(depTargets))
	var wg sync.WaitGroup
	for i, target := range depTargets {
		wg.Go(func() {
			results[i] = listing{
				target: target,
				deps:   goList(t, target, "0", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}} {{with .Module}}{{.Path}}{{end}}{{end}}", "github.com/moatdev/moat/cmd/moat"),
				// With cgo enabled, as on a developer's machine, still no package outside
				// the standard library may use it: the release is built with CGO_ENABLED=0.
				cgo: goList(t, target, "1", "-deps", "-f", "{{if and (not .Standard) .CgoFiles}}{{.ImportPath}}{{end}}", "github.com/moatdev/moat/cmd/moat"),
			}
			checkDenied(t, target)
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	linked := map[string][]string{} // package → the targets that link it
	modules := map[string]string{}  // package → its module
	for _, r := range results {
		for _, line := range r.deps {
			pkg, mod, _ := strings.Cut(line, " ")
			if mod == "github.com/moatdev/moat" {
				continue
			}
			linked[pkg] = append(linked[pkg], r.target)
			modules[pkg] = mod
		}
		for _, pkg := range r.cgo {
			if cgoOptional[pkg] != "" {
				continue
			}
			t.Errorf("%s: %s uses cgo; the moat binary is static (CGO_ENABLED=0)", r.target, pkg)
		}
	}

	reasons, want, err := readDeps(depsFile)
	if err != nil {
		t.Fatal(err)
	}
	got := formatDeps(linked, modules, reasons)
	if *updateDeps {
		if err := os.WriteFile(depsFile, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		want = got
		reasons, _, _ = readDeps(depsFile)
	}
	if got != want {
		t.Errorf("the moat binary links other packages than %s lists (go test -run TestDependencies -update rewrites it; say why for a new module):\n%s", depsFile, lineDiff(want, got))
	}
	for mod, why := range reasons {
		if why == "" || why == todoReason {
			t.Errorf("%s: module %s has no reason for being linked", depsFile, mod)
		}
	}
}

// checkDenied fails the test for every denied package that a package of moat links on
// target.
func checkDenied(t *testing.T, target string) {
	t.Helper()
	var pkgs []string
	for _, d := range deniedDeps {
		if !slices.Contains(pkgs, d.pkg) {
			pkgs = append(pkgs, d.pkg)
		}
	}
	deps := map[string][]string{}
	args := append([]string{"-f", "{{.ImportPath}} {{join .Deps \" \"}}"}, pkgs...)
	for _, line := range goList(t, target, "0", args...) {
		f := strings.Fields(line)
		deps[f[0]] = f[1:]
	}
	for _, d := range deniedDeps {
		for _, dep := range deps[d.pkg] {
			for _, bad := range d.deny {
				if tree, ok := strings.CutSuffix(bad, "/..."); dep == bad || ok && (dep == tree || strings.HasPrefix(dep, tree+"/")) {
					t.Errorf("%s: %s links %s, which it must not: %s", target, d.pkg, dep, d.why)
				}
			}
		}
	}
}

// goList runs go list for target (GOOS/GOARCH) with cgo enabled or not, and returns the
// lines of its output that are not empty; a failure fails the test and returns none.
func goList(t *testing.T, target, cgo string, args ...string) []string {
	t.Helper()
	goos, goarch, _ := strings.Cut(target, "/")
	cmd := exec.Command("go", append([]string{"list"}, args...)...)
	cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED="+cgo)
	out, err := cmd.Output()
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		// Errorf, not Fatalf: the platforms are listed from several goroutines.
		t.Errorf("go list for %s: %v\n%s", target, err, stderr)
		return nil
	}
	var lines []string
	for _, l := range strings.Split(string(out), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

const (
	depsHeader = `# The packages outside the standard library and moat that the moat binary links, by
# module, on every platform the CI builds; a package linked on some of them only names
# them. Each module says why it is linked. TestDependencies (deps_test.go) checks this
# file; go test -run TestDependencies -update rewrites the package lines and keeps the
# reasons. What packages of moat must never link is in deps_test.go (deniedDeps).
`
	modulePrefix = "module "
	todoReason   = "TODO: say why moat links this module"
)

// readDeps reads deps.txt: the reason given for each module, and the whole text.
func readDeps(name string) (map[string]string, string, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, "", fmt.Errorf("reading the dependency list: %w", err)
	}
	reasons := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		rest, ok := strings.CutPrefix(line, modulePrefix)
		if !ok {
			continue
		}
		mod, why, ok := strings.Cut(rest, ": ")
		if !ok {
			return nil, "", fmt.Errorf("%s:%d: want \"module PATH: reason\", got %q", name, n, line)
		}
		reasons[mod] = strings.TrimSpace(why)
	}
	return reasons, string(data), sc.Err()
}

// formatDeps writes the dependency list: each module with its reason, then its packages,
// with the targets that link them when not all do.
func formatDeps(linked map[string][]string, modules, reasons map[string]string) string {
	byModule := map[string][]string{}
	for pkg, mod := range modules {
		byModule[mod] = append(byModule[mod], pkg)
	}
	mods := make([]string, 0, len(byModule))
	for mod := range byModule {
		mods = append(mods, mod)
	}
	slices.Sort(mods)
	var b strings.Builder
	b.WriteString(depsHeader)
	for _, mod := range mods {
		why := reasons[mod]
		if why == "" {
			why = todoReason
		}
		fmt.Fprintf(&b, "\n%s%s: %s\n", modulePrefix, mod, why)
		pkgs := byModule[mod]
		slices.Sort(pkgs)
		for _, pkg := range pkgs {
			targets := linked[pkg]
			if len(targets) == len(depTargets) {
				fmt.Fprintf(&b, "\t%s\n", pkg)
			} else {
				slices.Sort(targets)
				fmt.Fprintf(&b, "\t%s [%s]\n", pkg, strings.Join(targets, " "))
			}
		}
	}
	return b.String()
}

// lineDiff lists the lines only in want (-) and only in got (+).
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for _, l := range w {
		if !slices.Contains(g, l) {
			fmt.Fprintf(&b, "-%s\n", l)
		}
	}
	for _, l := range g {
		if !slices.Contains(w, l) {
			fmt.Fprintf(&b, "+%s\n", l)
		}
	}
	return b.String()
}
