package decode_test

import (
	"fmt"

	"github.com/moatdev/moat/internal/shell/decode"
)

// The analyser knows the static text that flows through a pipeline and applies each
// program's transformation to it in turn: here, echo cm0gLXJmIC8= | base64 -d | sh.
func Example() {
	text := decode.Echo([]string{"cm0gLXJmIC8="})
	text, ok := decode.Base64(text)
	fmt.Printf("%q %v\n", text, ok)
	// Output:
	// "rm -rf /" true
}

func ExamplePrintf() {
	out, ok := decode.Printf(`\x72\x6d %s\n`, []string{"-rf /"})
	fmt.Printf("%q %v\n", out, ok)
	out, ok = decode.Printf("%s %f", []string{"pi", "3.14"}) // floating point: not followed
	fmt.Printf("%q %v\n", out, ok)
	// Output:
	// "rm -rf /\n" true
	// "pi " false
}

func ExampleTr() {
	out, ok := decode.Tr("A-Za-z", "N-ZA-Mn-za-m", "ez -es /")
	fmt.Printf("%q %v\n", out, ok)
	// Output:
	// "rm -rf /" true
}
