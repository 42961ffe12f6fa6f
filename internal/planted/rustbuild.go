package planted

import (
	"slices"
	"strings"

	"github.com/moatdev/moat/internal/textedit"
)

// Cargo compiles and runs a package's build.rs before building it (cargo build, test,
// check, clippy). moat does not read Rust; as for the JVM's build scripts (jvmbuild.go),
// it finds where the script starts a process: std::process::Command::new(PROGRAM)
// followed by .arg(WORD) and .args([WORDS]) up to the call that runs it, and the cmd!
// macros of duct and xshell. A process written out in string literals is judged as its
// command line; a program or a word computed at run time, or a command built across
// statements, is opaque.

// cargoManifestCode: a package's build script at another path than build.rs (package.build
// = "PATH" in Cargo.toml) is Rust code Cargo runs before each build that moat reads only
// under the name build.rs, so the setting is opaque. The manifest is read line by line,
// [package]'s build key and a dotted package.build, so that an edit's fragment or a
// manifest with a mistake is no question.
func cargoManifestCode(text string, x *extraction) {
	cargoDependencies(text, x)
	table := ""
	for line := range strings.Lines(text) {
		l := strings.TrimSpace(line)
		if strings.HasPrefix(l, "[") {
			table = strings.TrimSpace(strings.Trim(l, "[] \t"))
			continue
		}
		key, val, ok := strings.Cut(l, "=")
		if !ok {
			continue
		}
		key = strings.TrimSpace(key)
		// An edit's fragment of [package] has its keys with no header above them.
		if !(table == "package" && key == "build" || table == "" && key == "package.build" ||
			table == "" && key == "build" && !strings.Contains(text, "\n[") && !strings.HasPrefix(text, "[")) {
			continue
		}
		val, _, _ = strings.Cut(val, "#") // a comment after the value
		switch path := strings.Trim(strings.TrimSpace(val), `"'`); path {
		case "false", "true", "build.rs", "./build.rs":
		default:
			x.opaque("package.build", "Cargo runs "+path+" as the package's build script before each build: Rust code moat reads only in build.rs")
		}
	}
}

// rustBuildCode finds the processes a Cargo build script starts.
func rustBuildCode(text string, x *extraction) {
	next := rustProcesses{text: text}
	for i := 0; i < len(text); {
		at, macro := next.after(i)
		if at < 0 {
			return
		}
		var words []string
		var end int
		var ok bool
		if macro {
			words, end, ok = rustLiteralList(text, at, ')')
		} else {
			var prog string
			prog, end, ok = rustLiteralArg(text, at)
			if ok {
				words = []string{prog}
				words, end, ok = rustChain(text, end, words)
			}
		}
		if !ok {
			x.opaque(x.kind, "starts a process whose command moat cannot read: "+snippet(text, at))
		} else if len(words) > 0 {
			line := ""
			for k, w := range words {
				if k > 0 {
					line += " "
				}
				line += shellQuote(w)
			}
			x.shell(x.kind, line)
		}
		i = max(end, at+1)
	}
}

// rustProcesses finds where processes start in a text, in order. It keeps the next
// occurrence of each form found, so that a text is searched once whatever the number of
// processes of the other form.
type rustProcesses struct {
	text       string
	cmd, macro int // offsets of the next "Command::new(" and "cmd!(", -1 for none; valid when searched
	searched   bool
}

// after returns the offset just after the next "Command::new(" or "cmd!(" at or after i
// (-1 when there is none), and whether it is a macro.
func (r *rustProcesses) after(i int) (int, bool) {
	find := func(cur int, needle string) int {
		if r.searched && (cur < 0 || cur >= i) {
			return cur
		}
		if k := strings.Index(r.text[i:], needle); k >= 0 {
			return i + k
		}
		return -1
	}
	r.cmd, r.macro = find(r.cmd, "Command::new("), find(r.macro, "cmd!(")
	r.searched = true
	switch {
	case r.cmd < 0 && r.macro < 0:
		return -1, false
	case r.macro < 0 || r.cmd >= 0 && r.cmd < r.macro:
		return r.cmd + len("Command::new("), false
	default:
		return r.macro + len("cmd!("), true
	}
}

// rustChain reads the method calls chained on a Command after its program, from i: the
// words .arg and .args add, until a call that runs it (status, output, spawn, exec) or
// the end of the expression. ok is false when a word is not a literal, or when the chain
// ends without running the command (it is built further in later statements).
func rustChain(text string, i int, words []string) ([]string, int, bool) {
	for {
		j := skipRustSpace(text, i)
		if j >= len(text) || text[j] != '.' {
			return words, j, false // stored in a variable, passed on: built elsewhere
		}
		j = skipRustSpace(text, j+1)
		k := j
		for k < len(text) && (isIdentByte(text[k])) {
			k++
		}
		method := text[j:k]
		k = skipRustSpace(text, k)
		if k >= len(text) || text[k] != '(' {
			return words, k, false
		}
		switch method {
		case "arg":
			w, end, ok := rustLiteralArg(text, k+1)
			if !ok {
				return words, end, false
			}
			words, i = append(words, w), end
		case "args":
			list, end, ok := rustArgsList(text, k+1)
			if !ok {
				return words, end, false
			}
			words, i = append(words, list...), end
		case "status", "output", "spawn", "exec":
			return words, k + 1, true
		default:
			// current_dir, env, stdout…: their arguments are no words of the command.
			end, ok := skipRustParens(text, k+1)
			if !ok {
				return words, end, false
			}
			i = end
		}
	}
}

