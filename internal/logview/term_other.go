//go:build !unix

package logview

// terminalWidth reports no terminal: without one moat prints plain text, which is always
// safe.
func terminalWidth(uintptr) (int, bool) { return 0, false }
