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

// Lineage cannot be read where there is no /proc: callers that rely on it refuse.
func Lineage(pid int) ([]Process, error) {
	return nil, errors.New("the process tree cannot be read on this system")
}
