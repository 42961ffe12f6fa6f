//go:build !unix

package doctor

import "io/fs"

// owner reports no owner where files have no unix owner.
func owner(fs.FileInfo) (int, bool) { return 0, false }
