package glob_test

import (
	"fmt"

	"github.com/moatdev/moat/internal/glob"
)

func ExamplePath() {
	p, err := glob.CompilePath("/home/u/.ssh/**", glob.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(p.Match("/home/u/.ssh/id_ed25519"))
	fmt.Println(p.MatchTree("/home"))         // rm -rf /home would reach it
	fmt.Println(p.CoversTree("/home/u/.ssh")) // everything under it matches
	// Output:
	// true
	// true
	// true
}

func ExampleWords() {
	ws, err := glob.CompileWords([]string{"git", "push", "**"})
	if err != nil {
		panic(err)
	}
	fmt.Println(ws.Match([]string{"git", "push", "origin", "main"}))
	fmt.Println(ws.Match([]string{"git", "pull"}))
	// Output:
	// true
	// false
}

func ExampleCompilePath_error() {
	_, err := glob.CompilePath("/home/u/src/a**b", glob.Options{})
	fmt.Println(err)
	// Output:
	// glob "/home/u/src/a**b": '**' must be a whole path segment (use '*' to match within a segment) at offset 13
}
