package shell

import (
	"encoding/json"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/planted"
)

// Pods a kubectl command creates from a manifest that is no file moat saw written: its
// standard input (kubectl apply -f - <<EOF … EOF, cat pod.yaml | kubectl create -f -),
// read after the walk (flow.go), and kubectl run --overrides=JSON, a pod spec merged into
// the pod it runs. Their containers are judged as a manifest file's are when it is
// written (internal/planted): a privileged container with the node's / mounted is a
// container given the host.

// kubeStdin reports whether a kubectl (or oc) command reads a manifest on its standard
// input: apply, create or replace with -f -.
func kubeStdin(v *view) bool {
	if v.name != "kubectl" && v.name != "oc" || len(v.ops) == 0 {
		return false
	}
	switch v.ops[0] {
	case "apply", "create", "replace":
	default:
		return false
	}
	for _, f := range v.values("f", "filename") {
		if !f.dynamic && (f.lit == "-" || f.lit == "/dev/stdin") {
			return true
		}
	}
	return false
}

// kubeManifest judges the pods of a manifest the command at i hands to a cluster; where
// says where the manifest is, for evidence.
func (a *analyzer) kubeManifest(i int, where, text string) {
	kind := planted.KubeManifest()
	a.plantedCodes(i, where, kind, kind.Extract(text), dir{}, "", false)
}

// kubeOverrides notes the pods of kubectl run --overrides=JSON, judged after the walk
// (flow.go): the JSON is the pod's object, merged over what the other options say. One
// computed at run time could make the pod anything.
func kubeOverrides(cmd *call.Command, m *cmdMeta, v *view) {
	if v.name != "kubectl" && v.name != "oc" || len(v.ops) == 0 || v.ops[0] != "run" {
		return
	}
	for _, o := range optionValues(v, "overrides") {
		if o.dynamic {
			cmd.Findings = appendFinding(cmd.Findings, findOpaque, v.name+" run --overrides with a pod spec known only at run time")
			cmd.Opaque = true
			continue
		}
		var pod map[string]any
		if json.Unmarshal([]byte(o.lit), &pod) != nil {
			continue // kubectl refuses it
		}
		pod["kind"] = "Pod"
		if _, named := pod["metadata"]; !named && len(v.ops) > 1 {
			pod["metadata"] = map[string]any{"name": v.ops[1]}
		}
		text, err := json.Marshal(pod)
		if err != nil {
			continue
		}
		m.kubePods = append(m.kubePods, string(text))
	}
}
