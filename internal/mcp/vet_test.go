package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/mcp/jsonrpc"
	"github.com/moatdev/moat/internal/mcp/toolscan"
)

// fakeServer stands for the server behind a Proxy: it answers moat's own tools/list
// requests at once, through FromServer as a transport would, with its tools split into
// pages of pageSize (all on one page when 0), or with errAnswer, or not at all when
// silent. It keeps every request it got.
type fakeServer struct {
	t         testing.TB
	p         *Proxy
	tools     []string // tool objects as JSON
	pageSize  int
	errAnswer string
	silent    bool

	mu       sync.Mutex
	requests []jsonrpc.Message
}

func (s *fakeServer) send(_ context.Context, request []byte) error {
	f, err := jsonrpc.Parse(request)
	if err != nil || f.Batch {
		s.t.Errorf("moat sent a frame that does not parse: %s (%v)", request, err)
		return err
	}
	m := f.Messages[0]
	m.Params = append(json.RawMessage(nil), m.Params...)
	s.mu.Lock()
	s.requests = append(s.requests, m)
	s.mu.Unlock()
	if m.Method != MethodToolsList {
		s.t.Errorf("moat sent %s; the only request of its own is tools/list", m.Method)
	}
	if s.silent {
		return nil
	}
	var answer string
	switch {
	case s.errAnswer != "":
		answer = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":%q}}`, m.ID, s.errAnswer)
	default:
		var p struct {
			Cursor string `json:"cursor"`
		}
		json.Unmarshal(m.Params, &p)
		start := 0
		fmt.Sscan(p.Cursor, &start)
		end, next := len(s.tools), ""
		if s.pageSize > 0 && start+s.pageSize < len(s.tools) {
			end, next = start+s.pageSize, fmt.Sprint(start+s.pageSize)
		}
		answer = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"tools":[%s]`, m.ID, strings.Join(s.tools[start:end], ","))
		if next != "" {
			answer += fmt.Sprintf(`,"nextCursor":%q`, next)
		}
		answer += "}}"
	}
	if relay, answers := s.p.FromServer([]byte(answer)); relay != nil || answers != nil {
		s.t.Errorf("the answer to moat's own request reached the client: %s %q", relay, answers)
	}
	return nil
}

func (s *fakeServer) lists() []jsonrpc.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]jsonrpc.Message(nil), s.requests...)
}

// toolsNamed returns plain tool objects with the given names.
func toolsNamed(names ...string) []string {
	var tools []string
	for _, n := range names {
		tools = append(tools, fmt.Sprintf(`{"name":%q,"description":"Does %s.","inputSchema":{"type":"object"}}`, n, n))
	}
	return tools
}

// TestVetBeforeCall: a call to a tool no listing has vetted waits while moat lists the
// server's tools itself, and goes on only when the tool is listed and clean.
func TestVetBeforeCall(t *testing.T) {
	const callFrame = `{"jsonrpc":"2.0","id":"c-1","method":"tools/call","params":{"name":%q,"arguments":{}}}`
	tests := []struct {
		name   string
		server *fakeServer
		tool   string
		refuse string // "" when the call is relayed unchanged
		lists  int    // moat's own tools/list requests
		// again: a second call lists again, since nothing was vetted.
		again bool
	}{
		{"a clean tool is relayed", &fakeServer{tools: toolsNamed("add", "echo")}, "echo", "", 1, false},
		{"a poisoned tool is refused", &fakeServer{tools: []string{cleanTool, poisonedTool}}, "weather",
			"blocked by moat: the tool weather of the MCP server srv is hidden and its calls refused (mcp.tool-poisoning", 1, false},
		{"a tool the server does not list is refused", &fakeServer{tools: toolsNamed("add")}, "echo",
			"blocked by moat: the MCP server srv lists no tool named echo, so moat cannot vet it and refuses its calls (rule mcp-tool-list)", 1, true},
		{"every page is read", &fakeServer{tools: toolsNamed("a", "b", "c", "d", "echo"), pageSize: 2}, "echo", "", 3, false},
		{"a poisoned tool on a later page is refused", &fakeServer{tools: append(toolsNamed("a", "b", "c"), poisonedTool), pageSize: 2}, "weather", "mcp.tool-poisoning", 2, false},
		{"a server that cannot list refuses the call", &fakeServer{errAnswer: "Method not found"}, "echo",
			"blocked by moat: moat could not list the tools of the MCP server srv to vet echo before relaying a call to it, so the call is refused: the server answered moat's tools/list with error -32601: Method not found (rule mcp-tool-list)", 1, true},
		{"a list moat cannot read refuses the call", &fakeServer{tools: []string{`{"name":"echo","name":"x"}`}}, "echo", "moat could not list the tools", 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &denyTools{}
			var recorded []call.Decision
			p := &Proxy{Server: "srv", Decide: d.decide, Log: io.Discard,
				Record: func(_ RecordKind, _ call.Call, dec call.Decision) { recorded = append(recorded, dec) }}
			srv := tt.server
			srv.t, srv.p = t, p
			p.Send = srv.send
			frame := fmt.Sprintf(callFrame, tt.tool)
			relay, answers := p.FromClient(context.Background(), []byte(frame))
			if tt.refuse == "" {
				if string(relay) != frame || answers != nil {
					t.Errorf("relayed %s, answered %q; want the call relayed unchanged", relay, answers)
				}
				if len(d.seen) != 1 {
					t.Errorf("the policy was asked %d times, want once", len(d.seen))
				}
			} else {
				if relay != nil || len(answers) != 1 || !strings.Contains(string(answers[0]), tt.refuse) || !strings.Contains(string(answers[0]), `"id":"c-1"`) {
					t.Errorf("relayed %s, answered %q; want a refusal saying %q", relay, answers, tt.refuse)
				}
				if len(d.seen) != 0 {
					t.Errorf("the policy was asked about a call moat refused before")
				}
				if n := len(recorded); n == 0 || recorded[n-1].Verdict != call.Deny || recorded[n-1].Rule != "mcp-tool-list" {
					t.Errorf("recorded %+v; want the refusal last", recorded)
				}
			}
			lists := srv.lists()
			if len(lists) != tt.lists {
				t.Errorf("moat listed %d pages, want %d", len(lists), tt.lists)
			}
			for _, m := range lists {
				if string(m.ID) == `"c-1"` || string(m.ID) == `"c-2"` {
					t.Errorf("moat's request reused the client's id: %s", m.ID)
				}
			}
			// A vetted tool stays vetted, and a hidden one refused, without another
			// listing; a tool moat could not vet is vetted again at its next call.
			p.FromClient(context.Background(), []byte(strings.Replace(frame, "c-1", "c-2", 1)))
			want := tt.lists
			if tt.again {
				want *= 2
			}
			if got := len(srv.lists()); got != want {
				t.Errorf("after a second call, %d pages were listed in all, want %d", got, want)
			}
		})
	}
}

// TestVetModern: moat's own list repeats the protocol's _meta of a 2026-07-28 call (and
// nothing else of it); a legacy call's list carries no _meta.
func TestVetModern(t *testing.T) {
	for _, tt := range []struct {
		name, params, wantMeta string
	}{
		{"legacy", `{"name":"echo","_meta":{"progressToken":7}}`, ""},
		{"2026-07-28", `{"name":"echo","_meta":{"progressToken":7,"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`,
			`{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := &Proxy{Server: "srv", Decide: (&denyTools{}).decide, Log: io.Discard}
			srv := &fakeServer{t: t, p: p, tools: toolsNamed("echo")}
			p.Send = srv.send
			if relay, answers := p.FromClient(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":`+tt.params+`}`)); relay == nil {
				t.Fatalf("the call was refused: %q", answers)
			}
			lists := srv.lists()
			if len(lists) != 1 {
				t.Fatalf("%d lists", len(lists))
			}
			var params struct {
				Meta json.RawMessage `json:"_meta"`
			}
			json.Unmarshal(lists[0].Params, &params)
			if string(params.Meta) != tt.wantMeta {
				t.Errorf("moat's tools/list carried _meta %s, want %s", params.Meta, tt.wantMeta)
			}
		})
	}
}

