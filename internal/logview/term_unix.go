//go:build unix

package logview

import "golang.org/x/sys/unix"

// terminalWidth asks the terminal driver for the window size, which only a terminal has.
func terminalWidth(fd uintptr) (int, bool) {
	ws, err := unix.IoctlGetWinsize(int(fd), unix.TIOCGWINSZ)
	if err != nil {
		return 0, false
	}
	return int(ws.Col), true
}
