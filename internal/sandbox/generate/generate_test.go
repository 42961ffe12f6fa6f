package generate

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/moatdev/moat/internal/glob"
	"github.com/moatdev/moat/internal/pathset"
	"github.com/moatdev/moat/internal/policy"
	"github.com/moatdev/moat/internal/sandbox"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// genHost is a macOS-like user for the golden files: they must not depend on the
// machine the tests run on.
var genOptions = Options{
	Host: pathset.Host{
		Home: "/Users/dev",
		Temp: []string{"/tmp", "/var/folders/xy/T"},
		Moat: []string{"/Users/dev/.config/moat/**", "/Users/dev/.local/state/moat/**", "/**/moat.yaml", "/usr/local/bin/moat"},
	},
	Workspace: []string{"/Users/dev/src/app"},
	Binaries:  []string{"/usr/local/bin/claude"},
}

// section returns the effective sandbox section of a policy's sandbox YAML with the
// named agent profiles.
func section(t *testing.T, yaml string, profiles ...string) *sandbox.Section {
	t.Helper()
	var sec *policy.Sandbox
	if yaml != "" {
		p, err := policy.Load("moat.yaml", []byte("version: 1\nsandbox:\n"+yaml), policy.Host{Home: "/home/u"})
		if err != nil {
			t.Fatal(err)
		}
		sec = p.Sandbox
	}
	var ps []*sandbox.Profile
	for _, n := range profiles {
		p, err := sandbox.LookupProfile(n)
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	s, err := sandbox.Effective(sec, ps...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the output (run with -update after checking):\n%s", path, got)
	}
}

func TestSBPL(t *testing.T) {
	sec := section(t, "  connect: [443, 22]\n", "claude-code")
	out, err := SBPL(sec, genOptions)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "claude-code.sb", out)

	// Structure: one balanced s-expression per rule, deny by default, and the denials
	// after the grants (in SBPL the last matching rule decides).
	text := string(out)
	depth := 0
	inString := false
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c == '"' && (i == 0 || text[i-1] != '\\'):
			inString = !inString
		case inString:
		case c == ';':
			for i < len(text) && text[i] != '\n' {
				i++
			}
		case c == '(':
			depth++
		case c == ')':
			depth--
			if depth < 0 {
				t.Fatalf("unbalanced ) at byte %d", i)
			}
		}
	}
	if depth != 0 || inString {
		t.Fatalf("unbalanced profile: depth %d, in string %v", depth, inString)
	}
	for _, want := range []string{"(version 1)\n(deny default)\n", `(subpath "/Users/dev/src/app")`, `(subpath "/private/tmp")`, `(remote tcp "*:443")`, `(remote tcp "*:22")`, `(subpath "/Users/dev/.ssh")`, `(regex #"^(/.*)?/\.env(/.*)?$")`} {
		if !strings.Contains(text, want) {
			t.Errorf("the profile has no %s", want)
		}
	}
	order := []string{"(allow file-read*\n", "(allow file-read* file-write*\n", "(deny file-read* file-write* process-exec\n", "(deny file-write*\n"}
	last := -1
	for _, o := range order {
		i := strings.Index(text, o)
		if i <= last {
			t.Errorf("%q is not after the rules before it", o)
		}
		last = i
	}
	for _, m := range regexp.MustCompile(`#"([^"]*)"`).FindAllStringSubmatch(text, -1) {
		if _, err := regexp.Compile(m[1]); err != nil {
			t.Errorf("regex %s: %v", m[1], err)
		}
	}
}

