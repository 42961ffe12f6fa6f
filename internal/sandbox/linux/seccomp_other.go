//go:build !linux

package linux

// MPTCPFilterable reports that moat has no seccomp filter off Linux.
func MPTCPFilterable() bool { return false }
