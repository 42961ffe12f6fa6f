package proc

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// maxLineage bounds the walk from a process up to init: deeper trees are refused.
const maxLineage = 128

// Lineage returns process pid and all its ancestors up to (not including) init, nearest
// first, each with its controlling terminal and owner. Unlike Ancestors, a process that
// cannot be read is an error: whoever relies on the whole line (the approval commands,
// which refuse a process started by an agent) must not take a gap for its end.
func Lineage(pid int) ([]Process, error) {
	return lineage("/proc", pid)
}

func lineage(root string, pid int) ([]Process, error) {
	var out []Process
	for pid > 1 {
		if len(out) == maxLineage {
			return nil, fmt.Errorf("process %d: more than %d ancestors", out[0].PID, maxLineage)
		}
		p, err := readProcess(root, pid)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
		pid = p.PPID
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("process %d: not a process that can be read", pid)
	}
	return out, nil
}

func readProcess(root string, pid int) (Process, error) {
	info, err := read(root, pid)
	if err != nil {
		return Process{}, fmt.Errorf("reading process %d: %w", pid, err)
	}
	stat, err := os.ReadFile(fmt.Sprintf("%s/%d/stat", root, pid))
	if err != nil {
		return Process{}, fmt.Errorf("reading process %d: %w", pid, err)
	}
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return Process{}, fmt.Errorf("%s/%d/stat: no command name", root, pid)
	}
	// After the name: state ppid pgrp session tty_nr …
	fields := strings.Fields(string(stat[i+1:]))
	if len(fields) < 5 {
		return Process{}, fmt.Errorf("%s/%d/stat: too short", root, pid)
	}
	ppid, err := strconv.Atoi(fields[1])
	if err != nil {
		return Process{}, fmt.Errorf("%s/%d/stat: parent: %w", root, pid, err)
	}
	tty, err := strconv.ParseUint(fields[4], 10, 32)
	if err != nil {
		return Process{}, fmt.Errorf("%s/%d/stat: terminal: %w", root, pid, err)
	}
	fi, err := os.Stat(fmt.Sprintf("%s/%d", root, pid))
	if err != nil {
		return Process{}, fmt.Errorf("reading process %d: %w", pid, err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return Process{}, errors.New("reading process owner: no stat")
	}
	return Process{Info: info, PPID: ppid, UID: int(st.Uid), Terminal: terminalName(uint32(tty))}, nil
}

// terminalName names the device of a tty_nr: "" for none, /dev/pts/N for a
// pseudo-terminal, /dev/ttyN for a console.
func terminalName(nr uint32) string {
	if nr == 0 {
		return ""
	}
	major := (nr >> 8) & 0xfff
	minor := (nr & 0xff) | ((nr >> 12) & 0xfff00)
	switch {
	case major >= 136 && major <= 143:
		return fmt.Sprintf("/dev/pts/%d", (major-136)*256+minor)
	case major == 4 && minor < 64:
		return fmt.Sprintf("/dev/tty%d", minor)
	}
	return fmt.Sprintf("tty(%d:%d)", major, minor)
}
