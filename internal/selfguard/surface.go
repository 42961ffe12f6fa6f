package selfguard

// Flag is one flag of a moat command, as the command defines it for pflag.
type Flag struct {
	Name      string
	Shorthand string
	// Kind is pflag's name of the flag's value type: bool, string, stringSlice,
	// stringArray, int or duration.
	Kind string
	// NoOptDefVal is the value the flag takes when it is given without one ("true" for
	// a bool: --uninstall is --uninstall=true); "" when a value is required.
	NoOptDefVal string
}

// Command is one command of moat's tree, with what the way cobra finds it and parses its
// arguments depends on.
type Command struct {
	// Path is the words that name the command after the program: "" for the root,
	// "setup", "mcp pin".
	Path    string
	Aliases []string
	// Flags are the command's own flags and those it inherits, sorted by name. Cobra's
	// help flag, which it adds when the command runs, is implied.
	Flags []Flag
	// NoInterspersed: the flags end at the first operand (moat run ls -la runs ls -la).
	NoInterspersed bool
	// RawArgs: the command reads its arguments itself (cobra's DisableFlagParsing).
	RawArgs bool
	// Runnable: the command does something; one that does not only prints its help.
	Runnable bool
}
