package sandbox

import "strings"

// Access is a set of Landlock file system rights. The values are the kernel's.
type Access uint64

// File system rights, by the Landlock ABI that introduced them.
const (
	Execute    Access = 1 << iota // ABI 1: execute a file
	WriteFile                     // ABI 1: open a file for writing
	ReadFile                      // ABI 1: open a file for reading
	ReadDir                       // ABI 1: list a directory
	RemoveDir                     // ABI 1: remove an empty directory
	RemoveFile                    // ABI 1: unlink a file
	MakeChar                      // ABI 1: create a character device
	MakeDir                       // ABI 1: create a directory
	MakeReg                       // ABI 1: create a regular file
	MakeSock                      // ABI 1: create a unix socket
	MakeFifo                      // ABI 1: create a named pipe
	MakeBlock                     // ABI 1: create a block device
	MakeSym                       // ABI 1: create a symbolic link
	Refer                         // ABI 2: link or rename a file into another directory
	Truncate                      // ABI 3: truncate a file
	IoctlDev                      // ABI 5: ioctl on a device file
)

// Groups of rights that the sandbox grants together.
const (
	// readAccess is what a read grant gives: reading files and listing directories.
	readAccess = ReadFile | ReadDir
	// writeAccess is what a write grant adds. Creating device nodes is never granted: a
	// process with CAP_MKNOD could otherwise make a disk device and read it raw.
	writeAccess = WriteFile | RemoveDir | RemoveFile | MakeDir | MakeReg | MakeSock | MakeFifo | MakeSym | Refer | Truncate
	// execAccess is what an exec grant gives: the kernel opens a program for reading to
	// run it, so executing needs reading the file too (not listing its directory).
	execAccess = Execute | ReadFile
	// fileAccess are the rights that apply to a file (the others apply to directories).
	fileAccess = Execute | WriteFile | ReadFile | Truncate | IoctlDev
	// protectedAccess is what stays possible beneath a protected path.
	protectedAccess = readAccess | Execute
)

// handledAccess returns the rights the kernel of Landlock ABI abi can restrict.
func handledAccess(abi int) Access {
	switch {
	case abi <= 0:
		return 0
	case abi == 1:
		return Refer - 1
	case abi == 2:
		return Truncate - 1
	case abi <= 4:
		return IoctlDev - 1
	}
	return IoctlDev<<1 - 1
}

// accessLetters are the letters String uses, one per right in bit order.
var accessLetters = []struct {
	bit    Access
	letter byte
}{
	{ReadFile, 'r'}, {ReadDir, 'l'}, {Execute, 'x'}, {WriteFile, 'w'}, {Truncate, 't'},
	{MakeReg | MakeDir | MakeSym | MakeSock | MakeFifo, 'c'}, {RemoveFile | RemoveDir, 'd'},
	{Refer, 'm'}, {IoctlDev, 'i'},
}

// AccessLegend explains the letters of Access.String.
const AccessLegend = "r read files, l list directories, x execute, w write files, t truncate, c create, d delete, m move or link between directories, i device ioctl"

// String spells the set as letters in fixed columns ("rlx------"); a column holds its
// letter when any of the rights it stands for is in the set.
func (a Access) String() string {
	var b strings.Builder
	for _, l := range accessLetters {
		if a&l.bit != 0 {
			b.WriteByte(l.letter)
		} else {
			b.WriteByte('-')
		}
	}
	return b.String()
}
