package logview

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/call"
)

// DefaultWidth is the width of a line when the output is not a terminal.
const DefaultWidth = 100

// Column widths of the table; the call takes what is left of the line.
const (
	seqWidth      = 6  // the record's number
	timeWidth     = 15 // "Jan 02 15:04:05"
	decisionWidth = 8
	agentWidth    = 11
	toolWidth     = 14
	minCallWidth  = 20
)

// Table writes records as a table, one line per record: the record's number (by which
// moat fix and decisions name it), time, decision, agent, tool and the call. A second
// line, indented, gives the rule that decided and its reason, for every record but an
// allow by the policy's default.
type Table struct {
	W io.Writer
	// Width is the line width the call is truncated to fit; zero means DefaultWidth.
	Width int
	// Color marks decisions with terminal colours.
	Color bool
	// Loc is the time zone times are shown in; nil means UTC.
	Loc *time.Location
}

// Header writes the column titles.
func (t *Table) Header() error {
	line := pad("#", seqWidth) + " " + pad("TIME", timeWidth) + " " + pad("DECISION", decisionWidth) + " " + pad("AGENT", agentWidth) + " " +
		pad("TOOL", toolWidth) + " CALL"
	_, err := fmt.Fprintln(t.W, line)
	return err
}

// Write writes one record.
func (t *Table) Write(r audit.Record) error {
	loc := t.Loc
	if loc == nil {
		loc = time.UTC
	}
	width := t.Width
	if width <= 0 {
		width = DefaultWidth
	}
	fixed := seqWidth + timeWidth + decisionWidth + agentWidth + toolWidth + 5
	callWidth := max(width-fixed, minCallWidth)

	var b strings.Builder
	seq := "-" // a record still in a spool file has no number yet
	if r.Seq != 0 {
		seq = fmt.Sprint(r.Seq)
	}
	b.WriteString(pad(seq, seqWidth) + " ")
	ts := r.Time.In(loc).Format("Jan 02 15:04:05")
	if t.Color {
		b.WriteString(dim + ts + reset)
	} else {
		b.WriteString(ts)
	}
	b.WriteByte(' ')
	dec := pad(r.Decision.String(), decisionWidth)
	if c := decisionColor[r.Decision]; t.Color && c != "" {
		dec = c + dec + reset
	}
	b.WriteString(dec)
	b.WriteString(" " + pad(fit(Clean(orNone(r.Agent)), agentWidth), agentWidth))
	tool := r.Tool
	if r.MCP != "" {
		// The same server and tool read the same whatever the agent called its event.
		tool = r.MCP
	}
	b.WriteString(" " + pad(fit(Clean(tool), toolWidth), toolWidth))
	b.WriteString(" " + fit(CallSummary(r), callWidth))
	b.WriteByte('\n')
	if detail := ruleLine(r); detail != "" {
		b.WriteString(strings.Repeat(" ", seqWidth+1+timeWidth+1) + detail + "\n")
	}
	_, err := io.WriteString(t.W, b.String())
	return err
}

// ruleLine is the rule that decided r and its reason. An allow says its reason only when
// a rule of the policy made it (the default's reason says nothing).
func ruleLine(r audit.Record) string {
	rule := Clean(r.Rule)
	if r.Decision == call.Allow && (r.Rule == "" || r.Rule == call.RuleDefault) {
		return ""
	}
	switch {
	case rule == "":
		return Clean(r.Reason)
	case r.Reason == "":
		return rule
	}
	return rule + ": " + Clean(r.Reason)
}

// Terminal colours; only used when the output is a terminal and NO_COLOR is not set.
const (
	reset = "\x1b[0m"
	dim   = "\x1b[2m"
)

var decisionColor = map[call.Verdict]string{
	call.Deny:  "\x1b[1;31m", // bold red
	call.Ask:   "\x1b[33m",   // yellow
	call.Audit: "\x1b[36m",   // cyan
	call.Allow: "\x1b[32m",   // green
}

