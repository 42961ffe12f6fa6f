package policy

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/regfile"
)

// RuleForbidAllow is the rule id of the decisions the managed layer's forbid_allow makes:
// a call that only the managed layer may allow, which a lower layer allowed.
const RuleForbidAllow = "managed-forbid-allow"

// Bounds of `extends`: how deep files may include files, and how large each may be.
const (
	MaxExtendsDepth  = 8
	MaxIncludedBytes = 4 << 20
)

// includedKeys are the keys of a file named by `extends`: rules and what they need. The
// settings belong to the policy that includes it, which may be included by several.
var includedKeys = []string{"version", "extends", "packs", "rules", "wrappers"}

// LoadOptions say where the document being loaded lies and how the files its `extends`
// names are read.
type LoadOptions struct {
	// Path is the document's file, absolute; "" means the name passed to LoadWith when it
	// is an absolute path. Relative `extends` entries are resolved against its directory.
	Path string
	// Root is the directory every included file must lie in (after links are resolved);
	// "" means the repository of Path (the nearest directory above it holding .git), or
	// Path's directory out of a repository.
	Root string
	// ReadInclude reads an included file, given its absolute path; nil reads it from
	// disk. A caller that trusts files one by one (project policies) checks them here.
	ReadInclude func(path string) ([]byte, error)
	// PackDirs are the drop-in directories searched, in order, for a pack moat does not
	// embed (see DropInDir); nil finds embedded packs only.
	PackDirs []string
}

// includes is the state of one Load's `extends`: what was read and what is being read.
type includes struct {
	path, root string
	read       func(string) ([]byte, error)
	chain      []string // real paths of the files being included, outermost first
	files      []string // every file included, in the order read
	packDirs   []string // LoadOptions.PackDirs
}

func newIncludes(name string, o LoadOptions) *includes {
	in := &includes{path: o.Path, root: o.Root, read: o.ReadInclude, packDirs: o.PackDirs}
	if in.path == "" && filepath.IsAbs(name) && !strings.HasPrefix(name, EmbeddedPrefix) {
		in.path = filepath.Clean(name)
	}
	if in.path != "" && in.root == "" {
		in.root = repoRootOf(filepath.Dir(in.path))
	}
	if in.read == nil {
		in.read = func(p string) ([]byte, error) { return regfile.Read(p, MaxIncludedBytes) }
	}
	if in.path != "" {
		if real, err := filepath.EvalSymlinks(in.path); err == nil {
			in.chain = []string{real}
		}
	}
	return in
}

// repoRootOf is the nearest directory at or above dir holding a .git entry, or dir.
func repoRootOf(dir string) string {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if d == filepath.Dir(d) {
			return filepath.Clean(dir)
		}
	}
}

