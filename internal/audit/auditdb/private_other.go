//go:build !unix

package auditdb

import "io/fs"

// notPrivate has nothing to check where permissions are not unix modes: the state
// directory is in the user's profile.
func notPrivate(fs.FileInfo, bool) string { return "" }
