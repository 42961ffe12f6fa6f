package planted

import (
	"slices"
	"strings"

	"github.com/moatdev/moat/internal/textedit"
)

// Python's dependency declarations are what the next pip, uv or poetry install fetches
// and builds, running the build code of each source distribution: each is judged as the
// pip install of it would be, so that a dependency written into the file from a URL, a
// git repository, a directory outside the project or another index, or under a name
// imitating a popular one, is what installing it by hand would be.

// pipInstall is the command that installs one requirement.
func pipInstall(req string) string { return "pip install " + shellQuote(req) }

// pyprojectDependencies finds the dependencies of a pyproject.toml: PEP 621's
// [project] dependencies and optional-dependencies, PEP 735's dependency groups, the
// sources uv and Poetry take a dependency from (git, url, path), and the indexes they
// install from.
func pyprojectDependencies(text string, x *extraction) {
	if !strings.Contains(text, "dependencies") && !strings.Contains(text, "sources") && !strings.Contains(text, "index") && !strings.Contains(text, "source") {
		return
	}
	doc, err := textedit.ParseTOML(text)
	if err != nil {
		return // reported by the reading of the file's tasks
	}
	str := func(v *textedit.Value) (string, bool) {
		if v == nil || v.Kind != '"' {
			return "", false
		}
		return textedit.UnquoteTOML(text[v.Start:v.End])
	}
	for _, kv := range doc.KVs {
		full := kv.Path
		if kv.Table >= 0 {
			full = append(slices.Clip(doc.Tables[kv.Table].Path), kv.Path...)
		}
		dotted := strings.Join(full, ".")
		switch {
		case len(full) == 2 && full[0] == "project" && full[1] == "dependencies",
			len(full) == 3 && full[0] == "project" && full[1] == "optional-dependencies",
			len(full) == 2 && full[0] == "dependency-groups":
			if kv.Val.Kind != '[' {
				continue
			}
			var b strings.Builder
			for _, e := range kv.Val.Elems {
				if req, ok := str(e); ok && strings.TrimSpace(req) != "" {
					b.WriteString(" " + shellQuote(req))
				}
			}
			if b.Len() > 0 {
				x.shell(dotted+" (pip installs them)", "pip install"+b.String())
			}
		case len(full) == 4 && full[0] == "tool" && full[1] == "uv" && full[2] == "sources",
			len(full) >= 4 && full[0] == "tool" && full[1] == "poetry" && strings.HasSuffix(full[len(full)-2], "dependencies"):
			// NAME = { git = URL } | { url = URL } | { path = DIR }
			if kv.Val.Kind != '{' {
				continue
			}
			name := full[len(full)-1]
			for _, k := range []string{"git", "url", "path"} {
				v, _ := kv.Val.Member(k)
				src, ok := str(v)
				if !ok {
					continue
				}
				switch k {
				case "git":
					x.shell(dotted+" (installed from git)", pipInstall(name+" @ git+"+strings.TrimPrefix(src, "git+")))
				case "url":
					x.shell(dotted+" (installed from a URL)", pipInstall(name+" @ "+src))
				case "path":
					x.shell(dotted+" (installed from a directory)", "pip install "+shellQuote(src))
				}
			}
		case len(full) == 4 && full[0] == "tool" && (full[1] == "uv" && full[2] == "index" || full[1] == "poetry" && full[2] == "source") && full[3] == "url":
			// [[tool.uv.index]] and [[tool.poetry.source]]: another index to install from.
			if u, ok := str(kv.Val); ok {
				x.shell(dotted+" (an index packages are installed from)", "pip install --extra-index-url "+shellQuote(u))
			}
		}
	}
}

// requirementsCode finds what a pip requirements file installs: its requirements and
// the options that choose where from (--index-url, --extra-index-url, --find-links,
// --trusted-host), as one pip install takes them. Files it includes (-r, -c) are read
// when they are written.
func requirementsCode(text string, x *extraction) {
	joined := strings.ReplaceAll(text, "\\\n", " ")
	var b strings.Builder
	for _, line := range strings.Split(joined, "\n") {
		if i := strings.Index(line, " #"); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "-") {
			opt, val, _ := strings.Cut(line, " ")
			if o, v, ok := strings.Cut(opt, "="); ok {
				opt, val = o, v
			}
			switch opt {
			case "-r", "--requirement", "-c", "--constraint":
			default:
				b.WriteString(" " + opt + " " + shellQuote(strings.TrimSpace(val)))
			}
			continue
		}
		// A requirement's own options (--hash=…) follow it.
		req, _, _ := strings.Cut(line, " --")
		b.WriteString(" " + shellQuote(strings.TrimSpace(req)))
	}
	if b.Len() > 0 {
		x.shell("requirements (pip installs them)", "pip install"+b.String())
	}
}
