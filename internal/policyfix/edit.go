package policyfix

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/moatdev/moat/internal/textedit"
)

// document is a policy file's text with what the edits need of its YAML structure: the
// lines of the items of `rules` and `tests`, and where each top-level key starts. Edits
// are made to the text, at line boundaries, so that everything else in the file (comments,
// spacing, quoting, key order) stays byte for byte as the user wrote it.
type document struct {
	text  []byte
	lines []int // offset of the start of each line (0-based line numbers)
	nl    string
	root  *yaml.Node
	keys  []*yaml.Node // the top-level keys, in order
}

// section is a top-level sequence of the document (rules, tests).
type section struct {
	key   *yaml.Node // nil when the document has none
	value *yaml.Node
	next  int // 1-based line of the next top-level key, or 0 at the end of the document
}

func parseDocument(text []byte) (*document, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(text, &doc); err != nil {
		return nil, fmt.Errorf("reading the policy's YAML: %w", err)
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, errors.New("the policy is not a YAML mapping")
	}
	if bytes.Count(text, []byte("\r")) != bytes.Count(text, []byte("\r\n")) {
		return nil, fmt.Errorf("%w: the policy breaks lines with a lone carriage return, which moat fix does not edit", ErrRefused)
	}
	d := &document{text: text, root: doc.Content[0], nl: "\n"}
	if bytes.Contains(text, []byte("\r\n")) {
		d.nl = "\r\n"
	}
	d.lines = append(d.lines, 0)
	for i, b := range text {
		if b == '\n' {
			d.lines = append(d.lines, i+1)
		}
	}
	if d.root.Style&yaml.FlowStyle != 0 {
		return nil, fmt.Errorf("%w: the policy is written as one flow mapping ({...}), which moat fix does not edit", ErrRefused)
	}
	for i := 0; i+1 < len(d.root.Content); i += 2 {
		k := d.root.Content[i]
		if k.Column != 1 {
			return nil, fmt.Errorf("%w: the policy's top-level keys are indented (line %d), which moat fix does not edit", ErrRefused, k.Line)
		}
		d.keys = append(d.keys, k)
	}
	return d, nil
}

func (d *document) section(name string) (section, error) {
	for i, k := range d.keys {
		if k.Value != name {
			continue
		}
		s := section{key: k, value: d.root.Content[2*i+1]}
		if i+1 < len(d.keys) {
			s.next = d.keys[i+1].Line
		}
		switch {
		case s.value.Kind == yaml.ScalarNode && s.value.Tag == "!!null":
			if !d.emptyAfter(s) {
				return s, fmt.Errorf("%w: `%s` holds neither a list nor nothing, which moat fix does not edit; write the change by hand", ErrRefused, name)
			}
		case s.value.Kind == yaml.SequenceNode && s.value.Style&yaml.FlowStyle == 0:
		case s.value.Kind == yaml.SequenceNode && len(s.value.Content) == 0:
		default:
			return s, fmt.Errorf("%w: `%s` is not written as a block list (one `- ` item per entry), which is what moat fix edits; write the change by hand", ErrRefused, name)
		}
		return s, nil
	}
	return section{}, nil
}

// emptyAfter reports whether a key with no value has nothing but blanks and comments
// after its colon up to the next top-level key: where the first item may go.
func (d *document) emptyAfter(s section) bool {
	first := d.lineText(s.key.Line)
	from := s.key.Column - 1 + len(s.key.Value)
	if from > len(first) {
		return false
	}
	_, rest, _ := strings.Cut(first[from:], ":")
	if t := strings.TrimSpace(rest); t != "" && !strings.HasPrefix(t, "#") {
		return false
	}
	end := s.next
	if end == 0 {
		end = len(d.lines) + 1
	}
	for n := s.key.Line + 1; n < end; n++ {
		if t := strings.TrimSpace(d.lineText(n)); t != "" && !strings.HasPrefix(t, "#") {
			return false
		}
	}
	return true
}

// lineStart is the offset of the start of 1-based line n; the end of the text past the
// last line.
func (d *document) lineStart(n int) int {
	if n-1 < len(d.lines) {
		return d.lines[n-1]
	}
	return len(d.text)
}

// lineText is 1-based line n without its line break.
func (d *document) lineText(n int) string {
	start := d.lineStart(n)
	end := len(d.text)
	if n < len(d.lines) {
		end = d.lines[n]
	}
	return strings.TrimRight(string(d.text[start:end]), "\r\n")
}

// itemIndent is the column (0-based) of the dash of a block sequence's item.
func (d *document) itemIndent(item *yaml.Node) (int, error) {
	line := d.lineText(item.Line)
	col := min(item.Column-1, len(line))
	dash := strings.LastIndexByte(line[:col], '-')
	if dash < 0 || strings.TrimSpace(line[:dash]) != "" {
		return 0, fmt.Errorf("%w: the list item at line %d does not start its line with `- `, which moat fix does not edit", ErrRefused, item.Line)
	}
	return dash, nil
}

// insertion is text to insert at an offset.
type insertion struct {
	at   int
	text string
}

