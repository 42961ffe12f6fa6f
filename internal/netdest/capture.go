package netdest

import (
	"slices"
	"strings"
	"sync"
)

// captureHosts are services whose purpose is to receive what is sent to them and show it
// to whoever set them up: request catchers, tunnels to someone's machine, out-of-band
// interaction servers, anonymous file and paste drops. A credential sent there is sent to
// a stranger, whatever header carries it.
var captureHosts = []string{
	"webhook.site", "requestbin.com", "requestbin.net", "pipedream.net", "beeceptor.com", "requestcatcher.com",
	"hookbin.com", "postb.in", "ptsv2.com", "ptsv3.com", "webhook.cool", "typedwebhook.tools", "mockbin.org",
	"ngrok.io", "ngrok-free.app", "ngrok.app", "ngrok.dev", "trycloudflare.com", "loca.lt", "localtunnel.me",
	"serveo.net", "localhost.run", "lhr.life", "pinggy.io", "bore.pub",
	"transfer.sh", "0x0.st", "file.io", "temp.sh", "bashupload.com", "oshi.at", "catbox.moe", "litterbox.catbox.moe",
	"paste.rs", "pastebin.com", "hastebin.com", "ix.io", "termbin.com", "sprunge.us", "dpaste.com", "dpaste.org",
	"paste.ee", "rentry.co", "ghostbin.com", "gofile.io", "filebin.net", "uguu.se", "tmpfiles.org", "keep.sh",
}

// interactionHosts are the out-of-band interaction servers of security testing: they
// exist to record that a machine called them, by DNS or HTTP, and the name it asked for
// (whose labels carry data). Nothing a developer's tool does calls one.
var interactionHosts = []string{
	"oast.fun", "oast.pro", "oast.live", "oast.site", "oast.online", "oast.me", "interact.sh", "interactsh.com",
	"burpcollaborator.net", "oastify.com", "dnslog.cn", "ceye.io", "canarytokens.com", "xss.ht",
}

// miningPools are the domains of public cryptocurrency mining pools, which miners are
// pointed at by host and port (-o pool.supportxmr.com:443) as often as by stratum URL.
var miningPools = []string{
	"supportxmr.com", "moneroocean.stream", "minexmr.com", "nanopool.org", "2miners.com", "f2pool.com",
	"hashvault.pro", "c3pool.com", "herominers.com", "unmineable.com", "nicehash.com", "ethermine.org",
	"antpool.com", "viabtc.com", "poolin.com", "braiins.com", "slushpool.com", "xmrpool.eu", "monerohash.com",
	"dwarfpool.com", "miningpoolhub.com", "zpool.ca", "prohashing.com", "kryptex.network", "woolypooly.com",
	"hiveon.net", "flexpool.io", "p2pool.io", "xmrfast.com", "minergate.com", "crazypool.org",
}

// MiningPool reports whether host is a public mining pool's, or below one.
func MiningPool(host string) bool { return below(host, miningPoolSet()) }

var miningPoolSet = sync.OnceValue(func() map[string]bool { return hostSet(miningPools) })

// Capture reports whether host is one of captureHosts or interactionHosts or below one:
// the host and each domain above it are looked up in a set.
func Capture(host string) bool { return below(host, captureSet()) || Interaction(host) }

// Interaction reports whether host is an out-of-band interaction server or below one.
func Interaction(host string) bool { return below(host, interactionSet()) }

// below reports whether host or a domain above it is in set.
func below(host string, set map[string]bool) bool {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	for h != "" {
		if set[h] {
			return true
		}
		_, h, _ = strings.Cut(h, ".")
	}
	return false
}

func hostSet(hosts []string) map[string]bool {
	set := make(map[string]bool, len(hosts))
	for _, h := range hosts {
		set[h] = true
	}
	return set
}

var (
	captureSet     = sync.OnceValue(func() map[string]bool { return hostSet(captureHosts) })
	interactionSet = sync.OnceValue(func() map[string]bool { return hostSet(interactionHosts) })
)

// CaptureHosts returns the capture services' domains, interaction servers included, for
// tests and documentation.
func CaptureHosts() []string { return slices.Concat(captureHosts, interactionHosts) }
