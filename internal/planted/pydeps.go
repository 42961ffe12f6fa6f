package planted

import (
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/moatdev/moat/internal/textedit"
)

// Python's dependency declarations are what the next pip, uv or poetry install fetches
// and builds, running the build code of each source distribution: each is judged as the
// pip install of it would be, so that a dependency written into the file from a URL, a
// git repository, a directory outside the project or another index, or under a name
// imitating a popular one, is what installing it by hand would be.

// tomlString returns the text of a TOML string value of text, and false for any other.
func tomlString(text string, v *textedit.Value) (string, bool) {
	if v == nil || v.Kind != '"' {
		return "", false
	}
	return textedit.UnquoteTOML(text[v.Start:v.End])
}

// pipSource adds the pip install of the dependency name taken from a source that is
// not an index: a git repository (git), a URL (url, Pipfile's file) or a directory
// (path).
func pipSource(x *extraction, where, name, kind, src string) {
	switch kind {
	case "git":
		x.shell(where+" (installed from git)", pipInstall(name+" @ git+"+strings.TrimPrefix(src, "git+")))
	case "url", "file":
		x.shell(where+" (installed from a URL)", pipInstall(name+" @ "+src))
	case "path":
		x.shell(where+" (installed from a directory)", "pip install "+shellQuote(src))
	}
}

// pipInstall is the command that installs one requirement.
func pipInstall(req string) string { return "pip install " + shellQuote(req) }

