package shell

import (
	"strings"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/netdest"
)

// A cryptocurrency miner spends the machine's processors and power for whoever holds the
// wallet it is given (T1496): the miners people and malware run by name, and any program
// pointed at a mining pool's stratum URL or a known pool's host, whatever it is called
// (./kworker -o stratum+tcp://…, node-helper -o pool.supportxmr.com:443).

// Finding id of this file.
const findMining = "destructive.cryptomining"

// miner reports whether a program mines by name.
func miner(name string) bool {
	switch name {
	case "xmrig", "xmrig-cuda", "xmrig-nvidia", "xmrig-amd", "xmr-stak", "xmr-stak-rx", "minerd",
		"cpuminer", "cpuminer-opt", "cpuminer-multi", "ethminer", "t-rex", "nbminer", "lolminer",
		"phoenixminer", "gminer", "teamredminer", "nanominer", "bfgminer", "cgminer", "ccminer",
		"srbminer", "srbminer-multi", "wildrig", "wildrig-multi", "xmrminer", "nheqminer", "kawpowminer":
		return true
	}
	return false
}

// stratumURL reports whether a word holds a mining pool's stratum URL. Most words hold
// no URL at all, and are passed over without being lowered.
func stratumURL(s string) bool {
	if !strings.Contains(s, "://") {
		return false
	}
	l := strings.ToLower(s)
	return strings.Contains(l, "stratum+tcp://") || strings.Contains(l, "stratum+ssl://") ||
		strings.Contains(l, "stratum+tls://") || strings.Contains(l, "stratum2+tcp://") ||
		strings.Contains(l, "stratum1+tcp://")
}

// poolAddress reports whether a word names a mining pool's host (netdest.MiningPool), as
// miners take it: HOST:PORT, or a URL of another scheme than the web's, or an option's
// value after =.
func poolAddress(s string) bool {
	if !strings.Contains(s, ".") {
		return false
	}
	if _, after, ok := strings.Cut(s, "="); ok {
		s = after // --url=pool…
	}
	if scheme, rest, ok := strings.Cut(s, "://"); ok {
		if l := strings.ToLower(scheme); l == "http" || l == "https" {
			return false // a web request to the pool's site: its statistics, its API
		}
		s = rest
	}
	host, _, _ := strings.Cut(s, "/")
	host, _, _ = strings.Cut(host, ":")
	return netdest.MiningPool(host)
}

// mining records destructive.cryptomining when the command runs a miner or points a
// program at a mining pool.
func (a *analyzer) mining(cmd *call.Command, v *view) {
	if wordsAreText(v.name) {
		return // a pool's URL printed or searched for is data
	}
	evidence := ""
	if miner(v.name) {
		evidence = "runs " + v.name
	}
	for _, x := range v.args {
		if evidence == "" && (stratumURL(x.lit) || poolAddress(x.lit)) {
			evidence = v.name + " " + shorten(x.lit)
		}
	}
	if evidence != "" {
		cmd.Findings = appendFinding(cmd.Findings, findMining, evidence)
	}
}
