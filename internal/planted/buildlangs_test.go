package planted

import (
	"path"
	"slices"
	"strings"
	"testing"
)

// TestBuildLangsExtract checks the build files read for the programs they start: each
// command spelt in literals is found as its command line, one computed is opaque, and
// the everyday file finds nothing.
func TestBuildLangsExtract(t *testing.T) {
	for _, tt := range []struct {
		name, path, text string
		want             []string // the code found, in order; "opaque" for code moat cannot read
	}{
		{"meson project", "meson.build", "project('x', 'c')\nprog = find_program('protoc')\nexecutable('x', 'main.c')\ncustom_target('gen', input: 'a.proto', output: 'a.pb.c', command: [prog, '@INPUT@'])\n", nil},
		{"meson run_command", "meson.build", "git = find_program('git')\nv = run_command(git, 'describe', '--tags', check: true).stdout()\nr = run_command('sh', '-c', 'curl x | sh')\nrun_command(['python3', 'gen.py'], check: false)\n# run_command('rm', '-rf', '/')\nrun_command(find_program('make'), '-C', 'sub dir')\n", []string{"git describe --tags", "sh -c 'curl x | sh'", "python3 gen.py", "make -C 'sub dir'"}},
		{"meson computed run_command", "meson.build", "run_command(cmd)\nrun_command('echo', meson.project_version())\nrun_command(\n", []string{"opaque", "opaque", "opaque"}},
		{"rebar3 configuration", "rebar.config", "{erl_opts, [debug_info]}.\n{deps, [cowboy, {jsx, \"3.1.0\"}]}.\n{provider_hooks, [{pre, [{compile, {pc, compile}}]}]}.\n", nil},
		{"rebar3 hooks", "rebar.config", "{pre_hooks, [{compile, \"make -C c_src\"},\n  {\"(linux|darwin)\", eunit, \"./setup.sh\"}]}.\n% {post_hooks, [{compile, \"rm -rf /\"}]}.\n{profiles, [{test, [{post_hooks, [{ct, \"curl x \" \"| sh\"}]}]}]}.\n", []string{"make -C c_src", "./setup.sh", "curl x | sh"}},
		{"rebar3 hook moat cannot read", "rebar.config", "{pre_hooks, [{compile, Cmd}]}.\n{post_hooks, [{compile, \"make\"}\n", []string{"opaque", "opaque"}},
		{"rebar3 configuration script", "rebar.config.script", "case os:getenv(\"X\") of false -> CONFIG; _ -> CONFIG end.\n", []string{"opaque"}},
		{"rebar3 configuration script of comments", "rebar.config.script", "% nothing yet\n", nil},
		{"mix project", "mix.exs", "defmodule App.MixProject do\n  use Mix.Project\n  def project do\n    [app: :app, version: \"0.1.0\", deps: deps(), aliases: aliases()]\n  end\n  defp deps, do: [{:phoenix, \"~> 1.7\"}]\n  defp aliases do\n    [setup: [\"deps.get\", \"ecto.setup\"], test: [\"ecto.create --quiet\", \"test\"]]\n  end\nend\n", nil},
		{"mix commands", "mix.exs", "  defp aliases do\n    [setup: [\"deps.get\", \"cmd npm install --prefix assets\"], \"assets.deploy\": [\"cmd --cd assets npm run deploy\"]]\n  end\n  {v, 0} = System.cmd(\"git\", [\"describe\", \"--tags\"])\n  System.cmd \"sh\", [\"-c\", \"curl x | sh\"], into: IO.stream()\n  System.shell(\"make gen\")\n  :os.cmd('id')\n  Mix.shell().cmd(\"echo hi\")\n  Port.open({:spawn, \"tail -f log\"}, [])\n  # System.cmd(\"rm\", [\"-rf\", \"/\"])\n", []string{"npm install --prefix assets", "cd assets || exit 1\nnpm run deploy", "git describe --tags", "sh -c 'curl x | sh'", "make gen", "id", "echo hi", "tail -f log"}},
		{"mix computed commands", "mix.exs", "System.cmd(tool, [\"x\"])\nSystem.shell(\"make #{target}\")\nx = [\"cmd rm -rf #{dir}\"]\nPort.open({:spawn_executable, path}, [])\n", []string{"opaque", "opaque", "opaque", "opaque"}},
		{"cabal default Setup", "Setup.hs", "import Distribution.Simple\nmain = defaultMain\n", nil},
		{"cabal Setup hooks", "Setup.hs", "import Distribution.Simple\nimport System.Process (callCommand, system)\nmain = defaultMainWithHooks simpleUserHooks\n  { preBuild = \\a f -> callCommand \"make -C cbits\" >> preBuild simpleUserHooks a f\n  , postBuild = \\_ _ _ _ -> callProcess \"sh\" [\"-c\", \"curl x | sh\"]\n  , postConf = \\_ _ _ _ -> readProcess \"git\" [\"describe\"] \"\" >>= putStr\n  }\n-- system \"rm -rf /\"\n{- rawSystem \"rm\" [\"-rf\", \"/\"] -}\n", []string{"make -C cbits", "sh -c 'curl x | sh'", "git describe"}},
		{"cabal Setup computed commands", "Setup.lhs", "> main = do\n>   callCommand (\"make \" ++ dir)\n>   _ <- system $ \"make \" ++ dir\n>   createProcess (shell \"x\")\n", []string{"opaque", "opaque", "opaque"}},
		{"swift package", "Package.swift", "// swift-tools-version:5.9\nimport PackageDescription\nlet package = Package(\n  name: \"X\",\n  products: [.library(name: \"X\", targets: [\"X\"])],\n  dependencies: [\n    .package(url: \"https://github.com/apple/swift-argument-parser\", from: \"1.3.0\"),\n    .package(path: \"Vendor/Local\"),\n  ],\n  targets: [.target(name: \"X\"), .testTarget(name: \"XTests\", dependencies: [\"X\"])]\n)\n", nil},
		{"swift package starting a process", "Package.swift", "import Foundation\nimport PackageDescription\nlet p = Process()\np.launchPath = \"/bin/sh\"\n// system(\"x\")\nlet package = Package(name: \"X\", dependencies: [.package(url: \"http://git.example/x.git\", from: \"1.0.0\"), .package(path: \"../../outside\")])\n", []string{"opaque", "opaque", "opaque"}},
		{"swift build tool plugin", "Plugins/Gen/plugin.swift", "import PackagePlugin\n@main struct Gen: BuildToolPlugin {\n  func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {\n    [.buildCommand(displayName: \"gen\", executable: try context.tool(named: \"gen\").path, arguments: [])]\n  }\n}\n", []string{"opaque"}},
		{"swift command plugin", "Plugins/Fmt/main.swift", "import PackagePlugin\n@main struct Fmt: CommandPlugin {\n  func performCommand(context: PluginContext, arguments: [String]) throws {\n    print(Font.system(size: 1))\n  }\n}\n", nil},
		{"bazel build file", "BUILD.bazel", "load(\"@rules_go//go:def.bzl\", \"go_library\")\ngo_library(\n    name = \"x\",\n    srcs = [\"x.go\"],\n)\n", nil},
		{"bazel genrules", "pkg/BUILD", "genrule(\n    name = \"gen\",\n    srcs = [\"in.txt\"],\n    outs = [\"out.h\"],\n    tools = [\":gen_tool\"],\n    cmd = \"$(location :gen_tool) --in $< --out $@ && echo $$HOME > $(@D)/log\",\n)\n# genrule(name = \"x\", cmd = \"rm -rf /\")\ngenrule(name = \"b\", outs = [\"b\"], cmd_bash = \"curl x \" + '| sh')\ngenrule(name = \"c\", outs = [\"c\"], cmd = \"\"\"\n  cat $(SRCS) \\\\\n    > $(OUTS)\n\"\"\")\n", []string{"bazel-out/gen/gen_tool --in bazel-out/gen/in --out bazel-out/gen/out && echo $HOME > bazel-out/gen/log", "curl x | sh", "\n  cat bazel-out/gen \\\n    > bazel-out/gen\n"}},
		{"bazel computed genrules", "BUILD", "genrule(name = \"d\", outs = [\"d\"], cmd = \"echo \" + VERSION)\ngenrule(name = \"e\", outs = [\"e\"], cmd = select({\"//c:x\": \"a\", \"//conditions:default\": \"b\"}))\ngenrule(name = \"f\", cmd = \"echo $(location :x\")\n", []string{"opaque", "opaque", "opaque"}},
		{"sphinx configuration", "docs/conf.py", "project = 'x'\nextensions = ['sphinx.ext.autodoc']\n", []string{"project = 'x'\nextensions = ['sphinx.ext.autodoc']\n"}},
		{"scons file", "src/SConscript", "Import('env')\nenv.Program('x', ['x.c'])\n", []string{"Import('env')\nenv.Program('x', ['x.c'])\n"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			checkExtract(t, tt.path, tt.text, tt.want)
		})
	}
}

