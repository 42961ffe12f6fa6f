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
	"oast.fun", "oast.pro", "oast.live", "oast.site", "oast.online", "oast.me", "interact.sh", "interactsh.com",
	"burpcollaborator.net", "oastify.com", "dnslog.cn", "ceye.io", "canarytokens.com", "xss.ht",
	"transfer.sh", "0x0.st", "file.io", "temp.sh", "bashupload.com", "oshi.at", "catbox.moe", "litterbox.catbox.moe",
	"paste.rs", "pastebin.com", "hastebin.com", "ix.io", "termbin.com", "sprunge.us", "dpaste.com", "dpaste.org",
	"paste.ee", "rentry.co", "ghostbin.com", "gofile.io", "filebin.net", "uguu.se", "tmpfiles.org", "keep.sh",
}

// Capture reports whether host is one of captureHosts or below one: the host and each
// domain above it are looked up in a set.
func Capture(host string) bool {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	set := captureSet()
	for h != "" {
		if set[h] {
			return true
		}
		_, h, _ = strings.Cut(h, ".")
	}
	return false
}

var captureSet = sync.OnceValue(func() map[string]bool {
	set := make(map[string]bool, len(captureHosts))
	for _, h := range captureHosts {
		set[h] = true
	}
	return set
})

// CaptureHosts returns the capture services' domains, for tests and documentation.
func CaptureHosts() []string { return slices.Clone(captureHosts) }
