package audit

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/call"
)

// TestLongArgumentsAreClipped: a file written whole is recorded by its beginning, its
// length and its digest, not copied into the log; short arguments are kept whole.
func TestLongArgumentsAreClipped(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l, err := Open(Options{Path: path, Redactor: identity{}})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	content := strings.Repeat("é", 50<<10) // 100 KiB, two bytes a rune
	if err := l.Append(Record{Class: "file.write", Tool: "Write", Decision: call.Allow,
		Args: map[string]any{"path": "/p/big.txt", "content": content, "lines": []string{content}}}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > 3*keptArgBytes+1024 {
		t.Errorf("the record is %d bytes long", len(data))
	}
	var got []Record
	if err := Read(path, func(r Record) error { got = append(got, r); return nil }); err != nil {
		t.Fatal(err)
	}
	c := got[0].Args["content"].(string)
	note := fmt.Sprintf("…[moat: %d bytes in all, sha256 %x]", len(content), sha256.Sum256([]byte(content)))
	if !strings.HasSuffix(c, note) || !strings.HasPrefix(content, strings.TrimSuffix(c, note)) {
		t.Errorf("content recorded as %.80q…%q", c, c[max(0, len(c)-100):])
	}
	if !bytes.Contains(data, []byte(`"path":"/p/big.txt"`)) {
		t.Errorf("a short argument was not kept whole: %s", data[:200])
	}
	if l := got[0].Args["lines"].([]any)[0].(string); !strings.HasSuffix(l, note) {
		t.Errorf("a long string in a list was not clipped")
	}
}

func TestClipKeepsRunesWhole(t *testing.T) {
	for _, s := range []string{strings.Repeat("a", maxArgBytes), strings.Repeat("a", keptArgBytes-1) + strings.Repeat("€", maxArgBytes)} {
		got := clip(s)
		if len(s) <= maxArgBytes {
			if got != s {
				t.Errorf("a string of %d bytes was clipped", len(s))
			}
			continue
		}
		head, _, _ := strings.Cut(got, "…[moat:")
		if !strings.HasPrefix(s, head) || !strings.ContainsRune(head, 'a') || strings.ContainsRune(head, '\uFFFD') {
			t.Errorf("clip cut a rune: head ends %q", head[len(head)-8:])
		}
	}
}
