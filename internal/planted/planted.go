// Package planted finds the code in files that tools run later without asking (a Makefile's
// recipes, package.json scripts, git hooks, CI steps, shell startup files…), so that writing
// such a file is judged as the code it plants.
package planted

import (
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/moatdev/moat/internal/shell/oneliner"
	"github.com/moatdev/moat/internal/textedit"
)

// Lang is the language a piece of planted code is written in.
type Lang uint8

const (
	// Shell code, run by sh or bash.
	Shell Lang = iota + 1
	// Interp is code of an interpreter (Code.Interp says which).
	Interp
)

// Code is one piece of code a file carries.
type Code struct {
	Lang   Lang
	Interp oneliner.Lang // for Interp
	Text   string
	// Where says where in the file the code is and what runs it, for evidence:
	// "scripts.postinstall (npm runs it on install)".
	Where string
	// Opaque, when set, says why the code cannot be read (it names a script file, it is
	// computed); Text is then empty.
	Opaque string
	// Host is the machine the code runs on.
	Host Host
}

// Host says which machine runs a piece of code.
type Host uint8

const (
	// Here is this machine, as the user who runs the tool.
	Here Host = iota
	// Kept is another machine, from a checkout of its own, that stays after the job: a
	// self-hosted CI runner, a deployed application's server. Its files below the project
	// are that checkout's, not this project's, and a file it names at run time
	// ($GITHUB_ENV) is one of that machine's. What it prints goes to the job's log, which
	// others read: a secret it prints is sent out as surely as one it posts. Its files
	// outside the checkout are judged as this machine's are: the machine may be this one
	// (a runner installed on the developer's own), and later jobs share it.
	Kept
	// Discarded is another machine discarded after the job (a hosted CI runner, a job's
	// container, a platform's builder): Kept, except that what the code does to that
	// machine's own files, outside the checkout, nothing and no one keeps.
	Discarded
)

// Elsewhere reports whether the code runs on another machine.
func (h Host) Elsewhere() bool { return h != Here }

// FindShadow is the finding of a program written into a directory on PATH under the name
// of a common program, so that it runs instead of that program.
const FindShadow = "persistence.path-shadow"

// File is a kind of file whose content tools run.
type File struct {
	// Kind names the kind, for evidence: "Makefile", "package.json".
	Kind string
	// GitConfig says the file is git's configuration, which the shell analysis judges
	// setting by setting (internal/shell/gitcode.go); Extract finds nothing in it.
	GitConfig bool
	// Host is the machine the file's code runs on, unless its extractor says otherwise
	// piece by piece: a CI file's jobs choose their runners, and netlify.toml's [dev]
	// command runs here while its build command runs on Netlify's builder.
	Host Host
	// Functions are the shell functions the tool defines for the file's code (direnv's
	// standard library for .envrc), which are no unknown programs there.
	Functions []string
	// Declarative says the file declares what to run rather than being code (a Compose
	// file, a Kubernetes manifest): one a command generates (kubectl create --dry-run -o
	// yaml > k8s/x.yaml, helm template > …) is the generating tool's output, judged with
	// that command, not code moat failed to read.
	Declarative bool
	// Marked says the file's code is only in lines marked as code (a Go file's
	// //go:generate directives) and most such files carry none: text without the mark
	// plants nothing, and a write whose text the line does not show is judged as writing
	// any source file is, not as unreadable code.
	Marked bool
	// pieceRoots, when set, are the keys or tables most pieces of the file are cut from
	// (a Compose file's services, pyproject.toml's [build-system] and [project]): a piece
	// an edit's text holds alone is read under each as well.
	pieceRoots []string
	// Program says the file is a program of its own that someone runs by name later (a
	// shell script): the project's own programs are judged when they are written, not
	// when they run, so what its code destroys, sends, plants or grants is judged now;
	// the programs it names that moat does not know, the commands it computes and the
	// lines moat cannot parse are its own, as they would be in the project's code.
	Program bool
	// programs, when set, returns the programs the tool puts on the code's PATH from the
	// project's own dependencies (npm's node_modules/.bin), given the file's text.
	programs func(text string) []string
	extract  func(text string, x *extraction)
	runsIn   runDir
	// format, when set, reports whether a text is a piece of the file's data format (a
	// JSON member, a TOML key = value): an edit that inserts one is data of the format,
	// which Extract read, not shell code (IsData).
	format func(text string) bool
}

// IsData reports whether text is a piece of the kind's data format ("version": "1.4.0" in
// package.json), so that an in-place edit inserting it is judged by what Extract finds
// in it, and nothing more.
func (f File) IsData(text string) bool { return f.format != nil && f.format(text) }

// jsonPiece reports whether text is a JSON object or the members of one.
func jsonPiece(text string) bool {
	_, ok := decodeJSON(text)
	return ok
}

// tomlPiece reports whether text is TOML holding at least one key.
func tomlPiece(text string) bool {
	doc, err := textedit.ParseTOML(text)
	return err == nil && len(doc.KVs) > 0
}

// kubeManifestKind names the kind of Kubernetes manifests.
const kubeManifestKind = "Kubernetes manifest"

// runDir is where the code of a file runs.
type runDir uint8

const (
	inFileDir runDir = iota // the file's directory (make, npm, just)
	inRepo                  // the repository's root: the directory above .git or .github
	inHome                  // the home directory (startup files)
	inCaller                // wherever it is run from, unknown (a program on PATH)
)

