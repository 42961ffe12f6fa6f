package planted

import (
	"encoding/xml"
	"errors"
	"strings"
)

// Gradle's and sbt's build scripts are programs (Groovy, Kotlin, Scala) that every build
// runs, and a Maven POM names the programs its plugins run at each build. moat does not
// read these languages; it finds where they start a process: Gradle's commandLine (and
// executable with args), Groovy's "CMD".execute(), Scala's "CMD".!, Seq(…).! and Process(…),
// ProcessBuilder and Runtime's exec anywhere, Maven's exec-maven-plugin and antrun's
// <exec>. A process written out in string literals is judged as the command it runs; one
// whose words are computed is opaque, and so is a script applied from a URL.

// maxScriptLiterals bounds the literals one build script is read for: a generated script
// of megabytes of strings is opaque rather than slow.
const maxScriptLiterals = 20000

// jvmBuildCode finds the processes a Gradle or sbt build script starts.
func jvmBuildCode(text string, x *extraction) {
	literals := 0
	var exe string // the last executable 'X' of a Gradle exec block, waiting for its args
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case strings.HasPrefix(text[i:], "//"):
			i = lineEnd(text, i)
		case strings.HasPrefix(text[i:], "/*"):
			end := strings.Index(text[i+2:], "*/")
			if end < 0 {
				return
			}
			i += end + 3
		case c == '[':
			// ['sh', '-c', 'CMD'].execute().
			words, ok, n := jvmWords(text[i:])
			if ok && strings.HasPrefix(text[i+n:], ".execute(") {
				x.shell("[…].execute() (the build runs it)", wordsLine(words))
				i += n - 1
				continue
			}
			// Any other list is read on from its first element, its literals one by one
			// (["…".execute()]); a run of brackets is passed at once, so that no list is
			// read again for each bracket before it.
			for i+1 < len(text) && strings.IndexByte("[ \t\r\n", text[i+1]) >= 0 {
				i++
			}
		case c == '"' || c == '\'':
			literals++
			if literals > maxScriptLiterals {
				x.opaque(x.kind, "a build script with more string literals than moat reads")
				return
			}
			lit, found, open := groovyLiteral(text[i:])
			switch {
			case open && (strings.HasPrefix(text[i:], `"""`) || strings.HasPrefix(text[i:], "'''")):
				return // a triple-quoted string that never ends takes the rest of the file
			case open || !found:
				i = lineEnd(text, i)
				continue
			}
			after := text[i+len(lit.raw):]
			if strings.HasPrefix(after, ".execute(") || strings.HasPrefix(after, ".!") {
				// Groovy's String.execute() and Scala's "CMD".! split the string at white
				// space, and run no shell.
				x.shell(`"…".execute() (the build runs it)`, wordsLine(strings.Fields(lit.text)))
			}
			i += len(lit.raw) - 1
		case groovyIdentStart(c) && (i == 0 || !groovyIdent(text[i-1])):
			j := i
			for j < len(text) && groovyIdent(text[j]) {
				j++
			}
			name := text[i:j]
			if name == "getRuntime" && strings.HasPrefix(text[j:], "().exec") {
				name, j = "Runtime.getRuntime().exec", j+len("().exec")
			}
			i = j - 1
			rest := strings.TrimLeft(text[j:], " \t")
			switch name {
			case "ProcessBuilder", "Process", "Runtime.getRuntime().exec":
				if !strings.HasPrefix(rest, "(") {
					continue // a type or a variable's name
				}
				fallthrough
			case "commandLine":
				words, ok, _ := jvmWords(text[j:])
				if ok {
					x.shell(name+" (the build runs it)", wordsLine(processWords(name, words)))
				} else if rest != "" && !strings.HasPrefix(rest, "\n") && !strings.HasPrefix(rest, "}") {
					x.opaque(name, "the build starts a process whose words moat cannot read")
				}
			case "Seq", "List":
				// Scala's Seq("sh", "-c", "CMD").! (and .!!, .lineStream…) runs the words.
				if words, ok, n := jvmWords(text[j:]); ok && strings.HasPrefix(strings.TrimLeft(text[j+n:], " \t"), ".!") {
					x.shell(name+"(…).! (the build runs it)", wordsLine(words))
				}
			case "executable":
				words, ok, _ := jvmWords(text[j:])
				switch {
				case ok && len(words) == 1:
					exe = words[0]
				case strings.HasPrefix(rest, "=") || strings.HasPrefix(rest, "(") || groovyIdentStart(firstByte(rest)):
					x.opaque("executable", "the build starts a program named by a computed value")
				}
			case "args":
				if exe == "" {
					continue
				}
				if words, ok, _ := jvmWords(text[j:]); ok {
					x.shell("executable (the build runs it)", wordsLine(append([]string{exe}, words...)))
				} else {
					x.opaque("executable", "the build starts "+exe+" with arguments moat cannot read")
				}
				exe = ""
			case "from":
				// apply from: 'https://…' (Groovy), apply(from = "https://…") (Kotlin).
				v := strings.TrimLeft(strings.TrimPrefix(strings.TrimPrefix(rest, ":"), "="), " \t")
				if lit, found, _ := groovyLiteral(v); found && strings.Contains(lit.text, "://") {
					x.opaque("apply from", "the build applies a script fetched from "+lit.text)
				}
			}
		}
	}
	if exe != "" {
		x.shell("executable (the build runs it)", shellQuote(exe))
	}
}

