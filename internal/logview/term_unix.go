//go:build unix

package logview

import "golang.org/x/term"

// terminalWidth asks the terminal driver for the window size, which only a terminal has.
func terminalWidth(fd uintptr) (int, bool) {
	width, _, err := term.GetSize(int(fd))
	if err != nil {
		return 0, false
	}
	return width, true
}
