package strictjson

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// hookPayload is shaped like an agent's hook event.
func hookPayload(command string) string {
	return fmt.Sprintf(`{"session_id":"3f2a9c1e-8b7d-4e6f-a5c4-2d1b0e9f8a7c","transcript_path":"/home/u/.claude/projects/p/3f2a9c1e.jsonl","cwd":"/home/u/src/project","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":%q,"description":"Build and test","timeout":120000,"run_in_background":false},"permission_mode":"default","meta":{"ids":[1,2,3,4.5e6,-7],"ok":true,"none":null,"note":"caf\u00e9 \ud83d\ude00 — ünïcödé"}}`, command)
}

// document builds a JSON document of about size bytes: an array of hook payloads.
func document(size int) []byte {
	var b strings.Builder
	b.WriteString("[")
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(hookPayload(fmt.Sprintf("go test ./... -run Test%d && rm -rf ./build/%d", i, i)))
	}
	b.WriteString("]")
	return []byte(b.String())
}

func BenchmarkCheck(b *testing.B) {
	manyKeys := func() []byte {
		var s strings.Builder
		s.WriteString("{")
		for i := range 100000 {
			fmt.Fprintf(&s, `"key%d":%d,`, i, i)
		}
		s.WriteString(`"end":0}`)
		return []byte(s.String())
	}()
	for _, bc := range []struct {
		name string
		doc  []byte
	}{
		{"hook-payload", []byte(hookPayload("ls -la"))},
		{"1KiB", document(1 << 10)},
		{"1MiB", document(1 << 20)},
		{"100k-keys", manyKeys},
	} {
		if err := Check(bc.doc, Limits{}); err != nil {
			b.Fatal(err)
		}
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.doc)))
			b.ReportAllocs()
			for b.Loop() {
				if err := Check(bc.doc, Limits{}); err != nil {
					b.Fatal(err)
				}
			}
		})
		// encoding/json.Valid is the floor to compare with: it checks syntax only.
		b.Run(bc.name+"/json.Valid", func(b *testing.B) {
			b.SetBytes(int64(len(bc.doc)))
			for b.Loop() {
				json.Valid(bc.doc)
			}
		})
	}
}
