package hookrelay

import (
	"slices"
	"strconv"
	"unicode/utf8"
)

// appendParams appends the params of req but the payload, as the fields of a JSON
// object without its braces ("agent":…,"args":…,"cwd":…,"started":…,"env":…), exactly as
// encoding/json would write them (map keys sorted, HTML and line separators escaped,
// invalid UTF-8 replaced). It is written out by hand because encoding/json builds its
// encoders by reflection on first use, a cost paid again by every process: a tenth of
// the client's own work.
func appendParams(b []byte, req Request) []byte {
	b = append(b, `"agent":`...)
	b = appendString(b, req.Agent)
	b = append(b, `,"args":`...)
	if req.Args == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, a := range req.Args {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, a)
		}
		b = append(b, ']')
	}
	b = append(b, `,"cwd":`...)
	b = appendString(b, req.Cwd)
	if !req.Started.IsZero() {
		b = append(b, `,"started":`...)
		b = strconv.AppendInt(b, req.Started.UnixNano(), 10)
	}
	b = append(b, `,"env":`...)
	if req.Env == nil {
		return append(b, "null"...)
	}
	names := make([]string, 0, len(req.Env))
	for n := range req.Env {
		names = append(names, n)
	}
	slices.Sort(names)
	b = append(b, '{')
	for i, n := range names {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, n)
		b = append(b, ':')
		b = appendString(b, req.Env[n])
	}
	return append(b, '}')
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string, escaped as encoding/json escapes it.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