// processWords are the words of the process a starter describes: Scala's Process("CMD")
// and Java's Runtime.exec("CMD") with one string split it at white space.
func processWords(starter string, words []string) []string {
	if (starter == "Process" || starter == "Runtime.getRuntime().exec") && len(words) == 1 {
		return strings.Fields(words[0])
	}
	return words
}

func firstByte(s string) byte {
	if s == "" {
		return 0
	}
	return s[0]
}

// lineEnd is the index of the newline that ends the line holding text[i], or the last
// index.
func lineEnd(text string, i int) int {
	if n := strings.IndexByte(text[i:], '\n'); n >= 0 {
		return i + n
	}
	return len(text) - 1
}

// jvmWords reads the words of a process after a starter's name: a list of string
// literals, bare (commandLine 'sh', '-c', 'x'), in parentheses or brackets, assigned
// (commandLine = listOf(…)), or wrapped in a list builder (listOf, arrayOf, Seq, List).
// ok says every word is a literal; n is how much of s the list took.
func jvmWords(s string) (words []string, ok bool, n int) {
	at := len(s) - len(strings.TrimLeft(s, " \t"))
	if rest, eq := strings.CutPrefix(s[at:], "="); eq && !strings.HasPrefix(rest, "=") {
		at = len(s) - len(strings.TrimLeft(rest, " \t"))
	}
	var closers []byte
	for opened := true; opened; {
		opened = false
		for _, open := range []string{"(", "[", "listOf(", "arrayOf(", "mutableListOf(", "Seq(", "List(", "Array("} {
			if strings.HasPrefix(s[at:], open) {
				closer := byte(')')
				if open == "[" {
					closer = ']'
				}
				closers = append(closers, closer)
				at += len(open)
				at = len(s) - len(strings.TrimLeft(s[at:], " \t\r\n"))
				opened = true
				break
			}
		}
	}
	for {
		lit, found, open := groovyLiteral(s[at:])
		if !found || open {
			return words, false, at // a variable, a call, a concatenation
		}
		words = append(words, lit.text)
		at += len(lit.raw)
		at = len(s) - len(strings.TrimLeft(s[at:], " \t"))
		if strings.HasPrefix(s[at:], "+") || strings.HasPrefix(s[at:], ".") && len(closers) > 0 {
			return words, false, at // "sh " + x, "x".format(…)
		}
		if !strings.HasPrefix(s[at:], ",") {
			break
		}
		at = len(s) - len(strings.TrimLeft(s[at+1:], " \t\r\n"))
	}
	for k := len(closers) - 1; k >= 0; k-- {
		at = len(s) - len(strings.TrimLeft(s[at:], " \t\r\n"))
		if at >= len(s) || s[at] != closers[k] {
			return words, false, at
		}
		at++
	}
	return words, true, at
}

