package jsonrpc

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// goodFrames are accepted; want summarises each message (see summary).
var goodFrames = []struct {
	name string
	in   string
	want []string
}{
	// Ids keep their bytes exactly: an answer must carry the id the peer wrote.
	{"string id", `{"jsonrpc":"2.0","id":"abc","method":"tools/call","params":{"name":"x"}}`, []string{`request id="abc" method=tools/call params={"name":"x"}`}},
	{"integer id", `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`, []string{`request id=7 method=tools/list`}},
	{"zero id", `{"jsonrpc":"2.0","id":0,"method":"ping"}`, []string{`request id=0 method=ping`}},
	{"negative id", `{"jsonrpc":"2.0","id":-12,"method":"ping"}`, []string{`request id=-12 method=ping`}},
	{"largest safe id", `{"jsonrpc":"2.0","id":9007199254740991,"method":"ping"}`, []string{`request id=9007199254740991 method=ping`}},
	{"smallest safe id", `{"jsonrpc":"2.0","id":-9007199254740991,"method":"ping"}`, []string{`request id=-9007199254740991 method=ping`}},
	{"escaped string id", `{"jsonrpc":"2.0","id":"a\u0062\"c\/","method":"ping"}`, []string{`request id="a\u0062\"c\/" method=ping`}},
	{"empty string id", `{"jsonrpc":"2.0","id":"","method":"ping"}`, []string{`request id="" method=ping`}},
	{"long string id", `{"jsonrpc":"2.0","id":"` + strings.Repeat("x", 300) + `","method":"ping"}`, []string{`request id="` + strings.Repeat("x", 300) + `" method=ping`}},

	{"notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, []string{`notification method=notifications/initialized`}},
	{"notification with array params", `{"jsonrpc":"2.0","method":"x","params":[1,"a",null]}`, []string{`notification method=x params=[1,"a",null]`}},
	{"cancellation", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"123","reason":"user"}}`, []string{`notification method=notifications/cancelled params={"requestId":"123","reason":"user"}`}},
	{"empty params", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`, []string{`request id=1 method=tools/list params={}`}},
	{"empty array params", `{"jsonrpc":"2.0","id":1,"method":"x","params":[]}`, []string{`request id=1 method=x params=[]`}},
	{"empty method", `{"jsonrpc":"2.0","id":1,"method":""}`, []string{`request id=1 method=`}},

	{"result", `{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`, []string{`response id=1 result={"tools":[]}`}},
	{"null result", `{"jsonrpc":"2.0","id":"r","result":null}`, []string{`response id="r" result=null`}},
	{"array result", `{"jsonrpc":"2.0","id":2,"result":[1,2]}`, []string{`response id=2 result=[1,2]`}},
	{"error", `{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found"}}`, []string{`response id=3 error=-32601 "Method not found"`}},
	{"error with data", `{"jsonrpc":"2.0","id":3,"error":{"data":{"supported":["2025-11-25"]},"message":"bad version","code":-32022}}`, []string{`response id=3 error=-32022 "bad version" data={"supported":["2025-11-25"]}`}},
	{"error with null id", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`, []string{`response id=null error=-32700 "Parse error"`}},
	{"error with escaped message", `{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"a\nb\u00e9"}}`, []string{`response id=1 error=1 "a\nbé"`}},

	// Escapes are decoded before names and values are compared: every parser reads these
	// keys as "id" and "method", and this method as tools/call.
	{"escaped method", `{"jsonrpc":"2.0","id":1,"method":"tools\/call"}`, []string{`request id=1 method=tools/call`}},
	{"escaped keys", `{"\u006asonrpc":"2.0","\u0069d":1,"m\u0065thod":"ping"}`, []string{`request id=1 method=ping`}},
	{"escaped version", `{"jsonrpc":"2\u002e0","id":1,"method":"ping"}`, []string{`request id=1 method=ping`}},
	{"any member order", `{"params":{"a":1},"method":"ping","id":1,"jsonrpc":"2.0"}`, []string{`request id=1 method=ping params={"a":1}`}},
	{"whitespace", " \t{ \"jsonrpc\" : \"2.0\" ,\t\"id\" : 1 , \"method\" : \"ping\" } \t", []string{`request id=1 method=ping`}},

	// Numbers need only fit in a float64 outside ids; policy reads them as json.Number.
	{"big numbers in params", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"n":12345678901234567890,"f":1e308,"g":-1.7976931348623157e308,"tiny":1e-400}}`, []string{`request id=1 method=tools/call params={"n":12345678901234567890,"f":1e308,"g":-1.7976931348623157e308,"tiny":1e-400}`}},
	{"unicode", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"text":"日本語 \ud83d\ude00 ü"}}`, []string{`request id=1 method=tools/call params={"text":"日本語 \ud83d\ude00 ü"}`}},
	{"deep params", `{"jsonrpc":"2.0","id":1,"method":"x","params":` + strings.Repeat("[", 127) + strings.Repeat("]", 127) + `}`, []string{`request id=1 method=x params=` + strings.Repeat("[", 127) + strings.Repeat("]", 127)}},
	{"modern tools/call", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_weather","arguments":{"city":"Paris"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","progressToken":5}}}`,
		[]string{`request id=2 method=tools/call params={"name":"get_weather","arguments":{"city":"Paris"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","progressToken":5}}`}},

	{"batch", `[{"jsonrpc":"2.0","id":1,"method":"a"}, {"jsonrpc":"2.0","method":"b"} ,{"jsonrpc":"2.0","id":"x","result":{}}]`,
		[]string{`batch`, `request id=1 method=a`, `notification method=b`, `response id="x" result={}`}},
	{"batch of one", `[{"jsonrpc":"2.0","id":1,"method":"a"}]`, []string{`batch`, `request id=1 method=a`}},
	{"batch in whitespace", ` [ {"jsonrpc":"2.0","method":"a"} ] `, []string{`batch`, `notification method=a`}},
}

