package planted

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/moatdev/moat/internal/shell/oneliner"
	"github.com/moatdev/moat/internal/textedit"
)

// npmLifecycle are the package.json scripts that npm, yarn and pnpm run by themselves on
// install, publish or pack, besides the scripts run by name.
var npmLifecycle = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"preinstall": true, "install": true, "postinstall": true, "prepublish": true, "preprepare": true,
		"prepare": true, "postprepare": true, "prepack": true, "postpack": true, "prepublishOnly": true,
		"publish": true, "postpublish": true, "dependencies": true, "preuninstall": true, "uninstall": true,
		"postuninstall": true,
	}
})

// packageHookFields are the members of package.json besides scripts whose values are
// commands that git hook managers run on commits and pushes.
var packageHookFields = []string{"husky", "simple-git-hooks", "lint-staged", "pre-commit", "git-hooks", "gitHooks"}

// versionLike matches a value of a dependency list, which an edit's fragment of
// package.json may hold instead of scripts: a version range, a tag, a URL.
var versionLike = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^([~^<>=*]|\d|v\d|latest$|next$|workspace:|file:|link:|npm:|git[+:]|https?:|github:)`)
})

// packageJSONCode finds the scripts of a package.json. Every script runs through sh -c;
// the lifecycle scripts run on npm install without being named.
func packageJSONCode(text string, x *extraction) {
	doc, ok := decodeJSON(text)
	if !ok {
		x.opaque("package.json", "text that is not JSON moat can read")
		return
	}
	scripts, whole := doc["scripts"].(map[string]any)
	if !whole && !hasAny(doc, "name", "version", "dependencies", "devDependencies") {
		// An edit's fragment of the scripts object.
		scripts = doc
	}
	fragmentDeps := map[string]any{}
	for _, name := range slices.Sorted(maps.Keys(scripts)) {
		s, ok := scripts[name].(string)
		if ok && !whole && !npmLifecycle()[name] && versionLike().MatchString(s) {
			// An edit's fragment of a dependency list: judged as the install it makes.
			fragmentDeps[name] = s
			continue
		}
		if !ok || strings.HasPrefix(name, "//") {
			continue // a "//" key is npm's convention for a comment
		}
		where := "scripts." + name
		if npmLifecycle()[name] {
			where += " (npm runs it by itself on install or publish)"
		}
		x.shell(where, s)
	}
	for _, f := range packageHookFields {
		walkStrings(doc[f], f, func(s, at string) { x.shell(at, s) })
	}
	packageDependencies(doc, x)
	npmInstall(x, "dependencies", fragmentDeps)
	if pm, ok := doc["packageManager"].(string); ok && pm != "" {
		// Corepack fetches the package manager named here, from its spec, and runs it
		// for every command of the project.
		x.shell("packageManager (corepack fetches and runs it)", "npm install -g "+shellQuote(pm))
	}
}

// packageDependencyFields are the fields of a package.json whose entries a package
// manager installs (and whose install scripts it runs), or puts in place of what the
// dependencies ask for (overrides, resolutions).
var packageDependencyFields = []string{"dependencies", "devDependencies", "optionalDependencies", "peerDependencies", "overrides", "resolutions"}

// packageDependencies finds what the next npm install fetches: a field's dependencies
// are the install of each NAME@SPEC, judged as that command is, so that a dependency
// written into the file from a URL, a git repository or a directory outside the
// project, or under a name imitating a popular one, is what `npm install` of it would
// be. One command per field: a large manifest costs one analysis, not one per package.
func packageDependencies(doc map[string]any, x *extraction) {
	for _, field := range packageDependencyFields {
		deps, _ := doc[field].(map[string]any)
		npmInstall(x, field, deps)
	}
}

// npmInstall adds the npm install of a list of dependencies, NAME: SPEC, at where.
func npmInstall(x *extraction, where string, deps map[string]any) {
	var b strings.Builder
	for _, name := range slices.Sorted(maps.Keys(deps)) {
		spec, ok := deps[name].(string)
		if !ok || name == "" || strings.HasPrefix(name, "//") {
			continue // an override's nested object, or a comment
		}
		b.WriteString(" " + shellQuote(name+"@"+spec))
	}
	if b.Len() > 0 {
		x.shell(where+" (npm installs them)", "npm install"+b.String())
	}
}

// packageBins returns the programs npm finds in node_modules/.bin for a package.json's
// scripts: its dependencies' executables, named (by nearly every package) as the
// package, without its scope, without a -cli suffix (conventional-changelog-cli), or as
// the scope of a @scope/cli package.
func packageBins(text string) []string {
	doc, ok := decodeJSON(text)
	if !ok {
		return nil
	}
	var bins []string
	for _, field := range []string{"dependencies", "devDependencies", "optionalDependencies", "peerDependencies"} {
		deps, _ := doc[field].(map[string]any)
		for name := range deps {
			if scope, rest, scoped := strings.Cut(name, "/"); scoped && strings.HasPrefix(name, "@") {
				if rest == "cli" {
					bins = append(bins, scope[1:]) // @svgr/cli's program is svgr
				}
				name = rest
			}
			bins = append(bins, name)
			if short, ok := strings.CutSuffix(name, "-cli"); ok && short != "" {
				bins = append(bins, short)
			}
		}
	}
	slices.Sort(bins)
	return slices.Compact(bins)
}

// composerBins are the programs composer puts on its scripts' PATH (vendor/bin): the
// required packages' names (laravel/pint gives pint, phpunit/phpunit phpunit).
func composerBins(text string) []string {
	doc, ok := decodeJSON(text)
	if !ok {
		return nil
	}
	var bins []string
	for _, field := range []string{"require", "require-dev"} {
		deps, _ := doc[field].(map[string]any)
		for name := range deps {
			if _, pkg, ok := strings.Cut(name, "/"); ok && pkg != "" {
				bins = append(bins, pkg)
			}
		}
	}
	slices.Sort(bins)
	return slices.Compact(bins)
}

// composerCode finds the scripts of a composer.json, which composer runs by itself on
// install and update (post-install-cmd, post-autoload-dump…) and on `composer run`: each
// a command line or a list of them. @php and @composer run PHP and composer; another
// @name refers to a script of the same file, and a Class::method callback is the
// project's own PHP.
func composerCode(text string, x *extraction) {
	doc, ok := decodeJSON(text)
	if !ok {
		x.opaque(x.kind, "text that is not JSON moat can read")
		return
	}
	scripts, whole := doc["scripts"].(map[string]any)
	if !whole && !hasAny(doc, "name", "require", "require-dev", "autoload", "repositories") {
		scripts = doc // an edit's fragment of the scripts object, or of require
	}
	composerRepositories(doc, x)
	// The packages composer installs, as the composer require of them (for vendors that
	// imitate popular ones); an edit's fragment of require holds them at its top.
	var pkgs []string
	for _, field := range []string{"require", "require-dev"} {
		deps, _ := doc[field].(map[string]any)
		for _, name := range slices.Sorted(maps.Keys(deps)) {
			if strings.Contains(name, "/") {
				pkgs = append(pkgs, shellQuote(name))
			}
		}
	}
	if !whole {
		for _, name := range slices.Sorted(maps.Keys(scripts)) {
			if strings.Contains(name, "/") {
				pkgs = append(pkgs, shellQuote(name))
			}
		}
	}
	if len(pkgs) > 0 {
		x.shell("require (composer installs them)", "composer require "+strings.Join(pkgs, " "))
	}
	for _, name := range slices.Sorted(maps.Keys(scripts)) {
		if !whole && composerPackage(name) {
			continue // an edit's fragment of require: VENDOR/NAME, php, ext-json
		}
		var lines []string
		switch v := scripts[name].(type) {
		case string:
			lines = []string{v}
		case []any:
			for _, e := range v {
				if s, ok := e.(string); ok {
					lines = append(lines, s)
				}
			}
		}
		for _, l := range lines {
			switch rest, ref := strings.CutPrefix(strings.TrimSpace(l), "@"); {
			case ref && (strings.HasPrefix(rest, "php ") || strings.HasPrefix(rest, "composer ")):
				x.shell("scripts."+name, rest)
			case ref, strings.Contains(l, "::") && !strings.ContainsAny(l, " \t"):
			default:
				x.shell("scripts."+name, l)
			}
		}
	}
}

// composerPackage reports whether a key of composer.json names a package, as require's
// do (VENDOR/NAME, php, ext-NAME, lib-NAME, composer-plugin-api), which no script's name
// does.
func composerPackage(key string) bool {
	return strings.Contains(key, "/") || key == "php" || key == "php-64bit" || strings.HasPrefix(key, "ext-") ||
		strings.HasPrefix(key, "lib-") || strings.HasPrefix(key, "composer-")
}

// devcontainerKeys are the commands of a dev container's configuration, in the order a
// container's life runs them; initializeCommand runs on the host, before the container.
var devcontainerKeys = []string{"initializeCommand", "onCreateCommand", "updateContentCommand", "postCreateCommand", "postStartCommand", "postAttachCommand"}

// devcontainerCode finds the commands a devcontainer.json makes an editor run when it
// opens the folder: each a command line (run by a shell), a list of words (run as they
// are), or an object of such commands run side by side.
func devcontainerCode(text string, x *extraction) {
	doc, ok := decodeJSON(text)
	if !ok {
		x.opaque(x.kind, "text that is not JSON moat can read")
		return
	}
	var add func(where string, v any)
	add = func(where string, v any) {
		switch v := v.(type) {
		case string:
			x.shell(where, v)
		case []any:
			if len(v) > 0 {
				if line := commandLine(v[0], v[1:]); line != "" {
					x.shell(where, line)
				}
			}
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(v)) {
				add(where+"."+k, v[k])
			}
		}
	}
	for _, k := range devcontainerKeys {
		where := k
		if k == "initializeCommand" {
			where += " (runs on this machine when the folder opens)"
		}
		add(where, doc[k])
	}
	devcontainerRun(doc, x)
}

// devcontainerRun reads the container a dev container's configuration starts, as the
// docker run that starts it, when the configuration gives it more than an image: its
// runArgs, privileged, capAdd, securityOpt and mounts, so that a container with the
// host's root or its engine's socket is judged as that docker run is.
func devcontainerRun(doc map[string]any, x *extraction) {
	var run dockerRun
	run.flag(doc["privileged"] == true, "--privileged")
	run.list("--cap-add", doc["capAdd"])
	run.list("--security-opt", doc["securityOpt"])
	for _, m := range asList(doc["mounts"]) {
		switch m := m.(type) {
		case string:
			run.args = append(run.args, "--mount", m)
		case map[string]any:
			src, _ := m["source"].(string)
			dst, _ := m["target"].(string)
			if typ, _ := m["type"].(string); typ == "bind" && src != "" && dst != "" {
				run.args = append(run.args, "--mount", "type=bind,src="+src+",dst="+dst)
			}
		}
	}
	for _, a := range asList(doc["runArgs"]) {
		if s, ok := a.(string); ok {
			run.args = append(run.args, s)
		}
	}
	if len(run.args) == 0 {
		return
	}
	image, _ := doc["image"].(string)
	if image == "" {
		image = "devcontainer-built-image" // build: the image is the project's own
	}
	run.args = append(run.args, image)
	x.shell("the dev container (started when the folder opens)", run.line())
}

// decodeJSON decodes a JSON object, or an edit's fragment of one's members.
func decodeJSON(text string) (map[string]any, bool) {
	var doc map[string]any
	if json.Unmarshal([]byte(text), &doc) == nil {
		return doc, true
	}
	if v, err := textedit.ParseJSON(text); err == nil {
		if m, ok := jsoncAny(text, v).(map[string]any); ok {
			return m, true
		}
	}
	frag := "{" + strings.Trim(strings.TrimSpace(text), ",") + "}"
	if v, err := textedit.ParseJSON(frag); err == nil {
		if m, ok := jsoncAny(frag, v).(map[string]any); ok {
			return m, true
		}
	}
	return nil, false
}

// jsoncAny converts a parsed JSONC value to what encoding/json would decode.
func jsoncAny(text string, v *textedit.Value) any {
	if v == nil {
		return nil
	}
	switch v.Kind {
	case '{':
		m := make(map[string]any, len(v.Keys))
		for i, k := range v.Keys {
			m[k] = jsoncAny(text, v.Elems[i])
		}
		return m
	case '[':
		a := make([]any, 0, len(v.Elems))
		for _, e := range v.Elems {
			a = append(a, jsoncAny(text, e))
		}
		return a
	case '"':
		s, _ := textedit.UnquoteJSON(text[v.Start:v.End])
		return s
	}
	return text[v.Start:v.End]
}

func hasAny(m map[string]any, keys ...string) bool {
	for _, k := range keys {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}

// walkStrings calls fn with every string in v and where it is.
func walkStrings(v any, where string, fn func(s, where string)) {
	switch v := v.(type) {
	case string:
		fn(v, where)
	case []any:
		for i, e := range v {
			walkStrings(e, fmt.Sprintf("%s[%d]", where, i), fn)
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			walkStrings(v[k], where+"."+k, fn)
		}
	}
}

// walkKeys calls fn with the value of every member named key, at any depth of v, and
// where it is: the code-carrying keys of YAML configurations are found wherever a
// fragment puts them.
func walkKeys(v any, where string, keys map[string]bool, fn func(key string, val any, where string, parent map[string]any)) {
	walkKeysAt(v, func() string { return where }, keys, fn)
}

// walkKeysAt is walkKeys with the place computed only when a key is found: most of a
// large file is not code, and naming every place in it costs more than reading it.
func walkKeysAt(v any, where func() string, keys map[string]bool, fn func(key string, val any, where string, parent map[string]any)) {
	switch v := v.(type) {
	case []any:
		for i, e := range v {
			if _, ok := e.(string); ok {
				continue
			}
			walkKeysAt(e, func() string { return fmt.Sprintf("%s[%d]", where(), i) }, keys, fn)
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			at := func() string {
				if w := where(); w != "" {
					return w + "." + k
				}
				return k
			}
			if keys[k] {
				fn(k, v[k], at(), v)
				continue
			}
			switch v[k].(type) {
			case []any, map[string]any:
				walkKeysAt(v[k], at, keys, fn)
			}
		}
	}
}

// decodeYAML decodes YAML into plain values (maps with string keys). A key written twice
// in one mapping (Cirrus CI's task:, which it reads as two tasks) keeps every value, as a
// list of them, so that the code under each is read; JSON with comments (a vercel.json)
// is read as JSON.
func decodeYAML(text string, x *extraction) (any, bool) {
	var doc any
	err := yaml.Unmarshal([]byte(text), &doc)
	if err == nil {
		return plainYAML(doc), true
	}
	if t := strings.TrimSpace(text); strings.HasPrefix(t, "{") {
		if m, ok := decodeJSON(text); ok {
			return m, true
		}
	}
	var root yaml.Node
	if yaml.Unmarshal([]byte(text), &root) == nil {
		budget := maxYAMLNodes
		if v, ok := nodeValue(&root, &budget, 0); ok {
			return v, true
		}
	}
	x.opaque(x.kind, "YAML moat cannot read: "+err.Error())
	return nil, false
}

// maxYAMLNodes bounds the nodes nodeValue visits in one document, aliases expanded: an
// alias of an alias of … is refused rather than followed without end.
const maxYAMLNodes = 1 << 16

// nodeValue is the plain value of a YAML node, as yaml.Unmarshal into any gives it, with
// a key that a mapping repeats holding the list of its values.
func nodeValue(n *yaml.Node, budget *int, depth int) (any, bool) {
	if *budget--; *budget < 0 || depth > 512 {
		return nil, false
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, true
		}
		return nodeValue(n.Content[0], budget, depth+1)
	case yaml.AliasNode:
		return nodeValue(n.Alias, budget, depth+1)
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, ok := nodeValue(c, budget, depth+1)
			if !ok {
				return nil, false
			}
			out = append(out, v)
		}
		return out, true
	case yaml.MappingNode:
		out := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			val, ok := nodeValue(v, budget, depth+1)
			if !ok {
				return nil, false
			}
			key := k.Value
			prev, dup := out[key]
			switch {
			case !dup:
				out[key] = val
			case isDupList(prev):
				out[key] = append(prev.(dupList), val)
			default:
				out[key] = dupList{prev, val}
			}
		}
		for k, v := range out {
			if l, ok := v.(dupList); ok {
				out[k] = []any(l)
			}
		}
		return out, true
	case yaml.ScalarNode:
		var v any
		if err := n.Decode(&v); err != nil {
			return n.Value, true
		}
		return v, true
	}
	return nil, true
}

// dupList holds the values of a key a mapping repeats, while the mapping is read.
type dupList []any

func isDupList(v any) bool {
	_, ok := v.(dupList)
	return ok
}

// plainYAML turns the map[any]any that YAML may decode into map[string]any.
func plainYAML(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = plainYAML(e)
		}
		return v
	case map[any]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[fmt.Sprint(k)] = plainYAML(e)
		}
		return m
	case []any:
		for i, e := range v {
			v[i] = plainYAML(e)
		}
	}
	return v
}

// taskfileCode finds the commands of a Taskfile: cmds (strings or {cmd: …}), cmd, and the
// sh of dynamic variables, which task runs when it reads the file. Go templates ({{.X}})
// are filled in as task fills them, from the file's vars: and env: and the task's own
// (taskfileVars); a value moat cannot know stays a shell variable ${X}. A task's dir:
// is where its commands run.
func taskfileCode(text string, x *extraction) {
	doc, ok := decodeYAML(text, x)
	if !ok {
		return
	}
	top, _ := doc.(map[string]any)
	// The commands of a task without dir: run in the file's directory, which its
	// ROOT_DIR and TASKFILE_DIR name; in a task's dir: they are somewhere else.
	global := taskfileVars(top, nil)
	anchored := taskfileVars(top, map[string]string{"ROOT_DIR": ".", "TASKFILE_DIR": "."})
	var take func(v any, where string, vars map[string]string, dir string)
	take = func(v any, where string, vars map[string]string, dir string) {
		switch v := v.(type) {
		case string:
			code := taskfileTemplate(v, vars)
			if dir != "" {
				// Double quotes keep the ${X} of a value moat does not know.
				code = "cd \"" + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "`", "\\`").Replace(dir) + "\" || exit 1\n" + code
			}
			x.shell(where, code)
		case []any:
			for i, e := range v {
				take(e, fmt.Sprintf("%s[%d]", where, i), vars, dir)
			}
		case map[string]any:
			// {cmd: …} and {defer: …} run commands; {task: name} calls a task of the
			// file, and its vars:, a loop's for: and platforms: are values, not commands.
			for _, k := range []string{"cmd", "defer"} {
				if c, ok := v[k]; ok {
					take(c, where+"."+k, vars, dir)
				}
			}
		}
	}
	walkKeys(doc, "", map[string]bool{"cmds": true, "cmd": true, "sh": true}, func(key string, v any, at string, parent map[string]any) {
		if key == "sh" {
			// A dynamic variable's command runs in the file's directory, with the
			// file's own values.
			take(v, at, anchored, "")
			return
		}
		vars := taskfileVars(parent, anchored)
		dir, ok := parent["dir"].(string)
		if ok {
			// A dir: with a value moat does not know is a place computed at run time.
			dir = taskfileTemplate(dir, vars)
			vars = taskfileVars(parent, global)
		}
		take(v, at, vars, dir)
	})
}

// maxTaskfileExpansion bounds how deep a value made of other values is filled in.
const maxTaskfileExpansion = 4

// taskfileVars returns the values of m's vars: and env: that are plain text (a scalar, or
// a map's value:), over those of outer, each with the templates it holds filled in. A
// value computed by sh:, or one made of a value moat does not know, is left out: its
// templates stay shell variables. exeExt is empty, as on the machines moat judges for.
func taskfileVars(m map[string]any, outer map[string]string) map[string]string {
	vars := map[string]string{}
	for k, v := range outer {
		vars[k] = v
	}
	for _, key := range []string{"env", "vars"} {
		raw, _ := m[key].(map[string]any)
		for name, v := range raw {
			if s, ok := taskfileScalar(v); ok {
				vars[name] = s
			} else {
				delete(vars, name)
			}
		}
	}
	for range maxTaskfileExpansion {
		changed := false
		for name, v := range vars {
			if w := taskfileTemplate(v, vars); w != v {
				vars[name], changed = w, true
			}
		}
		if !changed {
			break
		}
	}
	for name, v := range vars {
		if goTemplates().MatchString(v) || strings.Contains(v, "${") {
			delete(vars, name)
		}
	}
	return vars
}

// taskfileScalar returns the text of a plain value: a scalar or {value: scalar}.
func taskfileScalar(v any) (string, bool) {
	if m, ok := v.(map[string]any); ok {
		v, ok = m["value"]
		if !ok {
			return "", false
		}
	}
	switch v := v.(type) {
	case string:
		return v, true
	case bool, int, int64, float64:
		return fmt.Sprint(v), true
	}
	return "", false
}

// taskfileTemplate fills in text's templates: {{.NAME}} with vars' value, {{exeExt}}
// with nothing, any other with a shell variable that stands for a value moat does not
// know.
func taskfileTemplate(text string, vars map[string]string) string {
	return goTemplates().ReplaceAllStringFunc(text, func(t string) string {
		inner := strings.TrimSpace(strings.Trim(t, "{}"))
		if inner == "exeExt" {
			return ""
		}
		if name, ok := strings.CutPrefix(inner, "."); ok {
			if v, ok := vars[name]; ok {
				return v
			}
		}
		return templateVar(t)
	})
}

var goTemplates = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{\{[^}]*\}\}`) })

