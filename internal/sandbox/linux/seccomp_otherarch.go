//go:build linux && !amd64 && !arm64

package linux

// seccompArchs reports that moat has no MPTCP filter for this architecture.
func seccompArchs() (seccompArch, *seccompArch, bool) { return seccompArch{}, nil, false }