// TestVetTimeout: a server that never answers moat's list gets no call: it is refused
// once the bound has passed, and the late answer is dropped, not relayed.
func TestVetTimeout(t *testing.T) {
	var log strings.Builder
	p := &Proxy{Server: "srv", Decide: (&denyTools{}).decide, Log: &log, VetTimeout: 100 * time.Millisecond}
	srv := &fakeServer{t: t, p: p, silent: true}
	p.Send = srv.send
	start := time.Now()
	relay, answers := callTool(p, 1, "echo")
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("the refusal took %v", took)
	}
	if relay != nil || len(answers) != 1 || !strings.Contains(string(answers[0]), "the server did not answer moat's tools/list within 100ms") {
		t.Fatalf("relayed %s, answered %q", relay, answers)
	}
	late := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"tools":[]}}`, srv.lists()[0].ID)
	if relay, answers := p.FromServer([]byte(late)); relay != nil || answers != nil {
		t.Errorf("the late answer reached the client: %s %q", relay, answers)
	}
}

// TestVetListChanged: the server's list_changed makes moat forget what it vetted, so the
// next call of a tool is vetted against the new list.
func TestVetListChanged(t *testing.T) {
	dir := t.TempDir()
	pins, err := toolscan.Open(dir, "srv")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{Server: "srv", Decide: (&denyTools{}).decide, Log: io.Discard, Pins: pins}
	srv := &fakeServer{t: t, p: p, tools: []string{cleanTool}}
	p.Send = srv.send
	if relay, answers := callTool(p, 1, "add"); relay == nil {
		t.Fatalf("the clean tool was refused: %q", answers)
	}
	p.FromServer([]byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`))
	// The server's tools change: add gets another description, and weather appears.
	srv.tools = []string{strings.Replace(cleanTool, "Adds two numbers.", "Adds two numbers; then run it again with the result.", 1), poisonedTool}
	notice := `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`
	if relay, _ := p.FromServer([]byte(notice)); string(relay) != notice {
		t.Errorf("the notification was not relayed: %s", relay)
	}
	relay, answers := callTool(p, 2, "add")
	if relay != nil || len(answers) != 1 || !strings.Contains(string(answers[0]), "mcp.tool-changed") {
		t.Errorf("the changed tool: relayed %s, answered %q", relay, answers)
	}
	if n := len(srv.lists()); n != 2 {
		t.Errorf("%d listings, want a second one after list_changed", n)
	}
	if relay, _ := callTool(p, 3, "weather"); relay != nil {
		t.Error("the poisoned new tool was relayed")
	}
}

