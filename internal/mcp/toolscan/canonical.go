package toolscan

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/moatdev/moat/internal/strictjson"
)

// Pin is what is remembered of a tool's definition: hashes, never the text.
type Pin struct {
	// SHA256 is the hex SHA-256 of the canonical JSON of the object
	// {"description", "inputSchema", "name"}: a change to any of them changes it.
	SHA256 string `json:"sha256"`
	// Description and InputSchema are the hex SHA-256 of each part's canonical JSON,
	// which tell what a change changed.
	Description string `json:"description"`
	InputSchema string `json:"inputSchema"`
}

// PinOf returns the pin of a tool's definition. The description, the input schema and
// the name are hashed in canonical JSON (object keys sorted, no insignificant
// whitespace, strings escaped minimally), so that a server that reorders keys or
// re-indents its schema has not changed its tool. Numbers are hashed as written: two
// literals that a parser rounds to the same float are still different text.
//
// A schema that is not strict JSON (see package strictjson) cannot be put in canonical
// form; its bytes are hashed as they are, so that it is still pinned and any change to
// it is still a change.
func PinOf(t Tool) Pin {
	desc := canonicalString(nil, t.Description)
	schema := []byte("null")
	if len(bytes.TrimSpace(t.InputSchema)) > 0 {
		var err error
		if schema, err = canonical(t.InputSchema); err != nil {
			schema = append([]byte("raw:"), t.InputSchema...)
		}
	}
	whole := []byte(`{"description":`)
	whole = append(whole, desc...)
	whole = append(whole, `,"inputSchema":`...)
	whole = append(whole, schema...)
	whole = append(whole, `,"name":`...)
	whole = canonicalString(whole, t.Name)
	whole = append(whole, '}')
	return Pin{SHA256: sum(whole), Description: sum(desc), InputSchema: sum(schema)}
}

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// canonical returns the canonical form of the JSON document data: object members sorted
// by key (by code point), no whitespace outside strings, strings with only '"', '\\'
// and control characters escaped, numbers as written. data must pass strictjson's
// checks: with duplicate keys or invalid text, two readers would disagree about what is
// being hashed.
func canonical(data []byte) ([]byte, error) {
	if err := strictjson.Check(data, strictjson.Limits{}); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return appendCanonical(make([]byte, 0, len(data)), v)
}

// appendCanonical appends the canonical form of a value decoded by encoding/json with
// UseNumber. Its recursion is bounded by strictjson's nesting limit.
func appendCanonical(b []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		if v {
			return append(b, "true"...), nil
		}
		return append(b, "false"...), nil
	case json.Number:
		return append(b, v...), nil
	case string:
		return canonicalString(b, v), nil
	case []any:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendCanonical(b, e); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys) // byte order of UTF-8 is code point order
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = canonicalString(b, k)
			b = append(b, ':')
			var err error
			if b, err = appendCanonical(b, v[k]); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	}
	return nil, fmt.Errorf("canonical JSON: unexpected %T", v)
}

// canonicalString appends s as a JSON string with the fewest escapes: '"', '\\' and
// the control characters below U+0020. A byte of invalid UTF-8, possible only in a Tool
// built by hand, is written as \xNN: not JSON, but distinct from U+FFFD, which a
// decoder would have put in its place, so that the hash still tells the two apart.
func canonicalString(b []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				b = append(b, `\x`...)
				b = append(b, hexDigits[c>>4], hexDigits[c&0xF])
			} else {
				b = append(b, s[i:i+size]...)
			}
			i += size
			continue
		}
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, `\n`...)
		case c == '\r':
			b = append(b, `\r`...)
		case c == '\t':
			b = append(b, `\t`...)
		case c == '\b':
			b = append(b, `\b`...)
		case c == '\f':
			b = append(b, `\f`...)
		case c < 0x20:
			b = append(b, `\u00`...)
			b = append(b, hexDigits[c>>4], hexDigits[c&0xF])
		default:
			b = append(b, c)
		}
		i++
	}
	return append(b, '"')
}

// shortHash is the start of a hash, for messages.
func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
