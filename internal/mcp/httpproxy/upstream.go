package httpproxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"

	"github.com/moatdev/moat/internal/strictjson"
)

// Upstream is a remote MCP server as an agent's config describes it: its URL and the
// headers (credentials) to send it.
type Upstream struct {
	URL    *url.URL
	Header http.Header
}

// varRef matches a ${NAME}, ${env:NAME} or ${NAME:-default} reference, as the agents'
// configs write them (Cursor, Windsurf and VS Code spell it ${env:NAME}). It is compiled on first use: hooks, which load this package, never need it.
var varRef = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}`)
})

// ParseUpstream reads the JSON description of a remote server that `moat mcp wrap`
// writes into an agent's config, {"url": "…", "headers": {"Name": "value"}}, and expands
// the ${NAME}, ${env:NAME} and ${NAME:-default} references in its values with getenv, so that they
// work whether or not the agent expanded them itself. A reference to a variable that is
// unset, without a default, is an error naming it: sending an empty credential would
// fail later and less clearly. Errors never quote a value, which may be a credential.
func ParseUpstream(spec string, getenv func(string) string) (Upstream, error) {
	data := []byte(spec)
	if err := strictjson.Check(data, strictjson.Limits{}); err != nil {
		return Upstream{}, fmt.Errorf("the upstream description is not valid JSON: %w", err)
	}
	var raw struct {
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return Upstream{}, fmt.Errorf("the upstream description must be {\"url\": \"…\", \"headers\": {…}} with string values: %w", err)
	}
	expand := func(what, s string) (string, error) {
		var missing []string
		re := varRef()
		out := re.ReplaceAllStringFunc(s, func(ref string) string {
			m := re.FindStringSubmatch(ref)
			if v := getenv(m[1]); v != "" {
				return v
			}
			if strings.Contains(ref, ":-") {
				return m[2]
			}
			missing = append(missing, m[1])
			return ""
		})
		if len(missing) > 0 {
			return "", fmt.Errorf("%s refers to the environment variable %s, which is not set", what, strings.Join(missing, ", "))
		}
		return out, nil
	}
	s, err := expand("the url", raw.URL)
	if err != nil {
		return Upstream{}, err
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Upstream{}, fmt.Errorf("the upstream url must be an http or https URL")
	}
	h := http.Header{}
	for name, v := range raw.Headers {
		if name == "" || strings.ContainsAny(name, " :\r\n") {
			return Upstream{}, fmt.Errorf("the header name %q is not valid", name)
		}
		v, err := expand("the header "+name, v)
		if err != nil {
			return Upstream{}, err
		}
		if strings.ContainsAny(v, "\r\n") {
			return Upstream{}, fmt.Errorf("the value of the header %s holds a line break", name)
		}
		h.Set(name, v)
	}
	return Upstream{URL: u, Header: h}, nil
}
