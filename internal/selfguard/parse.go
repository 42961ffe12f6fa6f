package selfguard

import (
	"io"
	"slices"
	"strings"

	"github.com/spf13/pflag"
)

// node is a command of the tree, with its children and what the guard knows of it.
type node struct {
	Command
	word     string // the last word of the path, by which the parent finds it
	children []*node
	uses     []Use
	runner   *Runner
	// placeholder: the command is to come (or holds such commands), and takes any flags.
	placeholder bool
	// loosens: a use of this command or of one below it loosens protection, so that
	// arguments only known at run time may make a run of it do so.
	loosens bool
}

// child returns the child named (or aliased) word, as cobra's findNext does without
// prefix matching, which moat does not enable (a test in internal/cli checks it).
func (n *node) child(word string) *node { return n.childOf(word, true) }

// childOf is child, leaving out the commands that do not exist yet unless placeholders.
func (n *node) childOf(word string, placeholders bool) *node {
	for _, c := range n.children {
		if c.placeholder && !placeholders {
			continue
		}
		if c.word == word || slices.Contains(c.Aliases, word) {
			return c
		}
	}
	return nil
}

func (n *node) name() string { return n.word }

// lastWord returns the last word of a command's path.
func lastWord(path string) string {
	if i := strings.LastIndexByte(path, ' '); i >= 0 {
		return path[i+1:]
	}
	return path
}

func (n *node) flag(name string) *Flag {
	for i := range n.Flags {
		if n.Flags[i].Name == name {
			return &n.Flags[i]
		}
	}
	return nil
}

func (n *node) shorthand(s string) *Flag {
	for i := range n.Flags {
		if n.Flags[i].Shorthand == s {
			return &n.Flags[i]
		}
	}
	return nil
}

// find is cobra's Command.Find: from the root, each next command is the first word that
// cobra's stripFlags leaves (firstWord), and is removed from the arguments as argsMinusFirstX removes it. It
// returns the command and the arguments left for it to parse. As in cobra, the help
// flag is not yet defined while commands are found.
func (n *node) find(args []string) (*node, []string) { return n.findOf(args, true) }

// findOf is find, leaving out the commands that do not exist yet unless placeholders.
func (n *node) findOf(args []string, placeholders bool) (*node, []string) {
	for {
		word, ok := n.firstWord(args)
		if !ok {
			return n, args
		}
		next := n.childOf(word, placeholders)
		if next == nil {
			return n, args
		}
		args = n.argsMinusFirstX(args, word)
		n = next
	}
}

// takesValue reports whether the flag word s (without =) would take the next argument
// as its value, by cobra's reading of it while finding commands: a long flag that is not
// defined, or defined without a NoOptDefVal; a two-letter short flag likewise.
func (n *node) takesValue(s string) bool {
	switch {
	case strings.Contains(s, "="):
		return false
	case strings.HasPrefix(s, "--"):
		f := n.flag(s[2:])
		return f == nil || f.NoOptDefVal == ""
	case strings.HasPrefix(s, "-") && len(s) == 2:
		f := n.shorthand(s[1:2])
		return f == nil || f.NoOptDefVal == ""
	}
	return false
}

// firstWord is the first word cobra's stripFlags leaves of args (the words that are
// neither flags nor flag values, up to --): the next command's name, when there is one.
func (n *node) firstWord(args []string) (string, bool) {
	for len(args) > 0 {
		s := args[0]
		args = args[1:]
		switch {
		case s == "--":
			return "", false
		case strings.HasPrefix(s, "-") && n.takesValue(s):
			if len(args) <= 1 {
				return "", false
			}
			args = args[1:]
		case s != "" && !strings.HasPrefix(s, "-"):
			return s, true
		}
	}
	return "", false
}

// argsMinusFirstX is cobra's argsMinusFirstX: args without the first x that is not a
// flag value.
func (n *node) argsMinusFirstX(args []string, x string) []string {
	for pos := 0; pos < len(args); pos++ {
		s := args[pos]
		switch {
		case s == "--":
			return args
		case strings.HasPrefix(s, "-") && n.takesValue(s):
			pos++
		case !strings.HasPrefix(s, "-") && s == x:
			return slices.Concat(args[:pos], args[pos+1:])
		}
	}
	return args
}

// Parse reads the arguments of a run of moat (without the program's name) as its CLI
// does: the command that runs, its flags and its operands.
func (g *Guard) Parse(args []string) Parsed {
	n, rest := g.root.findOf(args, false)
	return n.parse(rest)
}

// Parsed is one run of moat as its CLI reads it.
type Parsed struct {
	// Path is the command that runs ("" for the root).
	Path string
	// Set holds the flags given, by name, with their values as pflag prints them.
	Set map[string]string
	// Args are the operands.
	Args []string
	// Help: the run only prints help (--help, or a command that does not run).
	Help bool
	// Err is why the CLI refuses the arguments; nothing runs then.
	Err error
}

// flagSet builds the command's flags for pflag, as cobra does before parsing: with its
// help flag, and interspersed flags unless the command stops them at the first operand.
func (n *node) flagSet() *pflag.FlagSet {
	fs := pflag.NewFlagSet(n.Path, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.SetInterspersed(!n.NoInterspersed)
	for _, f := range n.Flags {
		switch f.Kind {
		case "bool":
			fs.BoolP(f.Name, f.Shorthand, false, "")
		case "stringSlice":
			fs.StringSliceP(f.Name, f.Shorthand, nil, "")
		case "stringArray":
			fs.StringArrayP(f.Name, f.Shorthand, nil, "")
		case "int":
			fs.IntP(f.Name, f.Shorthand, 0, "")
		case "duration":
			fs.DurationP(f.Name, f.Shorthand, 0, "")
		default:
			// A string, or a kind this package does not know, which the test of the
			// tree refuses: any value is accepted, which is the reading that finds uses.
			fs.StringP(f.Name, f.Shorthand, "", "")
		}
		fs.Lookup(f.Name).NoOptDefVal = f.NoOptDefVal
	}
	if fs.Lookup("help") == nil {
		fs.BoolP("help", "h", false, "")
	}
	return fs
}

// parse reads args as the command's cobra.Command.ParseFlags does, and what runs then.
func (n *node) parse(args []string) Parsed {
	p := Parsed{Path: n.Path}
	if n.RawArgs {
		p.Args = args
		p.Help = !n.Runnable
		return p
	}
	fs := n.flagSet()
	if err := fs.Parse(args); err != nil {
		p.Err = err
		return p
	}
	fs.Visit(func(f *pflag.Flag) {
		if p.Set == nil {
			p.Set = make(map[string]string)
		}
		p.Set[f.Name] = f.Value.String()
	})
	p.Args = fs.Args()
	help, _ := fs.GetBool("help")
	p.Help = help || !n.Runnable
	return p
}

// isSet reports whether a flag's printed value says it is set: a true bool, a value
// that is not empty or zero.
func isSet(v string) bool {
	switch v {
	case "", "false", "[]", "0", "0s":
		return false
	}
	return true
}
