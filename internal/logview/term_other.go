//go:build !unix

package logview

// terminalWidth reports no terminal: moat's colours are ANSI escapes, which a Windows
// console shows only in virtual-terminal mode, so there moat prints plain text, which is
// always safe.
func terminalWidth(uintptr) (int, bool) { return 0, false }