// wordsLine is the shell command line that runs words as one process.
func wordsLine(words []string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = quoteWord(w)
	}
	return strings.Join(quoted, " ")
}

// buildValues are the variables that stand in a word for a value known only when the
// build runs (a Groovy or Kotlin interpolation, a Maven property).
var buildValues = []string{"${GROOVY_EXPRESSION}", "${MAVEN_PROPERTY}"}

// quoteWord quotes w as one shell word, leaving the variables of buildValues in it to
// expand: the shell analysis then sees a value it cannot know, not a literal name.
func quoteWord(w string) string {
	for _, v := range buildValues {
		if strings.Contains(w, v) {
			parts := strings.Split(w, v)
			for i, p := range parts {
				if p != "" {
					parts[i] = quoteWord(p)
				}
			}
			return strings.Join(parts, `"`+v+`"`)
		}
	}
	return shellQuote(w)
}

// mavenCode finds the processes a POM's plugins start at each build: exec-maven-plugin's
// executable with its arguments (or commandlineArgs), maven-antrun-plugin's <exec> tasks;
// the script plugins' code (antrun's <script>, GMavenPlus, groovy-maven-plugin) is
// opaque. ${property} references are values known only at build time. An edit's text
// alone, without the plugin around it, is read as exec-maven-plugin's and antrun's
// elements would be; one cut short is judged by what was read of it, and one broken
// before its end is opaque.
func mavenCode(text string, x *extraction) {
	dec := xml.NewDecoder(strings.NewReader(text))
	dec.Strict = false
	consumed := 0       // the bytes of text read by decoders before dec
	autoclosed := false // the decoder closed elements the text did not close
	var (
		stack    []string
		artifact string // the artifactId of the plugin being read; "" outside one
		exe      string
		args     []string
		argLine  string
		scripted bool // the plugin's script was reported
	)
	execPlugin := func() bool { return artifact == "" || artifact == "exec-maven-plugin" }
	flush := func() {
		if exe == "" {
			args, argLine = nil, ""
			return
		}
		line := quoteWord(mavenValue(exe))
		if argLine != "" {
			line += " " + mavenValue(argLine)
		}
		for _, a := range args {
			line += " " + quoteWord(mavenValue(a))
		}
		x.shell("exec-maven-plugin (the build runs it)", line)
		exe, args, argLine = "", nil, ""
	}
	for {
		before := dec.InputOffset()
		tok, err := dec.Token()
		if _, end := tok.(xml.EndElement); end && dec.InputOffset() == before {
			// The lenient decoder closes the open elements itself, reading nothing, before
			// it reports an end tag that matches none of them: the POM is broken within.
			autoclosed = true
		}
		var se *xml.SyntaxError
		if errors.As(err, &se) && len(stack) == 0 && !autoclosed && strings.HasPrefix(se.Msg, "unexpected end element") {
			// A piece of a POM (an edit's text alone) closes the elements it was cut
			// from (</plugins></build>): the reading goes on after the end tag.
			flush()
			next := min(len(text), consumed+int(dec.InputOffset()))
			if next <= consumed {
				x.opaque("pom.xml", "a POM moat cannot read to its end: "+se.Msg)
				return
			}
			rest := text[next:]
			consumed = next
			dec = xml.NewDecoder(strings.NewReader(rest))
			dec.Strict = false
			continue
		}
		if err != nil {
			flush()
			// A POM cut short (an edit's text alone) ends the reading; one that breaks
			// before its end may be read otherwise by Maven, and what follows is unread.
			if se != nil && !strings.Contains(se.Msg, "unexpected EOF") {
				x.opaque("pom.xml", "a POM moat cannot read to its end: "+se.Msg)
			}
			return
		}
		switch t := tok.(type) {
		case xml.StartElement:
			name := t.Name.Local
			switch {
			case name == "plugin":
				artifact, scripted = "", false
			case name == "exec" && (artifact == "" || artifact == "maven-antrun-plugin") && attr(t, "executable") != "":
				// antrunExec reads up to the element's end.
				x.shell("maven-antrun-plugin exec (the build runs it)", antrunExec(dec, attr(t, "executable")))
				continue
			case (name == "script" || name == "scripts" || name == "source" || name == "java" || name == "groovy") && scriptPlugin(artifact) && !scripted:
				scripted = true
				x.opaque(artifact, "the build runs code of a script plugin, in a language moat does not read")
			}
			stack = append(stack, name)
		case xml.EndElement:
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			switch t.Name.Local {
			case "configuration":
				if execPlugin() {
					flush()
				}
			case "plugin":
				flush()
				artifact = ""
			}
		case xml.CharData:
			if len(stack) == 0 {
				continue
			}
			v := strings.TrimSpace(string(t))
			switch stack[len(stack)-1] {
			case "artifactId":
				if len(stack) >= 2 && stack[len(stack)-2] == "plugin" {
					artifact = v
				}
			case "executable":
				if execPlugin() {
					exe = v
				}
			case "argument":
				if execPlugin() {
					args = append(args, v)
				}
			case "commandlineArgs":
				if execPlugin() {
					argLine = v
				}
			}
		}
	}
}

