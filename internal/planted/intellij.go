package planted

import (
	"encoding/xml"
	"errors"
	"io"
	"strings"
)

// intellijRunCode finds the commands of JetBrains IDEs' run configurations (.run/*.xml,
// .idea/runConfigurations/*.xml, and those kept in .idea/workspace.xml), which run when
// the user picks one: a shell script configuration's script text, or the script file it
// names with its interpreter. Configurations of other types run the project's own
// programs (an application's main class, an npm script), which are its code.
func intellijRunCode(text string, x *extraction) {
	dec := xml.NewDecoder(strings.NewReader(text))
	dec.Strict = false
	var (
		shell bool              // inside a shell script configuration
		opts  map[string]string // its options, by name
		name  string
	)
	flush := func() {
		where := "run configuration " + name
		switch {
		case strings.EqualFold(opts["EXECUTE_SCRIPT_FILE"], "false") || opts["SCRIPT_TEXT"] != "" && opts["SCRIPT_PATH"] == "":
			x.shell(where, opts["SCRIPT_TEXT"])
		case opts["SCRIPT_PATH"] != "":
			var words []string
			if interp := opts["INTERPRETER_PATH"]; interp != "" {
				words = append(words, quoteWord(intellijValue(interp)), intellijValue(opts["INTERPRETER_OPTIONS"]))
			}
			words = append(words, quoteWord(intellijValue(opts["SCRIPT_PATH"])), intellijValue(opts["SCRIPT_OPTIONS"]))
			x.shell(where, strings.Join(strings.Fields(strings.Join(words, " ")), " "))
		}
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			var se *xml.SyntaxError
			if !errors.Is(err, io.EOF) && errors.As(err, &se) {
				x.opaque(x.kind, "a run configuration moat cannot read to its end: "+se.Msg)
			}
			return
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "configuration":
				shell = attr(t, "type") == "ShConfigurationType"
				opts, name = map[string]string{}, attr(t, "name")
			case "option":
				if shell {
					opts[attr(t, "name")] = attr(t, "value")
				}
			}
		case xml.EndElement:
			if t.Name.Local == "configuration" && shell {
				flush()
				shell = false
			}
		}
	}
}

// intellijValue writes the IDE's macros ($PROJECT_DIR$ the project, others a value known
// only when the configuration runs) as the shell would see them.
func intellijValue(s string) string {
	return replaceMacros(strings.ReplaceAll(s, "$PROJECT_DIR$", "."), "$", "$", func(name string) string { return "${" + shellName(name) + "}" })
}
