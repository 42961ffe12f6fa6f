package shell_test

import (
	"fmt"

	"github.com/moatdev/moat/internal/shell"
)

func ExampleAnalyze() {
	line := `x=rm; cd build && sudo $x -rf "$HOME/.cache" out 2>/dev/null`
	a := shell.Analyze(line, shell.Env{Cwd: "/work/proj", Home: "/home/u"})
	for _, c := range a.Commands {
		fmt.Println(c.Name, c.Flags, c.Accesses)
		for _, f := range c.Findings {
			fmt.Println(" ", f.ID, f.Evidence)
		}
	}
	// Output:
	// cd [] []
	// rm [r f] [delete /home/u/.cache (recursive) delete /work/proj/build/out (recursive)]
	//   privilege.sudo sudo
	//   destructive.fs.recursive-delete /home/u/.cache out
}
