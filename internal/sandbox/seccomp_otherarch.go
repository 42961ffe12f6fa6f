//go:build linux && !amd64 && !arm64

package sandbox

// seccompArchs reports that moat has no MPTCP filter for this architecture.
func seccompArchs() (seccompArch, *seccompArch, bool) { return seccompArch{}, nil, false }