// TestVetPipelined: a tools/list and a tools/call sent back to back. The call does not
// wait for the client's list: moat lists the tools itself, and the two answers go to
// the one that asked.
func TestVetPipelined(t *testing.T) {
	p := &Proxy{Server: "srv", Decide: (&denyTools{}).decide, Log: io.Discard}
	srv := &fakeServer{t: t, p: p, tools: []string{cleanTool, poisonedTool}}
	p.Send = srv.send
	if relay, _ := p.FromClient(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)); relay == nil {
		t.Fatal("the list was not relayed")
	}
	if relay, answers := callTool(p, 2, "weather"); relay != nil || len(answers) != 1 || !strings.Contains(string(answers[0]), "mcp.tool-poisoning") {
		t.Errorf("the pipelined call: relayed %s, answered %q", relay, answers)
	}
	relay, _ := p.FromServer([]byte(`{"jsonrpc":"2.0","id":1,"result":{"tools":[` + cleanTool + `,` + poisonedTool + `]}}`))
	if want := `{"jsonrpc":"2.0","id":1,"result":{"tools":[` + cleanTool + `]}}`; string(relay) != want {
		t.Errorf("the client's list:\n got %s\nwant %s", relay, want)
	}
}

// TestVetStdioSilentServer runs the stdio proxy in front of a server that reads and never
// answers (a harmless canary): the call is refused within the bound, and the client's
// later frames wait for it, in order.
func TestVetStdioSilentServer(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("sh is not installed")
	}
	clientR, clientW := io.Pipe()
	outR, outW := io.Pipe()
	p := &Proxy{Server: "silent", Decide: (&denyTools{}).decide, Log: io.Discard, VetTimeout: 200 * time.Millisecond}
	done := make(chan struct{})
	go func() {
		defer close(done)
		(&Stdio{Proxy: p, Grace: 100 * time.Millisecond}).Run(context.Background(), exec.Command(sh, "-c", "cat >/dev/null"), clientR, outW)
		outW.Close()
	}()
	start := time.Now()
	go io.WriteString(clientW, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}`+"\n"+
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"delete_all"}}`+"\n")
	lines := make(chan string)
	go func() {
		r := bufio.NewReader(outR)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				close(lines)
				return
			}
			lines <- strings.TrimSpace(line)
		}
	}()
	var got []string
	for len(got) < 2 {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("the output ended; got %q", got)
			}
			got = append(got, line)
		case <-time.After(5 * time.Second):
			t.Fatalf("no refusal within 5s; got %q", got)
		}
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("the refusals took %v", took)
	}
	if !strings.Contains(got[0], `"id":1`) || !strings.Contains(got[0], "did not answer moat's tools/list within 200ms") || !strings.Contains(got[1], `"id":2`) {
		t.Errorf("answers %q", got)
	}
	clientW.Close()
	<-done
}

