//go:build !linux

package proc

import "errors"

// Ancestors returns nothing where there is no /proc to read: callers then know only what
// the environment says.
func Ancestors(n int) []Info { return nil }

// AncestorsOf returns nothing, as Ancestors.
func AncestorsOf(pid, n int) []Info { return nil }

// Executable is unknown where there is no /proc to read.
func Executable(pid int) (string, error) {
	return "", errors.New("the program a process runs is not known on this system")
}
