package planted

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/moatdev/moat/internal/shell/oneliner"
	"github.com/moatdev/moat/internal/textedit"
)

// The build and release commands of hosting platforms and cloud build services run on
// their builders with the project's secrets in the environment, and print into logs the
// team reads, as a CI job does (Kept or Discarded hosts): netlify.toml, vercel.json, fly.toml,
// render.yaml, railway.json/toml, Heroku's app.json, Amplify's amplify.yml, Cloud
// Build's cloudbuild.yaml, CodeBuild's buildspec.yml, AppVeyor and Cirrus CI.

// tomlCommandKeys returns the extractor of a TOML file whose values under one of keys
// (the last part of their dotted path: build.command, deploy.release_command) are
// commands, a string or a list of strings.
func tomlCommandKeys(keys ...string) func(string, *extraction) {
	set := make(map[string]bool, len(keys))
	for _, k := range keys {
		set[k] = true
	}
	return func(text string, x *extraction) {
		x.tomlValues(text, func(full []string, dotted string, val *textedit.Value) {
			if len(full) > 0 && set[full[len(full)-1]] {
				x.tomlCommands(text, dotted, val, true, nil)
			}
		})
	}
}

// netlifyCode finds the commands of netlify.toml: the build commands, which run on
// Netlify's builders, and [dev]'s, which `netlify dev` runs on this machine.
func netlifyCode(text string, x *extraction) {
	x.tomlValues(text, func(full []string, dotted string, val *textedit.Value) {
		if len(full) > 0 && full[len(full)-1] == "command" {
			x.host = Discarded
			if full[0] == "dev" {
				x.host = Here
			}
			x.tomlCommands(text, dotted, val, true, nil)
		}
	})
}

// vercelCode finds the commands of vercel.json: the build's, which run on Vercel's
// builders, and devCommand, which `vercel dev` runs on this machine.
func vercelCode(text string, x *extraction) {
	underKeys([]string{"buildCommand", "installCommand", "devCommand", "ignoreCommand"}, func(x *extraction, at string, v any) {
		x.host = Discarded
		if at == "devCommand" || strings.HasSuffix(at, ".devCommand") {
			x.host = Here
		}
		walkStrings(v, at, func(s, where string) { x.shell(where, s) })
	})(text, x)
}

// appveyorKeys are AppVeyor's settings whose values are lists of commands.
var appveyorKeys = []string{"init", "install", "before_build", "build_script", "after_build", "before_test", "test_script", "after_test", "before_deploy", "deploy_script", "after_deploy", "on_success", "on_failure", "on_finish", "before_package"}

// appveyorCode: each of appveyorKeys holds a command or a list of them, each a string,
// or one-key maps cmd: (a cmd.exe line), sh: (a shell line) and ps:, pwsh: (PowerShell).
// A plain string is a cmd.exe line on AppVeyor's Windows images, the default, and a
// shell line on its Ubuntu and macOS images; with both in the build matrix it is read
// as both.
func appveyorCode(text string, x *extraction) {
	doc, ok := decodeYAML(text, x)
	if !ok {
		return
	}
	windows, unix := appveyorPlatforms(doc)
	set := make(map[string]bool, len(appveyorKeys))
	for _, k := range appveyorKeys {
		set[k] = true
	}
	cmdLines := func(where, s string) {
		for line := range strings.Lines(s) {
			if line = strings.TrimSpace(line); line != "" {
				x.interp(oneliner.PowerShell, where, oneliner.CmdToPowerShell(line))
			}
		}
	}
	walkKeys(doc, "", set, func(_ string, v any, at string, _ map[string]any) {
		lines, ok := v.([]any)
		if !ok {
			lines = []any{v}
		}
		for i, l := range lines {
			where := fmt.Sprintf("%s[%d]", at, i)
			switch l := l.(type) {
			case string:
				if windows {
					cmdLines(where, l)
				}
				if unix {
					x.shell(where, l)
				}
			case map[string]any:
				if s, ok := l["cmd"].(string); ok {
					cmdLines(where+".cmd", s)
				}
				if s, ok := l["sh"].(string); ok {
					x.shell(where+".sh", s)
				}
				for _, k := range []string{"ps", "pwsh"} {
					if s, ok := l[k].(string); ok {
						x.interp(oneliner.PowerShell, where+"."+k, s)
					}
				}
			}
		}
	})
}

// appveyorPlatforms reports whether an AppVeyor build runs on Windows images (its
// default) and on Ubuntu or macOS ones, by its image: setting.
func appveyorPlatforms(doc any) (windows, unix bool) {
	top, _ := doc.(map[string]any)
	var images []string
	switch v := top["image"].(type) {
	case string:
		images = []string{v}
	case []any:
		for _, e := range v {
			if s, ok := e.(string); ok {
				images = append(images, s)
			}
		}
	}
	if len(images) == 0 {
		return true, false
	}
	for _, img := range images {
		l := strings.ToLower(img)
		if strings.Contains(l, "ubuntu") || strings.Contains(l, "macos") || strings.Contains(l, "linux") {
			unix = true
		} else {
			windows = true
		}
	}
	return windows, unix
}

