package call

import "fmt"

// UnmarshalText decodes an access kind by name, as MarshalText writes it: a trace
// crosses the daemon's socket as JSON and comes back the same.
func (k *AccessKind) UnmarshalText(b []byte) error {
	p, ok := ParseAccessKind(string(b))
	if !ok {
		return fmt.Errorf("unknown access kind %q", b)
	}
	*k = p
	return nil
}
