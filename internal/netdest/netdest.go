// Package netdest tells where a URL leads from its text: which hosts the URL readers of
// agents' tools take it to name, and whether one of them is a cloud metadata service,
// whatever spelling of its address is used.
package netdest

import (
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// URL is what the text of a URL says about where it leads.
type URL struct {
	// Scheme is the URL's scheme in lower case, "" when the text has none (a bare host
	// and path, which fetch tools read as https).
	Scheme string
	// Hosts are the hosts the URL names, as each reader of URLs takes it: Go's net/url,
	// the WHATWG URL standard (browsers, Node's fetch, which agents' web tools use), and,
	// for text without a scheme, the reading of the tools that put https:// before it.
	// They disagree on backslashes, stray characters and text without a scheme, so a
	// URL that one reader takes to another host than the other has both. Each host is as
	// written, without brackets or port.
	Hosts []string
}

// ParseURL reads raw as the URL readers of fetch tools do and returns its scheme and
// every host one of them takes it to name. It never fails: text that no reader takes
// for a URL with a host has no hosts.
func ParseURL(raw string) URL {
	var u URL
	add := func(h string) {
		if h != "" && !slices.Contains(u.Hosts, h) {
			u.Hosts = append(u.Hosts, h)
		}
	}
	clean := whatwgClean(raw)
	scheme, rest, hasScheme := splitScheme(clean)
	if hasScheme && !strings.Contains(clean, "://") && looksLikeHostPort(clean) {
		// What reads as a scheme is a host and port (localhost:3000/x): the fetch tools
		// that accept such text put https:// before it.
		hasScheme = false
	}
	if hasScheme {
		u.Scheme = scheme
	}
	if p, err := url.Parse(strings.TrimSpace(raw)); err == nil {
		add(p.Hostname())
	}
	switch {
	case scheme == "file":
		// file://host/path; file:///path and file:/path name no host.
		if r := strings.ReplaceAll(rest, `\`, "/"); strings.HasPrefix(r, "//") {
			add(authorityHost(r[2:], true))
		}
	case hasScheme && isSpecial(scheme):
		// A special scheme's authority starts after any run of slashes and backslashes:
		// http:\\h, http:/h and http:///h all name h.
		add(authorityHost(strings.TrimLeft(rest, `/\`), true))
	case hasScheme && strings.HasPrefix(rest, "//"):
		add(authorityHost(rest[2:], false))
	case !hasScheme:
		// A bare host and path (169.254.169.254/latest, //host/x), as the fetch tools
		// that put https:// before it read it.
		add(authorityHost(strings.TrimLeft(clean, `/\`), true))
	}
	return u
}

// whatwgClean removes what the WHATWG URL parser removes before it reads a URL: leading
// and trailing C0 controls and spaces, and every tab and newline.
func whatwgClean(s string) string {
	s = strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
	if strings.ContainsAny(s, "\t\n\r") {
		s = strings.Map(func(r rune) rune {
			if r == '\t' || r == '\n' || r == '\r' {
				return -1
			}
			return r
		}, s)
	}
	return s
}

// splitScheme splits a URL at the colon that ends its scheme: a letter, then letters,
// digits, +, - and ., as the standard has it. The scheme is returned in lower case.
func splitScheme(s string) (scheme, rest string, ok bool) {
	i := strings.IndexByte(s, ':')
	if i <= 0 || !isLetter(s[0]) {
		return "", s, false
	}
	for j := 1; j < i; j++ {
		c := s[j]
		if !isLetter(c) && !isDigit(c) && c != '+' && c != '-' && c != '.' {
			return "", s, false
		}
	}
	return strings.ToLower(s[:i]), s[i+1:], true
}

// isSpecial reports whether the WHATWG standard reads a scheme's URLs as ones with a
// host, taking backslashes for slashes.
func isSpecial(scheme string) bool {
	switch scheme {
	case "http", "https", "ws", "wss", "ftp", "file":
		return true
	}
	return false
}

// looksLikeHostPort reports whether s, which has a colon and no "://", starts with a
// host and a port number (localhost:3000, 169.254.169.254:80/latest).
func looksLikeHostPort(s string) bool {
	_, rest, _ := strings.Cut(s, ":")
	n := 0
	for n < len(rest) && isDigit(rest[n]) {
		n++
	}
	return n > 0 && (n == len(rest) || strings.IndexByte(`/\?#`, rest[n]) >= 0)
}

// authorityHost returns the host of the authority that starts s: up to the first /, ?
// or # (and \ when backslash ends it), after the last @, without brackets or port.
func authorityHost(s string, backslash bool) string {
	end := `/?#`
	if backslash {
		end = `/\?#`
	}
	if i := strings.IndexAny(s, end); i >= 0 {
		s = s[:i]
	}
	if i := strings.LastIndexByte(s, '@'); i >= 0 {
		s = s[i+1:]
	}
	if strings.HasPrefix(s, "[") {
		if i := strings.IndexByte(s, ']'); i > 0 {
			return s[1:i]
		}
		return s[1:]
	}
	if i := strings.LastIndexByte(s, ':'); i >= 0 {
		s = s[:i]
	}
	return s
}

// MetadataService returns the cloud metadata service that host is, when it is one: a
// service at a fixed address inside a cloud (169.254.169.254 and its kin) that hands
// any process on the machine the credentials of the machine's cloud identity. host may
// be spelt in any way a URL reader or the system's resolver accepts: an IPv4 address in
// decimal, hex or octal, in one to four parts; an IPv6 address that embeds the IPv4 one
// (mapped, compatible, NAT64, 6to4, Teredo); percent-encoded, in fullwidth characters,
// in brackets, with a trailing dot or in upper case; or a name that carries the address
// in its labels, as the wildcard DNS services (nip.io, sslip.io) and DNS-rebinding
// helpers resolve them.
func MetadataService(host string) (string, bool) {
	h := Canonical(host)
	if h == "" {
		return "", false
	}
	if a, err := netip.ParseAddr(h); err == nil {
		return metadataAddr(a)
	}
	for _, n := range metadataNames {
		if h == n.name || n.subdomains && strings.HasSuffix(h, "."+n.name) {
			return n.service, true
		}
	}
	if first, _, _ := strings.Cut(h, "."); first == "instance-data" {
		return "the AWS EC2 instance metadata service", true
	}
	for a := range embeddedAddrs(h) {
		if s, ok := metadataAddr(a); ok {
			return s + ", named through a host name that embeds its address", true
		}
	}
	return "", false
}

// Canonical returns host as resolvers and URL readers take it: percent-decoded,
// NFKC-normalised (fullwidth digits and dots become ASCII), in lower case, without
// brackets, IPv6 zone or trailing dots, and with an IPv4 address in any of the
// spellings inet_aton and the WHATWG standard accept written as a.b.c.d. An IPv6
// address comes back in its canonical form.
func Canonical(host string) string {
	h := host
	for range 3 {
		u, err := url.PathUnescape(h)
		if err != nil || u == h {
			break
		}
		h = u
	}
	// NFKC makes fullwidth digits and dots ASCII and the halfwidth ideographic full stop
	// the ideographic one, which IDNA reads as a dot.
	h = strings.ReplaceAll(norm.NFKC.String(h), "。", ".")
	h = strings.ToLower(strings.TrimSpace(h))
	h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	if i := strings.IndexByte(h, '%'); i >= 0 && strings.Contains(h, ":") {
		h = h[:i] // an IPv6 zone: fe80::1%eth0
	}
	h = strings.TrimRight(h, ".")
	if a, ok := parseIPv4(h); ok {
		return a.String()
	}
	if a, err := netip.ParseAddr(h); err == nil {
		return a.String()
	}
	return h
}

// parseIPv4 reads s as an IPv4 address the way inet_aton and the WHATWG standard do:
// one to four parts separated by dots, each decimal, hex (0x…) or octal (0…), the last
// one filling the bytes the others leave.
func parseIPv4(s string) (netip.Addr, bool) {
	if s == "" {
		return netip.Addr{}, false
	}
	parts := strings.Split(s, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	var nums []uint64
	for _, p := range parts {
		n, ok := ipv4Part(p)
		if !ok {
			return netip.Addr{}, false
		}
		nums = append(nums, n)
	}
	var v uint64
	for i, n := range nums[:len(nums)-1] {
		if n > 255 {
			return netip.Addr{}, false
		}
		v |= n << (8 * (3 - i))
	}
	last := nums[len(nums)-1]
	if last >= 1<<(8*(5-len(nums))) {
		return netip.Addr{}, false
	}
	v |= last
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

// ipv4Part reads one part of an IPv4 address: decimal, 0x hex (0x alone is 0) or octal.
func ipv4Part(p string) (uint64, bool) {
	base := 10
	switch {
	case strings.HasPrefix(p, "0x"):
		p, base = p[2:], 16
		if p == "" {
			return 0, true
		}
	case len(p) > 1 && p[0] == '0':
		p, base = p[1:], 8
	case p == "":
		return 0, false
	}
	n, err := strconv.ParseUint(p, base, 32)
	return n, err == nil
}

// metadataAddr reports whether a, or the IPv4 address an IPv6 one embeds, is the
// address of a metadata service.
func metadataAddr(a netip.Addr) (string, bool) {
	a = a.WithZone("")
	if a.Is6() {
		for _, m := range metadataAddrs() {
			if m.prefix.Addr().Is6() && m.prefix.Contains(a) {
				return m.service, true
			}
		}
		v4, ok := embeddedIPv4(a)
		if !ok {
			return "", false
		}
		a = v4
	}
	for _, m := range metadataAddrs() {
		if m.prefix.Contains(a) {
			return m.service, true
		}
	}
	return "", false
}

// embeddedIPv4 returns the IPv4 address an IPv6 address carries in one of the
// standard ways packets reach it: IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible
// (::a.b.c.d), NAT64 (64:ff9b::/96, 64:ff9b:1::/48), 6to4 (2002:AABB:CCDD::/48) and
// Teredo (2001::/32, the client's address inverted in the last four bytes).
func embeddedIPv4(a netip.Addr) (netip.Addr, bool) {
	b := a.As16()
	switch {
	case a.Is4In6():
		return a.Unmap(), true
	case [12]byte(b[:12]) == [12]byte{} && !(b[12] == 0 && b[13] == 0 && b[14] == 0):
		return netip.AddrFrom4([4]byte(b[12:])), true // ::a.b.c.d, but not :: or ::1
	case [12]byte(b[:12]) == [12]byte{0x00, 0x64, 0xff, 0x9b}, // 64:ff9b::/96
		[6]byte(b[:6]) == [6]byte{0x00, 0x64, 0xff, 0x9b, 0x00, 0x01}: // 64:ff9b:1::/48
		return netip.AddrFrom4([4]byte(b[12:])), true
	case b[0] == 0x20 && b[1] == 0x02: // 2002::/16
		return netip.AddrFrom4([4]byte(b[2:6])), true
	case [4]byte(b[:4]) == [4]byte{0x20, 0x01, 0x00, 0x00}: // 2001::/32
		return netip.AddrFrom4([4]byte{^b[12], ^b[13], ^b[14], ^b[15]}), true
	}
	return netip.Addr{}, false
}

// embeddedAddrs yields the IPv4 addresses written in the labels of a host name, as
// wildcard DNS services resolve them: four numbers separated by dots or dashes
// (169.254.169.254.nip.io, app-169-254-169-254.sslip.io) or eight hex digits between
// separators (a9fea9fe.nip.io, 7f000001.a9fea9fe.rbndr.us).
func embeddedAddrs(h string) func(func(netip.Addr) bool) {
	return func(yield func(netip.Addr) bool) {
		words := strings.FieldsFunc(h, func(r rune) bool { return r == '.' || r == '-' })
		for i := range words {
			if i+4 <= len(words) {
				if a, ok := parseIPv4(strings.Join(words[i:i+4], ".")); ok && allDecimal(words[i:i+4]) && !yield(a) {
					return
				}
			}
			if w := words[i]; len(w) == 8 {
				if n, err := strconv.ParseUint(w, 16, 32); err == nil &&
					!yield(netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)})) {
					return
				}
			}
		}
	}
}

func allDecimal(ws []string) bool {
	for _, w := range ws {
		if w == "" || strings.Trim(w, "0123456789") != "" {
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool  { return '0' <= c && c <= '9' }

// FileURLPath returns the local path a file: URL names (file:///p, file://localhost/p),
// or "" for any other URL and for a file on another machine.
func FileURLPath(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || !strings.EqualFold(u.Scheme, "file") || u.Path == "" {
		return ""
	}
	if h := u.Hostname(); h != "" && !strings.EqualFold(h, "localhost") {
		return "" // a file on another machine
	}
	return u.Path
}

// Loopback reports whether a host names this machine, whatever the spelling: localhost
// and its subdomains (app.localhost, which resolvers answer locally, RFC 6761), the
// loopback networks 127.0.0.0/8 and ::1 (bracketed or not), and the unspecified
// addresses 0.0.0.0 and ::, which connect to the machine itself.
func Loopback(h string) bool {
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