func TestTetragon(t *testing.T) {
	sec := section(t, "  connect: [443, 22]\n", "claude-code")
	out, err := Tetragon(sec, genOptions)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "claude-code.tetragon.yaml", out)

	var doc struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string `yaml:"kind"`
		Metadata   struct{ Name string }
		Spec       struct {
			Kprobes []struct {
				Call    string
				Syscall *bool
				Args    []struct {
					Index int
					Type  string
				}
				Selectors []struct {
					MatchArgs []struct {
						Index    int
						Operator string
						Values   []string
					} `yaml:"matchArgs"`
					MatchBinaries []struct {
						Operator       string
						FollowChildren bool `yaml:"followChildren"`
						Values         []string
					} `yaml:"matchBinaries"`
					MatchActions []struct{ Action string } `yaml:"matchActions"`
				}
			}
		}
	}
	dec := yaml.NewDecoder(bytes.NewReader(out))
	dec.KnownFields(true)
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("not a TracingPolicy: %v", err)
	}
	if doc.APIVersion != "cilium.io/v1alpha1" || doc.Kind != "TracingPolicy" || doc.Metadata.Name == "" || len(doc.Spec.Kprobes) != 2 {
		t.Fatalf("policy = %+v", doc)
	}
	operators := map[string]bool{"Prefix": true, "Postfix": true, "Mask": true, "NotDPort": true}
	values := map[string]bool{}
	for _, k := range doc.Spec.Kprobes {
		if k.Syscall == nil || *k.Syscall || len(k.Args) == 0 || len(k.Selectors) == 0 {
			t.Errorf("kprobe %s is incomplete", k.Call)
		}
		for _, s := range k.Selectors {
			if len(s.MatchActions) != 1 || s.MatchActions[0].Action != "Sigkill" {
				t.Errorf("%s: a selector without its Sigkill", k.Call)
			}
			if len(s.MatchBinaries) != 1 || !s.MatchBinaries[0].FollowChildren || s.MatchBinaries[0].Values[0] != "/usr/local/bin/claude" {
				t.Errorf("%s: a selector not scoped to the agent and its children", k.Call)
			}
			for _, a := range s.MatchArgs {
				if !operators[a.Operator] || len(a.Values) == 0 {
					t.Errorf("%s: argument match %+v", k.Call, a)
				}
				for _, v := range a.Values {
					values[a.Operator+" "+v] = true
				}
			}
		}
	}
	for _, want := range []string{"Prefix /Users/dev/.ssh", "Postfix /.env", "Prefix /Users/dev/.claude/settings.json", "NotDPort 443", "NotDPort 22", "Mask 2"} {
		if !values[want] {
			t.Errorf("the policy does not match %s", want)
		}
	}
}

func TestGlobRegexp(t *testing.T) {
	cases := []struct {
		glob      string
		match, no []string
	}{
		{"/**/.env", []string{"/.env", "/a/b/.env"}, []string{"/a/.envrc", "/a/x.env"}},
		{"/home/*/.ssh/id_*", []string{"/home/u/.ssh/id_rsa"}, []string{"/home/u/v/.ssh/id_rsa"}},
		{"/a/**", []string{"/a", "/a/b/c"}, []string{"/ab"}},
		{"/a/{x,y}.txt", []string{"/a/x.txt", "/a/y.txt"}, []string{"/a/z.txt"}},
		// A wildcard inside an alternative stays a wildcard (found on $secrets'
		// browser profiles: ~/.config/{google-chrome*,chromium}/**).
		{"/c/{google-chrome*,chromium}/**", []string{"/c/google-chrome-beta/x", "/c/chromium", "/c/google-chrome"}, []string{"/c/chromium2", "/c/google/x"}},
		{"/a/{x.?,y}", []string{"/a/x.c", "/a/y"}, []string{"/a/xxc", "/a/x.cc"}},
		{"/a/[!b]?", []string{"/a/cd"}, []string{"/a/bd", "/a/c"}},
		{"/a.b+c", []string{"/a.b+c"}, []string{"/aXb+c"}},
	}
	for _, c := range cases {
		re := regexp.MustCompile(globRegexp(c.glob))
		for _, m := range c.match {
			if !re.MatchString(m) {
				t.Errorf("%s (%s) does not match %s", c.glob, re, m)
			}
		}
		for _, m := range c.no {
			if re.MatchString(m) {
				t.Errorf("%s (%s) matches %s", c.glob, re, m)
			}
		}
	}
}

// FuzzGlobRegexp: every pattern the policy accepts becomes a regular expression that
// compiles, and that matches the paths the glob matches.
func FuzzGlobRegexp(f *testing.F) {
	for _, s := range []string{"/**/.env", "/home/*/.ssh/id_*", "/a/**", "/a/{x,y}.txt", "/a/[!b]?", "/a.b+c", "/x/\\*"} {
		f.Add(s, "/a/x.txt")
	}
	f.Fuzz(func(t *testing.T, pattern, path string) {
		g, err := glob.CompilePath(pattern, glob.Options{})
		if err != nil {
			return
		}
		re, err := regexp.Compile(globRegexp(pattern))
		if err != nil {
			t.Fatalf("%q: %v", pattern, err)
		}
		if g.Match(path) && !re.MatchString(path) && !strings.ContainsAny(pattern, "\\") {
			t.Fatalf("%q matches %q as a glob, not as %s", pattern, path, re)
		}
	})
}