func templateVar(t string) string {
	return "${" + shellName(strings.Trim(strings.TrimSpace(strings.Trim(t, "{}")), ".")) + "}"
}

// githubExpr matches a GitHub Actions expression, which the runner substitutes into the
// script's text before the shell runs it.
var githubExpr = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`) })

// workflowCode finds the run: steps of a GitHub Actions workflow or composite action.
// Secrets substituted into a script (${{ secrets.X }}, ${{ toJSON(secrets) }}) become
// variables named as secrets, so that printing or sending them is judged as it would be
// for any secret; steps' env: variables that carry secrets are renamed the same way.
func workflowCode(text string, x *extraction) {
	doc, ok := decodeYAML(text, x)
	if !ok {
		return
	}
	pullRequestCodeRun(doc, x)
	secretEnv := map[string]bool{}
	walkKeys(doc, "", map[string]bool{"env": true}, func(_ string, v any, _ string, _ map[string]any) {
		if m, ok := v.(map[string]any); ok {
			for k, e := range m {
				if s, ok := e.(string); ok && strings.Contains(s, "secrets") {
					secretEnv[k] = true
				}
			}
		}
	})
	walkKeys(doc, "", map[string]bool{"uses": true}, func(_ string, v any, at string, _ map[string]any) {
		if s, ok := v.(string); ok {
			if owner, ref, moving := movingAction(s); moving {
				x.opaque(at, "runs the action "+s+" of "+owner+" at "+ref+", a branch whose code changes under the workflow and moat has not read")
			}
		}
	})
	walkKeys(doc, "", map[string]bool{"run": true}, func(_ string, v any, at string, parent map[string]any) {
		s, ok := v.(string)
		if !ok {
			return
		}
		job := workflowJob(doc, at)
		x.host = Kept
		if workflowJobDiscarded(job) {
			x.host = Discarded
		}
		sh := stepShell(doc, job, parent)
		switch sh {
		case "bash", "sh", "zsh", "dash", "ash", "ksh":
			x.shell(at, ciScript(s, secretEnv))
		case "pwsh", "powershell":
			x.interp(oneliner.PowerShell, at, psScript(s))
		case "cmd":
			// A .cmd script: each line a cmd.exe command line.
			for line := range strings.Lines(psScript(s)) {
				if line = strings.TrimSpace(line); line != "" {
					x.interp(oneliner.PowerShell, at, oneliner.CmdToPowerShell(line))
				}
			}
		default:
			if in, ok := oneliner.Lookup(sh); ok {
				x.interp(in.Lang, at, s)
				return
			}
			x.opaque(at, "a step run by "+sh+", which moat cannot read")
		}
	})
}

// privilegedTriggers are the events whose workflows run with the base repository's
// secrets and a token that may write to it, whoever opened the pull request.
var privilegedTriggers = []string{"pull_request_target", "workflow_run"}

// pullRequestHead matches what names a pull request's own code: its head commit or
// branch, the ref GitHub keeps for it, or the checkout commands that fetch it.
var pullRequestHead = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`github\.event\.pull_request\.head|github\.head_ref|github\.event\.workflow_run\.head|refs/pull/|\bpull/\$|gh\s+pr\s+checkout`)
})

// pullRequestCodeRun finds jobs of a workflow run by a privileged trigger that check out
// a pull request's own code and then run steps: the "pwn request", in which whoever
// opens a pull request runs code (an install script, a test, a build) with the
// repository's secrets and its write token. That code is the pull request's, which moat
// has not read.
func pullRequestCodeRun(doc any, x *extraction) {
	top, _ := doc.(map[string]any)
	if !workflowTriggered(top["on"], privilegedTriggers) {
		return
	}
	jobs := sub(top, "jobs")
	for _, id := range slices.Sorted(maps.Keys(jobs)) {
		job, _ := jobs[id].(map[string]any)
		steps, _ := job["steps"].([]any)
		for k, s := range steps {
			step, _ := s.(map[string]any)
			if !checksOutPullRequest(step) {
				continue
			}
			if k+1 < len(steps) {
				x.opaque(fmt.Sprintf("jobs.%s.steps[%d]", id, k), "a pull request's own code, checked out by a workflow that runs with the repository's secrets and write token (pull_request_target, workflow_run), runs in the steps after it")
			}
			break
		}
	}
}

// workflowTriggered reports whether a workflow's on: (a name, a list, or a map) holds one
// of events.
func workflowTriggered(on any, events []string) bool {
	switch on := on.(type) {
	case string:
		return slices.Contains(events, on)
	case []any:
		for _, e := range on {
			if s, ok := e.(string); ok && slices.Contains(events, s) {
				return true
			}
		}
	case map[string]any:
		for _, e := range events {
			if _, ok := on[e]; ok {
				return true
			}
		}
	}
	return false
}

// officialActionOwners are the owners of GitHub Actions that GitHub, Docker and the
// clouds publish for their own products.
var officialActionOwners = []string{"actions", "github", "docker", "aws-actions", "azure", "google-github-actions", "hashicorp"}

// movingAction reports whether a step's uses: names a third party's action at a branch
// (owner/repo@main, or no ref at all) rather than a tag or a commit: its code is
// whatever the branch holds when the workflow runs. Local actions (./…) and images
// (docker://…) are not.
func movingAction(uses string) (owner, ref string, moving bool) {
	if strings.HasPrefix(uses, ".") || strings.Contains(uses, "://") || strings.Contains(uses, "${{") {
		return "", "", false
	}
	name, ref, _ := strings.Cut(uses, "@")
	owner, _, ok := strings.Cut(name, "/")
	if !ok || slices.Contains(officialActionOwners, strings.ToLower(owner)) {
		return "", "", false
	}
	if ref == "" {
		return owner, "its default branch", true
	}
	return owner, ref, movingRef(ref)
}

// movingRef reports whether a git ref names a branch that moves (main, master, HEAD…)
// rather than a release tag or a commit.
func movingRef(ref string) bool {
	switch strings.ToLower(ref) {
	case "main", "master", "head", "develop", "dev", "trunk", "latest", "stable", "next", "nightly", "edge":
		return true
	}
	return false
}

// checksOutPullRequest reports whether a step fetches a pull request's own code: checkout
// with a ref or repository of the pull request's head, or a command that fetches it.
func checksOutPullRequest(step map[string]any) bool {
	if uses, _ := step["uses"].(string); strings.HasPrefix(strings.ToLower(uses), "actions/checkout") {
		with := sub(step, "with")
		for _, k := range []string{"ref", "repository"} {
			if v, ok := with[k].(string); ok && pullRequestHead().MatchString(v) {
				return true
			}
		}
		return false
	}
	run, _ := step["run"].(string)
	return run != "" && pullRequestHead().MatchString(run) && (strings.Contains(run, "checkout") || strings.Contains(run, "fetch") || strings.Contains(run, "clone"))
}

// stepShell is the shell a workflow step's run: is given to, by its program's name: the
// step's shell:, else its job's or the workflow's defaults.run.shell, else the runner's
// default, PowerShell on Windows runners and bash elsewhere. A custom shell ("bash -e
// {0}", "/usr/bin/python3 {0}") is named by its first word.
func stepShell(doc any, job, step map[string]any) string {
	name := func(v any) string {
		s, _ := v.(string)
		if f := strings.Fields(s); len(f) > 0 {
			return strings.ToLower(path.Base(f[0]))
		}
		return ""
	}
	if sh := name(step["shell"]); sh != "" {
		return sh
	}
	top, _ := doc.(map[string]any)
	for _, m := range []map[string]any{job, top} {
		if sh := name(sub(sub(m, "defaults"), "run")["shell"]); sh != "" {
			return sh
		}
	}
	if windowsRunner(job["runs-on"]) {
		return "pwsh"
	}
	return "bash"
}

// workflowJob is the job of a workflow that the step at is in (jobs.ID.steps[N].run), nil
// in a composite action. Job IDs hold no dots.
func workflowJob(doc any, at string) map[string]any {
	rest, ok := strings.CutPrefix(at, "jobs.")
	if !ok {
		return nil
	}
	id, _, _ := strings.Cut(rest, ".")
	top, _ := doc.(map[string]any)
	return sub(sub(top, "jobs"), id)
}

// windowsRunner reports whether a job's runs-on names a Windows runner (windows-latest,
// windows-2022, a label list holding windows): its steps run in PowerShell by default.
func windowsRunner(v any) bool {
	switch v := v.(type) {
	case string:
		return strings.HasPrefix(strings.ToLower(v), "windows")
	case []any:
		for _, e := range v {
			if windowsRunner(e) {
				return true
			}
		}
	}
	return false
}

// psScript rewrites a PowerShell or cmd step's ${{ … }} expressions, which the runner
// pastes in as text, as an environment variable PowerShell expands.
func psScript(s string) string {
	return githubExpr().ReplaceAllLiteralString(s, "$env:GITHUB_EXPRESSION")
}

// ciScript rewrites a CI step's script for analysis: each ${{ … }} becomes a variable
// (named as a secret when it holds one), quoted so that it stays a variable where the
// runner would have pasted text inside single quotes, and env: variables that carry
// secrets are renamed as secrets.
func ciScript(s string, secretEnv map[string]bool) string {
	var b strings.Builder
	inSingle, inDouble := false, false
	next := strings.Index(s, "${{")
	for i := 0; i < len(s); i++ {
		if i > next && next >= 0 {
			next = strings.Index(s[i:], "${{")
			if next >= 0 {
				next += i
			}
		}
		if i == next {
			m := githubExpr().FindStringSubmatchIndex(s[i:])
			if m == nil || m[0] != 0 {
				b.WriteByte(s[i])
				continue
			}
			expr := s[i+m[2] : i+m[3]]
			name := "GITHUB_EXPRESSION"
			if strings.Contains(expr, "secrets") {
				name = "SECRET_" + shellName(strings.TrimPrefix(expr, "secrets."))
				if !strings.HasPrefix(expr, "secrets.") {
					name = "ALL_SECRETS"
				}
			}
			if inSingle {
				b.WriteString(`'"${` + name + `}"'`)
			} else {
				b.WriteString("${" + name + "}")
			}
			i += m[1] - 1
			continue
		}
		c := s[i]
		switch {
		case c == '\'' && !inDouble:
			inSingle = !inSingle
		case c == '"' && !inSingle:
			inDouble = !inDouble
		case c == '\\' && !inSingle && i+1 < len(s):
			b.WriteByte(c)
			i++
			c = s[i]
		}
		b.WriteByte(c)
	}
	out := b.String()
	for _, k := range slices.Sorted(maps.Keys(secretEnv)) {
		re := regexp.MustCompile(`\$\{?` + regexp.QuoteMeta(k) + `\b\}?`)
		out = re.ReplaceAllLiteralString(out, "${SECRET_"+shellName(k)+"}")
	}
	return out
}

// ciCode returns the extractor of a CI configuration whose steps give their commands
// under keys: a command line, a list of them, or (CircleCI's run) an object whose
// command is one.
func ciCode(keys ...string) func(string, *extraction) {
	return underKeys(keys, (*extraction).ciValue)
}

// ciValue takes the commands of a CI file's key at: a command line, a list of them, or
// a map whose command: holds one.
func (x *extraction) ciValue(at string, v any) {
	switch v := v.(type) {
	case string:
		x.shell(at, v)
	case []any:
		for i, e := range v {
			if s, ok := e.(string); ok {
				x.shell(fmt.Sprintf("%s[%d]", at, i), s)
			}
		}
	case map[string]any:
		if s, ok := v["command"].(string); ok {
			x.shell(at+".command", s)
		}
	}
}

// preCommitCode finds the entry of each hook of a pre-commit configuration, the command
// pre-commit runs on every commit (repo: local hooks, or overrides of a remote hook's).
func preCommitCode(text string, x *extraction) {
	doc, ok := decodeYAML(text, x)
	if !ok {
		return
	}
	// A hook repository at a branch is code that changes under the project: pre-commit
	// installs whatever the branch holds when it next installs.
	m, _ := doc.(map[string]any)
	repos, _ := m["repos"].([]any)
	for i, r := range repos {
		repo, _ := r.(map[string]any)
		url, _ := repo["repo"].(string)
		if url == "" || url == "local" || url == "meta" {
			continue
		}
		if rev, _ := repo["rev"].(string); rev == "" || movingRef(rev) {
			x.opaque(fmt.Sprintf("repos[%d]", i), "installs and runs the hooks of "+url+" at "+cmp.Or(rev, "its default branch")+", code that changes under the project and moat has not read")
		}
	}
	walkKeys(doc, "", map[string]bool{"entry": true}, func(_ string, v any, at string, parent map[string]any) {
		s, ok := v.(string)
		if !ok {
			return
		}
		switch lang, _ := parent["language"].(string); lang {
		case "pygrep", "fail":
			return // a pattern or a message, not a command
		case "docker_image":
			// The entry is an image and its arguments, which pre-commit runs with the
			// project mounted as the container's working directory.
			s = "docker run --rm -v .:/src:rw -w /src " + s
		}
		if args, ok := parent["args"].([]any); ok {
			for _, a := range args {
				if as, ok := a.(string); ok {
					s += " " + shellQuote(as)
				}
			}
		}
		x.shell(at, s)
	})
}

// vscodeTasksCode finds the commands of VS Code tasks; one that runs when the folder opens
// runs without anyone asking for it.
func vscodeTasksCode(text string, x *extraction) {
	doc, ok := decodeJSON(text)
	if !ok {
		x.opaque(x.kind, "text that is not JSON moat can read")
		return
	}
	tasks, _ := doc["tasks"].([]any)
	if tasks == nil {
		tasks = []any{doc} // a fragment: one task's members
	}
	for i, t := range tasks {
		m, ok := t.(map[string]any)
		if !ok {
			continue
		}
		label, _ := m["label"].(string)
		where := fmt.Sprintf("tasks[%d] %q", i, label)
		if ro, ok := m["runOptions"].(map[string]any); ok && ro["runOn"] == "folderOpen" {
			where += " (runs when the folder is opened)"
		}
		for _, os := range []map[string]any{m, sub(m, "linux"), sub(m, "osx"), sub(m, "windows")} {
			if line := commandLine(os["command"], os["args"]); line != "" {
				x.shell(where, line)
			}
		}
	}
}

func sub(m map[string]any, k string) map[string]any {
	s, _ := m[k].(map[string]any)
	return s
}

// commandLine joins a command and its arguments (strings, or {value: …}) into a line.
func commandLine(cmd, args any) string {
	line := ""
	switch c := cmd.(type) {
	case string:
		line = c
	case map[string]any:
		line, _ = c["value"].(string)
	}
	if line == "" {
		return ""
	}
	list, _ := args.([]any)
	for _, a := range list {
		switch a := a.(type) {
		case string:
			line += " " + shellQuote(a)
		case map[string]any:
			if v, ok := a["value"].(string); ok {
				line += " " + shellQuote(v)
			}
		}
	}
	return line
}

// vscodeLaunchCode finds what a workspace's debug configurations (.vscode/launch.json)
// run when the user starts one (F5): the runtime given (runtimeExecutable with
// runtimeArgs, before the program and its args), the program a Node or Python
// configuration runs, and the command of a pipe transport (cppdbg's pipeProgram). Each
// is a program and its words, not a shell line. VS Code's variables are read as what
// they name: ${workspaceFolder} the project, ${file} and its kin a file of the project,
// ${env:NAME} the variable's value; any other (${input:…}, ${command:…}) is a value
// known only when the configuration starts.
func vscodeLaunchCode(text string, x *extraction) {
	doc, ok := decodeJSON(text)
	if !ok {
		x.opaque(x.kind, "text that is not JSON moat can read")
		return
	}
	configs, _ := doc["configurations"].([]any)
	for i, c := range configs {
		m, ok := c.(map[string]any)
		if !ok {
			continue
		}
		name, _ := m["name"].(string)
		where := fmt.Sprintf("configurations[%d] %q", i, name)
		typ, _ := m["type"].(string)
		for _, os := range []map[string]any{m, sub(m, "linux"), sub(m, "osx"), sub(m, "windows")} {
			if os == nil {
				continue
			}
			if words := launchWords(typ, os); len(words) > 0 {
				x.shell(where, vscodeLine(words))
			}
			if pt := sub(os, "pipeTransport"); pt != nil {
				if prog, ok := pt["pipeProgram"].(string); ok && prog != "" {
					x.shell(where+" pipeTransport", vscodeLine(append([]string{prog}, stringsOf(pt["pipeArgs"])...)))
				}
			}
		}
	}
}

// launchWords are the words of the command a debug configuration starts: its runtime and
// the program the runtime runs, with their arguments.
func launchWords(typ string, m map[string]any) []string {
	var words []string
	if rt, ok := m["runtimeExecutable"].(string); ok && rt != "" {
		words = append([]string{rt}, stringsOf(m["runtimeArgs"])...)
	}
	program, _ := m["program"].(string)
	module, _ := m["module"].(string)
	switch {
	case len(words) > 0:
	case program == "" && module == "":
		return nil
	case typ == "node" || typ == "pwa-node":
		words = []string{"node"}
	case typ == "python" || typ == "debugpy":
		words = []string{"python3"}
	default:
		return nil // a debugger's program: the project's build output (cppdbg, go, lldb)
	}
	switch {
	case module != "":
		words = append(words, "-m", module)
	case program != "":
		words = append(words, program)
	}
	return append(words, stringsOf(m["args"])...)
}

// stringsOf returns the strings of a JSON array.
func stringsOf(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, e := range list {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// vscodeLine quotes words for the shell, with VS Code's variables replaced (see
// vscodeLaunchCode): an environment variable stays one the shell expands, inside double
// quotes; every other character is literal.
func vscodeLine(words []string) string {
	quoted := make([]string, len(words))
	for k, w := range words {
		var b strings.Builder
		b.WriteByte('"')
		for w != "" {
			i := strings.Index(w, "${")
			j := -1
			if i >= 0 {
				j = strings.IndexByte(w[i:], '}')
			}
			if i < 0 || j < 0 {
				b.WriteString(doubleQuoted(w))
				break
			}
			b.WriteString(doubleQuoted(w[:i]))
			name := w[i+2 : i+j]
			switch {
			case name == "workspaceFolder" || name == "workspaceRoot" || name == "cwd":
				b.WriteString(".")
			case name == "workspaceFolderBasename":
				b.WriteString("project")
			case name == "pathSeparator" || name == "/":
				b.WriteString("/")
			case strings.HasPrefix(name, "file") || strings.HasPrefix(name, "relativeFile") || name == "selectedText" || name == "lineNumber":
				b.WriteString("vscode-current-file")
			case strings.HasPrefix(name, "env:"):
				b.WriteString("${" + shellName(name[len("env:"):]) + "}")
			default:
				// Known when the configuration starts: a value of the shell's choosing.
				b.WriteString("${VSCODE_VALUE}")
			}
			w = w[i+j+1:]
		}
		b.WriteByte('"')
		quoted[k] = b.String()
	}
	return strings.Join(quoted, " ")
}

// doubleQuoted escapes the characters a shell's double quotes do not keep literal.
func doubleQuoted(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if strings.IndexByte("\\\"$`", s[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// vscodeTerminalPrefixes are the settings of VS Code whose values it runs when a terminal
// or a task starts: the environment it gives them, the shell and its arguments.
var vscodeTerminalPrefixes = []string{"terminal.integrated.env.", "terminal.integrated.profiles.", "terminal.integrated.shell.", "terminal.integrated.shellArgs.", "terminal.integrated.automationProfile.", "terminal.integrated.automationShell."}

