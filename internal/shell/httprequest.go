package shell

import (
	"cmp"
	"encoding/json"
	"maps"
	"strings"

	"github.com/moatdev/moat/internal/hosted"
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
	// fields are the body's fields as the words give them literally: a JSON object, a
	// form's pairs, gh api's fields (a[b]=v nested), HTTPie's items; nil when none is.
	fields map[string]any
}

// curlBodyOptions give curl's request a body, which makes it a POST (a PUT for -T).
var curlBodyOptions = []string{"d", "data", "data-ascii", "data-binary", "data-raw", "data-urlencode",
	"F", "form", "form-string", "json", "T", "upload-file"}

func curlRequest(v *view) httpRequest {
	r := httpRequest{method: lastMethod(v, "X", "request"), urls: append(v.values("url"), v.raw...)}
	// -G sends the data in the URL's query, with a GET.
	r.body = v.flag(curlBodyOptions...) && !v.flag("G", "get")
	for _, d := range v.values("d", "data", "data-ascii", "data-raw", "data-binary", "json") {
		if d.dynamic {
			continue
		}
		if t := strings.TrimSpace(d.lit); strings.HasPrefix(t, "{") {
			var obj map[string]any
			if json.Unmarshal([]byte(t), &obj) == nil {
				r.addFields(obj)
			}
			continue
		}
		for pair := range strings.SplitSeq(d.lit, "&") {
			if k, val, ok := strings.Cut(pair, "="); ok {
				r.setField(k, val)
			}
		}
	}
	return r
}

// addFields adds the members of a JSON object to the request's fields.
func (r *httpRequest) addFields(obj map[string]any) {
	if r.fields == nil {
		r.fields = make(map[string]any, len(obj))
	}
	maps.Copy(r.fields, obj)
}

// setField sets a field by its name, nested as gh api's a[b][c]=v nests it.
func (r *httpRequest) setField(name string, val any) {
	if r.fields == nil {
		r.fields = make(map[string]any)
	}
	m := r.fields
	key, rest, nested := strings.Cut(name, "[")
	for nested {
		inner, _ := m[key].(map[string]any)
		if inner == nil {
			inner = make(map[string]any)
			m[key] = inner
		}
		m = inner
		var next string
		next, rest, _ = strings.Cut(rest, "]")
		key = next
		rest, nested = strings.CutPrefix(rest, "[")
	}
	m[key] = val
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
	for _, f := range v.values("f", "F", "field", "raw-field") {
		if k, val, ok := strings.Cut(f.lit, "="); ok && !f.dynamic {
			r.setField(k, val)
		}
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
		kind, k, val := httpieItem(it.lit)
		if kind == itemData || kind == itemFile {
			r.body = true
		}
		if kind == itemData && !it.dynamic {
			var raw any
			if strings.HasPrefix(it.lit[len(k):], ":=") && json.Unmarshal([]byte(val), &raw) == nil {
				r.setField(k, raw) // KEY:=JSON
			} else {
				r.setField(k, val)
			}
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

// httpSecurityOff returns a rule body reporting a request, read by request, that changes
// state with a body switching a hosted service's defence off (hosted.SecurityOff, as an
// MCP tool's arguments are read): secret scanning disabled through GitHub's API, a
// zone's HTTPS or TLS setting turned off through Cloudflare's. A body that sets only a
// value ({"value": "off"}) is the setting the URL's last segment names.
func httpSecurityOff(request func(*view) httpRequest) func(*analyzer, *view) string {
	return func(_ *analyzer, v *view) string {
		r := request(v)
		if !r.changesState() || len(r.fields) == 0 {
			return ""
		}
		fields := r.fields
		if _, ok := fields["value"]; ok && len(fields) == 1 && len(r.urls) > 0 {
			fields = map[string]any{"setting": lastSegment(r.urls[0].lit), "value": fields["value"]}
		}
		if what := hosted.SecurityOff(fields); what != "" {
			return v.name + " " + cmp.Or(r.method, "POST") + " " + shorten(strings.Trim(r.urls[0].lit, `"'`)) + ": " + what
		}
		return ""
	}
}

// lastSegment is the last segment of a URL's path, without its query.
func lastSegment(u string) string {
	u = strings.Trim(u, `"'`)
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		u = u[:i]
	}
	return u[strings.LastIndexByte(strings.TrimSuffix(u, "/"), '/')+1:]
}
