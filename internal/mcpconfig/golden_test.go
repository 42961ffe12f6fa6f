package mcpconfig

import (
	"encoding/json"
	"flag"
	"github.com/rogpeppe/go-internal/diff"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the wrapped files and change lists in testdata/golden")

const moatBin = "/usr/local/bin/moat"

// goldenCase is an input file under testdata/golden/CLIENT/, beside which lie what
// wrapping it gives (NAME.wrapped.EXT) and the changes reported (NAME.changes).
type goldenCase struct {
	client      Client
	input, name string
}

func goldenCases(t testing.TB) []goldenCase {
	t.Helper()
	var out []goldenCase
	for _, c := range Clients {
		files, err := filepath.Glob(filepath.Join("testdata", "golden", c.Name, "*"))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, f := range files {
			if strings.Contains(filepath.Base(f), ".wrapped.") || strings.HasSuffix(f, ".changes") {
				continue
			}
			out = append(out, goldenCase{client: c, input: f, name: c.Name + "/" + filepath.Base(f)})
			n++
		}
		if n == 0 {
			t.Errorf("client %s has no golden files in testdata/golden/%s", c.Name, c.Name)
		}
	}
	return out
}

func (g goldenCase) wrappedPath() string {
	ext := filepath.Ext(g.input)
	return strings.TrimSuffix(g.input, ext) + ".wrapped" + ext
}

func (g goldenCase) changesPath() string {
	return strings.TrimSuffix(g.input, filepath.Ext(g.input)) + ".changes"
}

func readFile(t testing.TB, name string) string {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func renderChanges(changes []Change) string {
	var b strings.Builder
	for _, c := range changes {
		b.WriteString(c.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// checkGolden compares got with the file name, or rewrites the file under -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(name, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want := readFile(t, name)
	if got != want {
		t.Errorf("%s differs from what moat gives:\n%s", name, diff.Diff("want", []byte(want), "got", []byte(got)))
	}
}

// TestGolden wraps every input, compares with the golden files, and checks the
// promises: the result parses, wrapping again changes nothing, and unwrapping gives the
// input back byte for byte.
func TestGolden(t *testing.T) {
	for _, g := range goldenCases(t) {
		t.Run(g.name, func(t *testing.T) {
			input := readFile(t, g.input)
			if _, ch, err := g.client.Unwrap(input); err != nil || len(ch) != 0 {
				t.Fatalf("a golden input must hold no wrapped server (Unwrap: %v, %v)", ch, err)
			}
			wrapped, changes, err := g.client.Wrap(input, moatBin, Options{})
			if err != nil {
				t.Fatal(err)
			}
			unwrapped, restored, err := g.client.Unwrap(wrapped)
			if err != nil {
				t.Fatalf("unwrap: %v", err)
			}
			checkGolden(t, g.wrappedPath(), wrapped)
			checkGolden(t, g.changesPath(), renderChanges(changes)+"-- unwrap --\n"+renderChanges(restored))

			if unwrapped != input {
				t.Errorf("unwrapping did not restore the file byte for byte:\n%s", diff.Diff("input", []byte(input), "unwrapped", []byte(unwrapped)))
			}
			again, changes2, err := g.client.Wrap(wrapped, moatBin, Options{})
			if err != nil || again != wrapped {
				t.Errorf("wrapping twice changed the file (%v):\n%s", err, diff.Diff("wrapped", []byte(wrapped), "again", []byte(again)))
			}
			for i, c := range changes2 {
				if !c.Already && !c.Skipped {
					t.Errorf("second wrap: %s", c)
				}
				if i < len(changes) && changes[i].Skipped != c.Skipped {
					t.Errorf("second wrap: %s, first: %s", c, changes[i])
				}
			}
			if !g.client.TOML {
				if _, err := parseJSON(wrapped); err != nil {
					t.Errorf("the wrapped file does not parse: %v", err)
				}
				if json.Valid([]byte(input)) && !json.Valid([]byte(wrapped)) {
					t.Errorf("the input is strict JSON and the wrapped file is not")
				}
			} else if _, err := parseTOML(wrapped); err != nil {
				t.Errorf("the wrapped file does not parse: %v", err)
			}
			checkArgv(t, g.client, input, wrapped)
		})
	}
}

// argvs gives, for each server of text by name, its command line, or for a remote
// server "url:" and its URL; for a server behind moat's bridge, the command line is
// followed by "upstream:" and the JSON the bridge is given.
func argvs(t testing.TB, c Client, text string) map[string][]string {
	t.Helper()
	entries, sx, err := c.entries(text)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, e := range entries {
		if e.skip != "" || e.val.Kind != '{' {
			continue
		}
		if cmd, _ := e.val.Member("command"); cmd != nil {
			s, _ := stringOf(text, sx, cmd)
			argv := []string{s}
			if args, _ := e.val.Member("args"); args != nil {
				for _, a := range args.Elems {
					s, _ := stringOf(text, sx, a)
					argv = append(argv, s)
				}
			}
			if env, _ := e.val.Member("env"); env != nil && env.Kind == '{' {
				if up, _ := env.Member(upstreamEnv); up != nil {
					s, _ := stringOf(text, sx, up)
					argv = append(argv, "upstream:"+s)
				}
			}
			out[e.where+"\x00"+e.name] = argv
			continue
		}
		for _, r := range c.remotes {
			if u, _ := e.val.Member(r.key); u != nil {
				s, _ := stringOf(text, sx, u)
				out[e.where+"\x00"+e.name] = []string{"url:" + s}
			}
		}
	}
	return out
}

// checkArgv checks what a wrapped server runs: moat's proxy, named by the server's
// key, and after "--" exactly the command line it ran before; or for a remote server,
// moat's bridge, given the server's URL.
func checkArgv(t *testing.T, c Client, input, wrapped string) {
	t.Helper()
	before, after := argvs(t, c, input), argvs(t, c, wrapped)
	for key, was := range before {
		now := after[key]
		_, name, _ := strings.Cut(key, "\x00")
		switch {
		case slices.Equal(was, now):
			// Skipped.
		case strings.HasPrefix(was[0], "url:"):
			want := append([]string{moatBin}, bridgeArgs(name)...)
			if len(now) != len(want)+1 || !slices.Equal(now[:len(want)], want) {
				t.Errorf("%s: the remote server %q became %q", key, was[0], now)
				continue
			}
			var up struct {
				URL     string            `json:"url"`
				Headers map[string]string `json:"headers"`
			}
			if err := json.Unmarshal([]byte(strings.TrimPrefix(now[len(want)], "upstream:")), &up); err != nil || "url:"+up.URL != was[0] {
				t.Errorf("%s: the bridge is given %q (%v), not the URL %q", key, now[len(want)], err, was[0])
			}
		default:
			want := append([]string{moatBin, "mcp", "proxy", "--name", name, "--"}, was...)
			if !slices.Equal(now, want) {
				t.Errorf("%s: %q became %q, want %q", key, was, now, want)
			}
		}
	}
}
