//go:build unix && !darwin

package dirs

// ManagedDir is the system directory of the managed configuration.
const ManagedDir = "/etc/moat"
