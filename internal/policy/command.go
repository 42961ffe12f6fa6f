package policy

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/glob"
)

// commandCond is a rule's `command` condition: any of its patterns matches a parsed command.
type commandCond struct {
	patterns []*commandPattern
}

// commandPattern matches one parsed command (never the raw line).
type commandPattern struct {
	text     string
	programs []programPattern // any of them
	// words, from the string form, must match the whole argument list; noArgs is the string
	// form of a bare program ("pwd"), which matches only without arguments.
	words  *glob.Words
	noArgs bool
	// flags and operands, from the mapping form: every flag must be set and every operand
	// pattern must match some operand.
	flags    []string
	operands []*glob.Word
}

var commandKeys = []string{"program", "flags", "args"}

func (l *loader) commandCond(n *yaml.Node) *commandCond {
	n = resolve(n)
	var entries []*yaml.Node
	switch {
	case n.Kind == yaml.SequenceNode:
		if len(n.Content) == 0 {
			l.errorf(n, "command is an empty list, which can never match")
			return nil
		}
		for _, c := range n.Content {
			entries = append(entries, resolve(c))
		}
	default:
		entries = []*yaml.Node{n}
	}
	cc := &commandCond{}
	for _, e := range entries {
		var p *commandPattern
		if e.Kind == yaml.MappingNode {
			p = l.commandMapping(e)
		} else if s, ok := l.str(e, "command"); ok {
			p = l.commandString(s, e)
		}
		if p != nil {
			cc.patterns = append(cc.patterns, p)
		}
	}
	if len(cc.patterns) == 0 {
		return nil
	}
	return cc
}

// commandString compiles the string form: `PROGRAM ARG…`, each word a glob over one word of
// the command, `**` standing for any number of words.
func (l *loader) commandString(s string, n *yaml.Node) *commandPattern {
	words, err := splitPattern(s)
	if err != nil {
		l.errorf(n, "command %q: %v", s, err)
		return nil
	}
	if len(words) == 0 {
		l.errorf(n, "command is empty")
		return nil
	}
	p := &commandPattern{text: s}
	if !l.program(p, words[0], n) {
		return nil
	}
	if len(words) == 1 {
		p.noArgs = true
		return p
	}
	ws, err := glob.CompileWords(words[1:])
	if err != nil {
		l.errorf(n, "command %q: %v", s, err)
		return nil
	}
	p.words = ws
	return p
}

func (l *loader) commandMapping(n *yaml.Node) *commandPattern {
	fields, ok := l.mapping(n, "command", commandKeys)
	if !ok {
		return nil
	}
	p := &commandPattern{}
	var text []string
	hasProgram := false
	for _, f := range fields {
		switch f.key {
		case "program":
			items, ok := l.strs(f.value, "program")
			if !ok {
				return nil
			}
			var names []string
			for _, it := range items {
				if !l.program(p, it.val, it.node) {
					return nil
				}
				names = append(names, it.val)
			}
			hasProgram = true
			text = append(text, "program "+strings.Join(names, "|"))
		case "flags":
			items, ok := l.strs(f.value, "flags")
			if !ok {
				return nil
			}
			for _, it := range items {
				name := strings.TrimLeft(it.val, "-")
				if name == "" || strings.ContainsAny(name, " =") {
					l.errorf(it.node, "flag %q: write the option's name, e.g. r, force or -f", it.val)
					return nil
				}
				p.flags = append(p.flags, name)
			}
			text = append(text, "flags "+strings.Join(p.flags, ","))
		case "args":
			items, ok := l.strs(f.value, "args")
			if !ok {
				return nil
			}
			for _, it := range items {
				w, err := glob.CompileWord(it.val)
				if err != nil {
					l.errorf(it.node, "args: %v", err)
					return nil
				}
				p.operands = append(p.operands, w)
				text = append(text, "arg "+it.val)
			}
		}
	}
	if !hasProgram {
		l.errorf(n, "command needs a `program` (a name or glob, e.g. rm or git)")
		return nil
	}
	p.text = strings.Join(text, " ")
	return p
}

// programPattern matches the program of a command: by name, or by path when the pattern
// holds a slash.
type programPattern struct {
	w      *glob.Word
	byPath bool
}

func (pp programPattern) match(c *call.Command) bool {
	if pp.byPath {
		return c.Path != "" && pp.w.Match(c.Path)
	}
	return pp.w.Match(c.Name)
}

func (l *loader) program(p *commandPattern, word string, n *yaml.Node) bool {
	w, err := glob.CompileWord(word)
	if err != nil {
		l.errorf(n, "command program: %v", err)
		return false
	}
	p.programs = append(p.programs, programPattern{w: w, byPath: strings.Contains(word, "/")})
	return true
}

func (p *commandPattern) match(c *call.Command) bool {
	matched := false
	for _, pp := range p.programs {
		if pp.match(c) {
			matched = true
			break
		}
	}
	if !matched {
		return false
	}
	if p.noArgs && len(c.Args) > 0 {
		return false
	}
	// Words are matched against the whole argument list, and against the list from the
	// subcommand on, so that the program's own options (git -C . push) cannot slip a
	// command past a rule written for its subcommand.
	if p.words != nil && !p.words.Match(c.Args) && (c.Subcommand == nil || !p.words.Match(c.Subcommand)) {
		return false
	}
	for _, f := range p.flags {
		if !c.HasFlag(f) {
			return false
		}
	}
	for _, w := range p.operands {
		found := false
		for _, o := range c.Operands {
			if w.Match(o) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func (cc *commandCond) match(c *call.Command) (*commandPattern, bool) {
	if c == nil {
		return nil, false
	}
	for _, p := range cc.patterns {
		if p.match(c) {
			return p, true
		}
	}
	return nil, false
}

// splitPattern splits a command pattern into words at blanks. Quotes group a word and make
// what they hold literal (`'*'` is a star, not a glob); outside quotes the glob syntax
// applies, backslash escapes included.
func splitPattern(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == ' ' || ch == '\t' || ch == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case ch == '\'' || ch == '"':
			end := strings.IndexByte(s[i+1:], ch)
			if end < 0 {
				return nil, fmt.Errorf("unclosed %c quote", ch)
			}
			cur.WriteString(escapeQuoted(s[i+1 : i+1+end]))
			i += end + 1
			inWord = true
		case ch == '\\':
			if i+1 == len(s) {
				return nil, fmt.Errorf("trailing backslash")
			}
			cur.WriteByte(ch)
			cur.WriteByte(s[i+1])
			i++
			inWord = true
		default:
			cur.WriteByte(ch)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// escapeQuoted makes every glob metacharacter in s literal.
func escapeQuoted(s string) string {
	if !strings.ContainsAny(s, `*?[]{}\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(`*?[]{}\`, s[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