// rustArgsList reads the argument of .args: an array or vec! of string literals, or a
// reference to one, up to the call's closing parenthesis.
func rustArgsList(text string, i int) ([]string, int, bool) {
	j := skipRustSpace(text, i)
	j = skipRustSpace(text, skipPrefix(text, j, "&"))
	j = skipPrefix(text, j, "vec!")
	if j >= len(text) || text[j] != '[' {
		return nil, j, false
	}
	words, end, ok := rustLiteralList(text, j+1, ']')
	if !ok {
		return nil, end, false
	}
	end = skipRustSpace(text, end)
	if end >= len(text) || text[end] != ')' {
		return nil, end, false
	}
	return words, end + 1, true
}

// rustLiteralArg reads a call's one string literal argument from i, up to and past the
// closing parenthesis.
func rustLiteralArg(text string, i int) (string, int, bool) {
	w, end, ok := rustString(text, skipRustSpace(text, i))
	if !ok {
		return "", end, false
	}
	end = skipRustSpace(text, end)
	if end >= len(text) || text[end] != ')' {
		return "", end, false
	}
	return w, end + 1, true
}

// rustLiteralList reads string literals separated by commas from i up to and past the
// closing byte.
func rustLiteralList(text string, i int, closing byte) ([]string, int, bool) {
	var words []string
	for {
		i = skipRustSpace(text, i)
		if i < len(text) && text[i] == closing {
			return words, i + 1, true
		}
		w, end, ok := rustString(text, i)
		if !ok {
			return nil, end, false
		}
		words = append(words, w)
		i = skipRustSpace(text, end)
		if i < len(text) && text[i] == ',' {
			i++
		}
	}
}

// rustString reads a Rust string literal at i ("…" with escapes, or a raw r"…", r#"…"#).
func rustString(text string, i int) (string, int, bool) {
	if i >= len(text) {
		return "", i, false
	}
	if text[i] == 'r' {
		j := i + 1
		hashes := 0
		for j < len(text) && text[j] == '#' {
			hashes++
			j++
		}
		if j >= len(text) || text[j] != '"' {
			return "", i, false
		}
		closing := "\"" + strings.Repeat("#", hashes)
		end := strings.Index(text[j+1:], closing)
		if end < 0 {
			return "", len(text), false
		}
		return text[j+1 : j+1+end], j + 1 + end + len(closing), true
	}
	if text[i] != '"' {
		return "", i, false
	}
	var b strings.Builder
	for j := i + 1; j < len(text); j++ {
		switch c := text[j]; c {
		case '"':
			return b.String(), j + 1, true
		case '\\':
			if j+1 >= len(text) {
				return "", len(text), false
			}
			j++
			b.WriteByte(escaped(text[j]))
		default:
			b.WriteByte(c)
		}
	}
	return "", len(text), false
}

// skipRustParens skips a call's arguments from i to past the matching closing
// parenthesis, minding string literals.
func skipRustParens(text string, i int) (int, bool) {
	depth := 1
	for i < len(text) {
		switch text[i] {
		case '"':
			_, end, ok := rustString(text, i)
			if !ok {
				return end, false
			}
			i = end
			continue
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i + 1, true
			}
		}
		i++
	}
	return i, false
}

// skipRustSpace skips blanks and comments.
func skipRustSpace(text string, i int) int {
	for i < len(text) {
		switch {
		case text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r':
			i++
		case strings.HasPrefix(text[i:], "//"):
			nl := strings.IndexByte(text[i:], '\n')
			if nl < 0 {
				return len(text)
			}
			i += nl + 1
		case strings.HasPrefix(text[i:], "/*"):
			end := strings.Index(text[i+2:], "*/")
			if end < 0 {
				return len(text)
			}
			i += end + 4
		default:
			return i
		}
	}
	return i
}

func skipPrefix(text string, i int, prefix string) int {
	if strings.HasPrefix(text[i:], prefix) {
		return i + len(prefix)
	}
	return i
}

