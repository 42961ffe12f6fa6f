package shell

import (
	"net/netip"
	"strings"

	"github.com/moatdev/moat/internal/netdest"
)

// localNetwork reports whether a host is this machine or on a network of its own: a
// loopback name or address, a private or link-local address (10/8, 172.16/12,
// 192.168/16, fc00::/7, fe80::/10), or a name under a suffix that public DNS does not
// answer (.local, .internal, .lan, .home.arpa, .corp, .intranet), or a name without dots.
func localNetwork(h string) bool {
	if netdest.Loopback(h) {
		return true
	}
	h = strings.TrimSuffix(strings.ToLower(h), ".")
	if ip, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")); err == nil {
		return ip.IsPrivate() || ip.IsLinkLocalUnicast()
	}
	if h != "" && !strings.Contains(h, ".") {
		return true
	}
	for _, suffix := range []string{".local", ".internal", ".lan", ".home.arpa", ".corp", ".intranet"} {
		if strings.HasSuffix(h, suffix) {
			return true
		}
	}
	return false
}