// TestEarthfile checks the commands of an Earthfile and where each runs: in a build
// container, or here after LOCALLY and in the functions such a target calls.
func TestEarthfile(t *testing.T) {
	for _, tt := range []struct {
		name, text string
		want       []string // the code found, in order; "opaque" for code moat cannot read
		hosts      []Host
	}{
		{"targets in containers", "VERSION 0.8\nFROM golang:1.22\nWORKDIR /src\nRUN apk add git\n\nbuild:\n    COPY . .\n    RUN --mount=type=cache,target=/root/.cache go build -o out/app ./cmd/app\n    SAVE ARTIFACT out/app\n\ntest:\n    FROM +build\n    ARG --required VERSION\n    RUN --secret TOKEN --no-cache go test ./...\n    IF [ -f extra.sh ]\n        RUN ./extra.sh\n    END\n",
			[]string{"apk add git\n", "go build -o out/app ./cmd/app\n", "go test ./...\n[ -f extra.sh ]\n./extra.sh\n"}, []Host{Discarded, Discarded, Discarded}},
		{"a target run here", "VERSION 0.8\nIMPORT ./lib AS mylib\nIMPORT github.com/other/lib AS other\ndeploy:\n    LOCALLY\n    RUN ./scripts/deploy.sh\n    RUN [\"kubectl\", \"apply\", \"-f\", \"k8s dir\"]\n    DO mylib+NOTIFY\n    DO other+SETUP\n    DO +SETUP\n\nSETUP:\n    FUNCTION\n    RUN curl -fsSL https://x.example/i.sh | sh\n",
			[]string{"./scripts/deploy.sh\nkubectl apply -f 'k8s dir'\n", "opaque", "curl -fsSL https://x.example/i.sh | sh\n"}, []Host{Here, Here, Here}},
		{"functions called in containers only", "VERSION 0.8\nbuild:\n    FROM alpine\n    DO +SETUP\n\nSETUP:\n    FUNCTION\n    RUN make\n",
			[]string{"make\n"}, []Host{Discarded}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			checkExtract(t, "Earthfile", tt.text, tt.want)
			f, _ := Lookup(path.Join(home, "project", "Earthfile"), home)
			var hosts []Host
			for _, c := range f.Extract(tt.text) {
				hosts = append(hosts, c.Host)
			}
			if !slices.Equal(hosts, tt.hosts) {
				t.Errorf("hosts %v, want %v", hosts, tt.hosts)
			}
		})
	}
}

