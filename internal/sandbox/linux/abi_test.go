package linux

import (
	"errors"
	"runtime"
	"testing"
)

func TestKernelABI(t *testing.T) {
	v, err := KernelABI()
	if err != nil {
		if !errors.Is(err, ErrNoLandlock) {
			t.Fatalf("KernelABI error %v does not wrap ErrNoLandlock", err)
		}
		if v != 0 {
			t.Fatalf("KernelABI = %d with an error", v)
		}
		t.Skipf("no Landlock here (%s): %v", runtime.GOOS, err)
	}
	if v < 1 {
		t.Fatalf("KernelABI = %d without an error", v)
	}
	t.Logf("Landlock ABI %d", v)
}
