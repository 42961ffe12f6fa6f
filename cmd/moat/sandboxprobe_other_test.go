//go:build !linux

package main

import (
	"fmt"
	"os"
)

// runSandboxProbe exists only for the Linux sandbox tests (launch_linux_test.go).
func runSandboxProbe() {
	fmt.Println("sandbox-probe: only on Linux")
	os.Exit(2)
}

// runNoLandlock exists only for the Linux sandbox tests (nolandlock_linux_test.go).
func runNoLandlock() {
	fmt.Println("no-landlock: only on Linux")
	os.Exit(2)
}
