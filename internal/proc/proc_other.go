//go:build !linux

package proc

// Ancestors returns nothing where there is no /proc to read: callers then know only what
// the environment says.
func Ancestors(n int) []Info { return nil }

// AncestorsOf returns nothing, as Ancestors.
func AncestorsOf(pid, n int) []Info { return nil }
