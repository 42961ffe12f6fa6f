package shell

import (
	"cmp"
	"strings"

	"github.com/moatdev/moat/internal/netdest"
)

// httpRequest is what a command-line HTTP client's words say of the request it sends.
type httpRequest struct {
	// method is the method the words name, upper-cased; empty when they name none and
	// the client picks it (GET, or POST when there is a body).
	method string
	// body says the words give the request a body.
	body bool
	// urls are the words that name where the request goes.
	urls []arg
}

// curlBodyOptions give curl's request a body, which makes it a POST (a PUT for -T).
var curlBodyOptions = []string{"d", "data", "data-ascii", "data-binary", "data-raw", "data-urlencode",
	"F", "form", "form-string", "json", "T", "upload-file"}

func curlRequest(v *view) httpRequest {
	r := httpRequest{method: lastMethod(v, "X", "request"), urls: append(v.values("url"), v.raw...)}
	// -G sends the data in the URL's query, with a GET.
	r.body = v.flag(curlBodyOptions...) && !v.flag("G", "get")
	return r
}

func wgetRequest(v *view) httpRequest {
	return httpRequest{method: lastMethod(v, "method"), body: v.flag("post-data", "post-file", "body-data", "body-file"), urls: v.raw}
}

// ghAPIRequest reads `gh api ENDPOINT` (and glab's): a field or an input file make it
// a POST.
func ghAPIRequest(v *view) httpRequest {
	r := httpRequest{method: lastMethod(v, "X", "method"), body: v.flag("f", "F", "field", "raw-field", "input")}
	if len(v.raw) > 1 {
		r.urls = v.raw[1:2]
	}
	return r
}

// httpieRequest reads HTTPie's and xh's [METHOD] URL ITEM…: a data or file item makes
// the request a POST.
func httpieRequest(v *view) httpRequest {
	var r httpRequest
	ops := v.raw
	if len(ops) > 0 && !ops[0].dynamic && httpMethod(strings.ToUpper(ops[0].lit)) {
		r.method, ops = strings.ToUpper(ops[0].lit), ops[1:]
	}
	if len(ops) == 0 {
		return r
	}
	r.urls = ops[:1]
	for _, it := range ops[1:] {
		if kind, _, _ := httpieItem(it.lit); kind == itemData || kind == itemFile {
			r.body = true
		}
	}
	r.body = r.body || v.flag("raw")
	return r
}

// lastMethod is the method the last of the named options gives, upper-cased, as the
// client takes the last one.
func lastMethod(v *view, names ...string) string {
	vals := v.values(names...)
	if len(vals) == 0 {
		return ""
	}
	return strings.ToUpper(vals[len(vals)-1].lit)
}

// httpDeletes returns a rule body reporting a request, read by request, that deletes
// what it names: the DELETE method, or a request that changes state (a method other
// than the reading ones, or a body) sent to an endpoint named for deleting, as
// RPC-style APIs name them (Jenkins' …/doDelete, …/projects/7/delete, …/bulk_destroy).
func httpDeletes(request func(*view) httpRequest) func(*analyzer, *view) string {
	return func(_ *analyzer, v *view) string {
		r := request(v)
		if r.method == "DELETE" {
			return v.name + " DELETE"
		}
		if !r.changesState() {
			return ""
		}
		for _, u := range r.urls {
			// A dynamic word's text is its source, quotes included.
			if seg := strings.Trim(netdest.DeletingEndpoint(u.lit), `"'`); seg != "" {
				method := r.method
				if method == "" {
					method = "POST"
				}
				return v.name + " " + method + " …/" + seg
			}
		}
		return ""
	}
}

// changesState reports whether a request changes state on the server: a method other
// than the reading ones, or, with none named, a body (which makes it a POST).
func (r httpRequest) changesState() bool {
	switch r.method {
	case "GET", "HEAD", "OPTIONS", "TRACE", "CONNECT":
		return false
	case "":
		return r.body
	}
	return true
}

// httpPayments returns a rule body reporting a request, read by request, that moves
// money: one that changes state at a payment provider's endpoint for transfers,
// payouts, refunds, charges or captures (netdest.PaymentEndpoint), as the provider's
// own CLI would in live mode.
func httpPayments(request func(*view) httpRequest) func(*analyzer, *view) string {
	return func(_ *analyzer, v *view) string {
		r := request(v)
		if !r.changesState() {
			return ""
		}
		for _, u := range r.urls {
			if !u.dynamic && netdest.PaymentEndpoint(u.lit) {
				return v.name + " " + cmp.Or(r.method, "POST") + " " + shorten(u.lit)
			}
		}
		return ""
	}
}