// pyprojectDependency adds what a value of a pyproject.toml, at full, makes the next
// install fetch: the build system's requirements, PEP 621's [project]
// dependencies and optional-dependencies, PEP 735's
// dependency groups, the sources uv and Poetry take a dependency from (git, url,
// path), and the indexes they install from.
func pyprojectDependency(text string, x *extraction, full []string, dotted string, val *textedit.Value) {
	str := func(v *textedit.Value) (string, bool) { return tomlString(text, v) }
	switch {
	case len(full) == 2 && full[0] == "project" && full[1] == "dependencies",
		len(full) == 2 && full[0] == "build-system" && full[1] == "requires",
		len(full) == 3 && full[0] == "project" && full[1] == "optional-dependencies",
		len(full) == 2 && full[0] == "dependency-groups":
		if val.Kind != '[' {
			return
		}
		var b strings.Builder
		for _, e := range val.Elems {
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
		if val.Kind != '{' {
			return
		}
		name := full[len(full)-1]
		for _, k := range []string{"git", "url", "path"} {
			v, _ := val.Member(k)
			if src, ok := str(v); ok {
				pipSource(x, dotted, name, k, src)
			}
		}
	case len(full) >= 3 && full[0] == "tool" && full[1] == "uv":
		uvSetting(text, x, full[2:], dotted, val) // [[tool.uv.index]], index-url…
	case len(full) == 4 && full[0] == "tool" && full[1] == "poetry" && full[2] == "source" && full[3] == "url":
		// [[tool.poetry.source]]: another index to install from.
		if u, ok := str(val); ok {
			x.shell(dotted+" (an index packages are installed from)", "pip install --extra-index-url "+shellQuote(u))
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

// pipfileCode finds the code of a Pipfile: the commands of its [scripts], which pipenv
// run runs by name, what pipenv installs (its [packages] and [dev-packages]: a version,
// or a table naming a git repository, a file URL or a path), and the indexes of its
// [[source]] tables other than PyPI's.
func pipfileCode(text string, x *extraction) {
	str := func(v *textedit.Value) (string, bool) { return tomlString(text, v) }
	var reqs strings.Builder
	x.tomlValues(text, func(full []string, dotted string, val *textedit.Value) {
		x.tableCommands(text, []string{"scripts"}, nil, full, dotted, val)
		switch {
		case len(full) == 2 && full[0] == "source" && full[1] == "url":
			if u, ok := str(val); ok && !strings.HasPrefix(u, "https://pypi.org/") {
				x.shell(dotted+" (an index pipenv installs from)", "pip install --extra-index-url "+shellQuote(u))
			}
		case len(full) == 2 && (full[0] == "packages" || full[0] == "dev-packages"):
			name := full[1]
			if v, ok := str(val); ok {
				if v == "*" {
					v = ""
				}
				reqs.WriteString(" " + shellQuote(name+v))
				return
			}
			if val.Kind != '{' {
				return
			}
			for _, k := range []string{"git", "file", "path"} {
				v, _ := val.Member(k)
				if src, ok := str(v); ok {
					pipSource(x, dotted, name, k, src)
					return
				}
			}
			reqs.WriteString(" " + shellQuote(name))
		}
	})
	if reqs.Len() > 0 {
		x.shell("packages (pipenv installs them)", "pip install"+reqs.String())
	}
}

// setupCfgCode finds what pip installs for a setup.cfg: the requirements of [options]
// install_requires and setup_requires, and of each [options.extras_require] entry, one
// per line of the value.
func setupCfgCode(text string, x *extraction) {
	var reqs strings.Builder
	for l := range iniValueLines(text) {
		if !(l.section == "options" && (l.key == "install_requires" || l.key == "setup_requires") || l.section == "options.extras_require") {
			continue
		}
		req := l.text
		if i := strings.Index(req, " #"); i >= 0 {
			req = strings.TrimSpace(req[:i])
		}
		reqs.WriteString(" " + shellQuote(req))
	}
	if reqs.Len() > 0 {
		x.shell("options (pip installs them)", "pip install"+reqs.String())
	}
	pytestIniCode(text, x)
}

// requirementLine matches a PEP 508 requirement: a name, extras, version specifiers and
// markers, or NAME @ URL.
var requirementLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*\s*(?:\[[^\]]*\])?\s*(?:@\s*\S+|(?:[<>=!~]=?=?\s*[^\s,;]+(?:\s*,\s*[<>=!~]=?=?\s*[^\s,;]+)*)?)\s*(?:;.*)?$`)
})

// requirementsFragment reads an edit's fragment of a TOML list of requirements (lines of
// "click>=8.1", inside a dependencies array), which is no TOML document by itself: the
// pip install of them, and false when the text is anything else.
func requirementsFragment(text string, x *extraction) bool {
	list := "fragment = [\n" + text + "\n]\n"
	doc, err := textedit.ParseTOML(list)
	if err != nil || len(doc.KVs) != 1 || doc.KVs[0].Val.Kind != '[' {
		return false
	}
	var b strings.Builder
	for _, e := range doc.KVs[0].Val.Elems {
		req, ok := tomlString(list, e)
		if !ok || !requirementLine().MatchString(strings.TrimSpace(req)) {
			return false
		}
		b.WriteString(" " + shellQuote(req))
	}
	if b.Len() > 0 {
		x.shell("dependencies (pip installs them)", "pip install"+b.String())
	}
	return true
}

// pytestIniSections are the sections that hold pytest's settings in its INI files.
var pytestIniSections = []string{"pytest", "tool:pytest"}

// pytestIniCode reads pytest's settings in pytest.ini, setup.cfg or tox.ini.
func pytestIniCode(text string, x *extraction) {
	var paths, opts []string
	for l := range iniValueLines(text) {
		if !slices.Contains(pytestIniSections, l.section) {
			continue
		}
		switch l.key {
		case "pythonpath":
			paths = append(paths, strings.Fields(l.text)...)
		case "addopts":
			opts = append(opts, l.text)
		}
	}
	pytestSettings(x, "["+pytestIniSections[0]+"]", paths, strings.Join(opts, " "))
}

// pytestSettings adds the pytest run that settings make every pytest run be: the
// directories pythonpath puts on Python's path (code imported from there, outside the
// project unread), and addopts, options given to every run (-p PLUGIN loads a plugin,
// --rootdir, -c FILE).
func pytestSettings(x *extraction, where string, paths []string, addopts string) {
	if len(paths) == 0 && strings.TrimSpace(addopts) == "" {
		return
	}
	cmd := "pytest " + addopts
	if len(paths) > 0 {
		cmd = "PYTHONPATH=" + shellQuote(strings.Join(paths, ":")) + " " + cmd
	}
	x.shell(where+" (every pytest run)", cmd)
}
