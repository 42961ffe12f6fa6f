package decide

import "github.com/moatdev/moat/internal/policy/source"

// ProjectRoot is the project a call in cwd belongs to when the agent names none: the
// nearest directory at or above cwd holding a .git entry, or "" outside any repository
// (the call's own directory then stands for its project). Every entry point resolves a
// call's project through it.
func ProjectRoot(cwd string) string { return source.RepoRoot(cwd) }

// projectOf is the project of a call in cwd of a session whose project is session ("":
// none named). The repository is looked for only when the session names no project
// (cmp.Or would look for it first, a few stat calls per call, and then drop it).
func projectOf(session, cwd string) string {
	if session != "" {
		return session
	}
	return ProjectRoot(cwd)
}