func isIdentByte(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// snippet is the text from a little before i, on one line, for evidence.
func snippet(text string, i int) string {
	s := text[max(0, i-len("Command::new(")):min(len(text), i+60)]
	return strings.Join(strings.Fields(s), " ")
}

// cargoDependencies finds what the next build fetches for a Cargo manifest, and whose
// build scripts it then runs: a crate from a git repository (git = URL), another
// registry (registry, registry-index) or a directory (path = DIR), and crates.io's by
// name, in the dependency tables ([dependencies], [dev-dependencies],
// [build-dependencies], a target's, the workspace's) and in [patch]. Each is judged as
// the cargo add that would write it; crates.io's as one cargo add per table, for the
// names that imitate popular ones.
func cargoDependencies(text string, x *extraction) {
	doc, err := textedit.ParseTOML(text)
	if err != nil {
		if strings.Contains(text, "git") || strings.Contains(text, "registry") || strings.Contains(text, "path") {
			// Its dependencies may name a repository, a registry or a directory that
			// moat cannot see.
			x.opaque(x.kind, "TOML moat cannot read: "+err.Error())
		}
		return
	}
	str := func(v *textedit.Value) (string, bool) { return tomlString(text, v) }
	named := map[string][]string{} // a table's crates.io dependencies
	var tables []string
	// An edit's fragment of a dependency table has keys and no table: NAME = "1" or
	// NAME = { git = … } at the top, where a whole manifest has none of either.
	fragment := len(doc.Tables) == 0
	eachTOMLValue(doc, func(full []string, at string, val *textedit.Value) {
		// NAME = "1.0", NAME = { git = … }, or NAME.git = … (a dotted key).
		var name, table string
		fields := map[string]string{}
		switch n := len(full); {
		case fragment && n == 1 && !cargoPackageKey(full[0]) && cargoDependencyValue(text, val):
			name, table = full[0], "dependencies"
			for i, k := range val.Keys {
				if s, ok := str(val.Elems[i]); ok {
					fields[k] = s
				}
			}
			if v, ok := str(val); ok {
				fields["version"] = v
			}
		case n >= 2 && cargoDependencyTable(full[:n-1]) && val.Kind == '{':
			name, table = full[n-1], strings.Join(full[:n-1], ".")
			for i, k := range val.Keys {
				if s, ok := str(val.Elems[i]); ok {
					fields[k] = s
				}
			}
		case n >= 2 && cargoDependencyTable(full[:n-1]):
			if _, ok := str(val); ok {
				name, table = full[n-1], strings.Join(full[:n-1], ".")
				fields["version"] = "*"
			}
		case n >= 3 && cargoDependencyTable(full[:n-2]):
			if s, ok := str(val); ok {
				name, table, fields[full[n-1]] = full[n-2], strings.Join(full[:n-2], "."), s
			}
		}
		if name == "" {
			return
		}
		if p, ok := fields["package"]; ok {
			name = p // the crate's own name, under another key
		}
		switch where := at + " (cargo fetches and builds it)"; {
		case fields["git"] != "":
			x.shell(where, "cargo add "+shellQuote(name)+" --git "+shellQuote(fields["git"]))
		case fields["registry-index"] != "":
			x.shell(where, "cargo add "+shellQuote(name)+" --index "+shellQuote(fields["registry-index"]))
		case fields["registry"] != "":
			x.shell(where, "cargo add "+shellQuote(name)+" --registry "+shellQuote(fields["registry"]))
		case fields["path"] != "":
			x.shell(where, "cargo add "+shellQuote(name)+" --path "+shellQuote(fields["path"]))
		case fields["version"] != "":
			if !slices.Contains(tables, table) {
				tables = append(tables, table)
			}
			named[table] = append(named[table], shellQuote(name))
		}
	})
	for _, t := range tables {
		x.shell(t+" (cargo fetches and builds them)", "cargo add "+strings.Join(slices.Compact(named[t]), " "))
	}
}

// cargoPackageKey reports whether a key is one of [package]'s whose value may read as a
// version.
func cargoPackageKey(key string) bool {
	switch key {
	case "version", "edition", "rust-version", "resolver":
		return true
	}
	return false
}

// cargoDependencyValue reports whether a value reads as a dependency's: a version
// requirement, or a table that says where the crate comes from or at which version.
func cargoDependencyValue(text string, v *textedit.Value) bool {
	if s, ok := tomlString(text, v); ok {
		return s != "" && strings.ContainsRune("0123456789^~=<>*", rune(s[0]))
	}
	if v.Kind != '{' {
		return false
	}
	for _, k := range v.Keys {
		switch k {
		case "version", "git", "path", "registry", "registry-index":
			return true
		}
	}
	return false
}

// cargoDependencyTable reports whether a table path names one of a manifest's tables of
// dependencies: [dependencies] and its dev and build kinds, a target's
// ([target.'cfg(unix)'.dependencies]), the workspace's, and [patch.SOURCE].
func cargoDependencyTable(p []string) bool {
	switch {
	case len(p) == 1:
		return p[0] == "dependencies" || p[0] == "dev-dependencies" || p[0] == "build-dependencies"
	case len(p) == 2:
		return p[0] == "workspace" && p[1] == "dependencies" || p[0] == "patch"
	case len(p) == 3:
		return p[0] == "target" && cargoDependencyTable(p[2:])
	}
	return false
}
