package shell

import (
	"strings"
	"testing"
)

func TestCatalogParses(t *testing.T) {
	c, err := parseCatalog(catalogText)
	if err != nil {
		t.Fatal(err)
	}
	if len(c) < 400 {
		t.Errorf("catalog lists %d programs; the embedded file was not read whole", len(c))
	}
	for name, e := range c {
		if e.kind == kindRunner && len(e.runs) == 0 && len(e.shell) == 0 {
			t.Errorf("%s: a runner without subcommands or an option holding a command", name)
		}
		// An entry with attributes (a project program, a runner, a tool that runs a
		// command, changes the machine or rewrites its files) adds what the tables do not say; a plain one
		// would be a second description of one program.
		plain := e.kind != kindProject && e.kind != kindRunner && len(e.exec) == 0 && len(e.changes) == 0 && len(e.writes) == 0
		if describedByTables(name) && plain {
			t.Errorf("%s is in a table and in the catalog: one entry says what a program does", name)
		}
	}
}

func TestParseCatalogErrors(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"ls", "before any [section]"},
		{"[nope]\nls", "unknown section"},
		{"[tool]\nls\nls", "listed twice"},
		{"[tool]\nmake options", ""},
		{"[project]\nmake colour=red", "unknown attribute"},
		{"[runner]\npoetry", "names no subcommand"},
		{"[runner]\nnix-shell values=-p", "names no subcommand"},
		{"[project]\nmake options=", "not key=value"},
		{"[project]\nmake options=-f y", "not key=value"},
	} {
		_, err := parseCatalog(tc.text)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q: %v", tc.text, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: error %v, want it to say %q", tc.text, err, tc.want)
		}
	}
}

func TestUnknownPrograms(t *testing.T) {
	for _, tc := range []struct {
		line   string
		opaque bool
	}{
		{"frobnicate --all", true},
		{"ls -la", false},
		{"jq .name package.json", false},
		{"/usr/bin/frobnicate", true},
		{"/usr/bin/ls", false},
		{"/tmp/x/run", true},
		{"~/.local/bin/helper", true},
		{"./build.sh", false},
		{"node_modules/.bin/jest", false},
		{"f() { ls; }; f", false},
		{"alias ll='ls -l'\nll", false},
		{"python3.12 -V", false},
		{"poetry run pytest -x", false},
		{"poetry run frobnicate", true},
		{"poetry add requests", false},
		{"go run github.com/evil/x@latest", true},
		{"go run ./cmd/moat", false},
		{"go test ./...", false},
		{"make -f /tmp/x.mk", true},
		{"make -C build test", false},
		{"pytest /tmp/test_x.py", true},
		{"pytest tests/test_x.py", false},
	} {
		a := Analyze(tc.line, Env{Cwd: "/home/u/p", Home: "/home/u"})
		got := false
		for _, c := range a.Commands {
			for _, f := range c.Findings {
				if f.ID == findOpaque {
					got = true
				}
			}
		}
		if got != tc.opaque {
			t.Errorf("%q: opaque %v, want %v (%+v)", tc.line, got, tc.opaque, a.Commands)
		}
	}
}
