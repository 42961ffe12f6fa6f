package shell

import (
	"net/netip"
	"strings"
)

// loopback reports whether a host names this machine, whatever the spelling: localhost
// and its subdomains (app.localhost, which resolvers answer locally, RFC 6761), the
// loopback networks 127.0.0.0/8 and ::1 (bracketed or not), and the unspecified
// addresses 0.0.0.0 and ::, which connect to the machine itself.
func loopback(h string) bool {
	h = strings.TrimSuffix(strings.ToLower(h), ".")
	if h == "localhost" || strings.HasSuffix(h, ".localhost") || h == "ip6-localhost" || h == "ip6-loopback" {
		return true
	}
	h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	ip, err := netip.ParseAddr(h)
	if err != nil {
		return false
	}
	return ip.IsLoopback() || ip.IsUnspecified() || ip.Is4In6() && ip.Unmap().IsLoopback()
}

// localNetwork reports whether a host is this machine or on a network of its own: a
// loopback name or address, a private or link-local address (10/8, 172.16/12,
// 192.168/16, fc00::/7, fe80::/10), or a name under a suffix that public DNS does not
// answer (.local, .internal, .lan, .home.arpa, .corp, .intranet), or a name without dots.
func localNetwork(h string) bool {
	if loopback(h) {
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
