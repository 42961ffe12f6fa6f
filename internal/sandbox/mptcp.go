package sandbox

import (
	"os"
	"strings"
)

// MPTCPEnabled reports whether the running kernel lets programs open multipath TCP
// sockets, which Landlock's port rules do not see.
func MPTCPEnabled() bool {
	data, err := os.ReadFile("/proc/sys/net/mptcp/enabled")
	return err == nil && strings.TrimSpace(string(data)) == "1"
}
