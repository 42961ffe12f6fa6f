//go:build !unix && !windows

package dirs

// ManagedDir is empty where moat knows no system directory: no managed layer.
const ManagedDir = ""