// kind is one row of the table: the paths of a kind of file and how to find its code.
type kind struct {
	File
	// names are patterns for the last components of a path (path.Match syntax, one pattern
	// per component): "Makefile", "*.mk", ".github/workflows/*.yml". A pattern starting
	// with ~/ is a path below the home directory, one starting with / that whole path.
	names []string
}

// kinds is the table, built on first use rather than at init of files that carry code. Order matters only where two rows could
// match one path: the first wins.
var kinds = sync.OnceValue(func() []kind {
	return []kind{
		{File{Kind: "Makefile", extract: makeCode}, []string{"Makefile", "makefile", "GNUmakefile", "*.mk", "*.mak"}},
		{File{Kind: "justfile", extract: justCode}, []string{"justfile", "Justfile", ".justfile", "*.just"}},
		{File{Kind: "Taskfile", extract: taskfileCode}, []string{"Taskfile.yml", "Taskfile.yaml", "taskfile.yml", "taskfile.yaml", "Taskfile.dist.yml", "Taskfile.dist.yaml"}},
		{File{Kind: "package.json", extract: packageJSONCode, programs: packageBins, format: jsonPiece}, []string{"package.json"}},
		{File{Kind: "composer.json", extract: composerCode, programs: composerBins, format: jsonPiece}, []string{"composer.json"}},
		{File{Kind: "dev container configuration", extract: devcontainerCode, runsIn: inRepo}, []string{".devcontainer/devcontainer.json", ".devcontainer.json", ".devcontainer/*/devcontainer.json"}},
		{File{Kind: "nox sessions", extract: noxCode}, []string{"noxfile.py"}},
		{File{Kind: "Python build or test file", Program: true, extract: pythonFile}, []string{"setup.py", "conftest.py", "tasks.py", "fabfile.py", "dodo.py", "sitecustomize.py", "usercustomize.py", "~/.pythonrc", "~/.pythonrc.py"}},
		{File{Kind: "Python path file", extract: pthCode}, []string{"*.pth"}},
		{File{Kind: "pyproject.toml", extract: pyprojectCode, format: tomlPiece, pieceRoots: []string{"build-system", "project"}}, []string{"pyproject.toml"}},
		{File{Kind: "pip requirements", extract: requirementsCode}, []string{"requirements*.txt", "requirements/*.txt", "requirements*.in", "requirements/*.in", "constraints*.txt", "constraints/*.txt"}},
		{File{Kind: "Pipfile", extract: pipfileCode}, []string{"Pipfile"}},
		{File{Kind: "setup.cfg", extract: setupCfgCode}, []string{"setup.cfg"}},
		{File{Kind: "pytest configuration", extract: pytestIniCode}, []string{"pytest.ini", ".pytest.ini"}},
		{File{Kind: "tox configuration", extract: toxCode}, []string{"tox.ini"}},
		{File{Kind: "mise configuration", extract: miseCode}, []string{"mise.toml", ".mise.toml", "mise.local.toml", ".mise.local.toml", ".config/mise.toml", ".config/mise/config.toml", ".mise/config.toml", "mise.*.toml", ".mise.*.toml", "~/.config/mise/config.toml"}},
		{File{Kind: "devbox configuration", extract: commandsUnder("init_hook", "scripts")}, []string{"devbox.json"}},
		{File{Kind: "Nix shell", extract: nixCode}, []string{"flake.nix", "shell.nix", "devenv.nix"}},
		{File{Kind: "lint-staged configuration", extract: allCommands}, []string{".lintstagedrc", ".lintstagedrc.json", ".lintstagedrc.yaml", ".lintstagedrc.yml"}},
		{File{Kind: "nodemon configuration", extract: commandsUnder("exec", "events")}, []string{"nodemon.json"}},
		{File{Kind: "Renovate configuration", Host: Kept, extract: commandsUnder("commands")}, []string{"renovate.json", "renovate.json5", ".renovaterc", ".renovaterc.json", ".github/renovate.json", ".github/renovate.json5", ".gitlab/renovate.json"}},
		{File{Kind: "Procfile", extract: procfileCode}, []string{"Procfile", "Procfile.*"}},
		{File{Kind: "Gemfile", extract: gemfileCode}, []string{"Gemfile", "gems.rb"}},
		// Dependency declarations, read as the commands that install them (manifests.go):
		// edited constantly and rarely naming a source, so Marked.
		{File{Kind: "conda environment", Marked: true, extract: condaEnvironmentCode}, []string{"environment.yml", "environment.yaml"}},
		{File{Kind: "pubspec.yaml", Marked: true, extract: pubspecCode}, []string{"pubspec.yaml"}},
		{File{Kind: "pnpm workspace", Marked: true, extract: pnpmWorkspaceCode}, []string{"pnpm-workspace.yaml"}},
		{File{Kind: "go.mod", Marked: true, extract: goModCode}, []string{"go.mod", "go.work"}},
		// Lockfiles: where each package is fetched from, which npm install follows.
		{File{Kind: "package-lock.json", Marked: true, extract: packageLockCode}, []string{"package-lock.json", "npm-shrinkwrap.json"}},
		{File{Kind: "yarn or pnpm lockfile", Marked: true, extract: textLockCode}, []string{"yarn.lock", "pnpm-lock.yaml"}},
		// Package managers' configuration, read as the settings and programs it holds
		// (pkgconfig.go).
		{File{Kind: "pip configuration", extract: pipConfCode, runsIn: inCaller}, []string{"pip.conf", "pip.ini"}},
		{File{Kind: "uv configuration", extract: uvTomlCode, runsIn: inCaller}, []string{"uv.toml"}},
		{File{Kind: "Cargo configuration", extract: cargoConfigCode, runsIn: inCaller}, []string{".cargo/config.toml", ".cargo/config"}},
		{File{Kind: "Bun configuration", extract: bunfigCode}, []string{"bunfig.toml", ".bunfig.toml"}},
		{File{Kind: "gemspec", extract: gemspecCode}, []string{"*.gemspec"}},
		{File{Kind: "Ruby build file", Program: true, extract: rubyFile}, []string{"Rakefile", "rakefile", "*.rake", "Guardfile", "Vagrantfile", "Fastfile", "Podfile", "Dangerfile", "Capfile", "Brewfile"}},
		{File{Kind: "pnpm hook file", extract: nodeFile}, []string{".pnpmfile.cjs", ".pnpmfile.mjs", "pnpmfile.js"}},
		// The JavaScript configuration files tools load, and so run, whenever they start
		// (vite, jest, eslint, webpack, next…), and task files of gulp and grunt.
		{File{Kind: "JavaScript configuration a tool runs", extract: nodeFile}, []string{
			"*.config.js", "*.config.cjs", "*.config.mjs", "*.config.ts", "*.config.cts", "*.config.mts",
			".eslintrc.js", ".eslintrc.cjs", ".prettierrc.js", ".prettierrc.cjs", ".prettierrc.mjs", ".stylelintrc.js",
			".stylelintrc.cjs", ".mocharc.js", ".mocharc.cjs", ".babelrc.js", ".releaserc.js", ".releaserc.cjs",
			".lintstagedrc.js", ".lintstagedrc.cjs", ".lintstagedrc.mjs", "karma.conf.js", "protractor.conf.js",
			"gulpfile.js", "gulpfile.cjs", "gulpfile.mjs", "gulpfile.ts", "Gruntfile.js", "Gruntfile.cjs", "Gruntfile.coffee",
		}},
		{File{Kind: "Deno configuration", extract: denoCode}, []string{"deno.json", "deno.jsonc"}},
		{File{Kind: "Replit configuration", extract: replitCode}, []string{".replit"}},
		{File{Kind: "Nx project configuration", extract: commandsUnder("command", "commands")}, []string{"project.json"}},
		{File{Kind: "Cargo build script", extract: rustBuildCode}, []string{"build.rs", "*/build.rs"}},
		// Cargo.toml is edited constantly and rarely names code: Marked, so that a copy or
		// an edit moat cannot read plants nothing.
		{File{Kind: "Cargo manifest", Marked: true, extract: cargoManifestCode}, []string{"Cargo.toml"}},
		{File{Kind: "Yarn configuration", extract: yarnrcCode}, []string{".yarnrc.yml"}},
		{File{Kind: "Gradle build script", extract: jvmBuildCode}, []string{"build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts", "*.gradle", "*.gradle.kts", "buildSrc/src/main/*/*", "~/.gradle/init.gradle", "~/.gradle/init.gradle.kts", "~/.gradle/init.d/*"}},
		{File{Kind: "sbt build definition", extract: jvmBuildCode}, []string{"build.sbt", "project/*.sbt", "project/*.scala"}},
		{File{Kind: "Maven POM", extract: mavenCode}, []string{"pom.xml"}},
		{File{Kind: "CMake file", extract: cmakeCode}, []string{"CMakeLists.txt", "*.cmake"}},
		// Build files of languages moat does not read, read for the programs they start
		// (buildlangs.go): edited constantly and most starting none, so Marked.
		{File{Kind: "Meson build file", Marked: true, extract: mesonCode}, []string{"meson.build"}},
		{File{Kind: "rebar3 configuration", Marked: true, extract: rebarCode}, []string{"rebar.config"}},
		{File{Kind: "mix.exs", Marked: true, extract: mixCode}, []string{"mix.exs"}},
		{File{Kind: "Cabal Setup script", Marked: true, extract: setupHsCode}, []string{"Setup.hs", "Setup.lhs"}},
		{File{Kind: "Swift package manifest", Marked: true, extract: swiftPackageCode}, []string{"Package.swift", "Package@swift-*.swift"}},
		{File{Kind: "Swift package plugin", Marked: true, extract: swiftPackageCode}, []string{"Plugins/*/*.swift"}},
		{File{Kind: "Bazel BUILD file", Marked: true, extract: bazelBuildCode}, []string{"BUILD.bazel", "BUILD"}},
		// rebar.config.script is all code, Erlang rebar3 runs on every command.
		{File{Kind: "rebar3 configuration script", extract: erlangScriptCode}, []string{"rebar.config.script"}},
		{File{Kind: "Earthfile", extract: earthfileCode}, []string{"Earthfile"}},
		// Python that build and documentation tools import and run: Sphinx's conf.py on
		// every sphinx-build, SCons' SConstruct and the SConscripts it reads on every scons.
		{File{Kind: "Python file a build tool runs", extract: pythonFile}, []string{"docs/conf.py", "doc/conf.py", "docs/source/conf.py", "doc/source/conf.py", "SConstruct", "Sconstruct", "sconstruct", "SConstruct.py", "SConscript"}},
		{File{Kind: "Go source file", Program: true, extract: goFile}, []string{"*.go"}},
		{File{Kind: "Jupyter notebook", Marked: true, extract: notebookCode}, []string{"*.ipynb"}},
		{File{Kind: "Bazel rc file", extract: bazelrcCode}, []string{".bazelrc", "user.bazelrc", ".bazelrc.user", "tools/bazel.rc"}},
		{File{Kind: "Bazel rc file", extract: bazelrcCode, runsIn: inCaller}, []string{"~/.bazelrc"}},
		{File{Kind: "Mercurial configuration", extract: hgrcCode, runsIn: inRepo}, []string{".hg/hgrc"}},
		{File{Kind: "Mercurial configuration", extract: hgrcCode, runsIn: inCaller}, []string{"~/.hgrc", "~/.config/hg/hgrc"}},
		// gdb reads a project's .gdbinit once its directory is trusted (auto-load
		// safe-path), lldb a project's .lldbinit once allowed; irb and pry read the
		// working directory's file as well as the home directory's.
		{File{Kind: "debugger startup file", extract: gdbinitCode, runsIn: inCaller}, []string{"~/.gdbinit", "~/.config/gdb/gdbinit", ".gdbinit", "~/.lldbinit", ".lldbinit"}},
		{File{Kind: "Ruby console startup file", extract: rubyFile, runsIn: inCaller}, []string{"~/.irbrc", "~/.pryrc", ".irbrc", ".pryrc"}},
		{File{Kind: "pixi manifest", extract: tomlTablesOf([]string{"tasks", "feature.*.tasks", "target.*.tasks"}, map[string]bool{"cmd": true})}, []string{"pixi.toml"}},
		{File{Kind: "Netlify configuration", Host: Discarded, extract: netlifyCode}, []string{"netlify.toml"}},
		{File{Kind: "Vercel configuration", Host: Discarded, extract: vercelCode}, []string{"vercel.json"}},
		{File{Kind: "Fly.io configuration", Host: Kept, extract: tomlCommandKeys("release_command", "cmd")}, []string{"fly.toml"}},
		{File{Kind: "Render blueprint", Host: Kept, extract: commandsUnder("buildCommand", "startCommand", "preDeployCommand")}, []string{"render.yaml", "render.yml"}},
		{File{Kind: "Railway configuration", Host: Kept, extract: commandsUnder("buildCommand", "startCommand", "preDeployCommand")}, []string{"railway.json"}},
		{File{Kind: "Railway configuration", Host: Kept, extract: tomlCommandKeys("buildCommand", "startCommand", "preDeployCommand")}, []string{"railway.toml"}},
		// app.json is also Expo's and others' name, without scripts: Marked.
		{File{Kind: "Heroku app.json", Host: Kept, Marked: true, extract: commandsUnder("postdeploy", "pr-predestroy")}, []string{"app.json"}},
		{File{Kind: "Amplify build specification", Host: Discarded, extract: ciCode("commands")}, []string{"amplify.yml", "amplify.yaml"}},
		{File{Kind: "CodeBuild buildspec", Host: Discarded, extract: ciCode("commands", "finally")}, []string{"buildspec.yml", "buildspec.yaml", "buildspec*.yml"}},
		{File{Kind: "Cloud Build configuration", Host: Discarded, extract: cloudBuildCode}, []string{"cloudbuild.yaml", "cloudbuild.yml", "cloudbuild*.yaml"}},
		{File{Kind: "AppVeyor configuration", Host: Kept, extract: appveyorCode}, []string{"appveyor.yml", ".appveyor.yml"}},
		{File{Kind: "Cirrus CI configuration", Host: Kept, extract: cirrusCode}, []string{".cirrus.yml", ".cirrus.yaml"}},
		{File{Kind: "pylint configuration", extract: pylintrcCode}, []string{".pylintrc", "pylintrc"}},
		{File{Kind: "mypy configuration", extract: mypyIniCode}, []string{"mypy.ini", ".mypy.ini"}},
		{File{Kind: "R profile", extract: rProfileCode}, []string{".Rprofile"}},
		{File{Kind: "R profile", extract: rProfileCode, runsIn: inCaller}, []string{"~/.Rprofile"}},
		{File{Kind: "Julia startup file", extract: juliaStartupCode, runsIn: inCaller}, []string{"~/.julia/config/startup.jl"}},
		{File{Kind: "Tiltfile", extract: tiltCode}, []string{"Tiltfile", "*.tiltfile", "tilt_modules/*/Tiltfile"}},
		{File{Kind: "JVM options of a build", extract: jvmOptionsCode}, []string{"gradle.properties", "~/.gradle/gradle.properties", ".mvn/jvm.config", ".mvn/maven.config", ".sbtopts", ".jvmopts"}},
		// Where build tools get themselves, their compiler or built packages (toolchains.go).
		{File{Kind: "Gradle wrapper properties", extract: gradleWrapperCode, format: settingsPiece}, []string{"gradle/wrapper/gradle-wrapper.properties"}},
		{File{Kind: "Maven wrapper properties", extract: mavenWrapperCode, format: settingsPiece}, []string{".mvn/wrapper/maven-wrapper.properties"}},
		{File{Kind: "Rust toolchain file", extract: rustToolchainCode, format: rustToolchainPiece}, []string{"rust-toolchain.toml", "rust-toolchain"}},
		{File{Kind: "Nix configuration", extract: nixConfCode, runsIn: inCaller, format: settingsPiece}, []string{"~/.config/nix/nix.conf", "/etc/nix/nix.conf"}},
		// stack.yaml is edited for every dependency, rarely naming a source: Marked.
		{File{Kind: "Stack configuration", Marked: true, extract: stackYAMLCode}, []string{"stack.yaml"}},
		{File{Kind: "git configuration", GitConfig: true, runsIn: inRepo}, []string{".git/config", "~/.gitconfig", "~/.config/git/config", ".git/modules/*/config", ".git/worktrees/*/config"}},
		{File{Kind: "git hook", extract: scriptCode, runsIn: inRepo}, []string{".git/hooks/*", ".husky/*", ".githooks/*", ".lefthook/*/*", ".lefthook-local/*/*", ".git/modules/*/hooks/*", "git-templates/hooks/*", ".git-templates/hooks/*", ".git_template/hooks/*", "git/template/hooks/*", "git-core/templates/hooks/*"}},
		{File{Kind: "GitHub Actions workflow", Host: Kept, extract: workflowCode, runsIn: inRepo}, []string{".github/workflows/*.yml", ".github/workflows/*.yaml", "action.yml", "action.yaml"}},
		// GitLab's script, before_script and after_script, at the top level or in any job.
		{File{Kind: "GitLab CI configuration", Host: Kept, extract: gitlabCode}, []string{".gitlab-ci.yml", ".gitlab-ci.yaml"}},
		{File{Kind: "CircleCI configuration", Host: Kept, extract: circleciCode, runsIn: inRepo}, []string{".circleci/config.yml", ".circleci/config.yaml"}},
		{File{Kind: "Azure Pipelines configuration", Host: Kept, extract: azureCode}, []string{"azure-pipelines.yml", "azure-pipelines.yaml"}},
		{File{Kind: "Bitbucket Pipelines configuration", Host: Kept, extract: ciCode("script", "after-script")}, []string{"bitbucket-pipelines.yml"}},
		{File{Kind: "Travis CI configuration", Host: Discarded, extract: ciCode("before_install", "install", "before_script", "script", "after_success", "after_failure", "after_script", "before_deploy", "after_deploy")}, []string{".travis.yml"}},
		{File{Kind: "Buildkite pipeline", Host: Kept, extract: ciCode("command", "commands"), runsIn: inRepo}, []string{".buildkite/pipeline.yml", ".buildkite/pipeline.yaml"}},
		{File{Kind: "Drone or Woodpecker pipeline", Host: Kept, extract: ciCode("commands"), runsIn: inRepo}, []string{".drone.yml", ".woodpecker.yml", ".woodpecker.yaml", ".woodpecker/*.yml", ".woodpecker/*.yaml"}},
		{File{Kind: "Jenkinsfile", Host: Kept, extract: jenkinsCode, runsIn: inRepo}, []string{"Jenkinsfile", "Jenkinsfile.*", "*.jenkinsfile", "*.Jenkinsfile"}},
		{File{Kind: "Gitpod configuration", extract: ciCode("init", "before", "command")}, []string{".gitpod.yml"}},
		{File{Kind: "VS Code tasks", extract: vscodeTasksCode, runsIn: inRepo}, []string{".vscode/tasks.json"}},
		{File{Kind: "VS Code debug configurations", extract: vscodeLaunchCode, runsIn: inRepo}, []string{".vscode/launch.json"}},
		// JetBrains IDEs keep run configurations shared (.run, .idea/runConfigurations) or
		// in the workspace file; a shell script one runs its text when picked. Marked:
		// the workspace file is rewritten by the IDE all the time, mostly without any.
		{File{Kind: "JetBrains run configuration", Marked: true, extract: intellijRunCode, runsIn: inRepo}, []string{".run/*.xml", ".idea/runConfigurations/*.xml", ".idea/workspace.xml"}},
		{File{Kind: "VS Code settings", extract: vscodeSettingsCode, runsIn: inRepo}, []string{".vscode/settings.json", "*.code-workspace"}},
		{File{Kind: ".envrc", extract: scriptCode, Functions: direnvStdlib}, []string{".envrc", ".env.sh"}},
		// Claude Code's slash commands run their !`CMD` spans when used; the scripts in
		// .claude/hooks are what the project's hook settings run, by convention.
		{File{Kind: "Claude Code command", extract: bangCommands, runsIn: inRepo}, []string{".claude/commands/*.md", ".claude/commands/*/*.md", "~/.claude/commands/*.md", "~/.claude/commands/*/*.md"}},
		{File{Kind: "Claude Code hook script", extract: scriptCode, runsIn: inRepo}, []string{".claude/hooks/*", "~/.claude/hooks/*"}},
		{File{Kind: "pre-commit configuration", extract: preCommitCode}, []string{".pre-commit-config.yaml", ".pre-commit-config.yml", ".pre-commit-hooks.yaml"}},
		{File{Kind: "Terraform configuration", extract: terraformCode}, []string{"*.tf"}},
		{File{Kind: "Dockerfile", extract: dockerfileCode}, []string{"Dockerfile", "Dockerfile.*", "*.Dockerfile", "*.dockerfile", "Containerfile", "Containerfile.*"}},
		{File{Kind: "Compose file", Declarative: true, extract: composeCode, pieceRoots: []string{"services"}}, []string{"docker-compose.yml", "docker-compose.yaml", "compose.yml", "compose.yaml", "docker-compose.*.yml", "docker-compose.*.yaml", "compose.*.yml", "compose.*.yaml"}},
		{File{Kind: kubeManifestKind, Declarative: true, extract: kubeManifestCode, runsIn: inCaller}, []string{"k8s/*.yaml", "k8s/*.yml", "k8s/*/*.yaml", "k8s/*/*.yml", "kubernetes/*.yaml", "kubernetes/*.yml", "kubernetes/*/*.yaml", "kubernetes/*/*.yml", "manifests/*.yaml", "manifests/*.yml", "manifests/*/*.yaml", "manifests/*/*.yml", "deploy/*.yaml", "deploy/*.yml", "deploy/*/*.yaml", "deploy/*/*.yml", "kustomize/*/*.yaml", "kustomize/*/*.yml"}},
		{File{Kind: "lefthook configuration", extract: ciCode("run")}, []string{"lefthook.yml", "lefthook.yaml", ".lefthook.yml", ".lefthook.yaml", "lefthook-local.yml", "lefthook-local.yaml", ".lefthook-local.yml", ".lefthook-local.yaml"}},
		{File{Kind: "shell startup file", extract: rcCode, runsIn: inHome}, []string{"~/.bashrc", "~/.bash_profile", "~/.bash_login", "~/.bash_logout", "~/.profile", "~/.bash_aliases", "~/.zshrc", "~/.zshenv", "~/.zprofile", "~/.zlogin", "~/.zlogout", "~/.kshrc", "~/.mkshrc", "~/.inputrc.sh", "~/.xprofile", "~/.xinitrc", "~/.xsession", "~/.xsessionrc", "~/.bashrc.d/*", "~/.zshrc.d/*", "~/.oh-my-zsh/custom/*", "~/.direnvrc", "~/.config/direnv/direnvrc", "~/.config/direnv/lib/*"}},
		{File{Kind: "editor startup file", extract: vimCode, runsIn: inHome}, []string{"~/.vimrc", "~/.exrc", "~/.gvimrc", "~/.vim/vimrc", "~/.config/nvim/init.vim", "~/.config/nvim/init.lua", "~/.config/nvim/plugin/*",
			// Neovim's Lua modules, which init.lua and plugin managers (lazy.nvim's specs under
			// lua/plugins) load at every start, and its after/ and ftplugin/ scripts.
			"~/.config/nvim/lua/*", "~/.config/nvim/lua/*/*", "~/.config/nvim/lua/*/*/*", "~/.config/nvim/after/plugin/*",
			"~/.config/nvim/ftplugin/*", "~/.vim/plugin/*", ".exrc", ".nvimrc", ".nvim.lua"}},
		// Shell scripts anywhere else, last so that every file above (a git hook, a startup
		// file) keeps its own kind: run by name later (./scripts/setup.sh, a CI step, a
		// cron job), and judged now.
		{File{Kind: "shell script", Program: true, extract: scriptCode, runsIn: inRepo}, []string{"*.sh", "*.bash", "*.zsh", "*.ksh"}},
		// Source files of the languages moat reads, last of all: a project's code runs when
		// its tools run it (a test setup, a postinstall script, a lint plugin, a utility in
		// bin/), and is judged when written, as a shell script is.
		{File{Kind: "Python source file", Program: true, extract: pythonFile, runsIn: inRepo}, []string{"*.py"}},
		{File{Kind: "JavaScript or TypeScript source file", Program: true, extract: nodeFile, runsIn: inRepo}, []string{"*.js", "*.mjs", "*.cjs", "*.jsx", "*.ts", "*.mts", "*.cts", "*.tsx"}},
		{File{Kind: "Ruby source file", Program: true, extract: rubyFile, runsIn: inRepo}, []string{"*.rb"}},
		{File{Kind: "PHP source file", Program: true, extract: phpFile, runsIn: inRepo}, []string{"*.php"}},
		{File{Kind: "Perl source file", Program: true, extract: perlFile, runsIn: inRepo}, []string{"*.pl", "*.pm", "*.PL", "*.t"}},
	}
})