// TestLookupBuildKinds: the names of the new kinds find them, and only them.
func TestLookupBuildKinds(t *testing.T) {
	for _, tt := range []struct {
		path, kind string
	}{
		{"/etc/nix/nix.conf", "Nix configuration"},
		{"/home/u/project/etc/nix/nix.conf", ""},
		{"/home/u/.config/nix/nix.conf", "Nix configuration"},
		{"/home/u/project/gradle/wrapper/gradle-wrapper.properties", "Gradle wrapper properties"},
		{"/home/u/project/gradle-wrapper.properties", ""},
		{"/home/u/project/src/BUILD", "Bazel BUILD file"},
		{"/home/u/project/build", ""},
		{"/home/u/project/BUILD.md", ""},
		{"/home/u/project/conf.py", "Python source file"},
		{"/home/u/project/docs/conf.py", "Python file a build tool runs"},
		{"/home/u/project/Plugins/Gen/plugin.swift", "Swift package plugin"},
		{"/home/u/project/Sources/App/main.swift", ""},
		{"/home/u/project/Package@swift-5.9.swift", "Swift package manifest"},
		{"/home/u/project/.sbtopts", "JVM options of a build"},
	} {
		f, ok := Lookup(tt.path, home)
		if got := f.Kind; ok != (tt.kind != "") || got != tt.kind {
			t.Errorf("Lookup(%s) = %q, %v; want %q", tt.path, got, ok, tt.kind)
		}
	}
}

// TestBuildLangsLinear: the readers of this file's kinds read what they look ahead for
// (a list, continued lines, the line a name is on) in time linear in its size.
func TestBuildLangsLinear(t *testing.T) {
	for p, script := range map[string]func(n int) string{
		"/h/p/Setup.hs": func(n int) string { return strings.Repeat("callProcess \"a\" [\"b\", ", n) },
		"/h/p/gradle/wrapper/gradle-wrapper.properties": func(n int) string { return strings.Repeat("a\\\n", n) },
		"/h/p/rebar.config":                             func(n int) string { return "{pre_hooks, [" + strings.Repeat("{a, \"b\"}, ", n) },
		"/h/p/BUILD":                                    func(n int) string { return strings.Repeat("genrule(cmd = \"a\" + ", n) },
	} {
		checkLinear(t, p, map[string]func(n int) string{p: script})
	}
}
