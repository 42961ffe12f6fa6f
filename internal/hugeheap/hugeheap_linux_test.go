//go:build !moat_nohugeheap

package hugeheap

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
	"unsafe"
)

// TestAdviseMarksTheHeapChunk checks that the heap mapping holding a fresh allocation is
// advised for huge pages afterwards ("hg" in its VmFlags), which is what makes the kernel
// map it 2 MiB at a time.
func TestAdviseMarksTheHeapChunk(t *testing.T) {
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil {
		t.Skipf("this kernel has no transparent huge pages: %v", err)
	}
	p := heapObject()
	at := uintptr(unsafe.Pointer(p))
	adviseAround(at)
	flags, err := vmFlags(at)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(" "+flags+" ", " hg ") {
		t.Errorf("the mapping holding the heap object %#x has VmFlags %q, without hg (huge pages advised)", at, flags)
	}
	Advise() // and the exported form runs without harm
}

// vmFlags returns the VmFlags line of the mapping of /proc/self/smaps that holds addr.
func vmFlags(addr uintptr) (string, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return "", err
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x ", &lo, &hi); n == 2 {
			in = lo <= addr && addr < hi
			continue
		}
		if rest, ok := strings.CutPrefix(line, "VmFlags:"); ok && in {
			return strings.TrimSpace(rest), nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", fmt.Errorf("no mapping in /proc/self/smaps holds %#x", addr)
}