// direnvStdlib are the functions direnv defines for .envrc files (direnv-stdlib(1)) that
// run no code of the file's choosing: source_env, source_up and source_url, which do, are
// left out, so that their calls are judged as the unknown programs they are there.
var direnvStdlib = []string{
	"layout", "use", "dotenv", "dotenv_if_exists", "PATH_add", "path_add", "MANPATH_add",
	"PATH_rm", "path_rm", "load_prefix", "watch_file", "watch_dir", "env_vars_required",
	"strict_env", "unstrict_env", "log_status", "log_error", "has", "expand_path", "find_up",
	"user_rel_path", "semver_search", "direnv_layout_dir", "direnv_version",
	"on_git_branch", "use_nix", "use_flake", "use_guix", "use_node", "use_nodenv", "use_julia",
	"use_rbenv", "use_vim", "layout_python", "layout_python3", "layout_pipenv", "layout_poetry",
	"layout_pyenv", "layout_anaconda", "layout_go", "layout_node", "layout_perl", "layout_ruby",
	"layout_julia", "layout_php",
}

// pathDirs are directories that are on PATH for most users, where a program written
// under the name of another runs in its place.
var pathDirs = []string{
	"~/.local/bin", "~/bin", "~/.bin", "~/go/bin", "~/.cargo/bin", "~/.npm-global/bin", "~/.yarn/bin",
	"~/.deno/bin", "~/.bun/bin", "~/.volta/bin", "~/.pyenv/shims", "~/.rbenv/shims", "~/.asdf/shims",
	"/usr/local/bin", "/usr/local/sbin", "/opt/homebrew/bin", "/opt/local/bin",
}

