package planted

import (
	"maps"
	"slices"
	"strings"
)

// A CI job runs on a runner. Most are discarded when the job ends (a hosted virtual
// machine, a job's container): what the job's code does to that machine's files outside
// its checkout (an installed tool, a token written into ~/.npmrc, a deleted cache), no
// later job and no one's own machine keeps. A self-hosted runner is a machine that
// stays, possibly the developer's own, and its files are judged as this machine's.
// Where a file does not say which runner a job gets, the runner is taken to stay.

// githubHostedLabels are the first words of the labels of GitHub's hosted runners
// (ubuntu-latest, windows-2022, macos-14, ubuntu-24.04-arm).
var githubHostedLabels = []string{"ubuntu-", "windows-", "macos-"}

// workflowJobDiscarded reports whether a GitHub Actions job runs on a machine discarded
// after it: in a container of its own (container:), or on a hosted runner, named by a
// label or by the job's matrix (runs-on: ${{ matrix.os }} whose every value is a hosted
// label). A composite action (no jobs) runs on its caller's runner, which is not known.
func workflowJobDiscarded(job map[string]any) bool {
	if job == nil {
		return false
	}
	if c := job["container"]; c != nil && !mountsHost(c) {
		return true
	}
	return hostedLabels(job["runs-on"], job)
}

// mountsHost reports whether a job's container: may see into the runner's own files:
// volumes of its own, or options that mount, privilege or share the host's namespaces.
func mountsHost(c any) bool {
	m, ok := c.(map[string]any)
	if !ok {
		return false // an image's name alone
	}
	if m["volumes"] != nil {
		return true
	}
	opts, _ := m["options"].(string)
	for _, f := range strings.Fields(opts) {
		switch name, _, _ := strings.Cut(f, "="); name {
		case "-v", "--volume", "--mount", "--privileged", "--pid", "--ipc", "--cap-add", "--device", "--volumes-from":
			return true
		}
		if strings.HasPrefix(f, "-v") {
			return true
		}
	}
	return opts != "" && githubExpr().MatchString(opts)
}

// hostedLabels reports whether a runs-on value (a label, a list of labels, or the job's
// matrix variable) selects only GitHub-hosted runners.
func hostedLabels(v any, job map[string]any) bool {
	switch v := v.(type) {
	case string:
		if m := githubExpr().FindStringSubmatch(v); m != nil {
			if m[0] != strings.TrimSpace(v) {
				return false
			}
			key, ok := strings.CutPrefix(m[1], "matrix.")
			if !ok {
				return false
			}
			values := matrixValues(sub(sub(job, "strategy"), "matrix"), key)
			for _, e := range values {
				if s, ok := e.(string); !ok || githubExpr().MatchString(s) || !hostedLabels(s, nil) {
					return false
				}
			}
			return len(values) > 0
		}
		v = strings.ToLower(strings.TrimSpace(v))
		for _, p := range githubHostedLabels {
			if strings.HasPrefix(v, p) {
				return true
			}
		}
		return false
	case []any:
		// A list of labels selects a runner holding all of them: hosted when one is a
		// hosted image's label and none says self-hosted.
		hosted := false
		for _, e := range v {
			s, ok := e.(string)
			if !ok || strings.EqualFold(s, "self-hosted") {
				return false
			}
			hosted = hosted || hostedLabels(s, job)
		}
		return hosted
	}
	return false
}

// matrixValues lists the values a job's matrix gives key: its list, and the values of
// include: entries that set it.
func matrixValues(matrix map[string]any, key string) []any {
	var values []any
	switch v := matrix[key].(type) {
	case []any:
		values = append(values, v...)
	case nil:
	default:
		return nil // an expression (fromJSON(…)): not known
	}
	include, _ := matrix["include"].([]any)
	for _, e := range include {
		if m, ok := e.(map[string]any); ok && m[key] != nil {
			values = append(values, m[key])
		}
	}
	return values
}

// gitlabJobDiscarded reports whether a GitLab CI job runs in a container: it names an
// image, itself, through the jobs it extends, or through the file's default: or
// top-level image:.
func gitlabJobDiscarded(doc, job map[string]any) bool {
	if doc["image"] != nil || sub(doc, "default")["image"] != nil {
		return true
	}
	seen := map[string]bool{}
	for len(job) > 0 {
		if job["image"] != nil {
			return true
		}
		var parent string
		switch e := job["extends"].(type) {
		case string:
			parent = e
		case []any:
			// Several templates: the last one's keys win; an image in any of them is
			// the job's unless a later one unsets it, which none can.
			for _, p := range e {
				if s, ok := p.(string); ok && gitlabJobDiscarded(map[string]any{}, sub(doc, s)) {
					return true
				}
			}
		}
		if parent == "" || seen[parent] {
			return false
		}
		seen[parent] = true
		job = sub(doc, parent)
	}
	return false
}

// circleJobDiscarded reports whether a CircleCI job runs in a container or on one of
// CircleCI's own machines: a docker:, macos: or machine: executor, written in the job or
// named from the file's executors:, whose resource_class is not a self-hosted runner's
// (namespace/name).
func circleJobDiscarded(doc, job map[string]any) bool {
	executor := job
	switch e := job["executor"].(type) {
	case string:
		executor = sub(sub(doc, "executors"), e)
	case map[string]any:
		name, _ := e["name"].(string)
		executor = sub(sub(doc, "executors"), name)
	}
	if executor == nil {
		return false // an orb's executor, not in the file
	}
	for _, class := range []any{job["resource_class"], executor["resource_class"]} {
		if s, ok := class.(string); ok && strings.Contains(s, "/") {
			return false
		}
	}
	return executor["docker"] != nil || executor["macos"] != nil || executor["machine"] != nil
}

// hostIf is Discarded when the machine is, else Kept.
func hostIf(discarded bool) Host {
	if discarded {
		return Discarded
	}
	return Kept
}

// gitlabKeys are the keys of a GitLab CI file whose values are commands.
var gitlabKeys = map[string]bool{"script": true, "before_script": true, "after_script": true}

// gitlabCode finds the commands of a GitLab CI file: script, before_script and
// after_script, at the top level or in any job, each on the machine its job runs on.
func gitlabCode(text string, x *extraction) {
	doc, ok := decodeYAML(text, x)
	if !ok {
		return
	}
	top, _ := doc.(map[string]any)
	for _, name := range slices.Sorted(maps.Keys(top)) {
		job, _ := top[name].(map[string]any)
		x.host = hostIf(gitlabJobDiscarded(top, job))
		take := func(v any, at string) {
			// A script may nest lists (YAML anchors of other scripts): every string in it
			// is a command.
			walkStrings(v, at, func(s, where string) { x.shell(where, s) })
		}
		if gitlabKeys[name] {
			take(top[name], name)
			continue
		}
		walkKeys(top[name], name, gitlabKeys, func(_ string, v any, at string, _ map[string]any) { take(v, at) })
	}
}
