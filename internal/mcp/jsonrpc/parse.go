// Package jsonrpc reads and writes the newline-delimited JSON-RPC 2.0 messages of MCP's
// stdio transport, strictly: a frame any two peers could read differently is rejected, never
// forwarded.
package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/moatdev/moat/internal/strictjson"
)

// Kind says what a message is. The zero Kind is no kind at all, so a Message that was not
// filled in by Parse can never pass for a request or a response.
type Kind int

const (
	Request      Kind = iota + 1 // has "method" and "id": the peer waits for a response
	Notification                 // has "method" and no "id": nobody answers it
	Response                     // has "result" or "error", and "id"
)

func (k Kind) String() string {
	switch k {
	case Request:
		return "request"
	case Notification:
		return "notification"
	case Response:
		return "response"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Message is one JSON-RPC message of a frame. Every json.RawMessage and Raw are slices of
// the frame passed to Parse, so they change when that frame's memory is reused (as
// Reader.Next does): copy what must outlive it.
type Message struct {
	Kind Kind
	// ID is the id exactly as written: a string with its quotes and escapes, or an integer.
	// It is null only in an error response (the peer could not read the request's id) and
	// nil in a notification. Kept as bytes, not decoded, so that an answer carries the very
	// id the peer sent and cannot collide with another spelling of it.
	ID     json.RawMessage
	Method string          // requests and notifications, with escapes decoded
	Params json.RawMessage // requests and notifications: an object or array, nil when absent
	Result json.RawMessage // responses: any JSON value, nil in an error response
	Error  *ErrorObject    // responses: nil in a result response
	// Raw is the message's own bytes within the frame, from its '{' to its '}', to forward
	// unchanged (alone, or as an element of a rebuilt batch).
	Raw []byte
}

// ErrorObject is the "error" member of an error response.
type ErrorObject struct {
	Code    int64
	Message string
	Data    json.RawMessage // as written; nil when absent
}

// Frame is one parsed line: a single message, or a batch array. Batches were removed from
// MCP in 2025-06-18, but peers of the 2025-03-26 era may still send them, so they are
// accepted and each element is checked like a single message.
type Frame struct {
	Batch    bool
	Messages []Message // one unless Batch; never empty
}

// FrameError is why a frame was rejected.
type FrameError struct {
	Msg    string
	Offset int64 // byte offset in the frame (for TooLarge: the limit, where reading stopped keeping it)
	// TooLarge reports a line longer than the Reader's limit. Its bytes were skipped
	// without being held, so the next frame can still be read.
	TooLarge bool
	// ID is the id of a rejected single request or response when it could be read without
	// doubt, so the proxy can answer the peer that waits for it; nil otherwise (a batch, a
	// notification, an id that is missing, null, invalid, or written more than once).
	ID json.RawMessage
}

func (e *FrameError) Error() string { return fmt.Sprintf("%s at offset %d", e.Msg, e.Offset) }

const (
	// maxDepth bounds the nesting of a frame, counting a batch's array and the message
	// object. Real MCP traffic (JSON Schemas in tools/list included) stays far below it;
	// the bound keeps recursive decoders downstream, in the policy engine and in servers,
	// from exhausting their stacks on a frame the proxy let through.
	maxDepth = 128
	// maxBatch bounds the messages of one batch. Each Message takes over a hundred bytes,
	// so a 64 MiB frame of tiny messages would otherwise cost hundreds of megabytes; the
	// clients that batched sent a handful at a time.
	maxBatch = 1000
	// maxSafeInteger is the largest integer every peer reads exactly: beyond it, a
	// JavaScript client reads 2^53+1 as 2^53, and two ids that differ for the proxy would be
	// one id for the client.
	maxSafeInteger = 1<<53 - 1
)

// Parse checks one frame strictly and splits it into messages. A frame is accepted only if:
//   - it holds no raw CR or LF, which a peer's line reader could split it at;
//   - it is one JSON value with valid UTF-8 (no lone surrogate escapes either), no object
//     with two keys equal or equal up to case, and nesting at most 128 deep: the checks of
//     internal/strictjson, because the proxy judges a message as it reads it, and a server
//     that keeps the other duplicate or replaces the invalid text would read another;
//   - every number fits in a float64 (1e400 does not; 1e-400 rounds to 0 like everywhere);
//   - it is an object, or a non-empty array of objects (not of arrays);
//   - every message has "jsonrpc":"2.0" and no member beyond those JSON-RPC 2.0 defines,
//     which also rejects "Method" or "ID" standing for what case-insensitive decoders
//     (Go's encoding/json among them) would take for "method" or "id";
//   - it is a request ("method" and "id"), a notification ("method" alone) or a response
//     ("id" and exactly one of "result" and "error"), "method" is a string and "params"
//     an object or array;
//   - an id is a string or an integer written without fraction, exponent or "-0", within
//     ±(2^53−1), or null in an error response only. So "-0.5e3" is rejected though it is
//     -500: it is not an integer to every peer, and correlating ids by their bytes would
//     treat it apart from -500;
//   - an error object has an integer "code", a string "message" and maybe "data", nothing else.
//
// Any other frame gets a *FrameError. The returned messages alias frame.
func Parse(frame []byte) (Frame, error) {
	if i := bytes.IndexByte(frame, '\n'); i >= 0 {
		return Frame{}, newlineError(frame, i)
	}
	// A Python peer's text streams also end a line at a lone CR, so one would split there.
	if i := bytes.IndexByte(frame, '\r'); i >= 0 {
		return Frame{}, newlineError(frame, i)
	}
	// The Reader bounds the size; Parse accepts what it is given.
	if err := strictjson.Check(frame, strictjson.Limits{MaxDepth: maxDepth, MaxBytes: math.MaxInt}); err != nil {
		var se *strictjson.Error
		if errors.As(err, &se) {
			return Frame{}, &FrameError{Msg: "invalid JSON: " + se.Msg, Offset: se.Offset, ID: recoverID(frame)}
		}
		return Frame{}, &FrameError{Msg: "invalid JSON: " + err.Error(), ID: recoverID(frame)}
	}
	f, err := parseChecked(frame)
	if err != nil {
		if !f.Batch {
			err.ID = recoverID(frame)
		}
		return Frame{}, err
	}
	return f, nil
}

func newlineError(frame []byte, i int) error {
	what := "newline"
	if frame[i] == '\r' {
		what = "carriage return"
	}
	return &FrameError{Msg: "raw " + what + " inside a frame (line framing would split it)", Offset: int64(i), ID: recoverID(frame[:i])}
}

// parseChecked splits a frame that strictjson accepted. It sets Batch in the returned
// frame even on error, so that Parse knows whether an id may be recovered.
func parseChecked(d []byte) (Frame, *FrameError) {
	i := skipSpace(d, 0)
	switch d[i] {
	case '{':
		m, _, err := parseMessage(d, i)
		if err != nil {
			return Frame{}, err
		}
		return Frame{Messages: []Message{m}}, nil
	case '[':
	default:
		return Frame{}, &FrameError{Msg: "a frame must be a JSON object or a batch array", Offset: int64(i)}
	}
	f := Frame{Batch: true}
	start := i
	i = skipSpace(d, i+1)
	if d[i] == ']' {
		return f, &FrameError{Msg: "empty batch", Offset: int64(start)}
	}
	for n := 1; ; n++ {
		switch d[i] {
		case '{':
		case '[':
			return f, &FrameError{Msg: fmt.Sprintf("batch element %d is a batch (batches do not nest)", n), Offset: int64(i)}
		default:
			return f, &FrameError{Msg: fmt.Sprintf("batch element %d is not a JSON object", n), Offset: int64(i)}
		}
		if n > maxBatch {
			return f, &FrameError{Msg: fmt.Sprintf("batch has more than %d messages", maxBatch), Offset: int64(i)}
		}
		m, end, err := parseMessage(d, i)
		if err != nil {
			err.Msg = fmt.Sprintf("batch element %d: %s", n, err.Msg)
			return f, err
		}
		f.Messages = append(f.Messages, m)
		i = skipSpace(d, end)
		if d[i] == ']' {
			return f, nil
		}
		i = skipSpace(d, i+1) // the ','
	}
}

// The members of a message, as bits of the set parseMessage has seen.
const (
	mJSONRPC = 1 << iota
	mID
	mMethod
	mParams
	mResult
	mError
)

// parseMessage reads the message object starting at i in a frame strictjson accepted, and
// returns it with the offset just after it.
func parseMessage(d []byte, i int) (Message, int, *FrameError) {
	m := Message{}
	start := i
	var seen int
	var idOff, idEnd, versionOff, paramsOff int
	var version, method []byte
	var errRaw []byte
	var errOff int
	end, err := members(d, i, true, func(key []byte, keyOff, v, vEnd int) *FrameError {
		bit := 0
		switch k := keyText(key); k {
		case "jsonrpc":
			bit = mJSONRPC
			if d[v] != '"' {
				return &FrameError{Msg: `"jsonrpc" must be the string "2.0"`, Offset: int64(v)}
			}
			version, versionOff = d[v:vEnd], v
		case "id":
			bit, idOff, idEnd = mID, v, vEnd
		case "method":
			bit = mMethod
			if d[v] != '"' {
				return &FrameError{Msg: `"method" must be a string`, Offset: int64(v)}
			}
			method = d[v:vEnd]
		case "params":
			bit, paramsOff = mParams, v
			if d[v] != '{' && d[v] != '[' {
				return &FrameError{Msg: `"params" must be an object or an array`, Offset: int64(v)}
			}
			m.Params = d[v:vEnd]
		case "result":
			bit = mResult
			m.Result = d[v:vEnd]
		case "error":
			bit, errOff = mError, v
			errRaw = d[v:vEnd]
		default:
			return &FrameError{Msg: fmt.Sprintf("unknown member %s (JSON-RPC 2.0 members are jsonrpc, id, method, params, result and error, in lower case)", quote(k)), Offset: int64(keyOff)}
		}
		seen |= bit
		return nil
	})
	if err != nil {
		return Message{}, 0, err
	}
	m.Raw = d[start:end]
	at := int64(start)
	if seen&mJSONRPC == 0 {
		return Message{}, 0, &FrameError{Msg: `missing "jsonrpc":"2.0"`, Offset: at}
	}
	if v, ok := decodeString(version); !ok || v != "2.0" {
		return Message{}, 0, &FrameError{Msg: fmt.Sprintf(`"jsonrpc" must be "2.0", not %s`, quote(v)), Offset: int64(versionOff)}
	}
	switch {
	case seen&mMethod != 0:
		if seen&(mResult|mError) != 0 {
			return Message{}, 0, &FrameError{Msg: `a message with "method" cannot have "result" or "error"`, Offset: at}
		}
		m.Method, _ = decodeString(method)
		m.Kind = Notification
		if seen&mID != 0 {
			m.Kind = Request
			m.ID = d[idOff:idEnd]
			if msg := checkID(m.ID, false); msg != "" {
				return Message{}, 0, &FrameError{Msg: "request id " + msg, Offset: int64(idOff)}
			}
		}
	case seen&(mResult|mError) == mResult|mError:
		return Message{}, 0, &FrameError{Msg: `a response cannot have both "result" and "error"`, Offset: at}
	case seen&(mResult|mError) != 0:
		m.Kind = Response
		if seen&mParams != 0 {
			return Message{}, 0, &FrameError{Msg: `a response cannot have "params"`, Offset: int64(paramsOff)}
		}
		if seen&mID == 0 {
			return Message{}, 0, &FrameError{Msg: `a response must have "id"`, Offset: at}
		}
		m.ID = d[idOff:idEnd]
		if msg := checkID(m.ID, seen&mError != 0); msg != "" {
			return Message{}, 0, &FrameError{Msg: "response id " + msg, Offset: int64(idOff)}
		}
		if seen&mError != 0 {
			eo, ferr := parseErrorObject(d, errOff, errRaw)
			if ferr != nil {
				return Message{}, 0, ferr
			}
			m.Error = eo
		}
	default:
		return Message{}, 0, &FrameError{Msg: `a message must have "method" (a request or notification) or "result" or "error" (a response)`, Offset: at}
	}
	return m, end, nil
}

func parseErrorObject(d []byte, off int, raw []byte) (*ErrorObject, *FrameError) {
	if raw[0] != '{' {
		return nil, &FrameError{Msg: `"error" must be an object`, Offset: int64(off)}
	}
	eo := &ErrorObject{}
	var seen int
	// The outer scan has checked the numbers in "error" already.
	_, err := members(d, off, false, func(key []byte, keyOff, v, vEnd int) *FrameError {
		switch k := keyText(key); k {
		case "code":
			seen |= 1
			n, ok := parseInteger(d[v:vEnd])
			if !ok {
				return &FrameError{Msg: `error "code" must be an integer within ±(2^53-1)`, Offset: int64(v)}
			}
			eo.Code = n
		case "message":
			seen |= 2
			s, ok := decodeString(d[v:vEnd])
			if !ok {
				return &FrameError{Msg: `error "message" must be a string`, Offset: int64(v)}
			}
			eo.Message = s
		case "data":
			eo.Data = d[v:vEnd]
		default:
			return &FrameError{Msg: fmt.Sprintf(`unknown member %s in "error" (its members are code, message and data)`, quote(k)), Offset: int64(keyOff)}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if seen != 3 {
		return nil, &FrameError{Msg: `"error" must have "code" and "message"`, Offset: int64(off)}
	}
	return eo, nil
}

// checkID returns why id is not a valid id, or "" if it is. nullOK admits null, which
// only an error response may carry.
func checkID(id []byte, nullOK bool) string {
	if len(id) == 0 {
		return "is missing"
	}
	switch c := id[0]; {
	case c == '"':
		// Parse has checked it already, but a builder's caller may pass anything.
		if strictjson.Check(id, strictjson.Limits{MaxBytes: math.MaxInt}) != nil || endString(id, 0) != len(id) {
			return "is not a valid JSON string"
		}
		return ""
	case c == 'n' && string(id) == "null":
		if nullOK {
			return ""
		}
		return "must be a string or an integer, not null (null is for error responses only)"
	case c == '-' || '0' <= c && c <= '9':
		if _, ok := parseInteger(id); !ok {
			return fmt.Sprintf("%s must be an integer within ±(2^53-1), written plainly (no fraction, exponent or -0)", shorten(id))
		}
		return ""
	}
	return "must be a string or an integer"
}

// parseInteger reads -?(0|[1-9][0-9]*) within ±maxSafeInteger, and nothing else, not even
// -0: each integer then has one spelling, so integer ids that differ in bytes differ in
// value for every peer, and a proxy may match responses to requests by bytes.
func parseInteger(b []byte) (int64, bool) {
	if string(b) == "-0" {
		return 0, false
	}
	digits := b
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 16 || digits[0] == '0' && len(digits) > 1 {
		return 0, false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil || n > maxSafeInteger || n < -maxSafeInteger {
		return 0, false
	}
	return n, true
}

// members calls fn for each member of the object whose '{' is at i, with the key's raw
// text (quotes included), the key's offset, and the value's span; it returns the offset
// after the '}'. With check, it rejects numbers that overflow a float64. On a document
// strictjson accepted it sees every member and number; on anything else it stops at the first surprise without
// panicking, which is all recoverID and ProtocolVersion need of it.
func members(d []byte, i int, check bool, fn func(key []byte, keyOff, v, vEnd int) *FrameError) (int, *FrameError) {
	if i >= len(d) || d[i] != '{' {
		return 0, malformed(i)
	}
	i = skipSpace(d, i+1)
	if i < len(d) && d[i] == '}' {
		return i + 1, nil
	}
	for {
		if i >= len(d) || d[i] != '"' {
			return 0, malformed(i)
		}
		keyOff := i
		keyEnd := endString(d, i)
		if keyEnd < 0 {
			return 0, malformed(i)
		}
		i = skipSpace(d, keyEnd)
		if i >= len(d) || d[i] != ':' {
			return 0, malformed(i)
		}
		v := skipSpace(d, i+1)
		vEnd, err := skipValue(d, v, check)
		if err != nil {
			return 0, err
		}
		if err := fn(d[keyOff:keyEnd], keyOff, v, vEnd); err != nil {
			return 0, err
		}
		i = skipSpace(d, vEnd)
		if i >= len(d) {
			return 0, malformed(i)
		}
		switch d[i] {
		case '}':
			return i + 1, nil
		case ',':
			i = skipSpace(d, i+1)
		default:
			return 0, malformed(i)
		}
	}
}

// errMalformed marks a scan stopped by something strictjson would have rejected; Parse
// never returns it, since it scans only what strictjson accepted.
const errMalformed = "malformed JSON"

func malformed(i int) *FrameError { return &FrameError{Msg: errMalformed, Offset: int64(i)} }

// errStop ends a scan of members early, once the member sought is found.
var errStop = &FrameError{Msg: "stop"}

// skipValue returns the offset after the value starting at i, checking every number in it
// if check is set. It counts brackets rather than matching them: strictjson has matched
// them already.
func skipValue(d []byte, i int, check bool) (int, *FrameError) {
	depth := 0
	for {
		i = skipSpace(d, i)
		if i >= len(d) {
			return 0, malformed(i)
		}
		switch c := d[i]; {
		case c == '{' || c == '[':
			depth++
			i++
			continue
		case c == '}' || c == ']':
			if depth == 0 {
				return 0, malformed(i)
			}
			depth--
			i++
		case c == ',' || c == ':':
			if depth == 0 {
				return 0, malformed(i)
			}
			i++
			continue
		case c == '"':
			end := endString(d, i)
			if end < 0 {
				return 0, malformed(i)
			}
			i = end
		case c == '-' || '0' <= c && c <= '9':
			end, err := number(d, i, check)
			if err != nil {
				return 0, err
			}
			i = end
		case 'a' <= c && c <= 'z':
			j := i + 1
			for j < len(d) && 'a' <= d[j] && d[j] <= 'z' {
				j++
			}
			i = j
		default:
			return 0, malformed(i)
		}
		if depth == 0 {
			return i, nil
		}
	}
}

// number returns the end of the number at i, rejecting one that overflows a float64:
// Go's encoding/json refuses to decode it while other decoders read infinity, so a policy
// and a server would see different things. Underflow rounds to zero everywhere.
func number(d []byte, i int, check bool) (int, *FrameError) {
	j, exp := i, false
	for ; j < len(d); j++ {
		c := d[j]
		if c == 'e' || c == 'E' {
			exp = true
		} else if !('0' <= c && c <= '9' || c == '-' || c == '+' || c == '.') {
			break
		}
	}
	// Without an exponent a number needs over 300 digits to overflow, so most numbers
	// skip the conversion.
	if check && (exp || j-i > 300) {
		if _, err := strconv.ParseFloat(string(d[i:j]), 64); err != nil {
			if errors.Is(err, strconv.ErrRange) {
				return 0, &FrameError{Msg: fmt.Sprintf("number %s does not fit in a 64-bit float", shorten(d[i:j])), Offset: int64(i)}
			}
			return 0, malformed(i)
		}
	}
	return j, nil
}

// endString returns the offset after the string whose quote is at i, or -1 if it does not
// end. It relies on strictjson for the escapes' validity and looks only for the closing
// quote, which memchr finds fast even in a 16 MiB string.
func endString(d []byte, i int) int {
	j := i + 1
	for j <= len(d) {
		k := bytes.IndexByte(d[j:], '"')
		if k < 0 {
			return -1
		}
		q := j + k
		n := 0
		for p := q - 1; p > i && d[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return q + 1
		}
		j = q + 1
	}
	return -1
}

// names are the keys this package looks for. keyText returns them without allocating.
var names = [...]string{"jsonrpc", "id", "method", "params", "result", "error", "code", "message", "data", "_meta", "io.modelcontextprotocol/protocolVersion"}

// keyText returns a key's text without its quotes. A key that cannot be decoded comes back
// raw, which matches no name.
func keyText(key []byte) string {
	if len(key) >= 2 && bytes.IndexByte(key, '\\') < 0 {
		for _, n := range names {
			if string(key[1:len(key)-1]) == n {
				return n
			}
		}
	}
	if s, ok := decodeString(key); ok {
		return s
	}
	return string(key)
}

// decodeString decodes a JSON string, quotes included. Escapes are rare in the strings
// decoded here (keys, methods, versions), so encoding/json handles them.
func decodeString(b []byte) (string, bool) {
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return "", false
	}
	if bytes.IndexByte(b, '\\') < 0 {
		return string(b[1 : len(b)-1]), true
	}
	var s string
	if json.Unmarshal(b, &s) != nil {
		return "", false
	}
	return s, true
}

// recoverID returns the id of a rejected frame when it is a top-level object whose "id"
// member comes once, complete and valid, before anything malformed. Numbers are not
// checked: one too large for a float64 does not make the id doubtful. A key equal to "id"
// up to case makes it doubtful: the peer may have meant either.
func recoverID(d []byte) json.RawMessage {
	var id json.RawMessage
	doubtful := false
	i := skipSpace(d, 0)
	members(d, i, false, func(key []byte, _, v, vEnd int) *FrameError {
		k := keyText(key)
		if len(k) != 2 || k[0]|0x20 != 'i' || k[1]|0x20 != 'd' {
			return nil
		}
		// The value must be followed by ',' or '}' to be known complete: a number cut
		// at the Reader's limit would otherwise look like a shorter number.
		after := skipSpace(d, vEnd)
		if k != "id" || id != nil || after >= len(d) || d[after] != ',' && d[after] != '}' || checkID(d[v:vEnd], false) != "" {
			doubtful = true
			return errStop
		}
		id = d[v:vEnd]
		return nil
	})
	if doubtful {
		return nil
	}
	return id
}

func skipSpace(d []byte, i int) int {
	for i < len(d) {
		switch d[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// shorten quotes a token for a message, cut if long: a 1 MiB number must not make a 1 MiB
// error.
func shorten(b []byte) string {
	const max = 40
	if len(b) <= max {
		return string(b)
	}
	return string(b[:max]) + "…"
}

// quote quotes a key for a message, cut if long.
func quote(s string) string {
	const max = 64
	if len(s) > max {
		return strconv.Quote(s[:max]) + "…"
	}
	return strconv.Quote(s)
}