// vscodeProgramSettings name a program VS Code runs for the workspace.
var vscodeProgramSettings = []string{"python.defaultInterpreterPath", "python.pythonPath", "git.path", "go.goroot", "go.alternateTools", "eslint.runtime", "typescript.tsdk", "rust-analyzer.server.path", "terminal.external.linuxExec", "terminal.external.osxExec"}

// vscodeSettingsCode finds what a workspace's VS Code settings make VS Code run: the
// terminal's environment (judged as variables given to an interactive shell) and shell,
// and programs the settings name.
func vscodeSettingsCode(text string, x *extraction) {
	doc, ok := decodeJSON(text)
	if !ok {
		x.opaque(x.kind, "text that is not JSON moat can read")
		return
	}
	if s, ok := doc["settings"].(map[string]any); ok {
		doc = s // a .code-workspace file
	}
	for _, k := range slices.Sorted(maps.Keys(doc)) {
		v := doc[k]
		switch {
		case strings.HasPrefix(k, "terminal.integrated.env."):
			env, _ := v.(map[string]any)
			for _, name := range slices.Sorted(maps.Keys(env)) {
				if s, ok := env[name].(string); ok {
					x.shell(k+"."+name, shellName(name)+"="+shellQuote(s)+" bash -i")
				}
			}
		case strings.HasPrefix(k, "terminal.integrated.profiles."):
			profiles, _ := v.(map[string]any)
			for _, name := range slices.Sorted(maps.Keys(profiles)) {
				if p, ok := profiles[name].(map[string]any); ok {
					x.shell(k+"."+name, commandLine(firstString(p["path"]), p["args"]))
				}
			}
		case strings.HasPrefix(k, "terminal.integrated.automationProfile."):
			if p, ok := v.(map[string]any); ok {
				x.shell(k, commandLine(firstString(p["path"]), p["args"]))
			}
		case slices.ContainsFunc(vscodeTerminalPrefixes, func(p string) bool { return strings.HasPrefix(k, p) }):
			walkStrings(v, k, func(s, where string) { x.shell(where, shellQuote(s)) })
		case slices.Contains(vscodeProgramSettings, k):
			walkStrings(v, k, func(s, where string) { x.shell(where, shellQuote(s)+" --version") })
		}
	}
}

