package jsonrpc

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// smallCall is a typical tools/call request, about 200 bytes.
const smallCall = `{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"run_command","arguments":{"command":"go test ./... -run TestParse","cwd":"/home/u/src/project","timeout":120},"_meta":{"progressToken":"p-42"}}}`

func BenchmarkParse(b *testing.B) {
	big := `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"` + strings.Repeat("lorem ipsum ", 1<<20/12) + `"}],"isError":false}}`
	batch := "[" + strings.Repeat(smallCall+",", 9) + smallCall + "]"
	for _, bc := range []struct{ name, frame string }{
		{"tools-call", smallCall},
		{"batch-of-10", batch},
		{"1MiB-result", big},
	} {
		frame := []byte(bc.frame)
		if _, err := Parse(frame); err != nil {
			b.Fatal(err)
		}
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(frame)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Parse(frame); err != nil {
					b.Fatal(err)
				}
			}
		})
		// Decoding into a map with encoding/json, which checks far less, is the yardstick.
		b.Run(bc.name+"/json.Unmarshal", func(b *testing.B) {
			b.SetBytes(int64(len(frame)))
			b.ReportAllocs()
			for b.Loop() {
				var v any
				if err := json.Unmarshal(frame, &v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkReader reads small frames, as a proxy does between a client and a server.
func BenchmarkReader(b *testing.B) {
	const n = 1000
	in := bytes.Repeat([]byte(smallCall+"\n"), n)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		r := NewReader(bytes.NewReader(in), 0)
		for {
			line, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil || len(line) != len(smallCall) {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/frame")
}

// BenchmarkToolError builds the answer to a refused tools/call.
func BenchmarkToolError(b *testing.B) {
	id := json.RawMessage(`42`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ToolError(id, "[moat] blocked: rm -rf ~ deletes the home directory", true); err != nil {
			b.Fatal(err)
		}
	}
}