// insertItem returns the insertion of an item (its lines, unindented, the first one
// the item's own) into section s, before item index at (len(items) for after the last).
// A document without the section gets it at its end.
func (d *document) insertItem(name string, s section, at int, item []string) (insertion, error) {
	if s.key == nil {
		var b strings.Builder
		if len(d.text) > 0 && !bytes.HasSuffix(d.text, []byte("\n")) {
			b.WriteString(d.nl)
		}
		b.WriteString(name + ":" + d.nl)
		b.WriteString(render(item, 2, d.nl))
		return insertion{at: len(d.text), text: b.String()}, nil
	}
	items := s.value.Content
	if s.value.Kind != yaml.SequenceNode || len(items) == 0 {
		// `rules:` with nothing (or `[]`) after it: the item goes on the line after the
		// key, and an empty flow list is replaced (see replaceEmpty).
		at := d.lineStart(s.key.Line + 1)
		text := render(item, 2, d.nl)
		if at == len(d.text) && len(d.text) > 0 && !bytes.HasSuffix(d.text, []byte("\n")) {
			text = d.nl + text
		}
		return insertion{at: at, text: text}, nil
	}
	if at < len(items) {
		indent, err := d.itemIndent(items[at])
		if err != nil {
			return insertion{}, err
		}
		// Above the comment lines that lead to the item at its indentation: they are about it.
		line := items[at].Line
		for line-1 > s.key.Line {
			prev := d.lineText(line - 1)
			t := strings.TrimLeft(prev, " ")
			if !strings.HasPrefix(t, "#") || len(prev)-len(t) != indent {
				break
			}
			line--
		}
		return insertion{at: d.lineStart(line), text: render(item, indent, d.nl)}, nil
	}
	indent, err := d.itemIndent(items[len(items)-1])
	if err != nil {
		return insertion{}, err
	}
	// After the last item: before the next top-level key, and before the blank lines and
	// comments that lead up to it (they belong to what follows).
	end := s.next
	if end == 0 {
		end = len(d.lines) + 1
		if len(d.text) > 0 && d.text[len(d.text)-1] == '\n' {
			end = len(d.lines)
		}
	}
	last := items[len(items)-1].Line
	for end-1 > last {
		t := strings.TrimSpace(d.lineText(end - 1))
		if t != "" && !strings.HasPrefix(t, "#") {
			break
		}
		end--
	}
	text := render(item, indent, d.nl)
	at2 := d.lineStart(end)
	if at2 == len(d.text) && len(d.text) > 0 && !bytes.HasSuffix(d.text, []byte("\n")) {
		text = d.nl + text
	}
	return insertion{at: at2, text: text}, nil
}

// emptyFlow returns the span of an empty flow list (`rules: []`), to be removed when the
// first item is inserted after the key, or ok false.
func (d *document) emptyFlow(s section) (start, end int, ok bool) {
	if s.key == nil || s.value.Kind != yaml.SequenceNode || len(s.value.Content) != 0 {
		return 0, 0, false
	}
	line := d.lineText(s.value.Line)
	col := s.value.Column - 1
	if col < 0 || col+2 > len(line) || line[col:col+2] != "[]" {
		return 0, 0, false
	}
	// The blanks between the colon and the brackets go too.
	lead := len(line[:col]) - len(strings.TrimRight(line[:col], " \t"))
	start = d.lineStart(s.value.Line) + col
	return start - lead, start + 2, true
}

// render indents an item's lines: the first after `- ` at indent, the others under it.
func render(item []string, indent int, nl string) string {
	pad := strings.Repeat(" ", indent)
	var b strings.Builder
	for i, l := range item {
		if i == 0 {
			b.WriteString(pad + "- " + l + nl)
		} else {
			b.WriteString(pad + "  " + l + nl)
		}
	}
	return b.String()
}

// insert returns the text with rule inserted into rules before item index at, and test
// first among the tests; an empty flow list (`rules: []`) is turned into a block list.
func (d *document) insert(rules, tests section, at int, rule, test []string) ([]byte, error) {
	ins, err := d.insertItem("rules", rules, at, rule)
	if err != nil {
		return nil, err
	}
	tIns, err := d.insertItem("tests", tests, 0, test)
	if err != nil {
		return nil, err
	}
	// At one offset (both sections missing), the rules come first, and only they start
	// the line the text did not end.
	if tIns.at == ins.at && strings.HasPrefix(ins.text, d.nl) {
		tIns.text = strings.TrimPrefix(tIns.text, d.nl)
	}
	edits := []textedit.Edit{{Start: ins.at, End: ins.at, Text: ins.text}, {Start: tIns.at, End: tIns.at, Text: tIns.text}}
	for _, sec := range []section{rules, tests} {
		if s, e, ok := d.emptyFlow(sec); ok {
			edits = append(edits, textedit.Edit{Start: s, End: e})
		}
	}
	out, err := textedit.Apply(string(d.text), edits)
	if err != nil {
		return nil, err
	}
	return []byte(out), nil
}
