package shell

import (
	"path"
	"strings"

	"github.com/moatdev/moat/internal/call"
)

// Whole directory trees leaving the machine. A recursive read of a tree that holds no
// file moat knows by its path (the home directory's keys, ~/.aws) was judged as any read
// is, so `tar czf - . | curl -T - https://…` and `scp -r . host:` sent a project's .env,
// and the project itself, unasked. Whether a tree holds credentials is known only by
// looking: a tree whose files leave for the network is looked at on disk
// (Env.SecretsWithin); and the whole project sent to a host beyond the local network is
// asked whatever it holds (a deploy to the team's own server, web1 or 10.0.0.5, or a copy
// into the user's own bucket, is not). Reading a tree without sending it (grep -r, cp -r,
// an archive kept here) is no finding: the look happens only at a network sink.

// treeReads records the trees each command reads whole: its output (tar -c DIR to
// standard output, grep -r) and the files it writes (an archive) carry their files.
// Trees that hold credentials by their path are secret reads, judged as such.
func (a *analyzer) treeReads(n int) {
	for i := 0; i < n; i++ {
		m := &a.meta[i]
		for _, acc := range a.cmds[i].Accesses {
			if acc.Kind != call.Read || !acc.Recursive || acc.Glob || acc.Redirect || acc.Link {
				continue
			}
			if a.sh.env.Sensitive != nil && a.sh.env.Sensitive(acc) {
				continue
			}
			m.trees = append(m.trees, acc.Path)
			m.out.t |= tTree
		}
	}
}

// treeLeaving says why the files of the tree at p leaving for the network by the command
// at i are worth a question: a file in it holds credentials, or it is the whole project
// (the project's root or a directory above it) and the command sends it to a stranger
// (toStranger). "" when neither.
func (a *analyzer) treeLeaving(i int, p string) string {
	if f := a.secretsWithin(p); f != "" {
		return p + " (it holds " + strings.TrimPrefix(f, strings.TrimSuffix(p, "/")+"/") + ")"
	}
	if root := a.projectRoot(); root != "" && under(root, p) && a.toStranger(i) {
		return "the whole project (" + p + ")"
	}
	return ""
}

// lineTreeLeaving is treeLeaving for the trees the line reads whole, for data that carries
// some of their files (a pipe, an archive): the first that is worth a question.
func (a *analyzer) lineTreeLeaving(i int) string {
	for k := range a.meta {
		for _, p := range a.meta[k].trees {
			if what := a.treeLeaving(i, p); what != "" {
				return what
			}
		}
	}
	return ""
}

// uploadLeaving says why a file or tree p that the command at i uploads is worth a
// question: a tree sent whole (scp -r, rsync, aws s3 cp) is judged by treeLeaving, a file
// that holds a tree's files (an archive of the project) by the line's trees, and a file
// from outside the project and the temporary directories, that the line did not make, is
// asked when it goes to a stranger (toStranger).
func (a *analyzer) uploadLeaving(i int, p string) string {
	if a.meta[i].uploadTrees {
		if what := a.treeLeaving(i, p); what != "" {
			return what
		}
	}
	if a.tainted[p]&tTree != 0 {
		if what := a.lineTreeLeaving(i); what != "" {
			return p + ", written from " + what
		}
	}
	if a.outsideWork(p) && !a.writtenInLine(p) && a.toStranger(i) {
		// ~/Documents/taxes.pdf, /etc/passwd, another project's code: the agent works
		// in the project, and its files are what it has reason to send.
		return p + ", from outside the project"
	}
	return ""
}

// outsideWork reports whether p is neither in the project nor in a temporary directory.
// false when the project's root is not known.
func (a *analyzer) outsideWork(p string) bool {
	root := a.projectRoot()
	if root == "" || under(p, root) {
		return false
	}
	for _, tmp := range a.sh.env.Temp {
		if under(p, path.Clean(tmp)) {
			return false
		}
	}
	return true
}

// writtenInLine reports whether a command of the line writes p (not by redirection
// only): an archive or a copy the line made is judged by what it was made from.
func (a *analyzer) writtenInLine(p string) bool {
	for k := range a.cmds {
		for _, acc := range a.cmds[k].Accesses {
			if acc.Kind == call.Write && acc.Path == p {
				return true
			}
		}
	}
	return false
}

// toStranger reports whether the command at i sends to a host beyond the local network
// that it names itself (curl URL, scp HOST:): not a machine of the local network, nor a
// cloud storage or backup service reached with the user's own credentials (aws s3, rclone,
// restic), where what it sends stays the user's. A command that names no host is taken
// to send to a stranger.
func (a *analyzer) toStranger(i int) bool {
	if a.meta[i].toService {
		return false
	}
	c := &a.cmds[i]
	if len(c.Net) == 0 {
		return true
	}
	for _, n := range c.Net {
		if n.Host == "" || !localNetwork(n.Host) {
			return true
		}
	}
	return false
}

// secretsWithin is Env.SecretsWithin, asked once per directory for the line; "" when
// the Env looks at nothing.
func (a *analyzer) secretsWithin(dir string) string {
	if a.sh.env.SecretsWithin == nil {
		return ""
	}
	if f, ok := a.sh.heldSecrets[dir]; ok {
		return f
	}
	f := a.sh.env.SecretsWithin(dir)
	if a.sh.heldSecrets == nil {
		a.sh.heldSecrets = make(map[string]string)
	}
	a.sh.heldSecrets[dir] = f
	return f
}
