package httpproxy

import (
	"context"
	"net/http"
	"slices"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkToolsCall measures a tools/call of the SDK client to the SDK server, directly
// and through the proxy (modern era, stateless server), and reports the median: the
// difference is what moat adds to every call.
func BenchmarkToolsCall(b *testing.B) {
	_, up := newPeer(b, true)
	proxyURL, _, _ := newProxy(b, up.URL, nil)
	for _, bb := range []struct{ name, url string }{{"direct", up.URL}, {"proxy", proxyURL}} {
		b.Run(bb.name, func(b *testing.B) {
			ctx := context.Background()
			c := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "v0"}, nil)
			tr := &sdk.StreamableClientTransport{Endpoint: bb.url, MaxRetries: -1, HTTPClient: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}}
			sess, err := c.Connect(ctx, tr, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer sess.Close()
			params := &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}}
			for range 50 { // warm the connections and the caches, as a session in use is
				if _, err := sess.CallTool(ctx, params); err != nil {
					b.Fatal(err)
				}
			}
			durations := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for b.Loop() {
				start := time.Now()
				if _, err := sess.CallTool(ctx, params); err != nil {
					b.Fatal(err)
				}
				durations = append(durations, time.Since(start))
			}
			b.StopTimer()
			slices.Sort(durations)
			b.ReportMetric(float64(durations[len(durations)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(durations[len(durations)*99/100].Microseconds()), "p99-µs")
		})
	}
}
