package pathset

import (
	"path"

	"github.com/moatdev/moat/internal/glob"
)

// withoutHome takes the user's home out of a set that would otherwise hold it whole: the
// home is the user's own even where the system keeps homes of its own (root's /root,
// /var/lib/jenkins for a service account), so `mkdir -p ~/projects/x` run as root is no
// change to system files. A set that names paths inside the home (~/.ssh/id_*) keeps
// them: only a pattern that matches any entry of the home claims it whole.
func withoutHome(r Resolved, home string, globs *glob.Memo) Resolved {
	if home == "" || home == "/" || !path.IsAbs(home) {
		return r
	}
	home = path.Clean(home)
	for _, p := range r.Include {
		g, err := globs.CompilePath(p, glob.Options{})
		// An entry whose name no pattern spells stands for whatever the home holds.
		if err != nil || !g.Match(path.Join(home, "\x00entry")) {
			continue
		}
		r.Exclude = append(r.Exclude, home, path.Join(home, "**"))
		return r
	}
	return r
}
