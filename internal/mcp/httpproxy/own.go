package httpproxy

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/moatdev/moat/internal/mcp"
	"github.com/moatdev/moat/internal/mcp/jsonrpc"
)

// sender returns how moat's own requests (a tools/list to vet a tool before relaying a
// call to it) reach the server for the client of r: with the headers the client's
// request carried (its session, its protocol version), the method of moat's request in
// place of the client's for the 2026-07-28 revision, and none of the headers that name the client's tool or arguments. The
// server's answer is read here and handed to the Proxy through the exchange's Conn,
// which keeps it from the client; so are the stream's other messages, which belong to
// moat's request.
func (h *handler) sender(r *http.Request, x exchange) mcp.Sender {
	return func(ctx context.Context, body []byte) error {
		f, err := jsonrpc.Parse(body)
		if err != nil || f.Batch || f.Messages[0].Kind != jsonrpc.Request {
			return fmt.Errorf("internal error: moat's own request is not a single request")
		}
		m := f.Messages[0]
		up, err := http.NewRequestWithContext(ctx, http.MethodPost, h.upstream, bytes.NewReader(body))
		if err != nil {
			return err
		}
		copyRequestHeaders(up.Header, r.Header)
		for k := range up.Header {
			if strings.HasPrefix(k, "Mcp-Param-") {
				delete(up.Header, k)
			}
		}
		up.Header.Del("Mcp-Name")
		up.Header.Del("Last-Event-Id")
		if up.Header.Get("Mcp-Method") != "" {
			up.Header.Set("Mcp-Method", headerText(m.Method))
		}
		up.Header.Set("Content-Type", "application/json")
		up.Header.Set("Accept", "application/json, text/event-stream")
		for k, vs := range h.o.Header {
			up.Header[http.CanonicalHeaderKey(k)] = append([]string(nil), vs...)
		}
		resp, err := h.client.Do(up)
		if err != nil {
			return fmt.Errorf("the MCP server did not answer: %w", err)
		}
		defer resp.Body.Close()
		answered := false
		read := func(msg []byte) {
			answered = answered || answersID(msg, m.ID)
			h.o.Proxy.FromServerOn(x.conn, msg)
		}
		ok := resp.StatusCode/100 == 2
		switch ct := mediaType(resp.Header.Get("Content-Type")); {
		case ok && ct == "text/event-stream":
			if err := readEvents(ctx, resp.Body, h.max, read); err != nil && !answered {
				return fmt.Errorf("reading the MCP server's answer: %w", err)
			}
		case ok || ct == "application/json":
			b, err := io.ReadAll(io.LimitReader(resp.Body, int64(h.max)+1))
			if err != nil || len(b) > h.max {
				return fmt.Errorf("the MCP server's answer is unreadable or larger than %d bytes", h.max)
			}
			if len(bytes.TrimSpace(b)) > 0 {
				read(oneLine(b))
			}
		}
		if !answered {
			return fmt.Errorf("the MCP server answered HTTP %d without a response to moat's %s", resp.StatusCode, m.Method)
		}
		return nil
	}
}
