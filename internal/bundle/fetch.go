package bundle

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/moatdev/moat/internal/fleetdb"
)

// fetchTimeout bounds one fetch, connection and body included.
const fetchTimeout = 30 * time.Second

// Fetched is what one fetch brought.
type Fetched struct {
	// Doc is the bundle; nil when NotModified.
	Doc []byte
	// NotModified says the source answered that the bundle in force is unchanged.
	NotModified  bool
	ETag         string
	LastModified string
}

// Fetcher brings the newest bundle from where the fleet keeps it.
type Fetcher interface {
	// Fetch asks for the bundle; prev holds the validators of the bundle in force, which
	// a source may answer with NotModified.
	Fetch(ctx context.Context, prev State) (Fetched, error)
	// Source names where it fetches from, with no secret in it.
	Source() string
}

// HTTPFetcher fetches a bundle over HTTPS (plain HTTP to loopback only).
type HTTPFetcher struct {
	url    string
	shown  string // url without its query, which may hold a token: what status and logs show
	client *http.Client
}

// NewHTTPFetcher fetches from rawURL, trusting the certificates of caFile (a PEM bundle)
// when it is set, the system's otherwise.
func NewHTTPFetcher(rawURL, caFile string) (*HTTPFetcher, error) {
	if err := checkURL(rawURL); err != nil {
		return nil, err
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = nil // a bundle comes from the address configured, not through whatever HTTPS_PROXY says
	if caFile != "" {
		pem, err := os.ReadFile(caFile)
		if err != nil {
			return nil, fmt.Errorf("policy bundle: ca_file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("policy bundle: ca_file %s holds no PEM certificate", caFile)
		}
		tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	client := &http.Client{
		Transport: tr,
		Timeout:   fetchTimeout,
		// A redirect may not leave HTTPS (or loopback) either.
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 5 {
				return errors.New("too many redirects")
			}
			return checkURL(req.URL.String())
		},
	}
	return &HTTPFetcher{url: rawURL, shown: withoutQuery(rawURL), client: client}, nil
}

// Source is the URL, without its query.
func (f *HTTPFetcher) Source() string { return f.shown }

// withoutQuery is s without its query and fragment, which may hold a token.
func withoutQuery(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(unreadable URL)"
	}
	if u.RawQuery != "" || u.Fragment != "" {
		u.RawQuery, u.Fragment = "", ""
		return u.String() + "?…"
	}
	return u.String()
}

// Fetch gets the bundle, conditionally on prev's validators.
func (f *HTTPFetcher) Fetch(ctx context.Context, prev State) (Fetched, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.url, nil)
	if err != nil {
		return Fetched{}, err
	}
	if prev.ETag != "" {
		req.Header.Set("If-None-Match", prev.ETag)
	}
	if prev.LastModified != "" {
		req.Header.Set("If-Modified-Since", prev.LastModified)
	}
	resp, err := f.client.Do(req)
	if err != nil {
		// The client's error quotes the whole URL; the cause alone is said, with the
		// URL as shown.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return Fetched{}, fmt.Errorf("fetching %s: %w", f.shown, err)
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusNotModified:
		return Fetched{NotModified: true, ETag: prev.ETag, LastModified: prev.LastModified}, nil
	case http.StatusOK:
	default:
		return Fetched{}, fmt.Errorf("fetching %s: %s", f.shown, resp.Status)
	}
	doc, err := io.ReadAll(io.LimitReader(resp.Body, MaxBytes+1))
	if err != nil {
		return Fetched{}, fmt.Errorf("fetching %s: %w", f.shown, err)
	}
	if len(doc) > MaxBytes {
		return Fetched{}, fmt.Errorf("fetching %s: the bundle is larger than %d bytes", f.shown, MaxBytes)
	}
	return Fetched{Doc: doc, ETag: resp.Header.Get("ETag"), LastModified: resp.Header.Get("Last-Modified")}, nil
}

// checkURL accepts https anywhere and http to loopback only, as the fleet configuration
// does: a policy must not cross a network in clear text.
func checkURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("policy bundle url: %w", err)
	}
	host := u.Hostname()
	loopback := host == "localhost" || host == "::1" || strings.HasPrefix(host, "127.")
	switch {
	case u.Scheme == "https" && host != "":
		return nil
	case u.Scheme == "http" && loopback:
		return nil
	default:
		return fmt.Errorf("policy bundle url %q: want https:// (or http:// on loopback)", s)
	}
}

// PostgresFetcher reads the newest bundle of the table moat_policy_bundles.
type PostgresFetcher struct {
	dsn, passwordFile string
}

// NewPostgresFetcher reads from the database dsn names, with the password of
// passwordFile when that is set.
func NewPostgresFetcher(dsn, passwordFile string) *PostgresFetcher {
	return &PostgresFetcher{dsn: dsn, passwordFile: passwordFile}
}

// Source names the database by host and name only.
func (f *PostgresFetcher) Source() string { return "postgres " + fleetdb.Target(f.dsn) }

// Fetch reads the newest bundle. The kept bundle is compared by content by the caller,
// so an unchanged row costs one query and no verification.
func (f *PostgresFetcher) Fetch(ctx context.Context, _ State) (Fetched, error) {
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	conn, err := fleetdb.Connect(ctx, f.dsn, f.passwordFile)
	if err != nil {
		return Fetched{}, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if err := fleetdb.CheckSchema(ctx, conn); err != nil {
		return Fetched{}, err
	}
	_, doc, ok, err := fleetdb.LatestBundle(ctx, conn)
	switch {
	case err != nil:
		return Fetched{}, err
	case !ok:
		return Fetched{}, errors.New("the table moat_policy_bundles holds no bundle yet; publish one with `moat fleet publish`")
	case len(doc) > MaxBytes:
		return Fetched{}, fmt.Errorf("the newest bundle is larger than %d bytes", MaxBytes)
	}
	return Fetched{Doc: []byte(doc)}, nil
}
