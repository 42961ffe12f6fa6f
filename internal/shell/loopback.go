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