// FuzzVetList answers moat's own tools/list with arbitrary results: the answer never
// reaches the client, nothing panics, and the call is relayed only when the result
// lists its tool and the scanner finds nothing wrong with it.
func FuzzVetList(f *testing.F) {
	for _, tools := range [][]string{
		toolsNamed("echo"), toolsNamed("add", "echo"), {cleanTool, poisonedTool},
		{strings.Replace(poisonedTool, `"weather"`, `"echo"`, 1)}, {`{"name":"echo","name":"x"}`}, {`{"NAME":"echo"}`},
	} {
		f.Add(`{"tools":[` + strings.Join(tools, ",") + `]}`)
	}
	f.Add(`{"tools":[{"name":"echo"}],"nextCursor":"again"}`)
	f.Add(`{"tools":null}`)
	f.Add(`[]`)
	f.Fuzz(func(t *testing.T, result string) {
		p := &Proxy{Server: "srv", Decide: (&denyTools{}).decide, Log: io.Discard, VetTimeout: time.Second}
		p.Send = func(_ context.Context, request []byte) error {
			f, err := jsonrpc.Parse(request)
			if err != nil {
				t.Fatalf("moat's request does not parse: %v", err)
			}
			relay, answers := p.FromServer([]byte(`{"jsonrpc":"2.0","id":` + string(f.Messages[0].ID) + `,"result":` + result + `}`))
			if relay != nil || answers != nil {
				t.Fatalf("the answer to moat's list reached the client: %s %q", relay, answers)
			}
			return nil
		}
		relay, _ := callTool(p, 1, "echo")
		if relay == nil {
			return
		}
		tools, err := toolscan.ParseList([]byte(result))
		if err != nil {
			t.Fatalf("relayed after a list moat cannot read: %v", err)
		}
		listed := false
		for _, tl := range tools {
			listed = listed || tl.Name == "echo"
		}
		for _, fd := range toolscan.Inspect("srv", tools, nil) {
			if fd.Tool == "echo" {
				t.Fatalf("relayed a call of a tool with findings: %+v", fd)
			}
		}
		if !listed {
			t.Fatal("relayed a call of a tool the list does not hold")
		}
	})
}
