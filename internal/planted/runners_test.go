package planted

import (
	"slices"
	"testing"
)

// TestHost checks which machine each piece of a file's code runs on: CI jobs on hosted
// runners and in containers are on discarded machines, self-hosted runners and runners
// the file does not name are kept, and a hosting platform's local dev command runs here.
func TestHost(t *testing.T) {
	for _, tt := range []struct {
		name, path, text string
		want             []Host // the host of each piece of code, in order
	}{
		{"workflow on a hosted runner", ".github/workflows/ci.yml", "jobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: make\n", []Host{Discarded}},
		{"workflow on hosted labels", ".github/workflows/ci.yml", "jobs:\n  a:\n    runs-on: [windows-2022]\n    steps:\n      - run: make\n      - run: echo\n", []Host{Discarded, Discarded}},
		{"workflow on a self-hosted runner", ".github/workflows/ci.yml", "jobs:\n  a:\n    runs-on: [self-hosted, ubuntu-22.04]\n    steps:\n      - run: make\n", []Host{Kept}},
		{"workflow on a runner of a custom label", ".github/workflows/ci.yml", "jobs:\n  a:\n    runs-on: gpu-box\n    steps:\n      - run: make\n", []Host{Kept}},
		{"workflow on a runner group", ".github/workflows/ci.yml", "jobs:\n  a:\n    runs-on:\n      group: big\n    steps:\n      - run: make\n", []Host{Kept}},
		{"workflow on the matrix's hosted runners", ".github/workflows/ci.yml", "jobs:\n  a:\n    strategy:\n      matrix:\n        os: [ubuntu-latest, macos-14]\n        include:\n          - os: windows-latest\n    runs-on: ${{ matrix.os }}\n    steps:\n      - run: make\n        shell: bash\n", []Host{Discarded}},
		{"workflow on a matrix with a self-hosted runner", ".github/workflows/ci.yml", "jobs:\n  a:\n    strategy:\n      matrix:\n        os: [ubuntu-latest, self-hosted]\n    runs-on: ${{ matrix.os }}\n    steps:\n      - run: make\n", []Host{Kept}},
		{"workflow on a computed matrix", ".github/workflows/ci.yml", "jobs:\n  a:\n    strategy:\n      matrix:\n        os: ${{ fromJSON(needs.x.outputs.os) }}\n    runs-on: ${{ matrix.os }}\n    steps:\n      - run: make\n", []Host{Kept}},
		{"workflow in a container on a self-hosted runner", ".github/workflows/ci.yml", "jobs:\n  a:\n    runs-on: self-hosted\n    container: debian:12\n    steps:\n      - run: make\n", []Host{Discarded}},
		{"workflow in a container mounting the runner", ".github/workflows/ci.yml", "jobs:\n  a:\n    runs-on: self-hosted\n    container:\n      image: debian:12\n      options: --privileged\n    steps:\n      - run: make\n", []Host{Kept}},
		{"workflow in a container with volumes", ".github/workflows/ci.yml", "jobs:\n  a:\n    runs-on: self-hosted\n    container:\n      image: debian:12\n      volumes: [/home:/home]\n    steps:\n      - run: make\n", []Host{Kept}},
		{"composite action", "action.yml", "runs:\n  using: composite\n  steps:\n    - run: make\n      shell: bash\n", []Host{Kept}},
		{"gitlab job with an image", ".gitlab-ci.yml", "build:\n  image: debian:stable\n  script: [make]\ntest:\n  script: [make test]\n", []Host{Discarded, Kept}},
		{"gitlab default image", ".gitlab-ci.yml", "default:\n  image: node:20\nbuild:\n  script: [make]\n", []Host{Discarded}},
		{"gitlab top-level image and before_script", ".gitlab-ci.yml", "image: node:20\nbefore_script: [npm ci]\nbuild:\n  script: [make]\n", []Host{Discarded, Discarded}},
		{"gitlab image through extends", ".gitlab-ci.yml", ".base:\n  image: node:20\nbuild:\n  extends: .base\n  script: [make]\nlint:\n  extends: [.other, .base]\n  script: [lint]\nplain:\n  extends: .other\n  script: [x]\n", []Host{Discarded, Discarded, Kept}},
		{"gitlab extends cycle", ".gitlab-ci.yml", "a:\n  extends: b\n  script: [x]\nb:\n  extends: a\n  script: [y]\n", []Host{Kept, Kept}},
		{"gitlab nested script lists", ".gitlab-ci.yml", "build:\n  image: x\n  script:\n    - [a, b]\n    - c\n", []Host{Discarded, Discarded, Discarded}},
		{"circleci docker and self-hosted machine", ".circleci/config.yml", "version: 2.1\njobs:\n  a:\n    docker: [{image: cimg/base:current}]\n    steps:\n      - run: make\n  b:\n    machine: true\n    resource_class: acme/runner\n    steps:\n      - run: make\n", []Host{Discarded, Kept}},
		{"circleci named executor and shared commands", ".circleci/config.yml", "version: 2.1\nexecutors:\n  py:\n    docker: [{image: cimg/python:3.12}]\ncommands:\n  setup:\n    steps:\n      - run: pip install x\njobs:\n  a:\n    executor: py\n    steps:\n      - setup\n", []Host{Discarded}},
		{"circleci orb executor", ".circleci/config.yml", "version: 2.1\njobs:\n  a:\n    executor: node/default\n    steps:\n      - run: make\n", []Host{Kept}},
		{"netlify build and dev", "netlify.toml", "[build]\n  command = \"npm run build\"\n[dev]\n  command = \"npm start\"\n", []Host{Discarded, Here}},
		{"vercel build and dev", "vercel.json", `{"buildCommand":"next build","devCommand":"next dev"}`, []Host{Discarded, Here}},
		{"jenkins agents stay", "Jenkinsfile", "pipeline { agent any\n stages { stage('b') { steps { sh 'make' } } } }\n", []Host{Kept}},
		{"makefile runs here", "Makefile", "all:\n\tmake x\n", []Host{Here}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f, ok := Lookup("/p/"+tt.path, "/h")
			if !ok {
				t.Fatalf("%s is not a file that carries code", tt.path)
			}
			var got []Host
			for _, c := range f.Extract(tt.text) {
				got = append(got, c.Host)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("hosts %v, want %v", got, tt.want)
			}
		})
	}
}
