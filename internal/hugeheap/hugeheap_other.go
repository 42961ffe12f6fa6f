//go:build !linux || moat_nohugeheap

package hugeheap

// Advise does nothing where the kernel has no transparent huge pages to ask for.
func Advise() {}
