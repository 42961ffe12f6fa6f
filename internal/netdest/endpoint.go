package netdest

import (
	neturl "net/url"
	"strings"
	"sync"

	"github.com/moatdev/moat/internal/scan/textmatch"
)

// RPC-style HTTP APIs name what an endpoint does in its path: Jenkins' …/doDelete,
// …/projects/7/delete, …/bulk_destroy. A request that changes state sent to such an
// endpoint deletes what it names, as a DELETE does.

// endpointVerbs are the words that, naming an HTTP endpoint, say it deletes or takes
// what it names out of use (Slack's conversations.archive, a hosting API's
// …/services/ID/suspend), as the MCP tools named for the same are judged. Fewer than the
// shell's destructive subcommands: an endpoint called clear, disable or revoke is as
// often a cache, a feature flag or a session as stored data.
var endpointVerbs = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"delete": true, "destroy": true, "purge": true, "remove": true, "drop": true, "wipe": true,
		"terminate": true, "erase": true, "truncate": true, "nuke": true, "uninstall": true,
		"teardown": true, "deregister": true, "unregister": true, "deletefile": true,
		"archive": true, "suspend": true,
	}
})

// DeletingEndpoint returns the path segment of url that names the endpoint as deleting,
// or "": the last segment that is not an identifier (a segment with a digit: /delete/42
// names the endpoint by its next-to-last), one of whose words (split at punctuation and
// camel case) is an endpoint verb: doDelete, bulk_destroy, remove-member. The host is
// never a segment, with or without a scheme.
func DeletingEndpoint(url string) string {
	path := url
	if i := strings.Index(path, "://"); i >= 0 {
		path = path[i+3:]
		j := strings.IndexByte(path, '/')
		if j < 0 {
			return ""
		}
		path = path[j:]
	} else if first, rest, _ := strings.Cut(path, "/"); strings.ContainsAny(first, ".:") || first == "localhost" {
		path = rest // host[:port]/path, which curl and HTTPie take without a scheme
	}
	if i := strings.IndexAny(path, "?#"); i >= 0 {
		path = path[:i]
	}
	if p, err := neturl.PathUnescape(path); err == nil {
		path = p // %2Fdelete names …/delete to the server
	}
	segs := strings.Split(path, "/")
	for i := len(segs) - 1; i >= 0; i-- {
		seg := segs[i]
		if seg == "" || strings.ContainsAny(seg, "0123456789") {
			continue
		}
		for _, w := range textmatch.IdentWords(seg) {
			if endpointVerbs()[w] {
				return seg
			}
		}
		return ""
	}
	return ""
}
