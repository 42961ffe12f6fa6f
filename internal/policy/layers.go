package policy

import (
	"errors"
	"fmt"
	"slices"
)

// LayerManaged is the Kind of the managed layer: the policy an administrator installs in
// the system directory, above every policy of the user's.
const LayerManaged = "managed"

// Layer is one policy among those that decide together, named by where it came from
// ("managed", "project", "user", "flag", "env", "embedded").
type Layer struct {
	Kind   string
	Policy *Policy
}

// settingKeys are the top-level keys that are settings rather than rules: each comes from
// one layer. The managed layer locks every setting it writes.
var settingKeys = []string{"default", "fail", "hooks", "approvals", "output", "mcp", "workspace", "sandbox"}

// Override is a key that a layer writes and that does not take effect: a setting the
// managed layer locks, or forbid_allow outside the managed layer. Combine reports each,
// so that validate and doctor can say so rather than ignore it silently.
type Override struct {
	Key   string
	Layer string // the Kind of the layer whose key is overridden
	File  string // that layer's policy source
	Line  int
	By    string // the managed policy's source, or "" for forbid_allow
}

func (o Override) String() string {
	if o.Key == "forbid_allow" {
		return fmt.Sprintf("%s:%d: forbid_allow has effect only in the managed policy; in the %s policy it is ignored", o.File, o.Line, o.Layer)
	}
	return fmt.Sprintf("%s:%d: %s is locked by the managed policy %s; the %s policy's setting is ignored", o.File, o.Line, o.Key, o.By, o.Layer)
}

// Combine makes one policy of layers, highest first: the managed layer (when there is
// one, Kind LayerManaged) and then the user's policies in order of precedence (the
// project's before the user's; a --policy or MOAT_POLICY file alone; the embedded one
// when the user has none). The first of the user's policies is the primary one.
//
// Rules: each layer is evaluated on its own (see the engine); a layer where no rule
// matched abstains, and of the layers that decided, the most restrictive decision wins,
// the higher layer on a tie. So a lower layer can add a restriction but never loosen a
// managed deny or ask. When every layer abstains, the default applies. The calls that the
// managed layer's forbid_allow matches cannot be allowed by a lower layer (rule or
// default): they are asked about instead.
//
// Settings: each setting (default, fail, hooks, approvals, output, mcp, workspace,
// sandbox) comes from the first layer that writes it, the managed layer first; so a
// setting the managed layer writes is locked, and a lower layer's attempt to set it is
// reported as an Override. A setting nobody writes has the primary policy's value (the
// built-in default). Wrappers and packs add up.
//
// With a single policy and no managed layer, Combine returns that policy unchanged.
func Combine(layers []Layer) (*Policy, []Override, error) {
	var managed *Layer
	lower := layers
	if len(layers) > 0 && layers[0].Kind == LayerManaged {
		managed, lower = &layers[0], layers[1:]
	}
	if len(lower) == 0 {
		return nil, nil, errors.New("combining policies: no policy below the managed one")
	}
	for _, l := range layers {
		if l.Policy == nil {
			return nil, nil, fmt.Errorf("combining policies: the %s layer has no policy", l.Kind)
		}
		if len(l.Policy.Layers) > 0 {
			return nil, nil, fmt.Errorf("combining policies: the %s layer is itself combined", l.Kind)
		}
	}
	if managed == nil && len(lower) == 1 {
		return lower[0].Policy, nil, nil
	}
	primary := lower[0].Policy
	c := &Policy{
		Source: primary.Source, Default: primary.Default, Fail: primary.Fail, Hooks: primary.Hooks,
		Approvals: primary.Approvals, Output: primary.Output, MCP: primary.MCP,
		Workspace: primary.Workspace, Sandbox: primary.Sandbox, Tests: primary.Tests,
		Keys: map[string]int{}, Layers: slices.Clone(layers),
	}
	var overrides []Override
	for _, key := range settingKeys {
		var from *Policy
		for _, l := range layers {
			if _, ok := l.Policy.Keys[key]; ok {
				from = l.Policy
				break
			}
		}
		if from == nil {
			continue
		}
		c.Keys[key] = from.Keys[key]
		c.set(key, from)
		if managed == nil || from != managed.Policy {
			continue
		}
		for _, l := range lower {
			if line, ok := l.Policy.Keys[key]; ok {
				overrides = append(overrides, Override{Key: key, Layer: l.Kind, File: l.Policy.Source, Line: line, By: managed.Policy.Source})
			}
		}
	}
	for _, l := range lower {
		if line, ok := l.Policy.Keys["forbid_allow"]; ok {
			overrides = append(overrides, Override{Key: "forbid_allow", Layer: l.Kind, File: l.Policy.Source, Line: line})
		}
	}
	// Wrappers declared anywhere shape the shell analysis of every layer; the managed
	// layer's come last so that its declaration of a name is the one kept.
	for i := len(layers) - 1; i >= 0; i-- {
		p := layers[i].Policy
		c.Wrappers = append(c.Wrappers, p.Wrappers...)
		c.Included = append(c.Included, p.Included...)
	}
	for _, l := range layers {
		c.Rules = append(c.Rules, l.Policy.Rules...)
		for _, name := range l.Policy.Packs {
			if !slices.Contains(c.Packs, name) {
				c.Packs = append(c.Packs, name)
			}
		}
	}
	if managed != nil {
		c.ForbidAllow = managed.Policy.ForbidAllow
	}
	c.byClass = index(c.Rules)
	return c, overrides, nil
}

// set copies the setting key from p.
func (c *Policy) set(key string, p *Policy) {
	switch key {
	case "default":
		c.Default = p.Default
	case "fail":
		c.Fail = p.Fail
	case "hooks":
		c.Hooks = p.Hooks
	case "approvals":
		c.Approvals = p.Approvals
	case "output":
		c.Output = p.Output
	case "mcp":
		c.MCP = p.MCP
	case "workspace":
		c.Workspace = p.Workspace
	case "sandbox":
		c.Sandbox = p.Sandbox
	}
}

// Managed returns the managed layer's policy, or nil when there is none.
func (c *Policy) Managed() *Policy {
	if len(c.Layers) > 0 && c.Layers[0].Kind == LayerManaged {
		return c.Layers[0].Policy
	}
	return nil
}
