package cli

import "github.com/rogpeppe/go-internal/diff"

// fileDiff shows what turns old, named oldName, into new, named newName, as a unified
// diff under headers naming both; it is empty when they are equal. Every diff moat prints
// (setup --dry-run, mcp wrap --dry-run, trust --diff) is made here, so they read alike.
// go-internal's diff is anchored on unique lines and takes time n log n in the lines,
// which matters for ~/.claude.json: it runs to many thousands of them.
func fileDiff(oldName, old, newName, new string) string {
	return string(diff.Diff(oldName, []byte(old), newName, []byte(new)))
}

// proposedDiff is what a dry run would change in file: its text now, and after.
func proposedDiff(file, now, after string) string {
	return fileDiff(file+" (now)", now, file+" (after)", after)
}
