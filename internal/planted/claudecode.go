package planted

import "strings"

// bangCommands finds the commands a Claude Code slash command file runs when the command
// is invoked: each !`CMD` span, whose output Claude Code puts into the prompt.
func bangCommands(text string, x *extraction) {
	for rest := text; ; {
		i := strings.Index(rest, "!`")
		if i < 0 {
			return
		}
		rest = rest[i+2:]
		j := strings.IndexByte(rest, '`')
		if j < 0 {
			return
		}
		x.shell("!`…` (Claude Code runs it when the command is used)", rest[:j])
		rest = rest[j+1:]
	}
}
