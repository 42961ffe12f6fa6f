package jsonrpc_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/moatdev/moat/internal/mcp/jsonrpc"
)

// A proxy reads each frame from the client, relays what it allows unchanged, refuses a
// tools/call it denies with a result the model can read, and answers a frame it cannot
// trust with an error instead of forwarding it.
func Example() {
	client := strings.NewReader(`{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"shell","arguments":{"cmd":"rm -rf ~"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"shell","name":"ls"}}
`)
	r := jsonrpc.NewReader(client, jsonrpc.MaxFrame)
	for {
		line, err := r.Next()
		if err == io.EOF {
			break
		}
		var f jsonrpc.Frame
		if err == nil {
			f, err = jsonrpc.Parse(line)
		}
		var fe *jsonrpc.FrameError
		if errors.As(err, &fe) {
			fmt.Println("refused:", fe)
			answer, _ := jsonrpc.ErrorMessage(fe.ID, jsonrpc.InvalidRequest, "Invalid request: "+fe.Msg, nil)
			jsonrpc.WriteFrame(os.Stdout, answer)
			continue
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, m := range f.Messages {
			if m.Kind == jsonrpc.Request && m.Method == "tools/call" {
				modern := jsonrpc.ProtocolVersion(m.Params) >= "2026-07-28"
				answer, _ := jsonrpc.ToolError(m.ID, "[moat] blocked: rm -rf ~ deletes the home directory", modern)
				jsonrpc.WriteFrame(os.Stdout, answer)
				continue
			}
			fmt.Printf("relay %s %s\n", m.Kind, m.Method)
		}
	}
	// Output:
	// relay notification notifications/initialized
	// {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"[moat] blocked: rm -rf ~ deletes the home directory"}],"isError":true,"resultType":"complete"}}
	// refused: invalid JSON: duplicate key "name" at offset 71
	// {"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"Invalid request: invalid JSON: duplicate key \"name\""}}
}