// shadowed are programs that people and agents run by name every day, so that a file of
// that name in a directory on PATH runs in their place (T1574.007).
var shadowed = []string{
	"ls", "cd", "cat", "cp", "mv", "rm", "ln", "mkdir", "chmod", "chown", "touch", "echo", "printf",
	"grep", "egrep", "rg", "find", "sed", "awk", "head", "tail", "less", "more", "sort", "wc", "diff",
	"tar", "zip", "unzip", "gzip", "curl", "wget", "ssh", "scp", "sftp", "rsync", "ssh-add", "ssh-keygen",
	"gpg", "openssl", "sudo", "su", "doas", "passwd", "id", "whoami", "ps", "kill", "top", "env", "which",
	"clear", "date", "man", "bash", "sh", "zsh", "fish", "dash", "vi", "vim", "nvim", "nano", "emacs", "code",
	"git", "gh", "make", "cmake", "go", "gofmt", "cargo", "rustc", "rustup", "python", "python3", "pip", "pip3",
	"pipx", "uv", "poetry", "node", "npm", "npx", "pnpm", "yarn", "bun", "deno", "java", "javac", "mvn", "gradle",
	"ruby", "gem", "bundle", "perl", "php", "composer", "docker", "podman", "kubectl", "helm", "terraform",
	"aws", "gcloud", "az", "brew", "apt", "apt-get", "dnf", "yum", "pacman", "systemctl", "journalctl",
	"claude", "cursor", "cursor-agent", "gemini", "codex", "windsurf", "moat", "moat-hook",
}

