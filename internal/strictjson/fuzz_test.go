package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// surrogateEscape finds text that may be a surrogate escape, which encoding/json would
// quietly replace; the reference below cannot see those, so such inputs skip it.
var surrogateEscape = regexp.MustCompile(`\\u[dD][89a-fA-F]`)

// reference checks a document that encoding/json accepts, the slow way: tokens from
// encoding/json, keys compared pairwise with strings.EqualFold. It reports whether Check
// should accept it at the given depth limit.
func reference(data []byte, maxDepth int) (bool, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	type level struct {
		object bool
		keys   []string
		isKey  bool // the next token of this object is a key
	}
	var stack []*level
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return true, nil
		}
		if err != nil {
			return false, err
		}
		var top *level
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.object && top.isKey {
			if d, ok := tok.(json.Delim); ok && d == '}' {
				stack = stack[:len(stack)-1]
				if len(stack) > 0 && stack[len(stack)-1].object {
					stack[len(stack)-1].isKey = true
				}
				continue
			}
			k := tok.(string)
			for _, prev := range top.keys {
				if strings.EqualFold(prev, k) {
					return false, nil
				}
			}
			top.keys = append(top.keys, k)
			top.isKey = false
			continue
		}
		switch d, _ := tok.(json.Delim); d {
		case '{', '[':
			if len(stack) >= maxDepth {
				return false, nil
			}
			stack = append(stack, &level{object: d == '{', isKey: d == '{'})
			continue
		case ']':
			stack = stack[:len(stack)-1]
		}
		// A value ended: the enclosing object, if any, expects a key next.
		if len(stack) > 0 && stack[len(stack)-1].object {
			stack[len(stack)-1].isKey = true
		}
	}
}

func FuzzCheck(f *testing.F) {
	for _, tc := range checkCases {
		f.Add([]byte(tc.in), 0)
	}
	f.Add([]byte(hookPayload("rm -rf /")), 3)
	f.Add([]byte(`[[[1]]]`), 2)
	f.Fuzz(func(t *testing.T, data []byte, depth int) {
		depth %= 300
		err := Check(data, Limits{MaxDepth: depth})
		if depth <= 0 {
			depth = defaultMaxDepth
		}
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is not an *Error", err)
			}
			if e.Offset < 0 || e.Offset > int64(len(data)) {
				t.Fatalf("offset %d outside the %d-byte document", e.Offset, len(data))
			}
		}
		valid := json.Valid(data)
		if err == nil && !valid {
			t.Fatalf("Check accepts %q, which encoding/json rejects", data)
		}
		if err == nil && !utf8.Valid(data) {
			t.Fatalf("Check accepts %q, which is not valid UTF-8", data)
		}
		if !valid || !utf8.Valid(data) || surrogateEscape.Match(data) {
			return
		}
		want, rerr := reference(data, depth)
		if rerr != nil {
			t.Fatalf("reference fails on %q, which encoding/json calls valid: %v", data, rerr)
		}
		if want != (err == nil) {
			t.Fatalf("Check(%q, depth %d) = %v, reference says accept=%v", data, depth, err, want)
		}
	})
}
