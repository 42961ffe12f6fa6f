package policyschema

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"go.yaml.in/yaml/v3"

	"github.com/moatdev/moat/internal/policy"
)

// repoRoot is the repository, from this package's directory.
var repoRoot = filepath.Join("..", "..")

var testHost = policy.Host{Home: "/home/user", Temp: []string{"/tmp"}}

// TestTemplatesPacksAndProfilesValidate validates every document moat ships against the
// schema: the policy templates, the packs, the built-in self-protection rules, and the
// sandbox profiles (against #/$defs/sandbox-profile).
func TestTemplatesPacksAndProfilesValidate(t *testing.T) {
	s := compiled(t, "")
	n := 0
	for _, name := range policy.TemplateNames() {
		data, err := policy.Template(name)
		if err != nil {
			t.Fatal(err)
		}
		validates(t, s, "template "+name, data)
		n++
	}
	for _, dir := range []string{"internal/policy/packs", "internal/policy/builtin"} {
		files, err := filepath.Glob(filepath.Join(repoRoot, dir, "*.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			validates(t, s, f, readFile(t, f))
			n++
		}
	}
	if want := len(policy.TemplateNames()) + len(policy.PackNames()) + 1; n < want {
		t.Errorf("validated %d shipped documents, want at least %d", n, want)
	}
	profile := compiled(t, "/$defs/sandbox-profile")
	profiles, err := filepath.Glob(filepath.Join(repoRoot, "internal/sandbox/profiles/*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	profiles = append(profiles, filepath.Join(repoRoot, "internal/sandbox/default.yaml"))
	if len(profiles) < 2 {
		t.Fatalf("found %d sandbox profiles", len(profiles))
	}
	for _, f := range profiles {
		validates(t, profile, f, readFile(t, f))
	}
}

// TestTestdataPoliciesValidate validates every policy in the repository's testdata
// archives (txtar) that the loader accepts: a document moat loads must never be one the
// schema flags. The ones the loader refuses are there to be wrong.
func TestTestdataPoliciesValidate(t *testing.T) {
	s := compiled(t, "")
	n := 0
	err := filepath.WalkDir(repoRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".txtar") || !slices.Contains(strings.Split(path, string(filepath.Separator)), "testdata") {
			return nil
		}
		ar, err := txtar.ParseFile(path)
		if err != nil {
			return err
		}
		for _, f := range ar.Files {
			if !strings.HasSuffix(f.Name, ".yaml") {
				continue
			}
			name := path + ":" + f.Name
			if _, err := policy.Load(name, f.Data, testHost); err != nil {
				continue
			}
			validates(t, s, name, f.Data)
			n++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("validated %d policies from testdata archives", n)
	if n < 10 {
		t.Errorf("validated %d policies from testdata archives; expected the CLI's and policyfix's dozens", n)
	}
}

// TestReadmeSnippetsValidate validates the README's YAML examples: whole policies, the
// top-level sections shown alone (with version: 1 added), and rule fragments (inside a
// rule with an id and a decision).
func TestReadmeSnippetsValidate(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatalf("the README, whose examples must validate: %v", err)
	}
	s := compiled(t, "")
	top := policy.DocumentKeys()[policy.MappingPolicy]
	rule := policy.DocumentKeys()[policy.MappingRule]
	n := 0
	for i, m := range regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllSubmatch(readme, -1) {
		name := "README.md yaml block " + string(rune('1'+i))
		block := dedent(string(m[1]))
		var doc map[string]any
		if err := yaml.Unmarshal([]byte(block), &doc); err != nil || doc == nil {
			t.Logf("%s: not a mapping, skipped", name)
			continue
		}
		keys := make([]string, 0, len(doc))
		for k := range doc {
			keys = append(keys, k)
		}
		switch {
		case allIn(keys, top):
			if _, ok := doc["version"]; !ok {
				block = "version: 1\n" + block
			}
		case allIn(keys, rule):
			block = "version: 1\nrules:\n  - id: snippet\n    decision: deny\n" + indent(block, "    ")
		default:
			t.Logf("%s: neither a policy nor a rule, skipped", name)
			continue
		}
		validates(t, s, name, []byte(block))
		n++
	}
	if n == 0 {
		t.Error("no README snippet was validated")
	}
}

func validates(t *testing.T, s interface{ Validate(any) error }, name string, data []byte) {
	t.Helper()
	if err := s.Validate(instance(t, name, data)); err != nil {
		t.Errorf("%s does not match the schema: %v", name, err)
	}
}

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func allIn(keys, known []string) bool {
	for _, k := range keys {
		if !slices.Contains(known, k) {
			return false
		}
	}
	return true
}

// dedent removes the indentation of the block's first line from every line.
func dedent(block string) string {
	lines := strings.Split(block, "\n")
	first := lines[0]
	prefix := first[:len(first)-len(strings.TrimLeft(first, " "))]
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, prefix)
	}
	return strings.Join(lines, "\n")
}

func indent(block, prefix string) string {
	lines := strings.Split(strings.TrimRight(block, "\n"), "\n")
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return strings.Join(lines, "\n") + "\n"
}