// KubeManifest is the kind of a Kubernetes manifest, for manifests that reach kubectl
// without a file (kubectl apply -f - <<EOF, kubectl run --overrides=JSON).
func KubeManifest() File {
	for _, k := range kinds() {
		if k.Kind == kubeManifestKind {
			return k.File
		}
	}
	return File{}
}

// Lookup returns the kind of file p is, when its content is code tools run: p is an
// absolute path, home the user's home directory.
func Lookup(p, home string) (File, bool) {
	if p == "" {
		return File{}, false
	}
	ix := index()
	base := path.Base(p)
	rel := homeRel(p, home)
	best := -1
	parent := path.Base(path.Dir(p))
	try := func(es []entry) {
		for _, e := range es {
			if e.suffix != "" && !strings.HasSuffix(base, e.suffix) || e.parent != "" && e.parent != parent {
				continue
			}
			if (best < 0 || e.kind < best) && matches(p, rel, e.pattern) {
				best = e.kind
			}
		}
	}
	try(ix.byName[base])
	try(ix.globbed)
	if best >= 0 {
		return kinds()[best].File, true
	}
	if _, ok := onPath(p, rel); ok {
		return File{Kind: "program on PATH", extract: scriptCode, runsIn: inCaller}, true
	}
	return File{}, false
}

