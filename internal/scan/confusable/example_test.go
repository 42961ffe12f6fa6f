package confusable_test

import (
	"fmt"

	"github.com/moatdev/moat/internal/scan/confusable"
)

func ExampleLookalikes() {
	for _, word := range []string{"gіthub", "github", "привет"} {
		for _, l := range confusable.Lookalikes(word) {
			fmt.Printf("%s: U+%04X at byte %d imitates %q\n", word, l.Rune, l.Offset, l.ASCII)
		}
	}
	// Output: gіthub: U+0456 at byte 1 imitates 'i'
}

func ExampleSkeleton() {
	fmt.Println(confusable.Skeleton("/etc/pаsswd"), confusable.Skeleton("ｃｕｒｌ"))
	// Output: /etc/passwd curl
}
