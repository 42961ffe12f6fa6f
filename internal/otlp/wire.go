package otlp

import "encoding/binary"

// The protobuf wire format, as much as the encoder needs. It is written here rather than
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
