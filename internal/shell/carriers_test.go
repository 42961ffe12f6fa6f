package shell

import (
	"strings"
	"testing"
)

// gives reports whether any command of the line carries the finding.
func givesAnywhere(line, id string) bool {
	a := Analyze(line, testEnv)
	for _, c := range a.Commands {
		if hasFinding(c.Findings, id) {
			return true
		}
	}
	return hasFinding(a.Findings, id)
}

// aboutCarrier is givesAnywhere for findings other than the one of an unknown program.
func aboutCarrier(line, id string) bool {
	a := Analyze(line, testEnv)
	for _, c := range a.Commands {
		for _, f := range c.Findings {
			if f.ID == id && !strings.Contains(f.Evidence, unknownProgramNote) {
				return true
			}
		}
	}
	return hasFinding(a.Findings, id)
}

// Every variable of the environment table is judged for what it carries: a command line in
// it runs (rm deleting /x appears among the commands), a file, library or directory outside
// the project is opaque, and one inside the project or the system is not.
func TestEnvVarsTable(t *testing.T) {
	vars := make(map[string]envVar, len(envVars()))
	for name, v := range envVars() {
		vars[name] = v
	}
	for _, name := range []string{"BASH_FUNC_ls%%", "GIT_CONFIG_KEY_0", "LUA_INIT_5_4"} {
		v, ok := lookupEnvVar(name)
		if !ok {
			t.Fatalf("%s is not found by its pattern", name)
		}
		vars[name] = v
	}
	for name, v := range vars {
		t.Run(name, func(t *testing.T) {
			reader := "ls"
			if len(v.readers) > 0 {
				reader = v.readers[0]
			}
			if v.interactive {
				reader += " -i"
			}
			set := func(value string) string {
				if strings.HasPrefix(name, "BASH_FUNC_") {
					return "env '" + name + "=" + value + "' " + reader
				}
				return name + "='" + value + "' " + reader
			}
			opaque := func(value string) {
				t.Helper()
				if line := set(value); !givesAnywhere(line, findOpaque) {
					t.Errorf("%s: want %s:\n%s", line, findOpaque, render(Analyze(line, testEnv)))
				}
			}
			clean := func(value string) {
				t.Helper()
				// Readers that moat cannot inspect (R, irb) are opaque for being run at
				// all; what is tested here is what the variable adds.
				if line := set(value); aboutCarrier(line, findOpaque) || aboutCarrier(line, findDynamicCommand) {
					t.Errorf("%s: want no finding of opaque code:\n%s", line, render(Analyze(line, testEnv)))
				}
			}
			switch v.kind {
			case envShell:
				wantRun(t, set("rm -rf /x"))
				opaque("/tmp/p.sh")
				clean("true")
			case envPipe:
				wantRun(t, set("|rm -rf /x"))
			case envProgram:
				opaque("/tmp/p")
				clean("/usr/bin/true")
			case envPrompt:
				wantRun(t, set("$(rm -rf /x)"))
				clean("$ ")
			case envFunction:
				wantRun(t, set("() { rm -rf /x; }"))
			case envScript:
				opaque("/tmp/x")
				clean("/dev/null")
			case envLibrary:
				opaque("/tmp/x.so")
				clean("libc.so.6")
			case envSearchPath, envDir, envGitConfigFile, envRepo:
				opaque("/tmp/x")
				if v.kind != envGitConfigFile {
					clean("lib")
				}
			case envOptions:
				bad := map[string]string{"node": "--require /tmp/x.js", "perl": "-I/tmp/x", "ruby": "-r/tmp/x.rb",
					"jvm": "-javaagent:/tmp/a.jar", "go": "-toolexec=/tmp/x", "tar": "--to-command=/tmp/x"}[v.lang]
				if bad == "" {
					t.Fatalf("no test for options of %q", v.lang)
				}
				opaque(bad)
				clean("-v")
			case envCode:
				code := map[string]string{"perl": `system("rm -rf /x")`, "lua": `os.execute("rm -rf /x")`}[v.lang]
				if code == "" {
					t.Fatalf("no test for code in %q", v.lang)
				}
				wantRun(t, set(code))
			case envGitConfig:
				if name == "GIT_CONFIG_PARAMETERS" {
					wantRun(t, name+`="'core.pager'='rm -rf /x'" git log`)
				} else {
					wantRun(t, "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0='rm -rf /x' git log")
				}
			default:
				t.Fatalf("kind %d has no test", v.kind)
			}
			// Set for the rest of the line, a command line is judged where it is set.
			if v.kind == envShell {
				wantRun(t, "export "+name+"='rm -rf /x'")
			}
		})
	}
}

