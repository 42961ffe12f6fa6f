package planted

import (
	"fmt"
	"iter"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/moatdev/moat/internal/shell/oneliner"
	"github.com/moatdev/moat/internal/textedit"
)

// The configuration of developer tools that run commands of their own accord: on
// entering a directory (mise hooks, devbox's init hook, a Nix shell's shellHook), on a
// commit (lint-staged), on a file change (nodemon), on install (pnpm's .pnpmfile.cjs), or
// by task name (mise tasks, tox, a Procfile, Rake).

// commandsUnder returns the extractor of a JSON or YAML file whose members named keys,
// at any depth, hold commands: a command line, or lists and objects of them.
func commandsUnder(keys ...string) func(string, *extraction) {
	return underKeys(keys, func(x *extraction, at string, v any) {
		walkStrings(v, at, func(s, where string) { x.shell(where, s) })
	})
}

// underKeys returns the extractor of a JSON or YAML file that hands take the value of
// every member named one of keys, at any depth, and where it is.
func underKeys(keys []string, take func(x *extraction, at string, v any)) func(string, *extraction) {
	set := make(map[string]bool, len(keys))
	for _, k := range keys {
		set[k] = true
	}
	return func(text string, x *extraction) {
		doc, ok := decodeYAML(text, x)
		if !ok {
			return
		}
		walkKeys(doc, "", set, func(_ string, v any, at string, _ map[string]any) { take(x, at, v) })
	}
}

// allCommands: every string of a JSON or YAML file is a command (.lintstagedrc: globs
// mapped to the commands run on the staged files they match).
func allCommands(text string, x *extraction) {
	doc, ok := decodeYAML(text, x)
	if !ok {
		return
	}
	walkStrings(doc, "", func(s, where string) { x.shell(strings.TrimPrefix(where, "."), s) })
}

// miseCode finds the commands of a mise configuration: its tasks (a command line, a
// list of them, or a table whose run holds them) and its hooks, which run on entering
// the directory and around installs.
func miseCode(text string, x *extraction) {
	x.tomlTables(text, []string{"tasks", "hooks"}, map[string]bool{"run": true, "run_windows": true, "script": true}, nil)
}

// tomlTablesOf returns the extractor of a TOML file whose tables hold commands, as
// tomlTables reads them (Pipfile's [scripts], pixi.toml's [tasks]).
func tomlTablesOf(tables []string, keys map[string]bool) func(string, *extraction) {
	return func(text string, x *extraction) { x.tomlTables(text, tables, keys, nil) }
}

// tomlTables adds the commands of a TOML file's tables: below each of tables, a value
// one level down is a command (tasks.build = "…"); deeper, the value of one of keys is
// (tasks.build.run = "…"). each, when set, is shown the dotted path of every value.
func (x *extraction) tomlTables(text string, tables []string, keys map[string]bool, each func(dotted string)) {
	x.tomlValues(text, func(full []string, dotted string, val *textedit.Value) {
		if each != nil {
			each(dotted)
		}
		x.tableCommands(text, tables, keys, full, dotted, val)
	})
}

// tableCommands adds the commands of one value of a TOML file, at full, when it is in one
// of tables: tomlTables' reading of a value, for a file read in one pass for more.
func (x *extraction) tableCommands(text string, tables []string, keys map[string]bool, full []string, dotted string, val *textedit.Value) {
	for _, t := range tables {
		n := strings.Count(t, ".") + 1
		if len(full) <= n || !tablePath(t, full[:n]) {
			continue
		}
		rest := full[n:]
		x.tomlCommands(text, dotted, val, len(rest) == 1 || keys[rest[len(rest)-1]], keys)
	}
}

// tomlValues hands take every value of a TOML file with its full key path (its table's
// and its own) and that path dotted; a file that does not parse is opaque.
func (x *extraction) tomlValues(text string, take func(full []string, dotted string, val *textedit.Value)) {
	doc, err := textedit.ParseTOML(text)
	if err != nil {
		x.opaque(x.kind, "TOML moat cannot read: "+err.Error())
		return
	}
	eachTOMLValue(doc, take)
}

