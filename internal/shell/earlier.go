package shell

import (
	"slices"
	"strings"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/netdest"
)

// Cross-call correlation: what a line does with files and secrets is followed within the
// line by dataflow (flow.go). An agent that splits a chain over several tool calls (curl
// -o /tmp/x.sh URL, then sh /tmp/x.sh) breaks no link of it but the line: Earlier carries
// what the session's earlier calls left behind into the analysis of a later line, where
// the same checks read it as if it had happened earlier in the line, and Left is what a
// line leaves behind for the calls after it.

// Earlier is what the earlier calls of an agent's session left behind, as far as a later
// line's analysis reads it. By names the earlier call in evidence ("record 41", "an
// earlier call").
type Earlier struct {
	// Downloaded are the files earlier calls downloaded, by absolute path.
	Downloaded map[string]By
	// Written are the files earlier calls wrote, by absolute path, with their text as
	// far as it is known.
	Written map[string]WrittenBy
	// Secret, when set, is the earlier call that read credentials, and what it read.
	Secret *SecretBy
}

// By names the earlier call that left a fact behind.
type By struct{ Call string }

// WrittenBy is the text an earlier call left in a file.
type WrittenBy struct {
	Text string
	// Known says Text is all of the file; Partial that it is what the call appended to
	// content from before it. Neither: the call wrote text moat could not read.
	Known, Partial bool
	By
}

// SecretBy is the earlier call that read credentials and what it read ("~/.aws/credentials").
type SecretBy struct {
	What string
	By
}

// Left is what a line leaves behind that a later call of the session may complete into
// a chain: the files it downloads, the files it writes (with their text), the
// credentials it reads.
type Left struct {
	Downloads []string
	Written   []Written
	// Secrets are what the line reads that holds credentials: paths, or what the
	// finding says for a secret variable or a credential tool.
	Secrets []string
}

// Written is a file a line writes, and its text as far as the line shows it.
type Written struct {
	Path           string
	Text           string
	Known, Partial bool
}

// Empty reports whether the line leaves nothing behind.
func (l Left) Empty() bool {
	return len(l.Downloads) == 0 && len(l.Written) == 0 && len(l.Secrets) == 0
}

// remembers says whether the analysis follows the session: the agent's own line (not
// code nested in it) analysed with the session's history at hand.
func (a *analyzer) remembers() bool { return a.depth == 0 && a.sh.env.Earlier != nil }

// earlierDownloads are the files downloaded by earlier calls, with the evidence of each.
func (a *analyzer) earlierDownload(p string) (By, bool) {
	if !a.remembers() {
		return By{}, false
	}
	by, ok := a.sh.env.Earlier.Downloaded[p]
	return by, ok
}

// earlierWritten seeds the files a line has written with those earlier calls wrote.
func (a *analyzer) earlierWritten(written map[string]fileText) map[string]fileText {
	if !a.remembers() || len(a.sh.env.Earlier.Written) == 0 {
		return written
	}
	if written == nil {
		written = make(map[string]fileText, len(a.sh.env.Earlier.Written))
	}
	for p, w := range a.sh.env.Earlier.Written {
		written[p] = fileText{text: w.Text, known: w.Known, partial: w.Partial, by: w.Call}
	}
	return written
}

// sendsAfterSecret reports a command that sends data moat cannot read over the network
// to another host after an earlier call of the session read credentials: what the agent
// read is in its context, and data it sends from standard input, a variable, a command
// substitution or a file the session wrote may carry it, as a secret read piped into
// curl does in one line. Data the line spells out is not: moat reads it, and the secret
// scan judges it (a token pasted into -d is found there). A connection that sends
// nothing of its own (a plain GET, a download), a send to this machine, and a push of
// the repository to its remote are not either.
func (a *analyzer) sendsAfterSecret(i int) {
	if !a.remembers() || a.sh.env.Earlier.Secret == nil {
		return
	}
	m := &a.meta[i]
	if m.nested || m.pushes && m.pushesOut == "" || !a.sendsUnread(i) {
		return
	}
	c := &a.cmds[i]
	var hosts []string
	for _, n := range c.Net {
		// Both ways (nc, ssh): data goes out when the command is given some.
		out := n.Direction == call.Outbound || n.Direction == call.Both && (m.piped || m.ownStdin)
		if !out || n.Host != "" && netdest.Loopback(n.Host) {
			continue
		}
		hosts = append(hosts, cmpHost(n.Host))
	}
	if len(hosts) == 0 {
		return
	}
	s := a.sh.env.Earlier.Secret
	*c = withFinding(*c, findExfiltration, "sends data to "+strings.Join(hosts, ", ")+" after "+s.Call+" read "+s.What)
}

// sendsUnread reports whether the command at i sends data whose text the line does not
// show: its standard input, words computed at run time, or files the session wrote.
func (a *analyzer) sendsUnread(i int) bool {
	m := &a.meta[i]
	if m.netSink || m.opaqueUpload {
		return true
	}
	if (m.sendsArgs || m.netArgs) && (len(m.substs) > 0 || len(m.viaVar) > 0 || len(m.secretWords) > 0 ||
		slices.ContainsFunc(a.cmds[i].Args, func(w string) bool { return strings.Contains(w, "$") })) {
		return true
	}
	for _, p := range m.uploads {
		if _, ok := a.sh.env.Earlier.Written[p]; ok || a.tainted[p] != 0 {
			return true
		}
	}
	return false
}

func cmpHost(h string) string {
	if h == "" {
		return "a host known only at run time"
	}
	return h
}

// left computes what the line leaves behind, from the top-level commands and the files
// writtenCode followed.
func (a *analyzer) left(got []string, written map[string]fileText, order []string) Left {
	var l Left
	l.Downloads = got
	for _, p := range order {
		t, ok := written[p]
		if !ok {
			continue // replaced later in the line by a copy of a project or system file
		}
		l.Written = append(l.Written, Written{Path: p, Text: t.text, Known: t.known, Partial: t.partial})
	}
	for i := range a.cmds {
		if a.meta[i].nested {
			continue
		}
		if what, ok := a.readsSecret(i); ok && !slices.Contains(l.Secrets, what) {
			l.Secrets = append(l.Secrets, what)
		}
	}
	return l
}

// readsSecret says whether the command at i reads credentials, and what: a file that
// holds them, or what a credentials finding of the command names.
func (a *analyzer) readsSecret(i int) (string, bool) {
	c := &a.cmds[i]
	for _, acc := range c.Accesses {
		if acc.Kind == call.Read && a.sh.env.Sensitive != nil && a.sh.env.Sensitive(acc) {
			return acc.Path, true
		}
	}
	for _, f := range c.Findings {
		if strings.HasPrefix(f.ID, "credentials.") {
			return f.Evidence, true
		}
	}
	if a.meta[i].secretRead {
		return "a file that holds credentials", true
	}
	return "", false
}

// prefixEvidence prefixes the evidence of the findings of the commands from first on.
func (a *analyzer) prefixEvidence(first int, prefix string) {
	for k := first; k < len(a.cmds); k++ {
		fs := a.cmds[k].Findings
		for j := range fs {
			fs[j].Evidence = prefix + fs[j].Evidence
		}
	}
}