func orNone(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// CallSummary renders what the call did in one line: the command, the path, the URL, or
// the tool and its arguments. It shows only what the record holds, made safe to print.
func CallSummary(r audit.Record) string {
	str := func(k string) string { s, _ := r.Args[k].(string); return s }
	var s string
	switch call.Class(r.Class) {
	case call.Shell:
		s = str(call.ArgCommand)
	case call.FileRead, call.FileWrite, call.FileEdit, call.FileDelete:
		s = str(call.ArgPath)
		if s == "" {
			s = joinStrings(r.Args[call.ArgPaths])
		}
	case call.FileSearch:
		s = strings.TrimSpace(str(call.ArgPattern) + " " + str(call.ArgPath))
	case call.WebFetch:
		s = str(call.ArgURL)
	}
	if s == "" && len(r.Args) > 0 {
		s = compactJSON(r.Args)
	}
	return Clean(s)
}

func joinStrings(v any) string {
	list, _ := v.([]any)
	var out []string
	for _, e := range list {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return strings.Join(out, " ")
}

func compactJSON(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return ""
	}
	return strings.TrimSpace(buf.String())
}

// Clean makes s safe to print on one line of a terminal: a record holds what an agent
// sent, so an escape sequence in a command must not drive the terminal, and invisible or
// direction-changing characters must not hide what was run. Each such character is
// shown escaped (\n, \x1b, \u202e); runs of white space stay as they are.
func Clean(s string) string {
	if !needsCleaning(s) {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError && isInvalidAt(s, i):
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			fmt.Fprintf(&b, `\x%02x`, r)
		case unicode.Is(unicode.Cf, r) || unicode.In(r, unicode.Zl, unicode.Zp):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func needsCleaning(s string) bool {
	for i, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || (r == utf8.RuneError && isInvalidAt(s, i)) ||
			unicode.Is(unicode.Cf, r) || unicode.In(r, unicode.Zl, unicode.Zp) {
			return true
		}
	}
	return false
}

func isInvalidAt(s string, i int) bool {
	r, size := utf8.DecodeRuneInString(s[i:])
	return r == utf8.RuneError && size == 1
}

// fit truncates s to n runes, marking the cut with an ellipsis.
func fit(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	runes := []rune(s)
	return string(runes[:n-1]) + "…"
}

func pad(s string, n int) string {
	if k := utf8.RuneCountInString(s); k < n {
		return s + strings.Repeat(" ", n-k)
	}
	return s
}

// Count is how many records share one value of a field.
type Count struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
}

// Summary counts records by decision, rule and agent.
type Summary struct {
	Total int `json:"total"`
	// First and Last are the times of the earliest and latest records counted.
	First     time.Time `json:"first,omitzero"`
	Last      time.Time `json:"last,omitzero"`
	Decisions []Count   `json:"decisions"`
	Rules     []Count   `json:"rules"`
	Agents    []Count   `json:"agents"`

	decisions, rules, agents map[string]int
}

// Add counts r.
func (s *Summary) Add(r audit.Record) {
	if s.decisions == nil {
		s.decisions, s.rules, s.agents = map[string]int{}, map[string]int{}, map[string]int{}
	}
	s.Total++
	if s.First.IsZero() || r.Time.Before(s.First) {
		s.First = r.Time
	}
	if r.Time.After(s.Last) {
		s.Last = r.Time
	}
	s.decisions[r.Decision.String()]++
	s.rules[orNone(r.Rule)]++
	s.agents[orNone(r.Agent)]++
}

// Finish sorts the counts, largest first (names break ties), into the exported lists.
func (s *Summary) Finish() {
	s.Decisions, s.Rules, s.Agents = sorted(s.decisions), sorted(s.rules), sorted(s.agents)
}

func sorted(m map[string]int) []Count {
	out := make([]Count, 0, len(m))
	for k, v := range m {
		out = append(out, Count{k, v})
	}
	slices.SortFunc(out, func(a, b Count) int {
		if a.Count != b.Count {
			return b.Count - a.Count
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out
}

// WriteText writes the summary as three small tables.
func (s *Summary) WriteText(w io.Writer, loc *time.Location) error {
	if loc == nil {
		loc = time.UTC
	}
	var b strings.Builder
	if s.Total == 0 {
		b.WriteString("no records\n")
	} else {
		fmt.Fprintf(&b, "%d %s from %s to %s\n", s.Total, plural(s.Total, "record", "records"),
			s.First.In(loc).Format("2006-01-02 15:04:05"), s.Last.In(loc).Format("2006-01-02 15:04:05"))
	}
	for _, sec := range []struct {
		title string
		list  []Count
	}{{"DECISION", s.Decisions}, {"RULE", s.Rules}, {"AGENT", s.Agents}} {
		if len(sec.list) == 0 {
			continue
		}
		width := len(sec.title)
		for _, c := range sec.list {
			width = max(width, utf8.RuneCountInString(Clean(c.Name)))
		}
		fmt.Fprintf(&b, "\n%s  %7s\n", pad(sec.title, width), "COUNT")
		for _, c := range sec.list {
			fmt.Fprintf(&b, "%s  %7d\n", pad(Clean(c.Name), width), c.Count)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
