//go:build !moat_nohugeheap

package hugeheap

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

const (
	// chunkSize is the unit in which the Go runtime maps heap memory on 64-bit systems
	// (pallocChunkBytes): the heap a hook uses lies in the chunk of its first allocations.
	chunkSize = 4 << 20
	hugePage  = 2 << 20
)

// Advise marks the heap chunk that holds the process's first allocations for huge pages
// and collapses its first, already touched, huge page.
//
// A moat hook runs once per tool call and allocates a few MiB; each 4 KiB page of that is
// a page fault, which costs 15–25 µs in the virtual machines agents often run in, more
// than the hook's own work. With MADV_HUGEPAGE (honoured when
// /sys/kernel/mm/transparent_hugepage/enabled is "madvise" or "always") the untouched part
// of the chunk is mapped 2 MiB at a time; MADV_COLLAPSE (Linux 6.1 and later) does the same
// for the huge page the runtime and package initialisation have already started to use.
// The advice changes speed, never behaviour, so errors (an older kernel, THP disabled,
// no huge page free) are ignored. The runtime maps memory beyond this chunk afresh, without
// the advice, so a process that grows past it is no worse off than without.
func Advise() { adviseAround(uintptr(unsafe.Pointer(heapObject()))) }

func adviseAround(at uintptr) {
	madvise(at&^(chunkSize-1), chunkSize, unix.MADV_HUGEPAGE)
	madvise(at&^(hugePage-1), hugePage, unix.MADV_COLLAPSE)
}

// heapObject returns a fresh heap allocation: a pointer returned from a function that is
// not inlined escapes, so the object cannot live on the stack.
//
//go:noinline
func heapObject() *[16]byte { return new([16]byte) }

func madvise(addr, length, advice uintptr) {
	// The raw system call takes the address as a number: the range is advice about memory
	// the runtime owns, never a Go object this package dereferences.
	unix.Syscall(unix.SYS_MADVISE, addr, length, advice)
}