// badFrames are rejected with an error containing msg, at offset when it is not -1, and
// with the recovered id (as written) or none.
var badFrames = []struct {
	name   string
	in     string
	msg    string
	offset int64
	id     string
}{
	{"not JSON", `{nope`, `invalid JSON`, 1, ""},
	{"empty", ``, `invalid JSON: empty document`, 0, ""},
	{"spaces", `   `, `invalid JSON: empty document`, 3, ""},
	{"truncated", `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{`, `invalid JSON: unexpected end`, -1, "8"},
	{"trailing data", `{"jsonrpc":"2.0","id":1,"method":"a"} {}`, `after the end of the document`, 38, "1"},
	{"two messages", `{"jsonrpc":"2.0","id":1,"method":"a"}{"jsonrpc":"2.0","id":2,"method":"b"}`, `after the end of the document`, 37, "1"},
	{"byte order mark", "\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"method\":\"a\"}", `unexpected byte 0xEF`, 0, ""},
	{"raw newline", "{\"jsonrpc\":\"2.0\",\n\"id\":1,\"method\":\"a\"}", `raw newline inside a frame`, 17, ""},
	{"raw carriage return", "{\"jsonrpc\":\"2.0\",\"id\":1,\r\"method\":\"a\"}", `raw carriage return inside a frame`, 24, "1"},
	{"trailing carriage return", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\"}\r", `raw carriage return`, 37, "1"},
	{"control character", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\tb\"}", `control character U+0009`, 35, "1"},
	{"single quotes", `{'jsonrpc':'2.0'}`, `invalid JSON`, 1, ""},

	// What parsers disagree on.
	{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"a\":\"x\xffy\"}}", `invalid UTF-8`, 62, "1"},
	{"invalid UTF-8 in a key", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\",\"\xc0\xaf\":1}", `invalid UTF-8`, -1, "1"},
	{"lone high surrogate", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"a":"\ud800"}}`, `lone high surrogate`, 61, "2"},
	{"lone low surrogate", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"a":"x\udc00"}}`, `lone low surrogate`, -1, "2"},
	{"duplicate id", `{"jsonrpc":"2.0","id":1,"id":2,"method":"x"}`, `invalid JSON: duplicate key "id"`, 24, ""},
	{"ID and id", `{"jsonrpc":"2.0","id":1,"ID":2,"method":"x"}`, `key "ID" differs from an earlier key "id" only in letter case`, 24, ""},
	{"ID alone", `{"jsonrpc":"2.0","ID":1,"method":"x"}`, `unknown member "ID"`, 17, ""},
	{"Id and a later id", `{"jsonrpc":"2.0","Id":1,"method":"x","id":2}`, `only in letter case`, -1, ""},
	{"Method and method", `{"jsonrpc":"2.0","id":3,"method":"tools/list","Method":"tools/call"}`, `key "Method" differs from an earlier key "method" only in letter case`, 46, "3"},
	{"Method alone", `{"jsonrpc":"2.0","id":3,"Method":"tools/call"}`, `unknown member "Method"`, 24, "3"},
	// Go's encoding/json matches member names with simple case folding, under which the
	// long s (U+017F) is an 's' and the Kelvin sign (U+212A) a 'k'.
	{"long s in params", `{"jsonrpc":"2.0","id":3,"method":"tools/call","paramſ":{}}`, `unknown member "paramſ"`, 46, "3"},
	{"long s in jsonrpc", `{"jſonrpc":"2.0","id":3,"method":"tools/call"}`, `unknown member "jſonrpc"`, 1, "3"},
	{"escaped long s", `{"jsonrpc":"2.0","id":3,"method":"tools/call","param\u017f":{}}`, `unknown member "paramſ"`, 46, "3"},
	{"long s in error", `{"jsonrpc":"2.0","id":1,"error":{"code":1,"meſſage":"m"}}`, `unknown member "meſſage" in "error"`, 42, "1"},
	{"PARAMS", `{"jsonrpc":"2.0","id":3,"method":"tools/call","PARAMS":{}}`, `unknown member "PARAMS"`, 46, "3"},
	{"duplicate method", `{"jsonrpc":"2.0","id":3,"method":"tools/list","method":"tools/call"}`, `duplicate key "method"`, 46, "3"},
	{"escaped duplicate method", `{"jsonrpc":"2.0","id":3,"method":"tools/list","m\u0065thod":"tools/call"}`, `duplicate key "method"`, -1, "3"},
	{"nested duplicate", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read","name":"rm"}}`, `duplicate key "name"`, 70, "4"},
	{"nested case variant", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"arguments":{},"Arguments":{}}}`, `only in letter case`, -1, "4"},
	{"kelvin sign", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"k":1,"\u212a":2}}`, `only in letter case`, -1, "4"},
	{"number too large", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"n":1e400}}`, `number 1e400 does not fit in a 64-bit float`, 60, "5"},
	{"negative number too large", `{"jsonrpc":"2.0","id":5,"result":{"n":[-1.5E+999]}}`, `number -1.5E+999 does not fit`, 39, "5"},
	{"number too large before id", `{"jsonrpc":"2.0","params":{"n":1e400},"method":"a","id":5}`, `does not fit`, 31, "5"},
	{"long number too large", `{"jsonrpc":"2.0","method":"a","params":[` + strings.Repeat("9", 400) + `]}`, `number 9999999999999999999999999999999999999999… does not fit`, 40, ""},
	{"too deep", `{"jsonrpc":"2.0","id":6,"method":"x","params":` + strings.Repeat("[", 128) + strings.Repeat("]", 128) + `}`, `nesting is deeper than the limit of 128`, -1, "6"},

	// Ids.
	{"id too large", `{"jsonrpc":"2.0","id":9007199254740992,"method":"ping"}`, `request id 9007199254740992 must be an integer within ±(2^53-1)`, 22, ""},
	{"id too small", `{"jsonrpc":"2.0","id":-9007199254740992,"method":"ping"}`, `must be an integer`, 22, ""},
	{"id with exponent", `{"jsonrpc":"2.0","id":-0.5e3,"method":"ping"}`, `request id -0.5e3 must be an integer within ±(2^53-1), written plainly (no fraction, exponent or -0)`, 22, ""},
	{"id minus zero", `{"jsonrpc":"2.0","id":-0,"method":"ping"}`, `request id -0 must be an integer`, 22, ""},
	{"error code minus zero", `{"jsonrpc":"2.0","id":1,"error":{"code":-0,"message":"m"}}`, `error "code" must be an integer`, 40, "1"},
	{"id with fraction", `{"jsonrpc":"2.0","id":1.0,"method":"ping"}`, `no fraction`, 22, ""},
	{"id 1e400", `{"jsonrpc":"2.0","id":1e400,"method":"ping"}`, `number 1e400 does not fit`, 22, ""},
	{"id true", `{"jsonrpc":"2.0","id":true,"method":"ping"}`, `request id must be a string or an integer`, 22, ""},
	{"id object", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, `request id must be a string or an integer`, 22, ""},
	{"id array", `{"jsonrpc":"2.0","id":[1],"method":"ping"}`, `request id must be a string or an integer`, 22, ""},
	{"request id null", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, `request id must be a string or an integer, not null`, 22, ""},
	{"result id null", `{"jsonrpc":"2.0","id":null,"result":{}}`, `response id must be a string or an integer, not null`, 22, ""},
	{"response id too large", `{"jsonrpc":"2.0","id":12345678901234567890,"error":{"code":1,"message":"m"}}`, `response id 12345678901234567890 must be an integer`, 22, ""},

	// Shape.
	{"string frame", `"x"`, `a frame must be a JSON object or a batch array`, 0, ""},
	{"number frame", ` 1`, `a frame must be a JSON object or a batch array`, 1, ""},
	{"null frame", `null`, `a frame must be a JSON object or a batch array`, 0, ""},
	{"empty batch", `[]`, `empty batch`, 0, ""},
	{"empty batch with space", ` [ ] `, `empty batch`, 1, ""},
	{"nested batch", `[[{"jsonrpc":"2.0","method":"a"}]]`, `batch element 1 is a batch (batches do not nest)`, 1, ""},
	{"nested batch later", `[{"jsonrpc":"2.0","method":"a"},[]]`, `batch element 2 is a batch`, 32, ""},
	{"batch of numbers", `[1]`, `batch element 1 is not a JSON object`, 1, ""},
	{"batch with null", `[{"jsonrpc":"2.0","method":"a"},null]`, `batch element 2 is not a JSON object`, 32, ""},
	{"bad batch element", `[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"1.0","id":9,"method":"b"}]`, `batch element 2: "jsonrpc" must be "2.0", not "1.0"`, 43, ""},
	{"batch element without id", `[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","id":1}]`, `batch element 2: a message must have "method"`, 39, ""},
	{"batch with too large number", `[{"jsonrpc":"2.0","id":1,"method":"a","params":[1e999]}]`, `batch element 1: number 1e999 does not fit`, 48, ""},

	{"missing jsonrpc", `{"id":1,"method":"ping"}`, `missing "jsonrpc":"2.0"`, 0, "1"},
	{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":1,"method":"ping"}`, `"jsonrpc" must be "2.0", not "1.0"`, 11, "1"},
	{"jsonrpc number", `{"jsonrpc":2.0,"id":1,"method":"ping"}`, `"jsonrpc" must be the string "2.0"`, 11, "1"},
	{"jsonrpc with space", `{"jsonrpc":"2.0 ","id":1,"method":"ping"}`, `"jsonrpc" must be "2.0", not "2.0 "`, 11, "1"},
	{"unknown member", `{"jsonrpc":"2.0","id":1,"method":"ping","foo":1}`, `unknown member "foo"`, 40, "1"},
	{"method and result", `{"jsonrpc":"2.0","id":1,"method":"ping","result":{}}`, `a message with "method" cannot have "result" or "error"`, 0, "1"},
	{"method and error", `{"jsonrpc":"2.0","id":1,"method":"ping","error":{"code":1,"message":"m"}}`, `cannot have "result" or "error"`, 0, "1"},
	{"result and error", `{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}`, `a response cannot have both "result" and "error"`, 0, "1"},
	{"neither", `{"jsonrpc":"2.0","id":1}`, `a message must have "method"`, 0, "1"},
	{"params alone", `{"jsonrpc":"2.0","id":1,"params":{}}`, `a message must have "method"`, 0, "1"},
	{"method number", `{"jsonrpc":"2.0","id":1,"method":1}`, `"method" must be a string`, 33, "1"},
	{"method null", `{"jsonrpc":"2.0","id":1,"method":null}`, `"method" must be a string`, 33, "1"},
	{"params string", `{"jsonrpc":"2.0","id":1,"method":"a","params":"x"}`, `"params" must be an object or an array`, 46, "1"},
	{"params null", `{"jsonrpc":"2.0","id":1,"method":"a","params":null}`, `"params" must be an object or an array`, 46, "1"},
	{"response with params", `{"jsonrpc":"2.0","id":1,"result":{},"params":{}}`, `a response cannot have "params"`, 45, "1"},
	{"response without id", `{"jsonrpc":"2.0","result":{}}`, `a response must have "id"`, 0, ""},
	{"error without id", `{"jsonrpc":"2.0","error":{"code":1,"message":"m"}}`, `a response must have "id"`, 0, ""},
	{"error not an object", `{"jsonrpc":"2.0","id":1,"error":"boom"}`, `"error" must be an object`, 32, "1"},
	{"error without code", `{"jsonrpc":"2.0","id":1,"error":{"message":"m"}}`, `"error" must have "code" and "message"`, 32, "1"},
	{"error without message", `{"jsonrpc":"2.0","id":1,"error":{"code":1}}`, `"error" must have "code" and "message"`, 32, "1"},
	{"error code fraction", `{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"m"}}`, `error "code" must be an integer`, 40, "1"},
	{"error code string", `{"jsonrpc":"2.0","id":1,"error":{"code":"1","message":"m"}}`, `error "code" must be an integer`, 40, "1"},
	{"error message number", `{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":2}}`, `error "message" must be a string`, 52, "1"},
	{"error extra member", `{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m","Data":{}}}`, `unknown member "Data" in "error"`, 56, "1"},
}

// summary describes a message for comparison with goodFrames.
func summary(m Message) string {
	s := m.Kind.String()
	if m.ID != nil {
		s += " id=" + string(m.ID)
	}
	if m.Kind != Response {
		s += " method=" + m.Method
	}
	if m.Params != nil {
		s += " params=" + string(m.Params)
	}
	if m.Result != nil {
		s += " result=" + string(m.Result)
	}
	if m.Error != nil {
		s += fmt.Sprintf(" error=%d %q", m.Error.Code, m.Error.Message)
		if m.Error.Data != nil {
			s += " data=" + string(m.Error.Data)
		}
	}
	return s
}

func TestParseGood(t *testing.T) {
	for _, tc := range goodFrames {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Parse([]byte(tc.in))
			if err != nil {
				t.Fatalf("Parse(%q) = %v", tc.in, err)
			}
			var got []string
			if f.Batch {
				got = append(got, "batch")
			}
			for _, m := range f.Messages {
				got = append(got, summary(m))
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("Parse(%q):\n got %q\nwant %q", tc.in, got, tc.want)
			}
			if !f.Batch && string(f.Messages[0].Raw) != strings.Trim(tc.in, " \t") {
				t.Errorf("Raw = %q, want the frame without its surrounding space", f.Messages[0].Raw)
			}
		})
	}
}