// eachTOMLValue hands take every value of a parsed TOML file with its full key path and
// that path dotted.
func eachTOMLValue(doc *textedit.TOMLDoc, take func(full []string, dotted string, val *textedit.Value)) {
	for _, kv := range doc.KVs {
		full := kv.Path
		if kv.Table >= 0 {
			full = append(slices.Clip(doc.Tables[kv.Table].Path), kv.Path...)
		}
		take(full, strings.Join(full, "."), kv.Val)
	}
}

// procfileCode: each line of a Procfile is NAME: COMMAND, run by foreman, honcho, heroku
// local and the platforms that read it.
func procfileCode(text string, x *extraction) {
	for line := range strings.Lines(text) {
		name, cmd, ok := strings.Cut(line, ":")
		if !ok || strings.HasPrefix(strings.TrimSpace(name), "#") || strings.ContainsAny(strings.TrimSpace(name), " \t") {
			continue
		}
		x.shell(strings.TrimSpace(name), cmd)
	}
}

// toxKeys are the keys of a tox environment whose lines are commands.
var toxKeys = []string{"commands", "commands_pre", "commands_post"}

// toxSubst matches tox's substitutions ({posargs}, {envpython}, {toxinidir}/x).
var toxSubst = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{[^{}]*\}`) })

// toxCode finds the commands of tox.ini's test environments ([testenv], [testenv:NAME],
// or an edit's lines outside any section): one per line of commands, commands_pre and
// commands_post, continued on indented lines. tox runs them without a shell; each is
// judged as the command line it reads as, with tox's substitutions put in: the
// environment's python, the project's directory, and the command's own arguments left
// out.
func toxCode(text string, x *extraction) {
	for l := range iniValueLines(text) {
		// Keys before any section are an edit's fragment of one.
		if l.section != "" && l.section != "testenv" && !strings.HasPrefix(l.section, "testenv:") || !slices.Contains(toxKeys, l.key) {
			continue
		}
		x.shell("["+l.section+"] "+l.key, toxCommand(l.text))
	}
	pytestIniCode(text, x)
}

// iniLine is one line of a value in an INI file: the value after KEY = on the key's
// own line, or a line indented below it that continues the value.
type iniLine struct{ section, key, text string }

// iniValueLines yields the lines of the values of an INI file (tox.ini, setup.cfg),
// trimmed: blank lines and comments are skipped, and an indented line with no key above
// it in its section belongs to none.
func iniValueLines(text string) iter.Seq[iniLine] {
	return func(yield func(iniLine) bool) {
		section, key := "", ""
		for line := range strings.Lines(text) {
			trimmed := strings.TrimSpace(line)
			switch {
			case trimmed == "" || strings.HasPrefix(trimmed, "#") || strings.HasPrefix(trimmed, ";"):
				continue
			case strings.HasPrefix(trimmed, "["):
				section, key = strings.Trim(trimmed, "[] "), ""
				continue
			case line[0] != ' ' && line[0] != '\t':
				k, v, ok := strings.Cut(trimmed, "=")
				if !ok {
					key = ""
					continue
				}
				key, trimmed = strings.TrimSpace(k), strings.TrimSpace(v)
			case key == "":
				continue
			}
			if trimmed != "" && !yield(iniLine{section, key, trimmed}) {
				return
			}
		}
	}
}

// toxCommand is a tox command line with its substitutions put in, and without the
// leading - that lets it fail.
func toxCommand(line string) string {
	line = strings.TrimPrefix(line, "- ")
	return toxSubst().ReplaceAllStringFunc(line, func(s string) string {
		name, _, _ := strings.Cut(strings.Trim(s, "{}"), ":")
		switch name {
		case "envpython":
			return "python"
		case "posargs", "tty":
			return ""
		case "toxinidir", "tox_root", "toxworkdir", "work_dir", "envdir", "env_dir", "envbindir", "env_bin_dir", "envsitepackagesdir", "envtmpdir", "env_tmp_dir", "envlogdir":
			return "."
		}
		return "x"
	})
}

// nixHookKeys are the attributes of a Nix shell whose string is shell code run in the
// user's shell when it is entered (nix develop, nix-shell, devenv shell).
var nixHookKeys = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\b(shellHook|enterShell|enterTest|exec)\s*=\s*(''|")`)
})

