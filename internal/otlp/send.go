package otlp

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"time"
)

// Doer sends an HTTP request: an *http.Client.
type Doer interface {
	Do(*http.Request) (*http.Response, error)
}

// Backoff between retries: it doubles from minBackoff up to maxBackoff, unless the
// collector says how long to wait (Retry-After).
const (
	minBackoff = 500 * time.Millisecond
	maxBackoff = 30 * time.Second
	// maxResponse bounds what is read of a response.
	maxResponse = 64 << 10
)

func defaultClient() *http.Client { return &http.Client{Timeout: DefaultTimeout} }

// NewClient returns the client for a collector: with caFile set, its certificate must be
// signed by a certificate of that PEM file (and not by the system's roots).
func NewClient(caFile string) (*http.Client, error) {
	c := defaultClient()
	if caFile == "" {
		return c, nil
	}
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("otlp: ca_file: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("otlp: ca_file %s: no PEM certificate in it", caFile)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	c.Transport = tr
	return c, nil
}

// retryable is a failure worth trying again: the collector was unreachable, overloaded
// (429) or failing (5xx). When asked says so, after is how long it asked to wait.
type retryable struct {
	err   error
	after time.Duration
	asked bool
}

func (r *retryable) Error() string { return r.err.Error() }
func (r *retryable) Unwrap() error { return r.err }

// answer is what a collector said of an export it accepted: how many of its items it
// rejected all the same (an OTLP partial success), and why; or that what it said could
// not be read.
type answer struct {
	rejected   int64
	message    string
	unreadable error
}

// send posts the protobuf body, gzipped, to url, retrying with backoff for up to
// RetryFor, and returns the collector's answer.
func (e *Exporter) send(url string, body []byte) (answer, error) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(body)
	if err := zw.Close(); err != nil {
		return answer{}, fmt.Errorf("otlp: gzip: %w", err)
	}
	deadline := time.Now().Add(e.opts.RetryFor)
	backoff := minBackoff
	for attempt := 1; ; attempt++ {
		ans, err := e.post(url, gz.Bytes())
		var r *retryable
		if err == nil || !errors.As(err, &r) {
			return ans, err
		}
		wait := backoff
		if r.asked {
			wait = r.after
		}
		if time.Now().Add(wait).After(deadline) {
			return answer{}, fmt.Errorf("%w (gave up after %d attempts)", err, attempt)
		}
		e.failed(err)
		select {
		case <-e.ctx.Done():
			return answer{}, fmt.Errorf("%w (%w)", err, errClosed)
		case <-time.After(wait):
		}
		backoff = min(2*backoff, maxBackoff)
	}
}

// post makes one request and reads the collector's answer. Its error never holds a
// header's value.
func (e *Exporter) post(url string, gz []byte) (answer, error) {
	ctx, cancel := context.WithTimeout(e.ctx, DefaultTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(gz))
	if err != nil {
		return answer{}, fmt.Errorf("otlp: %w", err)
	}
	for k, v := range e.opts.Headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	req.Header.Set("Content-Encoding", "gzip")
	req.Header.Set("User-Agent", "moat/"+e.opts.Identity.ServiceVersion)
	resp, err := e.opts.Client.Do(req)
	if err != nil {
		// The URL is the endpoint's, which holds no credentials (fleet refuses them).
		return answer{}, &retryable{err: fmt.Errorf("otlp: %w", err)}
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	if resp.StatusCode/100 == 2 {
		// The export is accepted, but the collector may have rejected part of it (a
		// partial success), which it says in the body and which must not be sent again.
		if resp.Header.Get("Content-Type") != "application/x-protobuf" {
			return answer{}, nil
		}
		var ans answer
		if ans.rejected, ans.message, err = readPartialSuccess(msg); err != nil {
			ans = answer{unreadable: err}
		}
		return ans, nil
	}
	err = fmt.Errorf("otlp: POST %s: %s", url, resp.Status)
	if resp.Header.Get("Content-Type") != "application/x-protobuf" {
		if line := errorLine(msg); line != "" {
			err = fmt.Errorf("%w: %s", err, line)
		}
	}
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode/100 == 5 {
		after, asked := retryAfter(resp.Header.Get("Retry-After"), time.Now())
		return answer{}, &retryable{err: err, after: after, asked: asked}
	}
	return answer{}, err
}

// retryAfter reads a Retry-After header: seconds, or an HTTP date; ok is false when it
// is absent or unreadable. The wait is at most maxBackoff, so that a collector cannot
// park the exporter for hours.
func retryAfter(v string, now time.Time) (wait time.Duration, ok bool) {
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		wait, ok = time.Duration(s)*time.Second, true
	} else if t, err := http.ParseTime(v); err == nil {
		wait, ok = t.Sub(now), true
	}
	return min(max(wait, 0), maxBackoff), ok
}
