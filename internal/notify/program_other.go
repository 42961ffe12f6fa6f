//go:build !linux && !darwin

package notify

// program is empty: moat knows no notification program here, and New says so.
const program = ""

func args(title, body string) []string { return nil }
