package otlp

import (
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// exportResponse is an Export*ServiceResponse as a collector writes it, built with
// protowire (an encoder independent of the reader tested): partial_success (field 1)
// holding the rejected count (field 1) and the message (field 2), each written only
// when set, with extra fields around them when extra.
func exportResponse(rejected int64, message string, extra bool) []byte {
	var inner []byte
	if extra {
		inner = protowire.AppendTag(inner, 7, protowire.Fixed32Type)
		inner = protowire.AppendFixed32(inner, 42)
	}
	if rejected != 0 {
		inner = protowire.AppendTag(inner, 1, protowire.VarintType)
		inner = protowire.AppendVarint(inner, uint64(rejected))
	}
	if message != "" {
		inner = protowire.AppendTag(inner, 2, protowire.BytesType)
		inner = protowire.AppendString(inner, message)
	}
	var b []byte
	if extra {
		b = protowire.AppendTag(b, 9, protowire.Fixed64Type)
		b = protowire.AppendFixed64(b, 1)
		b = protowire.AppendTag(b, 3, protowire.BytesType)
		b = protowire.AppendString(b, "later field")
	}
	b = protowire.AppendTag(b, 1, protowire.BytesType)
	return protowire.AppendBytes(b, inner)
}

func TestReadPartialSuccess(t *testing.T) {
	for _, tt := range []struct {
		name     string
		in       []byte
		rejected int64
		message  string
		err      bool
	}{
		{"empty answer: full success", nil, 0, "", false},
		{"empty partial_success", exportResponse(0, "", false), 0, "", false},
		{"rejected with a message", exportResponse(3, "attribute too long", false), 3, "attribute too long", false},
		{"a warning alone", exportResponse(0, "deprecated field", false), 0, "deprecated field", false},
		{"unknown fields skipped", exportResponse(1000000, "quota", true), 1000000, "quota", false},
		{"truncated tag", []byte{0x80}, 0, "", true},
		{"length beyond the end", []byte{0x0a, 0x05, 0x08}, 0, "", true},
		{"group wire type", []byte{0x0b}, 0, "", true},
		{"field number 0", []byte("\x050000"), 0, "", true},
		{"varint past 64 bits", []byte{0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02}, 0, "", true},
		{"truncated inner field", []byte{0x0a, 0x01, 0x08}, 0, "", true},
	} {
		rejected, message, err := readPartialSuccess(tt.in)
		if (err != nil) != tt.err || rejected != tt.rejected || message != tt.message {
			t.Errorf("%s: got %d %q %v, want %d %q error %v", tt.name, rejected, message, err, tt.rejected, tt.message, tt.err)
		}
	}
}

// referencePartialSuccess reads the same fields with protowire's parser.
func referencePartialSuccess(b []byte) (rejected int64, message string, ok bool) {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return 0, "", false
		}
		b = b[n:]
		if num == 1 && typ == protowire.BytesType {
			inner, m := protowire.ConsumeBytes(b)
			if m < 0 {
				return 0, "", false
			}
			b = b[m:]
			for len(inner) > 0 {
				inum, ityp, k := protowire.ConsumeTag(inner)
				if k < 0 {
					return 0, "", false
				}
				inner = inner[k:]
				switch {
				case inum == 1 && ityp == protowire.VarintType:
					v, l := protowire.ConsumeVarint(inner)
					if l < 0 {
						return 0, "", false
					}
					rejected, inner = int64(v), inner[l:]
				case inum == 2 && ityp == protowire.BytesType:
					s, l := protowire.ConsumeBytes(inner)
					if l < 0 {
						return 0, "", false
					}
					message, inner = string(s), inner[l:]
				default:
					l := protowire.ConsumeFieldValue(inum, ityp, inner)
					if l < 0 {
						return 0, "", false
					}
					inner = inner[l:]
				}
			}
			continue
		}
		m := protowire.ConsumeFieldValue(num, typ, b)
		if m < 0 {
			return 0, "", false
		}
		b = b[m:]
	}
	return rejected, message, true
}

// FuzzReadPartialSuccess checks that any answer is read without a panic, and that an
// answer protowire reads (without groups, which no OTLP message has) is read the same.
func FuzzReadPartialSuccess(f *testing.F) {
	for _, seed := range [][]byte{nil, exportResponse(3, "x", false), exportResponse(5, "quota", true), {0x0a, 0x05, 0x08}, {0x0b, 0x0c}} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		rejected, message, err := readPartialSuccess(b)
		wantRejected, wantMessage, ok := referencePartialSuccess(b)
		if ok && err == nil && (rejected != wantRejected || message != wantMessage) {
			t.Fatalf("read %d %q, protowire reads %d %q", rejected, message, wantRejected, wantMessage)
		}
		if !ok && err == nil {
			t.Fatalf("read %d %q from an answer protowire cannot read", rejected, message)
		}
	})
}