// entry is one pattern of the table and the row it belongs to.
type entry struct {
	kind    int
	pattern string
	// suffix and parent, when set, are what a path must end with and the name of its
	// directory for the pattern to match: checked first, they spare most path.Match calls.
	suffix, parent string
}

// lookupIndex finds the rows a path may match without trying every pattern: Lookup runs
// for every file a shell line writes, and most of them carry no code.
type lookupIndex struct {
	byName  map[string][]entry // patterns whose last component is a literal name, by that name
	globbed []entry            // patterns whose last component is a wildcard
}

var index = sync.OnceValue(func() lookupIndex {
	ix := lookupIndex{byName: map[string][]entry{}}
	for i, k := range kinds() {
		for _, n := range k.names {
			last := path.Base(n)
			e := entry{kind: i, pattern: n}
			if dir := path.Dir(n); dir != "." && dir != "~" {
				if d := path.Base(dir); !strings.ContainsAny(d, "*?[") {
					e.parent = d
				}
			}
			if !strings.ContainsAny(last, "*?[") {
				ix.byName[last] = append(ix.byName[last], e)
				continue
			}
			if rest, ok := strings.CutPrefix(last, "*"); ok && !strings.ContainsAny(rest, "*?[") {
				e.suffix = rest
			}
			ix.globbed = append(ix.globbed, e)
		}
	}
	return ix
})

