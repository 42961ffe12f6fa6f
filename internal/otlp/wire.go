package otlp

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// The protobuf wire format, as much as the encoder and the reading of a collector's answer
// need. It is written here rather than
// taken from google.golang.org/protobuf/encoding/protowire because that package links the
// module's internal/detrand, which opens and reads the running executable at init: work
// every process of the moat binary would do, a hook's included, though only the daemon
// exports.

// number is a field number.
type number uint32

// Wire types.
const (
	wireVarint  = 0
	wireFixed64 = 1
	wireBytes   = 2
	wireFixed32 = 5
)

func appendVarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

func sizeVarint(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

func appendTag(b []byte, num number, wire uint64) []byte {
	return appendVarint(b, uint64(num)<<3|wire)
}

func appendFixed64(b []byte, v uint64) []byte {
	return binary.LittleEndian.AppendUint64(b, v)
}

func appendString(b []byte, s string) []byte {
	b = appendVarint(b, uint64(len(s)))
	return append(b, s...)
}

// maxFieldNumber is the largest field number protobuf allows.
const maxFieldNumber = 1<<29 - 1

// errTruncated is a response that ends in the middle of a field.
var errTruncated = errors.New("truncated protobuf message")

// readVarint reads a varint at the start of b and returns it with what follows. One
// longer than ten bytes, or whose tenth byte holds more than the 64th bit, is an error.
func readVarint(b []byte) (uint64, []byte, error) {
	var v uint64
	for i := 0; i < len(b) && i < 10; i++ {
		if i == 9 && b[i] > 1 {
			return 0, nil, errors.New("protobuf varint overflows 64 bits")
		}
		v |= uint64(b[i]&0x7f) << (7 * i)
		if b[i] < 0x80 {
			return v, b[i+1:], nil
		}
	}
	return 0, nil, errTruncated
}

// field is one field of a message as read: its number and wire type, and its value,
// the number for a varint and the bytes for a length-delimited field.
type field struct {
	num   number
	wire  uint64
	v     uint64
	bytes []byte
}

// readField reads the field at the start of b and returns it with what follows. Fixed
// 32- and 64-bit fields are read and skipped; groups, which no OTLP message has, are an
// error.
func readField(b []byte) (field, []byte, error) {
	tag, b, err := readVarint(b)
	if err != nil {
		return field{}, nil, err
	}
	if n := tag >> 3; n == 0 || n > maxFieldNumber {
		return field{}, nil, fmt.Errorf("protobuf field number %d", n)
	}
	f := field{num: number(tag >> 3), wire: tag & 7}
	switch f.wire {
	case wireVarint:
		f.v, b, err = readVarint(b)
		return f, b, err
	case wireFixed64:
		if len(b) < 8 {
			return field{}, nil, errTruncated
		}
		return f, b[8:], nil
	case wireBytes:
		n, rest, err := readVarint(b)
		if err != nil || n > uint64(len(rest)) {
			return field{}, nil, errTruncated
		}
		f.bytes = rest[:n]
		return f, rest[n:], nil
	case wireFixed32:
		if len(b) < 4 {
			return field{}, nil, errTruncated
		}
		return f, b[4:], nil
	}
	return field{}, nil, fmt.Errorf("protobuf wire type %d", f.wire)
}

// readPartialSuccess reads a collector's answer to an export (ExportLogsServiceResponse,
// ExportMetricsServiceResponse): its partial_success (field 1), whose field 1 counts what
// the collector rejected (rejected_log_records, rejected_data_points) and field 2 says
// why (error_message). An answer without it, empty included, is a full success.
func readPartialSuccess(b []byte) (rejected int64, message string, err error) {
	for len(b) > 0 {
		var f field
		if f, b, err = readField(b); err != nil {
			return 0, "", err
		}
		if f.num != 1 || f.wire != wireBytes {
			continue
		}
		for inner := f.bytes; len(inner) > 0; {
			var g field
			if g, inner, err = readField(inner); err != nil {
				return 0, "", err
			}
			switch {
			case g.num == 1 && g.wire == wireVarint:
				rejected = int64(g.v)
			case g.num == 2 && g.wire == wireBytes:
				message = string(g.bytes)
			}
		}
	}
	return rejected, message, nil
}
