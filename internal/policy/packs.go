package policy

import (
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"strings"
)

var (
	//go:embed packs/*.yaml
	packFS embed.FS
	//go:embed builtin/self-protection.yaml
	selfProtectionYAML []byte
	//go:embed templates/*.yaml
	templateFS embed.FS
)

// SelfProtectionPrefix starts the id of every built-in self-protection rule.
const SelfProtectionPrefix = "self-protection."

// PackNames lists the embedded packs.
func PackNames() []string { return embeddedNames(packFS, "packs") }

// TemplateNames lists the policy templates `moat init` can write.
func TemplateNames() []string { return embeddedNames(templateFS, "templates") }

// Template returns the text of the named policy template.
func Template(name string) ([]byte, error) {
	data, err := templateFS.ReadFile("templates/" + name + ".yaml")
	if err != nil {
		names := TemplateNames()
		return nil, fmt.Errorf("unknown template %q%s (known: %s)", name, suggest(name, names), strings.Join(names, ", "))
	}
	return data, nil
}

// DefaultTemplate is the template that is also the policy used when no policy file exists.
const DefaultTemplate = "recommended"

// SelfProtection compiles moat's built-in self-protection rules. They run before every
// policy's rules and no policy can switch them off. The returned policy has no tests: an
// engine needs only the rules (SelfProtectionTests has the tests).
func SelfProtection(host Host) (*Policy, error) { return selfProtection(host, false) }

// SelfProtectionTests returns the inline tests of the self-protection rules.
func SelfProtectionTests(host Host) ([]Test, error) {
	p, err := selfProtection(host, true)
	if err != nil {
		return nil, err
	}
	return p.Tests, nil
}

func selfProtection(host Host, withTests bool) (*Policy, error) {
	source := EmbeddedPrefix + "self-protection"
	l := newLoader(source, host)
	l.builtin = true
	root, err := parseDocument(source, selfProtectionYAML)
	if err != nil {
		return nil, err
	}
	fields, ok := l.mapping(root, "the self-protection rules", packKeys)
	if !ok {
		return nil, l.errs.sorted()
	}
	// No default: self-protection only ever denies, and otherwise defers to the policy.
	p := &Policy{Source: source, Fail: FailClosed}
	for _, f := range fields {
		switch f.key {
		case "rules":
			p.Rules = l.rules(f.value, "self-protection")
		case "tests":
			if withTests {
				p.Tests = l.tests(f.value)
			}
		}
	}
	for _, r := range p.Rules {
		if !strings.HasPrefix(r.ID, SelfProtectionPrefix) {
			l.errorf(root, "self-protection rule %q must have an id starting with %s", r.ID, SelfProtectionPrefix)
		}
	}
	if len(l.errs) > 0 {
		return nil, l.errs.sorted()
	}
	p.byClass = index(p.Rules)
	return p, nil
}

func embeddedNames(fsys embed.FS, dir string) []string {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".yaml"); ok {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}
