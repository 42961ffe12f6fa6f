package setup

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

const moatBin = "/usr/local/bin/moat"

// settings are pre-existing files of each agent with the user's own settings, other
// hooks and, where the format allows, comments.
var settings = map[string][]string{
	"claude-code": {
		"",
		"{}\n",
		"{\n  \"model\": \"opus\",\n  \"permissions\": {\"allow\": [\"Bash(npm test:*)\"]}\n}\n",
		"{\n    \"hooks\": {\n        \"PreToolUse\": [\n            {\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"/opt/lint-guard\"}]}\n        ],\n        \"Stop\": []\n    },\n    \"env\": {\"A\": \"1\"}\n}",
	},
	"gemini-cli": {
		"{\n  // the user's model\n  \"model\": {\"name\": \"gemini-2.5-pro\"}, /* trailing comment */\n  \"hooks\": {\"BeforeTool\": [{\"matcher\": \"write_file\", \"hooks\": [{\"type\": \"command\", \"command\": \"fmt-check\"}]},]}\n}\n",
	},
	"cursor": {
		"",
		"{\n\t\"version\": 1,\n\t\"hooks\": {\n\t\t\"afterFileEdit\": [{\"command\": \"./format.sh\"}]\n\t}\n}\n",
	},
	"windsurf": {"{\"hooks\":{\"post_write_code\":[{\"command\":\"echo hi\"}]}}"},
	"codex":    {"{\n  \"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"notify-send done\"}]}]}\n}\n"},
}

func TestInstallUninstallRoundTrip(t *testing.T) {
	for _, a := range Agents {
		for i, before := range settings[string(a.Agent)] {
			installed, added, err := a.Install(before, moatBin)
			if err != nil {
				t.Fatalf("%s #%d: install: %v", a.Agent, i, err)
			}
			if !slices.Equal(added, a.Events) {
				t.Errorf("%s #%d: added %v, want %v", a.Agent, i, added, a.Events)
			}
			// The result parses, and as strict JSON when the input was.
			if _, err := parseJSON(installed); err != nil {
				t.Fatalf("%s #%d: installed text does not parse: %v\n%s", a.Agent, i, err, installed)
			}
			if (before == "" || json.Valid([]byte(before))) && !json.Valid([]byte(installed)) {
				t.Errorf("%s #%d: installed text is not valid JSON:\n%s", a.Agent, i, installed)
			}
			got, err := a.Installed(installed)
			if err != nil || len(got) != len(a.Events) {
				t.Errorf("%s #%d: Installed = %v, %v", a.Agent, i, got, err)
			}
			if !strings.Contains(installed, `"`+moatBin+` hook `+string(a.Agent)+`"`) {
				t.Errorf("%s #%d: no hook command in:\n%s", a.Agent, i, installed)
			}

			again, added, err := a.Install(installed, moatBin)
			if err != nil || again != installed || len(added) != 0 {
				t.Errorf("%s #%d: installing twice changed the file (added %v, %v):\n%s", a.Agent, i, added, err, again)
			}

			after, removed, err := a.Uninstall(installed)
			if err != nil {
				t.Fatalf("%s #%d: uninstall: %v", a.Agent, i, err)
			}
			if !slices.Equal(removed, a.Events) {
				t.Errorf("%s #%d: removed %v, want %v", a.Agent, i, removed, a.Events)
			}
			want := before
			if strings.TrimSpace(before) == "" {
				want = "{}\n"
				if a.Agent == "cursor" {
					want = "{\n  \"version\": 1\n}\n"
				}
			}
			if after != want {
				t.Errorf("%s #%d: uninstall did not restore the file byte for byte:\n--- before\n%s\n--- after\n%s", a.Agent, i, want, after)
			}
		}
	}
}

func TestInstallKeepsOtherHooksAndComments(t *testing.T) {
	a, _ := ForAgent("gemini-cli")
	before := settings["gemini-cli"][0]
	installed, _, err := a.Install(before, moatBin)
	if err != nil {
		t.Fatal(err)
	}
	for _, keep := range []string{"// the user's model", "/* trailing comment */", `"command": "fmt-check"`, `"gemini-2.5-pro"`} {
		if !strings.Contains(installed, keep) {
			t.Errorf("lost %q:\n%s", keep, installed)
		}
	}
}

func TestInstallRejectsWhatItCannotEdit(t *testing.T) {
	a, _ := ForAgent("claude-code")
	for _, text := range []string{"[]", `{"hooks": []}`, `{"hooks": {"PreToolUse": {}}}`, `{"a": `, "not json"} {
		if _, _, err := a.Install(text, moatBin); err == nil {
			t.Errorf("Install(%q) succeeded", text)
		}
	}
}

func TestUninstallLeavesOthersAlone(t *testing.T) {
	a, _ := ForAgent("claude-code")
	text := `{"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "/usr/bin/moat hook claude-code"}]}, {"matcher": "Bash", "hooks": [{"type": "command", "command": "/opt/guard"}]}]}}`
	after, removed, err := a.Uninstall(text)
	want := `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "/opt/guard"}]}]}}`
	if err != nil || after != want || !slices.Equal(removed, []string{"PreToolUse"}) {
		t.Errorf("got %q %v %v\nwant %q", after, removed, err, want)
	}
}

func TestCommandQuotesPaths(t *testing.T) {
	a, _ := ForAgent("codex")
	if got := a.Command("/Users/Jane Doe/bin/moat"); got != `'/Users/Jane Doe/bin/moat' hook codex` {
		t.Errorf("Command = %q", got)
	}
}

func FuzzParseJSON(f *testing.F) {
	for _, list := range settings {
		for _, s := range list {
			f.Add(s)
		}
	}
	f.Add(`{"a": [1, 2, {"b": "c\"d"}], /* x */ "e": null}`)
	f.Fuzz(func(t *testing.T, text string) {
		n, err := parseJSON(text)
		if err != nil || n == nil {
			return
		}
		if n.Start < 0 || n.End > len(text) || n.Start > n.End {
			t.Fatalf("bad span %d-%d", n.Start, n.End)
		}
		// Whatever parses can be set up and taken out again without breaking the parse.
		a := Agents[0]
		if n.Kind != '{' {
			return
		}
		installed, _, err := a.Install(text, moatBin)
		if err != nil {
			return
		}
		if _, err := parseJSON(installed); err != nil {
			t.Fatalf("installed text does not parse: %v\n%q", err, installed)
		}
		if _, _, err := a.Uninstall(installed); err != nil {
			t.Fatalf("uninstall: %v", err)
		}
	})
}