func firstString(v any) any {
	if l, ok := v.([]any); ok && len(l) > 0 {
		return l[0]
	}
	return v
}

// shellQuote quotes s as one shell word.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,@%+~") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// pyprojectScriptTables are the tables of pyproject.toml whose values are commands that a
// task runner runs by name (a string, a list of strings, or a table with cmd or shell).
var pyprojectScriptTables = []string{"tool.poe.tasks", "tool.pdm.scripts", "tool.taskipy.tasks", "tool.hatch.envs.*.scripts", "tool.rye.scripts", "tool.uv.scripts", "tool.pixi.tasks", "tool.pixi.feature.*.tasks"}

// pyprojectCodeKeys are the keys of a task's table whose value is a command.
var pyprojectCodeKeys = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"cmd": true, "shell": true, "cmds": true}
})

// pyprojectCode finds the commands of task runners configured in pyproject.toml, and an
// in-tree build backend, whose code pip runs on install.
func pyprojectCode(text string, x *extraction) {
	doc, err := textedit.ParseTOML(text)
	if err != nil {
		if !requirementsFragment(text, x) {
			x.opaque(x.kind, "TOML moat cannot read: "+err.Error())
		}
		return
	}
	eachTOMLValue(doc, func(full []string, dotted string, val *textedit.Value) {
		if dotted == "build-system.backend-path" {
			x.opaque(dotted, "an in-tree build backend, Python code in the project that pip runs on install")
		}
		x.tableCommands(text, pyprojectScriptTables, pyprojectCodeKeys(), full, dotted, val)
		pyprojectDependency(text, x, full, dotted, val)
		if len(full) == 4 && full[0] == "tool" && full[1] == "pytest" && full[2] == "ini_options" {
			switch full[3] {
			case "pythonpath":
				pytestSettings(x, dotted, tomlStrings(text, val), "")
			case "addopts":
				pytestSettings(x, dotted, nil, strings.Join(tomlStrings(text, val), " "))
			}
		}
		// pylint's init-hook ([tool.pylint.main] or .master), Python run before every lint.
		if len(full) == 4 && full[0] == "tool" && full[1] == "pylint" && (full[3] == "init-hook" || full[3] == "init_hook") {
			if s, ok := tomlString(text, val); ok {
				x.interp(oneliner.Python, dotted+" (pylint runs it)", s)
			}
		}
	})
}