// cirrusCode: in .cirrus.yml every key NAME_script (and script) holds a command or a list
// of them, in any task.
func cirrusCode(text string, x *extraction) {
	doc, ok := decodeYAML(text, x)
	if !ok {
		return
	}
	var walk func(v any, at string)
	walk = func(v any, at string) {
		switch v := v.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(v)) {
				e := v[k]
				if k == "script" || strings.HasSuffix(k, "_script") {
					walkStrings(e, at+"."+k, func(s, where string) { x.shell(strings.TrimPrefix(where, "."), s) })
					continue
				}
				walk(e, at+"."+k)
			}
		case []any:
			for i, e := range v {
				walk(e, fmt.Sprintf("%s[%d]", at, i))
			}
		}
	}
	walk(doc, "")
}

// cloudBuildCode: each step of a Cloud Build configuration runs its entrypoint (the
// image's own when none is named) with its args, or its script; a shell entrypoint given
// -c runs the next argument as a command line.
func cloudBuildCode(text string, x *extraction) {
	doc, ok := decodeYAML(text, x)
	if !ok {
		return
	}
	m, _ := doc.(map[string]any)
	steps, _ := m["steps"].([]any)
	for i, s := range steps {
		step, _ := s.(map[string]any)
		where := fmt.Sprintf("steps[%d]", i)
		if script, ok := step["script"].(string); ok {
			x.script(where+".script", script)
		}
		entry, _ := step["entrypoint"].(string)
		var args []string
		for _, a := range asList(step["args"]) {
			if s, ok := a.(string); ok {
				args = append(args, s)
			}
		}
		if entry == "" {
			continue // the builder image's own program, given arguments
		}
		if (entry == "bash" || entry == "sh") && len(args) >= 2 && args[0] == "-c" {
			x.shell(where+".args", args[1])
			continue
		}
		words := []string{shellQuote(entry)}
		for _, a := range args {
			words = append(words, shellQuote(a))
		}
		x.shell(where, strings.Join(words, " "))
	}
}

// pylintrcCode: pylint runs its configuration's init-hook, Python code, before every
// lint.
func pylintrcCode(text string, x *extraction) {
	iniValues(text, func(string) {}, func(key, value string) {
		if key == "init-hook" || key == "init_hook" {
			x.interp(oneliner.Python, "init-hook (pylint runs it)", unquoteINI(value))
		}
	})
}

// unquoteINI removes the quotes around an INI value written '…' or "…".
func unquoteINI(s string) string {
	if len(s) >= 2 && (s[0] == '\'' || s[0] == '"') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}

// mypyIniCode: mypy imports the plugins its configuration lists on every run; one named
// by a file path is that file's Python, judged as running it.
func mypyIniCode(text string, x *extraction) {
	iniValues(text, func(string) {}, func(key, value string) {
		if key != "plugins" {
			return
		}
		for _, p := range strings.FieldsFunc(value, func(r rune) bool { return r == ',' || r == '\n' || r == ' ' }) {
			if strings.Contains(p, "/") || strings.HasSuffix(p, ".py") {
				x.shell("plugins (mypy imports it)", "python3 "+shellQuote(p))
			}
		}
	})
}

// circleParameter matches CircleCI's << parameters.x >> and << pipeline.git.branch >>,
// which CircleCI replaces in the configuration before a step's shell runs it.
var circleParameter = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`<<\s*[\w.\-]+\s*>>`) })

// circleciCode reads CircleCI's run steps with its parameters standing as a shell
// variable whose value is unknown, and its escaped \<< as the << the shell sees.
func circleciCode(text string, x *extraction) {
	text = circleParameter().ReplaceAllLiteralString(text, "${CIRCLECI_PARAMETER}")
	doc, ok := decodeYAML(strings.ReplaceAll(text, `\<<`, "<<"), x)
	if !ok {
		return
	}
	top, _ := doc.(map[string]any)
	jobs := sub(top, "jobs")
	// Reusable commands run in the jobs that use them: on discarded machines when every
	// job of the file is on one.
	shared := len(jobs) > 0
	for _, j := range jobs {
		job, _ := j.(map[string]any)
		shared = shared && circleJobDiscarded(top, job)
	}
	run := map[string]bool{"run": true}
	for _, name := range slices.Sorted(maps.Keys(top)) {
		if name != "jobs" {
			x.host = hostIf(shared)
			walkKeys(top[name], name, run, func(_ string, v any, at string, _ map[string]any) { x.ciValue(at, v) })
			continue
		}
		for _, id := range slices.Sorted(maps.Keys(jobs)) {
			job, _ := jobs[id].(map[string]any)
			x.host = hostIf(circleJobDiscarded(top, job))
			walkKeys(job, "jobs."+id, run, func(_ string, v any, at string, _ map[string]any) { x.ciValue(at, v) })
		}
	}
}

// azureMacro matches Azure Pipelines' $(Name.Part) macros, which Azure replaces before
// the script runs (a shell's $(…) with a dotted name would run a program of that name,
// which scripts do not); $[…] runtime expressions and ${{ … }} template expressions are
// replaced before too.
var azureMacro = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\$\([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)+\)|\$\[[^\]\n]*\]|\$\{\{[^}\n]*\}\}`)
})

// azureCode reads Azure Pipelines' script and bash steps with its macros standing as a
// shell variable whose value is unknown.
func azureCode(text string, x *extraction) {
	ciCode("script", "bash")(azureMacro().ReplaceAllLiteralString(text, "${AZURE_VARIABLE}"), x)
}