func TestParseBad(t *testing.T) {
	for _, tc := range badFrames {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Parse([]byte(tc.in))
			var fe *FrameError
			if !errors.As(err, &fe) {
				t.Fatalf("Parse(%q) = %+v, %v; want a *FrameError", tc.in, f, err)
			}
			if !strings.Contains(fe.Msg, tc.msg) {
				t.Errorf("Parse(%q) = %q, want it to contain %q", tc.in, fe.Msg, tc.msg)
			}
			if tc.offset >= 0 && fe.Offset != tc.offset {
				t.Errorf("Parse(%q) = %v, want offset %d", tc.in, err, tc.offset)
			}
			if string(fe.ID) != tc.id {
				t.Errorf("Parse(%q): ID = %q, want %q", tc.in, fe.ID, tc.id)
			}
			if fe.TooLarge {
				t.Errorf("Parse(%q): TooLarge set", tc.in)
			}
			if f.Messages != nil {
				t.Errorf("Parse(%q) returned messages with its error", tc.in)
			}
		})
	}
}

// TestBatchRaw: each element's Raw is exactly its bytes in the frame, so a proxy that
// drops one element can forward the others unchanged.
func TestBatchRaw(t *testing.T) {
	elems := []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"s":"]},{"}}}`,
		`{ "jsonrpc" : "2.0" , "method" : "notifications/progress" }`,
		`{"jsonrpc":"2.0","id":"z","error":{"code":-32003,"message":"Blocked by policy: \"x\""}}`,
	}
	frame := []byte("[ " + strings.Join(elems, " ,\t") + " ]")
	f, err := Parse(frame)
	if err != nil {
		t.Fatal(err)
	}
	if !f.Batch || len(f.Messages) != len(elems) {
		t.Fatalf("got %+v", f)
	}
	for i, m := range f.Messages {
		if string(m.Raw) != elems[i] {
			t.Errorf("element %d: Raw = %q, want %q", i, m.Raw, elems[i])
		}
		// Raw aliases the frame rather than copying it.
		if !within(frame, m.Raw) {
			t.Errorf("element %d: Raw is not a slice of the frame", i)
		}
	}
}

func TestBatchLimit(t *testing.T) {
	msg := `{"jsonrpc":"2.0","method":"a"}`
	ok := "[" + strings.Repeat(msg+",", maxBatch-1) + msg + "]"
	if f, err := Parse([]byte(ok)); err != nil || len(f.Messages) != maxBatch {
		t.Fatalf("batch of %d: %d messages, %v", maxBatch, len(f.Messages), err)
	}
	tooMany := "[" + strings.Repeat(msg+",", maxBatch) + msg + "]"
	if _, err := Parse([]byte(tooMany)); err == nil || !strings.Contains(err.Error(), "more than 1000 messages") {
		t.Fatalf("batch of %d: %v", maxBatch+1, err)
	}
}

func TestFrameErrorText(t *testing.T) {
	_, err := Parse([]byte(`{"jsonrpc":"2.0","id":1,"id":2,"method":"x"}`))
	if got, want := err.Error(), `invalid JSON: duplicate key "id" at offset 24`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{Request: "request", Notification: "notification", Response: "response", 0: "Kind(0)"} {
		if k.String() != want {
			t.Errorf("Kind(%d).String() = %q, want %q", int(k), k.String(), want)
		}
	}
}
