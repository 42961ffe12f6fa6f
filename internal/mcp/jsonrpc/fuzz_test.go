package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// FuzzParse checks Parse against encoding/json: whatever Parse accepts, Go decodes without
// error and reads the same way, even with its case-insensitive field matching.
func FuzzParse(f *testing.F) {
	for _, tc := range goodFrames {
		f.Add([]byte(tc.in))
	}
	for _, tc := range badFrames {
		f.Add([]byte(tc.in))
	}
	f.Fuzz(func(t *testing.T, frame []byte) {
		fr, err := Parse(frame)
		if err != nil {
			var fe *FrameError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v is not a *FrameError", err)
			}
			if fe.Offset < 0 || fe.Offset > int64(len(frame)) || fe.TooLarge || fe.Msg == "" || fe.Msg == errMalformed || fe.Msg == errStop.Msg {
				t.Fatalf("bad error %+v", fe)
			}
			if fe.ID != nil && (checkID(fe.ID, false) != "" || !bytes.Contains(frame, fe.ID)) {
				t.Fatalf("recovered id %q is not a valid id of the frame", fe.ID)
			}
			return
		}
		var v any
		if err := json.Unmarshal(frame, &v); err != nil {
			t.Fatalf("Parse accepted what encoding/json rejects: %v", err)
		}
		if bytes.ContainsAny(frame, "\r\n") {
			t.Fatal("Parse accepted a frame with CR or LF")
		}
		trimmed := bytes.TrimLeft(frame, " \t")
		if fr.Batch != (trimmed[0] == '[') || len(fr.Messages) == 0 || !fr.Batch && len(fr.Messages) != 1 {
			t.Fatalf("frame %+v", fr)
		}
		for _, m := range fr.Messages {
			checkMessage(t, frame, m)
		}
	})
}

// checkMessage compares m with what encoding/json makes of its Raw bytes.
func checkMessage(t *testing.T, frame []byte, m Message) {
	t.Helper()
	if m.Kind < Request || m.Kind > Response {
		t.Fatalf("kind %v", m.Kind)
	}
	if !within(frame, m.Raw) {
		t.Fatalf("Raw %q is not a slice of the frame", m.Raw)
	}
	// Raw stands alone as the same message.
	alone, err := Parse(m.Raw)
	if err != nil || alone.Batch || summary(alone.Messages[0]) != summary(m) {
		t.Fatalf("Raw %q parses alone as %+v, %v; want %s", m.Raw, alone, err, summary(m))
	}
	// A struct decodes members case-insensitively: it must still see what Parse saw.
	var s struct {
		JSONRPC string           `json:"jsonrpc"`
		ID      json.RawMessage  `json:"id"`
		Method  *string          `json:"method"`
		Params  json.RawMessage  `json:"params"`
		Result  json.RawMessage  `json:"result"`
		Error   *json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(m.Raw, &s); err != nil {
		t.Fatalf("encoding/json: %v", err)
	}
	if s.JSONRPC != "2.0" {
		t.Fatalf("encoding/json reads jsonrpc %q", s.JSONRPC)
	}
	if !equalCompact(s.ID, m.ID) || !equalCompact(s.Params, m.Params) || !equalCompact(s.Result, m.Result) {
		t.Fatalf("encoding/json reads id %s params %s result %s; Parse %s %s %s", s.ID, s.Params, s.Result, m.ID, m.Params, m.Result)
	}
	if (s.Method != nil) != (m.Kind != Response) || s.Method != nil && *s.Method != m.Method {
		t.Fatalf("encoding/json reads method %v; Parse %q", s.Method, m.Method)
	}
	if (s.Error != nil) != (m.Error != nil) {
		t.Fatalf("encoding/json reads error %v; Parse %v", s.Error, m.Error)
	}
	if m.Error != nil {
		var e struct {
			Code    int64
			Message string
			Data    json.RawMessage
		}
		if err := json.Unmarshal(*s.Error, &e); err != nil || e.Code != m.Error.Code || e.Message != m.Error.Message || !equalCompact(e.Data, m.Error.Data) {
			t.Fatalf("encoding/json reads error %+v, %v; Parse %+v", e, err, m.Error)
		}
	}
	if m.ID != nil && checkID(m.ID, m.Error != nil) != "" {
		t.Fatalf("invalid id %q accepted", m.ID)
	}
	if m.Kind == Request {
		if _, err := ToolError(m.ID, "blocked", true); err != nil {
			t.Fatalf("cannot answer id %q: %v", m.ID, err)
		}
	}
	if m.Params != nil {
		if got, want := ProtocolVersion(m.Params), referenceVersion(m.Params); got != want {
			t.Fatalf("ProtocolVersion(%s) = %q, want %q", m.Params, got, want)
		}
	}
}

// within reports whether sub is a slice of b. Searching for its bytes would not do: a
// batch may hold two identical messages.
func within(b, sub []byte) bool {
	start := cap(b) - cap(sub)
	return len(sub) > 0 && start >= 0 && start+len(sub) <= len(b) && &b[start] == &sub[0]
}

// equalCompact compares two raw values by their compact forms; nil is an absent member.
func equalCompact(a, b json.RawMessage) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	var ca, cb bytes.Buffer
	return json.Compact(&ca, a) == nil && json.Compact(&cb, b) == nil && ca.String() == cb.String()
}

// referenceVersion is ProtocolVersion done with maps, exact on keys since Parse has ruled
// out duplicates.
func referenceVersion(params json.RawMessage) string {
	var p, meta map[string]json.RawMessage
	var v string
	if json.Unmarshal(params, &p) != nil || json.Unmarshal(p["_meta"], &meta) != nil {
		return ""
	}
	if raw, ok := meta["io.modelcontextprotocol/protocolVersion"]; ok && len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &v) == nil {
		return v
	}
	return ""
}

// FuzzReader checks the Reader against splitting the whole input on newlines.
func FuzzReader(f *testing.F) {
	for _, tc := range readerCases {
		f.Add([]byte(tc.in), uint16(tc.max), false)
		f.Add([]byte(tc.in), uint16(tc.max), true)
	}
	f.Fuzz(func(t *testing.T, in []byte, max16 uint16, bytewise bool) {
		max := int(max16)
		if max == 0 {
			max = MaxFrame
		}
		var want []string
		lines := bytes.Split(in, []byte("\n"))
		if len(lines[len(lines)-1]) == 0 {
			lines = lines[:len(lines)-1] // the input ended with a newline, or was empty
		}
		for _, l := range lines {
			switch {
			case len(l) > max:
				want = append(want, "!too large")
			case len(bytes.Trim(l, " \t\r")) > 0:
				want = append(want, string(bytes.TrimSuffix(l, []byte("\r"))))
			}
		}
		var src io.Reader = bytes.NewReader(in)
		if bytewise {
			src = iotest.OneByteReader(src)
		}
		r := NewReader(src, max)
		var got []string
		for {
			line, err := r.Next()
			if err == io.EOF {
				break
			}
			var fe *FrameError
			if errors.As(err, &fe) && fe.TooLarge {
				if fe.ID != nil && (checkID(fe.ID, false) != "" || !bytes.Contains(in, fe.ID)) {
					t.Fatalf("recovered id %q is not a valid id of the input", fe.ID)
				}
				got = append(got, "!too large")
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, string(line))
			if cap(r.buf) > max {
				t.Fatalf("buffer of %d bytes for a limit of %d", cap(r.buf), max)
			}
		}
		if strings.Join(got, "\x00") != strings.Join(want, "\x00") || len(got) != len(want) {
			t.Fatalf("got %q\nwant %q", got, want)
		}
	})
}