// antrunExec reads an antrun <exec> task's <arg value="…"/> and <arg line="…"/> up to its
// end, and returns its command line: the executable and its arguments.
func antrunExec(dec *xml.Decoder, executable string) string {
	line := quoteWord(mavenValue(executable))
	for depth := 1; depth > 0; {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			if t.Name.Local != "arg" {
				continue
			}
			if v := attr(t, "value"); v != "" {
				line += " " + quoteWord(mavenValue(v))
			}
			if v := attr(t, "line"); v != "" {
				line += " " + mavenValue(v)
			}
		case xml.EndElement:
			depth--
		}
	}
	return line
}

// scriptPlugin reports whether a Maven plugin runs scripts written in the POM: antrun's
// <script>, GMavenPlus, groovy-maven-plugin, maven-scripting-plugin.
func scriptPlugin(artifact string) bool {
	return artifact == "maven-antrun-plugin" || strings.Contains(artifact, "groovy") || strings.Contains(artifact, "gmaven") ||
		strings.Contains(artifact, "scripting")
}

func attr(t xml.StartElement, name string) string {
	for _, a := range t.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

// mavenValue makes each ${property} of a value a shell variable, whose value is unknown
// until the build.
func mavenValue(s string) string {
	return replaceMacros(s, "${", "}", func(string) string { return "${MAVEN_PROPERTY}" })
}

// replaceMacros replaces each open+NAME+close of s with what repl makes of NAME; an
// unclosed one is left as written.
func replaceMacros(s, open, close string, repl func(name string) string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, open)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := strings.Index(s[i+len(open):], close)
		if end < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		b.WriteString(repl(s[i+len(open) : i+len(open)+end]))
		s = s[i+len(open)+end+len(close):]
	}
}

// jvmAgentOptions are the JVM options that load code or run a command: an agent (a jar or
// a native library) loaded into the build's JVM, a boot class path put before the JDK's,
// a command run when the JVM runs out of memory or fails.
var jvmAgentOptions = []string{"-javaagent:", "-agentpath:", "-agentlib:", "-Xbootclasspath", "-XX:OnOutOfMemoryError", "-XX:OnError"}

// jvmOptionsCode finds the JVM options of a build's settings (gradle.properties'
// org.gradle.jvmargs, Maven's .mvn/jvm.config, sbt's .jvmopts, and .sbtopts, where -J
// passes an option on to the JVM: -J-javaagent:x.jar) that load code into the build or
// run a command: opaque, as JAVA_TOOL_OPTIONS is in the environment. An option is found
// anywhere in a word, so that a prefix (-J, org.gradle.jvmargs=) does not hide it.
func jvmOptionsCode(text string, x *extraction) {
	for _, o := range jvmAgentOptions {
		if i := strings.Index(text, o); i >= 0 {
			start := strings.LastIndexAny(text[:i], " \t\r\n=\"'") + 1
			end := i + strings.IndexAny(text[i:]+"\n", " \t\r\n")
			x.opaque(o, "the build's JVM is given "+text[start:end]+", which loads code or runs a command moat cannot read")
			return
		}
	}
}
