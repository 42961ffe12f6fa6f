//go:build !linux

package sandbox

func mptcpFilterable() bool { return false }