// gitKeyExample is a key matching the pattern, with x for its subsection or name.
func gitKeyExample(pattern string) string {
	return strings.ReplaceAll(pattern, "*", "x")
}

// Every git setting of the table is judged for what its value does, given with -c, stored
// with git config and written into .git/config.
func TestGitCodeKeysTable(t *testing.T) {
	for _, k := range gitCodeKeys() {
		key := gitKeyExample(k.pattern)
		t.Run(key, func(t *testing.T) {
			section, rest, _ := strings.Cut(key, ".")
			header, variable := "["+section+"]", rest
			if sub, v, ok := strings.Cut(rest, "."); ok {
				if i := strings.LastIndexByte(rest, '.'); i >= 0 {
					sub, v = rest[:i], rest[i+1:]
				}
				header, variable = "["+section+` "`+sub+`"]`, v
			}
			forms := func(value string) []string {
				return []string{
					"git -c " + key + "='" + value + "' status",
					"git config --global " + key + " '" + value + "'",
					"printf '" + header + `\n\t` + variable + " = " + strings.ReplaceAll(value, `\`, `\\`) + `\n' >> .git/config`,
				}
			}
			want := func(value, id string) {
				t.Helper()
				for _, line := range forms(value) {
					if !givesAnywhere(line, id) {
						t.Errorf("%s: want %s:\n%s", line, id, render(Analyze(line, testEnv)))
					}
				}
			}
			switch k.kind {
			case gitShell, gitShellOrBool:
				for _, line := range forms("rm -rf /x") {
					wantRun(t, line)
				}
				want("/tmp/p.sh", findOpaque)
			case gitBang:
				for _, line := range forms("!rm -rf /x") {
					wantRun(t, line)
				}
			case gitProgram, gitProgramPath:
				want("/tmp/p", findOpaque)
			case gitHooks:
				if line := forms("/tmp/h")[0]; !givesAnywhere(line, findOpaque) {
					t.Errorf("%s: want %s", line, findOpaque)
				}
				if line := forms("/tmp/h")[1]; !givesAnywhere(line, findGitHooks) {
					t.Errorf("%s: want %s", line, findGitHooks)
				}
			case gitInclude:
				want("/tmp/x.cfg", findOpaque)
			case gitWorkTree:
				want("/", findOpaque)
			case gitTransport:
				if line := forms("always")[1]; !givesAnywhere(line, findToolConfig) {
					t.Errorf("%s: want %s", line, findToolConfig)
				}
			case gitTLSVerify:
				want("false", findRegistry)
				for _, line := range forms("true") {
					if givesAnywhere(line, findRegistry) {
						t.Errorf("%s: certificate checks on, yet %s", line, findRegistry)
					}
				}
			case gitSafeDir:
				if line := forms("*")[1]; !givesAnywhere(line, findSecurityOff) {
					t.Errorf("%s: want %s", line, findSecurityOff)
				}
				if line := forms("/srv/app")[1]; givesAnywhere(line, findSecurityOff) {
					t.Errorf("%s: one directory, yet %s", line, findSecurityOff)
				}
			case gitProxy:
				want("http://203.0.113.9:8080", findRegistry)
				for _, line := range forms("http://proxy.corp:3128") {
					if givesAnywhere(line, findRegistry) {
						t.Errorf("%s: a proxy of the user's own network, yet %s", line, findRegistry)
					}
				}
			case gitCATrust:
				want("/tmp/mitm.pem", findRegistry)
				for _, line := range forms("/etc/ssl/certs/ca-certificates.crt") {
					if givesAnywhere(line, findRegistry) {
						t.Errorf("%s: the system's bundle, yet %s", line, findRegistry)
					}
				}
			default:
				t.Fatalf("kind %d has no test", k.kind)
			}
		})
	}
}

// Every option of a git subcommand that runs code is followed, in its long form, in an
// abbreviation, and in its short form.
func TestGitSubcommandsTable(t *testing.T) {
	for name, s := range gitSubcommands() {
		t.Run(name, func(t *testing.T) {
			if s.runs != "" {
				cmd := "'rm -rf /x'"
				if s.runsKind == codeProgram {
					cmd = "rm -rf /x"
				}
				wantRun(t, "git "+name+" "+s.runs+" "+cmd)
			}
			for _, o := range s.code {
				var lines []string
				value := "rm -rf /x"
				if o.kind == gitPair {
					value = "core.pager=rm -rf /x"
				}
				if !o.attached {
					lines = append(lines, "git "+name+" --"+o.long+" '"+value+"'")
				}
				lines = append(lines, "git "+name+" --"+o.long+"='"+value+"'")
				if abbrev := o.long[:len(o.long)-1]; name != "filter-branch" {
					if full, ok := resolveLong(abbrev, s); ok && full == o.long {
						lines = append(lines, "git "+name+" --"+abbrev+"='"+value+"'")
					}
				}
				if o.short != 0 {
					lines = append(lines, "git "+name+" -"+string(o.short)+"'"+value+"'")
				}
				for _, line := range lines {
					switch o.kind {
					case gitHooks:
						if !givesAnywhere(strings.ReplaceAll(line, value, "/tmp/h"), findOpaque) {
							t.Errorf("%s: want %s", line, findOpaque)
						}
					case gitProgram, gitProgramPath:
						if l := strings.ReplaceAll(line, value, "/tmp/p"); !givesAnywhere(l, findOpaque) {
							t.Errorf("%s: want %s:\n%s", l, findOpaque, render(Analyze(l, testEnv)))
						}
					default:
						wantRun(t, line)
					}
				}
			}
		})
	}
}

// Every set-up script of the table is sourced without a finding, from a place outside the
// project; another file there is opaque.
func TestSourceScriptsTable(t *testing.T) {
	for _, s := range sourceScripts() {
		p := "/srv/tools" + s
		if rest, ok := strings.CutPrefix(s, "~/"); ok {
			p = testEnv.Home + "/" + rest
		}
		if line := "source " + p; givesAnywhere(line, findOpaque) {
			t.Errorf("%s: a well-known set-up script is opaque:\n%s", line, render(Analyze(line, testEnv)))
		}
	}
	for _, line := range []string{"source /srv/tools/x.sh", ". /tmp/x", "source ~/x.sh", `source "$F"`} {
		if !givesAnywhere(line, findOpaque) {
			t.Errorf("%s: want %s", line, findOpaque)
		}
	}
}

// Every set-up generator of the table is eval'd without a finding; another program's output
// is code known only at run time.
func TestSetupGeneratorsTable(t *testing.T) {
	for prog, subs := range setupGenerators() {
		for _, sub := range subs {
			line := `eval "$(` + strings.TrimSpace(prog+" "+sub) + `)"`
			if givesAnywhere(line, findDynamicCommand) {
				t.Errorf("%s: set-up code is reported:\n%s", line, render(Analyze(line, testEnv)))
			}
		}
	}
	for _, line := range []string{`eval "$(cat x)"`, `eval "$(pyenv cat -)"`, `eval "$(pyenv init - | cat)"`} {
		if !givesAnywhere(line, findDynamicCommand) {
			t.Errorf("%s: want %s", line, findDynamicCommand)
		}
	}
}

// Every builtin that reads variable names evaluates the subscripts in them.
func TestEvaluatedNamesTable(t *testing.T) {
	for prog, opt := range evaluatedNames() {
		name := `'a[$(rm -rf /x)]'`
		line := prog + " " + name
		switch {
		case opt != "":
			line = prog + " -" + opt + " " + name + " x"
		case prog == "let":
			line = "let " + `'a[$(rm -rf /x)]=1'`
		}
		wantRun(t, line)
	}
}