// nixCode finds the shell hooks of a Nix file: indented strings (”…”) and quoted ones.
// An antiquotation (${pkgs.hello}) is a path in the Nix store, where programs come from.
func nixCode(text string, x *extraction) {
	for _, m := range nixHookKeys().FindAllStringSubmatchIndex(text, -1) {
		key, open := text[m[2]:m[3]], text[m[4]:m[5]]
		body, ok := nixString(text[m[1]:], open)
		if !ok {
			x.opaque(key, "a Nix string moat cannot read to its end")
			continue
		}
		x.shell(key, nixAntiquote(body))
	}
}

// nixString reads a Nix string from its first character after the opening quote: an
// indented string ends at ” not followed by ', $ or \ (its escapes), a quoted one at an
// unescaped ".
func nixString(s, open string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if open == `"` {
			switch s[i] {
			case '\\':
				if i+1 < len(s) {
					i++
					b.WriteByte(escaped(s[i]))
				}
				continue
			case '"':
				return b.String(), true
			}
			b.WriteByte(s[i])
			continue
		}
		if strings.HasPrefix(s[i:], "''") {
			switch {
			case strings.HasPrefix(s[i:], "'''"):
				b.WriteString("''")
				i += 2
			case strings.HasPrefix(s[i:], "''$"):
				b.WriteByte('$')
				i += 2
			case strings.HasPrefix(s[i:], "''\\") && i+3 < len(s):
				b.WriteByte(escaped(s[i+3]))
				i += 3
			default:
				return b.String(), true
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return "", false
}

// nixAntiquotation matches ${…} in a Nix string (not nested).
var nixAntiquotation = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\{[^{}]*\}`) })

// nixAntiquote replaces antiquotations with a path in the Nix store.
func nixAntiquote(s string) string {
	return nixAntiquotation().ReplaceAllString(s, "/nix/store/x")
}

// rubyFile: the whole file is Ruby that a tool loads and runs (bundler a Gemfile, rake a
// Rakefile, vagrant a Vagrantfile, fastlane a Fastfile).
func rubyFile(text string, x *extraction) { x.interp(oneliner.Ruby, x.kind, text) }

// nodeFile: the whole file is JavaScript that a tool loads and runs (pnpm a .pnpmfile.cjs
// on every install).
func nodeFile(text string, x *extraction) { x.interp(oneliner.Node, x.kind, text) }

// goFile: a Go source file is Go the project's tools build and run (go test runs a
// TestMain, mage a magefile's targets), and its //go:generate lines are commands go
// generate runs, in the file's directory.
func goFile(text string, x *extraction) {
	goGenerateCode(text, x)
	x.interp(oneliner.Go, x.kind, text)
}

// phpFile and perlFile: the whole file is PHP or Perl that runs when the project's tools
// run it.
func phpFile(text string, x *extraction)  { x.interp(oneliner.PHP, x.kind, text) }
func perlFile(text string, x *extraction) { x.interp(oneliner.Perl, x.kind, text) }

// yarnrcCode: Yarn runs the JavaScript file yarnPath names in its own place, and the
// plugins it lists, on every yarn command. A release kept in the project's .yarn
// directory is Yarn's own; any other file is code moat has not read.
func yarnrcCode(text string, x *extraction) {
	doc, ok := decodeYAML(text, x)
	if !ok {
		return
	}
	m, _ := doc.(map[string]any)
	if p, ok := m["yarnPath"].(string); ok && !strings.HasPrefix(strings.TrimPrefix(p, "./"), ".yarn/releases/") {
		x.opaque("yarnPath", "Yarn runs "+p+" in place of itself, code moat has not read")
	}
	// The rest of the file is settings, judged as the yarn config set commands that
	// would write them: a registry, a proxy, a certificate authority or strictness off.
	for _, k := range slices.Sorted(maps.Keys(m)) {
		switch v := m[k].(type) {
		case string, bool, int, float64:
			x.shell(k, "yarn config set "+shellQuote(k)+" "+shellQuote(fmt.Sprint(v)))
		case []any:
			for _, e := range v {
				if _, ok := e.(map[string]any); !ok {
					x.shell(k, "yarn config set "+shellQuote(k)+" "+shellQuote(fmt.Sprint(e)))
				}
			}
		case map[string]any:
			if k != "npmScopes" {
				continue
			}
			for _, scope := range slices.Sorted(maps.Keys(v)) {
				settings, _ := v[scope].(map[string]any)
				for _, sk := range slices.Sorted(maps.Keys(settings)) {
					if sv, ok := settings[sk].(string); ok {
						key := "npmScopes." + scope + "." + sk
						x.shell(key, "yarn config set "+shellQuote(key)+" "+shellQuote(sv))
					}
				}
			}
		}
	}
	plugins, _ := m["plugins"].([]any)
	for _, p := range plugins {
		at := ""
		switch p := p.(type) {
		case string:
			at = p
		case map[string]any:
			at, _ = p["path"].(string)
		}
		if at != "" && !strings.HasPrefix(strings.TrimPrefix(at, "./"), ".yarn/plugins/") {
			x.opaque("plugins", "Yarn loads the plugin "+at+", code moat has not read")
		}
	}
}

// denoCode finds the tasks of a deno.json(c), which deno task runs: each a command line,
// or an object whose command is one (its dependencies and description are names and
// words). An edit's fragment of the tasks object is read as tasks.
func denoCode(text string, x *extraction) {
	doc, ok := decodeJSON(text)
	if !ok {
		x.opaque(x.kind, "text that is not JSON moat can read")
		return
	}
	tasks, whole := doc["tasks"].(map[string]any)
	if !whole && !slices.ContainsFunc([]string{"imports", "compilerOptions", "fmt", "lint", "exports", "workspace"}, func(k string) bool {
		_, isTask := doc[k].(string) // a task may be called lint; the setting is an object
		return doc[k] != nil && !isTask
	}) {
		tasks = doc
	}
	for _, name := range slices.Sorted(maps.Keys(tasks)) {
		switch v := tasks[name].(type) {
		case string:
			x.shell("tasks."+name, v)
		case map[string]any:
			if s, ok := v["command"].(string); ok {
				x.shell("tasks."+name+".command", s)
			}
		}
	}
}

// replitKeys are the settings of a .replit file whose values are commands: run when the
// Run button is pressed, onBoot when the Repl starts, compile before run, and a
// deployment's build and run.
var replitKeys = []string{"run", "onBoot", "compile", "deployment.run", "deployment.build"}

// replitCode finds the commands of a .replit file (TOML): a command line, or a list of
// words run as one.
func replitCode(text string, x *extraction) {
	x.tomlValues(text, func(_ []string, dotted string, val *textedit.Value) {
		if !slices.Contains(replitKeys, dotted) {
			return
		}
		if val.Kind != '[' {
			x.tomlCommands(text, dotted, val, true, nil)
			return
		}
		var words []any
		for _, e := range val.Elems {
			w, ok := textedit.UnquoteTOML(text[e.Start:e.End])
			if e.Kind != '"' || !ok {
				x.opaque(dotted, "a command whose words moat cannot read")
				return
			}
			words = append(words, w)
		}
		if len(words) > 0 {
			x.shell(dotted, commandLine(words[0], words[1:]))
		}
	})
}
