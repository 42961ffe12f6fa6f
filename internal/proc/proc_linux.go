package proc

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Ancestors returns the parent of the running process and its parents, nearest first, at
// most n of them (and never more than maxDepth), as /proc shows them. A process that
// cannot be read ends the list: what is returned is what is known.
func Ancestors(n int) []Info {
	return AncestorsOf(os.Getpid(), n)
}

// AncestorsOf is Ancestors for the process pid: its parent and their parents, nearest
// first. The daemon reads the tree of the client that asked it, whose parent is the
// agent; a pid of 0 or less (unknown) has none.
func AncestorsOf(pid, n int) []Info {
	if pid <= 0 {
		return nil
	}
	return ancestors("/proc", pid, min(n, maxDepth))
}

// Executable is the program process pid runs, links resolved, as /proc/PID/exe says; an
// error when the process is gone or not the caller's to read.
func Executable(pid int) (string, error) {
	return os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
}

func ancestors(root string, pid, n int) []Info {
	var out []Info
	for range n {
		ppid, err := parentOf(root, pid)
		if err != nil || ppid <= 1 {
			break
		}
		info, err := read(root, ppid)
		if err != nil {
			break
		}
		out = append(out, info)
		pid = ppid
	}
	return out
}

// parentOf reads the parent's pid from /proc/PID/stat, whose second field (the command
// name, in parentheses) may itself hold spaces and parentheses: the fields that follow
// it start after the last ')'.
func parentOf(root string, pid int) (int, error) {
	data, err := os.ReadFile(fmt.Sprintf("%s/%d/stat", root, pid))
	if err != nil {
		return 0, err
	}
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, fmt.Errorf("%s/%d/stat: no command name", root, pid)
	}
	fields := strings.Fields(string(data[i+1:]))
	if len(fields) < 2 {
		return 0, fmt.Errorf("%s/%d/stat: too short", root, pid)
	}
	return strconv.Atoi(fields[1])
}

func read(root string, pid int) (Info, error) {
	cmdline, err := os.ReadFile(fmt.Sprintf("%s/%d/cmdline", root, pid))
	if err != nil {
		return Info{}, err
	}
	args := strings.Split(strings.TrimSuffix(string(cmdline), "\x00"), "\x00")
	return Info{
		PID:       pid,
		Args:      args,
		StdinTTY:  isTerminal(fmt.Sprintf("%s/%d/fd/0", root, pid)),
		StdoutTTY: isTerminal(fmt.Sprintf("%s/%d/fd/1", root, pid)),
	}, nil
}

// isTerminal reports whether the descriptor link names a terminal device. A descriptor
// that cannot be read counts as no terminal.
func isTerminal(fdLink string) bool {
	target, err := os.Readlink(fdLink)
	if err != nil {
		return false
	}
	return strings.HasPrefix(target, "/dev/pts/") || strings.HasPrefix(target, "/dev/tty") || target == "/dev/console"
}
