package engine

import (
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/findings"
	"github.com/moatdev/moat/internal/netdest"
	"github.com/moatdev/moat/internal/scan/injection"
	"github.com/moatdev/moat/internal/scan/secrets"
)

// A URL says where a request goes and can carry what it sends. The findings here are
// read from its text alone, so they hold for every channel that makes requests: a web
// fetch, an MCP tool given a URL, a command that connects to a host.

// Finding ids of URLs, declared in findings.ToolKinds.
const (
	findMetadata     = "network.cloud-metadata"
	findControlPlane = "network.control-plane"
	findURLScheme    = "network.url-scheme"
	findUnreadable   = "network.url-unreadable"
)

// hostFindings returns the finding of a host that is an out-of-band interaction server
// (netdest.Interaction) or a cloud metadata service.
func hostFindings(host, where string) []call.Finding {
	if netdest.Interaction(host) {
		return []call.Finding{findings.New(findUpload, fmt.Sprintf("%s: %s is an out-of-band interaction server, which records that this machine called it and the name it asked for", where, host))}
	}
	service, ok := netdest.MetadataService(host)
	if !ok {
		return nil
	}
	return []call.Finding{findings.ToolKinds.New(findMetadata, fmt.Sprintf("%s: %s is %s", where, host, service))}
}

// urlMetadata returns the findings of a URL (u, read from raw) that leads to a cloud
// metadata service: one of its hosts is one, or a URL it carries leads to one (an open
// redirect's ?url=http://169.254.169.254/, a proxy's path), as it does once the server
// follows it; or to a control plane on this machine or its network (netdest.ControlPlane).
func urlMetadata(u netdest.URL, raw, where string) []call.Finding {
	var fs []call.Finding
	for _, h := range u.Hosts {
		fs = appendNew(fs, hostFindings(h, where))
	}
	for _, inner := range innerURLs(percentDecoded(raw)) {
		for _, h := range netdest.ParseURL(inner).Hosts {
			fs = appendNew(fs, hostFindings(h, where+" (a URL it carries)"))
		}
	}
	if service, ok := netdest.ControlPlane(raw); ok {
		fs = appendNew(fs, []call.Finding{findings.New(findControlPlane, fmt.Sprintf("%s: %s is %s", where, shortText(raw), service))})
	}
	return fs
}

// urlFindings returns what the text of a URL tells about a request to it: the cloud
// metadata services among the hosts it may name (URL readers disagree about some URLs,
// so each reading counts), and the secrets it carries once decoded (percent-encoding,
// base64, hex), which the raw text scanned by carriedSecrets does not show. fetched
// says the URL is what a web fetch tool requests, which is web only: http or https.
func urlFindings(raw, where string, fetched bool) []call.Finding {
	if len(raw) > maxScanned {
		return []call.Finding{unscanned(where, len(raw))}
	}
	u := netdest.ParseURL(raw)
	fs := urlMetadata(u, raw, where)
	if fetched {
		switch u.Scheme {
		case "", "http", "https":
			if len(u.Hosts) == 0 {
				fs = append(fs, findings.ToolKinds.New(findUnreadable, fmt.Sprintf("%s: no host in %q", where, shortText(raw))))
			}
		default:
			fs = append(fs, findings.ToolKinds.New(findURLScheme, fmt.Sprintf("%s: a %s: URL", where, u.Scheme)))
		}
	}
	fs = append(fs, capturedData(u, raw, where)...)
	return append(fs, decodedURLSecrets(raw, where, leaves(u))...)
}

// findUpload is the finding of data sent where anyone with the link reads it.
const findUpload = "exfiltration.upload"

// capturedData returns the finding of a request to a capture service (a request catcher,
// a tunnel, an out-of-band interaction server, a paste drop: netdest.Capture) whose
// address carries encoded data: a part of its path or query, or a label of its host,
// that decodes from base64 or hex to text. The request itself delivers the data to
// whoever set the service up, whatever the reply; a secret the data holds is found by
// decodedURLSecrets too, and data that holds none (a host name, a truncated file, a
// user's notes) is still sent.
func capturedData(u netdest.URL, raw, where string) []call.Finding {
	for _, h := range u.Hosts {
		if !netdest.Capture(h) {
			continue
		}
		parts := strings.FieldsFunc(percentDecoded(raw), isURLDelimiter)
		parts = append(parts, strings.Split(h, ".")...)
		for _, part := range parts {
			if _, ok := decodeBlob(part); ok {
				return []call.Finding{findings.New(findUpload, fmt.Sprintf("%s: encoded data in a request to %s, a service that shows what it receives to whoever set it up: %s", where, h, shortText(part)))}
			}
		}
	}
	return nil
}

