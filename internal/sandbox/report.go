package sandbox

import (
	"fmt"
	"io"
	"strings"
)

// WriteReport prints the plan as `moat launch --dry-run` shows it: every Landlock rule,
// every path skipped or left out and why, and every feature that is or is not enforced.
func (p *Plan) WriteReport(w io.Writer) {
	s := p.Section
	fmt.Fprintf(w, "sandbox: %s\n", s.From)
	if len(s.Profiles) > 0 {
		fmt.Fprintf(w, "profiles: %s\n", strings.Join(s.Profiles, ", "))
	}
	if p.ABI == 0 {
		fmt.Fprintf(w, "landlock: NOT AVAILABLE: nothing below is enforced except the resource limits and the environment\n")
	} else {
		fmt.Fprintf(w, "landlock: ABI %d\n", p.ABI)
	}

	fmt.Fprintf(w, "\nfile system rules (%d): %s\n", len(p.Rules), AccessLegend)
	for _, r := range p.Rules {
		fmt.Fprintf(w, "  %s  %s  [%s]\n", (r.Access & p.handledOr()).String(), r.Path, strings.Join(r.Why, "; "))
	}
	fmt.Fprintf(w, "  everything else: no access\n")
	for _, kind := range []NoteKind{NoteDenied, NoteProtected, NoteLog, NoteAbsent, NoteUnaffected, NoteClosed, NoteAnywhere, NoteMissing, NoteState, NoteUnsupported, NoteCaveat} {
		var lines []string
		for _, n := range p.Notes {
			if n.Kind != kind {
				continue
			}
			line := n.Pattern
			if n.Origin != "" {
				line += "  (" + n.Origin + ")"
			}
			if n.Detail != "" {
				if line != "" {
					line += ": "
				}
				line += n.Detail
			}
			lines = append(lines, line)
		}
		if len(lines) == 0 {
			continue
		}
		fmt.Fprintf(w, "%s:\n", noteTitles[kind])
		for _, l := range lines {
			fmt.Fprintf(w, "  %s\n", l)
		}
	}

	fmt.Fprintf(w, "\nnetwork (TCP ports; Landlock does not see hosts):\n")
	net := func(name string, ports []uint16) {
		switch {
		case ports == nil:
			fmt.Fprintf(w, "  %s: any port (not restricted)\n", name)
		case !p.NetEnforced:
			fmt.Fprintf(w, "  %s: %s: NOT ENFORCED (needs Landlock ABI 4)\n", name, portList(ports))
		default:
			fmt.Fprintf(w, "  %s: %s\n", name, portList(ports))
		}
	}
	net("connect", p.Connect)
	net("bind", p.Bind)
	switch {
	case p.RefuseMPTCP:
		fmt.Fprintf(w, "  multipath TCP sockets, which Landlock does not see: refused (seccomp), so programs use plain TCP\n")
	case p.NetEnforced && (p.Connect != nil || p.Bind != nil) && MPTCPEnabled():
		fmt.Fprintf(w, "  note: multipath TCP is enabled on this kernel, Landlock does not see MPTCP sockets, and moat has no filter for this architecture: a program that opens one is not held to these ports\n")
	}
	fmt.Fprintf(w, "  UDP and pathname unix sockets: not restricted\n")

	fmt.Fprintf(w, "\nscopes:\n")
	scope := func(name string, want, enforced bool) {
		switch {
		case !want:
			fmt.Fprintf(w, "  %s: not scoped (the policy says so)\n", name)
		case enforced:
			fmt.Fprintf(w, "  %s: only within the sandbox\n", name)
		default:
			fmt.Fprintf(w, "  %s: NOT ENFORCED (needs Landlock ABI 6)\n", name)
		}
	}
	scope("abstract unix sockets", s.Scope.AbstractUnixSockets, p.ScopeSockets)
	scope("signals", s.Scope.Signals, p.ScopeSignals)

	fmt.Fprintf(w, "\nlimits:\n")
	if len(p.Limits) == 0 {
		fmt.Fprintf(w, "  none\n")
	}
	for _, l := range p.Limits {
		fmt.Fprintf(w, "  %s: %d (%s)\n", l.Name, l.Value, l.Detail)
	}

	fmt.Fprintf(w, "\nenvironment:\n")
	if len(p.Dropped) == 0 {
		fmt.Fprintf(w, "  nothing dropped\n")
	} else {
		fmt.Fprintf(w, "  dropped: %s\n", strings.Join(p.Dropped, ", "))
	}
	for _, kv := range p.Env {
		if strings.HasPrefix(kv, "MOAT_") {
			fmt.Fprintf(w, "  set: %s\n", kv)
		}
	}
	for _, kv := range p.Set {
		fmt.Fprintf(w, "  set: %s (the section's env.set; a value in the environment wins)\n", kv)
	}
}

// handledOr returns the rights shown for rules: the handled ones, or all when Landlock
// is missing (the report then shows what would have been granted).
func (p *Plan) handledOr() Access {
	if p.Handled == 0 {
		return handledAccess(5)
	}
	return p.Handled
}

var noteTitles = map[NoteKind]string{
	NoteDenied:      "denied (carved out of the grants above: no rule reaches them)",
	NoteProtected:   "protected (read-only within the grants above)",
	NoteLog:         "writable within the protected paths, for moat's own records",
	NoteUnaffected:  "denied or protected, with nothing to take away (no grant gives more there)",
	NoteClosed:      "denied or protected, and already closed to you by the file permissions (not carved)",
	NoteAnywhere:    "not expressible with Landlock (patterns that match in any directory; the hooks still judge them)",
	NoteMissing:     "skipped (nothing exists there)",
	NoteUnsupported: "not enforced on this kernel",
	NoteState:       "the agent's state, created by the launch before the rules apply (rules reach only what exists)",
	NoteAbsent:      "protected but NOT protected here: missing, in a directory a process inside may create entries in",
	NoteCaveat:      "what the agent does that this sandbox cannot allow (its profile says so)",
}

func portList(ports []uint16) string {
	if len(ports) == 0 {
		return "none"
	}
	var b strings.Builder
	for i := 0; i < len(ports); {
		j := i
		for j+1 < len(ports) && ports[j+1] == ports[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		if j > i {
			fmt.Fprintf(&b, "%d-%d", ports[i], ports[j])
		} else {
			fmt.Fprintf(&b, "%d", ports[i])
		}
		i = j + 1
	}
	return b.String()
}
