package logview

import "io"

// Terminal reports whether w is a terminal, and its width in columns when it says.
func Terminal(w io.Writer) (width int, ok bool) {
	f, isFile := w.(interface{ Fd() uintptr })
	if !isFile {
		return 0, false
	}
	return terminalWidth(f.Fd())
}