func tablePath(pattern string, path []string) bool {
	parts := strings.Split(pattern, ".")
	for i, p := range parts {
		if p != "*" && p != path[i] {
			return false
		}
	}
	return true
}

// tomlCommands adds the commands in a TOML value: a string when direct (the task's own
// value, or its cmd), the strings of an array, the value of one of keys in an inline
// table.
func (x *extraction) tomlCommands(text, where string, v *textedit.Value, direct bool, keys map[string]bool) {
	switch v.Kind {
	case '"':
		if s, ok := textedit.UnquoteTOML(text[v.Start:v.End]); ok && direct {
			x.shell(where, s)
		}
	case '[':
		for _, e := range v.Elems {
			x.tomlCommands(text, where, e, direct, keys)
		}
	case '{':
		for i, k := range v.Keys {
			if keys[k] {
				x.tomlCommands(text, where+"."+k, v.Elems[i], true, keys)
			}
		}
	}
}

// aliasDef matches an alias definition's name and the start of its value.
var aliasDef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)\balias\s+(?:-g\s+)?([A-Za-z0-9_.:+-]+)=`) })

// rcCode: a shell startup file is shell code, run by every new shell; the text of each
// alias runs whenever the alias is typed.
func rcCode(text string, x *extraction) {
	x.shell(x.kind, text)
	for _, m := range aliasDef().FindAllStringSubmatchIndex(text, -1) {
		if v, ok := quotedAt(text, m[1]); ok {
			x.shell("alias "+text[m[2]:m[3]], v)
		}
	}
}

// quotedAt reads the shell word at s[i:] when it is one quoted string.
func quotedAt(s string, i int) (string, bool) {
	if i >= len(s) {
		return "", false
	}
	q := s[i]
	if q != '\'' && q != '"' {
		end := strings.IndexAny(s[i:], " \t\n;")
		if end < 0 {
			end = len(s) - i
		}
		return s[i : i+end], true
	}
	var b strings.Builder
	for j := i + 1; j < len(s); j++ {
		c := s[j]
		if c == q {
			return b.String(), true
		}
		if c == '\\' && q == '"' && j+1 < len(s) {
			j++
			c = s[j]
		}
		b.WriteByte(c)
	}
	return "", false
}

// vimCalls are the functions of Vim script and Neovim's Lua that run a shell command given
// as a string.
var vimCalls = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\b(?:system|systemlist|jobstart|termopen|vim\.fn\.system|vim\.fn\.systemlist|vim\.fn\.jobstart|vim\.fn\.termopen|os\.execute|io\.popen)\s*\(\s*(?:\[\[(.*?)\]\]|'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"|([^)]*))`)
})

