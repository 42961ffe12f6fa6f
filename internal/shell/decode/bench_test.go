package decode

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
)

// BenchmarkDecoders runs each decoder on inputs of 256 KiB and 1 MiB built to be slow, to
// show that the time grows with the input and no faster.
func BenchmarkDecoders(b *testing.B) {
	for _, size := range []int{256 << 10, 1 << 20} {
		fill := func(s string) string { return strings.Repeat(s, size/len(s)+1)[:size] }
		var (
			args          = strings.Fields(fill("ab "))
			encoded       = base64.StdEncoding.EncodeToString([]byte(fill("x")))[:size]
			spaced        = fill("cm0g \n")
			base32Text    = fill("OJWSALLS")
			hexText       = fill("72 6d\n")
			escapes       = fill(`\x72\u00e9\1012`)
			flags         = "%" + fill("-") + "s"
			conversions   = fill("%.0s")
			digits        = fill("9")
			echoEscapes   = fill(`\x41\0101\u00e9`)
			lines         = fill("ab é😀\n")
			text          = fill("Hello, World! ")
			ranges        = fill("\x01-\xff")
			classes       = fill("[:alpha:]")
			digitsArgs    = []string{digits}
			echoArguments = []string{"-e", echoEscapes}
		)
		cases := []struct {
			name string
			run  func()
		}{
			{"base64", func() { Base64(encoded) }},
			{"base64-spaces", func() { Base64(spaced) }},
			{"base32", func() { Base32(base32Text) }},
			{"hex", func() { Hex(hexText) }},
			{"printf-escapes", func() { Printf(escapes, nil) }},
			{"printf-args", func() { Printf(`%s\n`, args) }},
			{"printf-flags", func() { Printf(flags, args) }},
			{"printf-empty-conversions", func() { Printf(conversions, args) }},
			{"printf-numbers", func() { Printf("%d", digitsArgs) }},
			{"echo-escapes", func() { Echo(echoArguments) }},
			{"echo-args", func() { Echo(args) }},
			{"rev", func() { Rev(lines) }},
			{"tr", func() { Tr("A-Za-z", "N-ZA-Mn-za-m", text) }},
			{"tr-set", func() { Tr(ranges, "x", "abc") }},
			{"tr-classes", func() { TrDelete(classes, "abc") }},
		}
		for _, c := range cases {
			b.Run(fmt.Sprintf("%s/%dKiB", c.name, size>>10), func(b *testing.B) {
				b.SetBytes(int64(size))
				for b.Loop() {
					c.run()
				}
			})
		}
	}
}