// isPackRef reports whether an `extends` entry names a pack rather than a file: a pack
// name has no path separator and no .yaml ending.
func isPackRef(s string) bool {
	return !strings.ContainsAny(s, `/\`) && !strings.HasSuffix(s, ".yaml") && !strings.HasSuffix(s, ".yml")
}

// extends appends to p the rules of the packs and files f lists, in order, after the
// document's own rules (which come first, so that they can make exceptions).
func (l *loader) extends(p *Policy, f field) {
	items, ok := l.strs(f.value, "extends")
	if !ok {
		return
	}
	for _, r := range p.Rules {
		if r.unconditional() {
			l.errorf(f.value, "the extended rules can never match: rule %q at line %d has no conditions and matches every call first", r.ID, r.Line)
		}
	}
	seen := map[string]bool{}
	for _, it := range items {
		if seen[it.val] {
			l.errorf(it.node, "%q is listed twice in extends", it.val)
			continue
		}
		seen[it.val] = true
		if isPackRef(it.val) {
			if !slices.Contains(p.Packs, it.val) {
				l.enablePack(p, it)
			}
			continue
		}
		l.include(p, it)
	}
}

// include reads the policy file it names, relative to the including file, and appends
// its rules, wrappers and packs to p.
func (l *loader) include(p *Policy, it item) {
	in := l.inc
	if in == nil || l.path == "" {
		l.errorf(it.node, "extends %q: this policy has no file to resolve a relative path against; name a pack instead", it.val)
		return
	}
	if filepath.IsAbs(it.val) || strings.HasPrefix(it.val, "~") {
		l.errorf(it.node, "extends %q: name a file by a path relative to this one, so that it travels with the repository", it.val)
		return
	}
	if len(in.chain) > MaxExtendsDepth {
		l.errorf(it.node, "extends %q: files include each other more than %d deep", it.val, MaxExtendsDepth)
		return
	}
	path := filepath.Join(filepath.Dir(l.path), filepath.FromSlash(it.val))
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		l.errorf(it.node, "extends %q: %v", it.val, unwrapPathError(err))
		return
	}
	realRoot, err := filepath.EvalSymlinks(in.root)
	if err != nil {
		realRoot = in.root
	}
	if !within(real, realRoot) {
		l.errorf(it.node, "extends %q: %s lies outside %s; a policy may only include files of its own repository", it.val, real, in.root)
		return
	}
	if i := slices.Index(in.chain, real); i >= 0 {
		l.errorf(it.node, "extends %q: a cycle (%s → %s)", it.val, strings.Join(in.chain[i:], " → "), real)
		return
	}
	data, err := in.read(path)
	if err != nil {
		l.errorf(it.node, "extends %q: %v", it.val, err)
		return
	}
	in.files = append(in.files, path)
	in.chain = append(in.chain, real)
	defer func() { in.chain = in.chain[:len(in.chain)-1] }()

	sub := &loader{reader: reader{file: path}, host: l.host, ids: l.ids, sets: l.sets, inc: in, path: path}
	defer func() { l.errs = append(l.errs, sub.errs...) }()
	root, err := parseDocument(path, data)
	if err != nil {
		var list ErrorList
		if errors.As(err, &list) {
			sub.errs = append(sub.errs, list...)
		} else {
			sub.errorf(nil, "%v", err)
		}
		return
	}
	fields, ok := sub.mapping(root, "an included policy", nil)
	if !ok {
		return
	}
	byKey := make(map[string]field, len(fields))
	for _, f := range fields {
		if !slices.Contains(includedKeys, f.key) {
			if slices.Contains(topKeys, f.key) {
				sub.errorf(f.knode, "%s is a setting of the policy that extends this file; an included file holds only %s", f.key, strings.Join(includedKeys, ", "))
			} else {
				sub.errorf(f.knode, "unknown key %q in an included policy%s (known: %s)", f.key, suggest(f.key, includedKeys), strings.Join(includedKeys, ", "))
			}
			continue
		}
		byKey[f.key] = f
	}
	sub.version(byKey, root)
	if f, ok := byKey["wrappers"]; ok {
		p.Wrappers = append(p.Wrappers, sub.wrappers(f.value)...)
	}
	var own []*Rule
	if f, ok := byKey["rules"]; ok {
		own = sub.rules(f.value, path)
	}
	// The included file's rules, then what it extends: the same order as in any policy.
	inner := &Policy{Rules: own, Packs: p.Packs}
	if f, ok := byKey["extends"]; ok {
		sub.extends(inner, f)
	}
	if f, ok := byKey["packs"]; ok {
		for _, it := range sub.packItems(f) {
			if !slices.Contains(inner.Packs, it.val) {
				sub.enablePack(inner, it)
			}
		}
	}
	p.Rules = append(p.Rules, inner.Rules...)
	p.Packs = inner.Packs
}

// packItems lists the packs of a `packs` field, reporting one listed twice.
func (l *loader) packItems(f field) []item {
	items, ok := l.strs(f.value, "packs")
	if !ok {
		return nil
	}
	var out []item
	seen := map[string]bool{}
	for _, it := range items {
		if seen[it.val] {
			l.errorf(it.node, "pack %q is listed twice", it.val)
			continue
		}
		seen[it.val] = true
		out = append(out, it)
	}
	return out
}

// unwrapPathError drops the operation and path that the caller's message already says.
func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// within reports whether path is dir or lies under it; both are clean and absolute.
func within(path, dir string) bool {
	if path == dir || dir == string(filepath.Separator) {
		return true
	}
	return strings.HasPrefix(path, dir+string(filepath.Separator))
}

// forbidAllow compiles forbid_allow: the same tool selectors as a rule's `tool`.
func (l *loader) forbidAllow(n *yaml.Node) *Rule {
	r := &Rule{ID: RuleForbidAllow, Decision: call.Ask, Origin: l.file, Line: n.Line,
		Reason: "the managed policy does not let other policies allow this kind of call"}
	before := len(l.errs)
	r.tool = l.toolCond(n)
	if len(l.errs) > before || r.tool == nil {
		return nil
	}
	r.classes = l.classes(r, n)
	return r
}