// vimBang matches a :! command (also after silent, in an autocmd or an execute string).
var vimBang = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:^|[\s:|"'(])!([^=\s][^\n]*)`) })

// vimCode finds the shell commands of a Vim or Neovim startup file: :! commands and the
// strings given to system(), jobstart(), os.execute()…; a command computed from
// expressions is opaque.
func vimCode(text string, x *extraction) {
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, `"`) || strings.HasPrefix(t, "--") {
			continue
		}
		for _, m := range vimCalls().FindAllStringSubmatch(t, -1) {
			switch {
			case m[1] != "":
				x.shell("system call", m[1])
			case m[2] != "":
				x.shell("system call", m[2])
			case m[3] != "":
				x.shell("system call", strings.ReplaceAll(m[3], `\"`, `"`))
			case strings.TrimSpace(m[4]) != "":
				x.opaque("system call", "a command computed by the editor's script: "+strings.TrimSpace(m[4]))
			}
		}
		if vimCondition(t) {
			continue
		}
		if file, ok := vimSourced(t); ok {
			x.opaque("sourced file", "the editor runs the script "+file+", whose code moat cannot read")
			continue
		}
		if m := vimBang().FindStringSubmatch(t); m != nil && !vimCalls().MatchString(t) {
			cmd := strings.TrimRight(m[1], `"' )`)
			if strings.HasPrefix(t, "exe") {
				cmd = strings.Trim(cmd, `"'`)
			}
			x.shell(":! command", cmd)
		}
	}
}