// Shadow reports the common program that a file written at p would run in place of: p is
// in a directory on PATH and named like that program.
func Shadow(p, home string) (string, bool) {
	name, ok := onPath(p, homeRel(p, home))
	if !ok {
		return "", false
	}
	for _, s := range shadowed {
		if s == name {
			return name, true
		}
	}
	return "", false
}

// PathDirs returns the directories on PATH for most users (~/ for the home directory),
// where moat judges every program written as a possible shadow of a common one: a PATH
// that puts one of them first adds no program moat has not seen written.
func PathDirs() []string { return slices.Clone(pathDirs) }

// onPath returns the name of p when p is a file directly in one of pathDirs.
func onPath(p, rel string) (string, bool) {
	dir, name := path.Split(p)
	dir = strings.TrimSuffix(dir, "/")
	relDir := ""
	if rel != "" {
		relDir = strings.TrimSuffix(path.Dir(rel), "/")
	}
	for _, d := range pathDirs {
		if d == dir || strings.HasPrefix(d, "~/") && d == relDir {
			return name, name != ""
		}
	}
	return "", false
}

// homeRel returns p as ~/rest when it is below home, else "".
func homeRel(p, home string) string {
	if home == "" || home == "/" {
		return ""
	}
	home = strings.TrimSuffix(home, "/")
	if len(p) > len(home) && p[len(home)] == '/' && strings.HasPrefix(p, home) {
		return "~" + p[len(home):]
	}
	return ""
}

