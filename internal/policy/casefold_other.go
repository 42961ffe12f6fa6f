//go:build !darwin && !windows

package policy

// caseInsensitiveFS is set where the default file system ignores case.
const caseInsensitiveFS = false