// vimSourced returns the file a Vim command line runs as a script (source, so, luafile,
// pyfile, py3file, rubyfile, perlfile…), unless it is one of the editor's own startup
// files, which are judged when they are written.
func vimSourced(t string) (string, bool) {
	cmd, arg, ok := strings.Cut(t, " ")
	if !ok {
		return "", false
	}
	switch strings.TrimSuffix(cmd, "!") {
	case "so", "sou", "sour", "sourc", "source", "luafile", "pyf", "pyfile", "py3f", "py3file",
		"pyxfile", "rubyf", "rubyfile", "perlfile", "mzf", "mzfile", "tclf", "tclfile":
	default:
		return "", false
	}
	file := strings.TrimSpace(arg)
	for _, own := range []string{"~/.vim/", "~/.config/nvim/", "$HOME/.vim/", "$HOME/.config/nvim/", "$VIMRUNTIME/", "$MYVIMRC"} {
		if strings.HasPrefix(file, own) {
			return "", false
		}
	}
	return file, file != ""
}

// vimCondition reports whether a line is a condition or an expression, where ! is the
// negation of Vim script, not a shell command.
func vimCondition(t string) bool {
	for _, p := range []string{"if ", "if(", "elseif ", "while ", "let ", "return ", "call ", "local ", "for "} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}