// matches reports whether the last components of p match the pattern n, or, for a ~/
// pattern, whether rel (p below home) does.
func matches(p, rel, n string) bool {
	if strings.HasPrefix(n, "~/") {
		if rel == "" {
			return false
		}
		p = rel
		if strings.Count(n, "/") != strings.Count(rel, "/") {
			return false
		}
		ok, _ := path.Match(n, p)
		return ok
	}
	parts := strings.Count(n, "/") + 1
	tail := p
	for i, cut := len(p), 0; i > 0; i-- {
		if p[i-1] == '/' {
			cut++
			if cut == parts {
				tail = p[i:]
				break
			}
		}
	}
	ok, _ := path.Match(n, tail)
	return ok
}

// Programs returns the programs the tool that runs the file's code finds among the
// project's own dependencies (npm scripts' node_modules/.bin), from the file's text: a
// script that runs one runs the project's tooling, not a program moat does not know.
func (f File) Programs(text string) []string {
	if f.programs == nil || text == "" {
		return nil
	}
	return f.programs(text)
}

// Extract returns the code text carries, in the file it is written to.
func (f File) Extract(text string) []Code {
	if f.extract == nil {
		return nil
	}
	x := &extraction{kind: f.Kind, host: f.Host}
	f.extract(text, x)
	return x.codes
}

// RunDir returns the directory the code of the file at p runs in; "" when it is not
// known (a program on PATH runs wherever it is called).
func (f File) RunDir(p, home string) string {
	switch f.runsIn {
	case inCaller:
		return ""
	case inHome:
		if home != "" {
			return home
		}
	case inRepo:
		for d := path.Dir(p); d != "/" && d != "."; d = path.Dir(d) {
			switch path.Base(d) {
			case ".git", ".hg", ".github", ".vscode", ".husky", ".githooks", ".lefthook", ".lefthook-local", ".devcontainer", ".circleci", ".buildkite", ".woodpecker", ".idea", ".run":
				return path.Dir(d)
			}
		}
	}
	return path.Dir(p)
}

// extraction collects the code found in one file.
type extraction struct {
	kind  string
	codes []Code
	// host is the Host of the code found next.
	host Host
}

func (x *extraction) shell(where, text string) {
	if strings.TrimSpace(text) == "" {
		return
	}
	x.codes = append(x.codes, Code{Lang: Shell, Text: text, Where: where, Host: x.host})
}

func (x *extraction) interp(lang oneliner.Lang, where, text string) {
	if strings.TrimSpace(text) == "" {
		return
	}
	x.codes = append(x.codes, Code{Lang: Interp, Interp: lang, Text: text, Where: where, Host: x.host})
}

func (x *extraction) opaque(where, why string) {
	x.codes = append(x.codes, Code{Where: where, Opaque: why})
}

// escaped is the character a backslash escape stands for in the strings of HCL and Groovy:
// \n and \t, and any other character itself (\" \\ \$).
func escaped(c byte) byte {
	switch c {
	case 'n':
		return '\n'
	case 't':
		return '\t'
	}
	return c
}

// ByShebang returns the kind of a file of no kind by its name whose text begins with an
// interpreter line (#!) naming a shell or a language moat reads: a program its user runs
// by name later (bin/setup, scripts/deploy), judged when it is written as a source file
// of that language is.
func ByShebang(text string) (File, bool) {
	first, _, _ := strings.Cut(text, "\n")
	rest, ok := strings.CutPrefix(first, "#!")
	if !ok {
		return File{}, false
	}
	words := strings.Fields(rest)
	if len(words) == 0 {
		return File{}, false
	}
	prog := path.Base(words[0])
	if prog == "env" {
		words = slices.DeleteFunc(words[1:], func(w string) bool { return strings.HasPrefix(w, "-") })
		if len(words) == 0 {
			return File{}, false
		}
		prog = path.Base(words[0])
	}
	kind := ""
	switch strings.TrimRight(prog, "0123456789.") {
	case "sh", "bash", "zsh", "ksh", "dash":
		kind = "shell script"
	case "python":
		kind = "Python source file"
	case "node", "deno", "bun", "tsx", "ts-node":
		kind = "JavaScript or TypeScript source file"
	case "ruby":
		kind = "Ruby source file"
	case "php":
		kind = "PHP source file"
	case "perl":
		kind = "Perl source file"
	default:
		return File{}, false
	}
	for _, k := range kinds() {
		if k.Kind == kind {
			return k.File, true
		}
	}
	return File{}, false
}