// leaves reports whether a request to the URL leaves this machine: a host that is not a
// loopback one, or none read (a text moat takes for a URL is judged as one that leaves).
func leaves(u netdest.URL) bool {
	for _, h := range u.Hosts {
		if !netdest.Loopback(h) {
			return true
		}
	}
	return len(u.Hosts) == 0
}

// decodedURLSecrets returns the secrets in the decoded forms of a URL's text: the URL
// percent-decoded (as often as it was encoded), and each of its parts (path segments,
// query names and values, fragment) that decodes from base64 or hex to text. A secret
// the raw text shows is left to the scan of the raw text; each kind is reported once.
func decodedURLSecrets(raw, where string, sent bool) []call.Finding {
	find := secrets.Findings
	if sent {
		find = secrets.SentFindings
	}
	seen := map[string]bool{}
	for _, f := range find(raw, where) {
		seen[f.ID] = true
	}
	var fs []call.Finding
	add := func(text, how string) {
		for _, f := range find(text, where+" ("+how+")") {
			if !seen[f.ID] {
				seen[f.ID] = true
				fs = append(fs, f)
			}
		}
	}
	decoded := percentDecoded(raw)
	if decoded != raw {
		add(decoded, "percent-decoded")
	}
	for _, part := range strings.FieldsFunc(decoded, isURLDelimiter) {
		for range 2 { // base64 of base64 is decoded too
			text, ok := decodeBlob(part)
			if !ok {
				break
			}
			add(text, "decoded")
			part = text
		}
	}
	return fs
}

// innerURLs returns the URLs that s carries after its own scheme: each "://" past the
// first, with the scheme before it, up to the next delimiter of query parameters.
func innerURLs(s string) []string {
	var out []string
	first := strings.Index(s, "://")
	if first < 0 {
		return nil
	}
	for i := first + 3; ; {
		j := strings.Index(s[i:], "://")
		if j < 0 {
			return out
		}
		j += i
		start := j
		for start > i && isSchemeByte(s[start-1]) {
			start--
		}
		end := j + 3
		for end < len(s) && !strings.ContainsRune("&; \t\r\n\"'<>", rune(s[end])) {
			end++
		}
		if start < j {
			out = append(out, s[start:end])
		}
		i = j + 3
	}
}

func isSchemeByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'
}

// percentDecoded percent-decodes s as many times as it was encoded (at most three).
func percentDecoded(s string) string {
	for range 3 {
		// PathUnescape keeps '+', which base64 uses, where QueryUnescape makes it a space.
		d, err := url.PathUnescape(s)
		if err != nil || d == s {
			break
		}
		s = d
	}
	return s
}

func isURLDelimiter(r rune) bool {
	return strings.ContainsRune("/?&=#;:@,!$'()*[] \t\r\n\"", r)
}

// minBlob is the shortest part of a URL read as encoded data: shorter base64 or hex
// holds no credential worth the name.
const minBlob = 16

// decodeBlob decodes a part of a URL written in base64 (standard or URL-safe, padded or
// not) or hex, when the result is text: valid UTF-8 with at most one byte in ten a
// control character. A part that is also a word or a number is not taken for data.
func decodeBlob(s string) (string, bool) {
	if len(s) < minBlob {
		return "", false
	}
	raw, err := injection.DecodeHexOrBase64(s)
	if err != nil || !utf8.Valid(raw) {
		return "", false
	}
	controls := 0
	for _, r := range string(raw) {
		if r < ' ' && r != '\n' && r != '\t' && r != '\r' || r == utf8.RuneError {
			controls++
		}
	}
	return string(raw), controls*10 <= len(raw)
}

func shortText(s string) string {
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}
