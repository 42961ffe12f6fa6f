package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"time"

	"github.com/moatdev/moat/internal/mcp/jsonrpc"
	"github.com/moatdev/moat/internal/mcp/toolscan"
)

// scanProtocolVersion is the protocol revision ListTools asks for: the last one with the
// initialize handshake, which every server of the past two years speaks.
const scanProtocolVersion = "2025-11-25"

// maxListPages bounds how many pages of tools ListTools follows.
const maxListPages = 100

// ListTools starts cmd as a stdio MCP server, initializes a session, lists its tools
// (every page) and stops it: closing its input, then SIGTERM and SIGKILL after grace.
// Requests the server sends meanwhile are answered as not supported.
func ListTools(ctx context.Context, cmd *exec.Cmd, grace time.Duration) ([]toolscan.Tool, error) {
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	endWithParent(cmd)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the server: %w", err)
	}
	done := make(chan struct{})
	defer func() {
		in.Close()
		go func() {
			select {
			case <-done:
			case <-time.After(grace):
				cmd.Process.Kill()
			}
		}()
		cmd.Wait()
		close(done)
	}()
	go func() {
		select {
		case <-ctx.Done():
			cmd.Process.Kill() // unblocks the reads below
		case <-done:
		}
	}()

	s := &session{in: in, r: jsonrpc.NewReader(out, jsonrpc.MaxFrame)}
	if _, err := s.call("initialize", map[string]any{
		"protocolVersion": scanProtocolVersion,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "moat-mcp-scan", "version": "1"},
	}); err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	if err := s.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}); err != nil {
		return nil, err
	}
	var tools []toolscan.Tool
	cursor := ""
	for range maxListPages {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		res, err := s.call("tools/list", params)
		if err != nil {
			return nil, fmt.Errorf("tools/list: %w", err)
		}
		page, err := toolscan.ParseList(res)
		if err != nil {
			return nil, err
		}
		tools = append(tools, page...)
		var next struct {
			NextCursor string `json:"nextCursor"`
		}
		json.Unmarshal(res, &next)
		if next.NextCursor == "" {
			return tools, ctx.Err()
		}
		cursor = next.NextCursor
	}
	return nil, fmt.Errorf("tools/list: more than %d pages", maxListPages)
}

// session is the client side of a stdio connection, one request at a time.
type session struct {
	in     io.Writer
	r      *jsonrpc.Reader
	nextID int
}

func (s *session) send(msg any) error {
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	_, err = s.in.Write(append(b, '\n'))
	return err
}

// call sends a request and returns its result, answering the server's own requests
// and passing over its notifications meanwhile.
func (s *session) call(method string, params any) (json.RawMessage, error) {
	s.nextID++
	id := json.RawMessage(fmt.Sprint(s.nextID))
	if err := s.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}); err != nil {
		return nil, err
	}
	for {
		frame, err := s.r.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil, errors.New("the server closed its output")
			}
			return nil, err
		}
		f, err := jsonrpc.Parse(frame)
		if err != nil {
			return nil, fmt.Errorf("the server sent a message moat refuses: %w", err)
		}
		for _, m := range f.Messages {
			switch {
			case m.Kind == jsonrpc.Request:
				b, err := jsonrpc.ErrorMessage(m.ID, jsonrpc.MethodNotFound, "moat mcp scan answers no requests", nil)
				if err == nil {
					s.in.Write(append(b, '\n'))
				}
			case m.Kind == jsonrpc.Response && string(m.ID) == string(id):
				if m.Error != nil {
					return nil, fmt.Errorf("error %d: %s", m.Error.Code, m.Error.Message)
				}
				return m.Result, nil
			}
		}
	}
}
