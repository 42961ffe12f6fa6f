package dashboard

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/moatdev/moat/internal/audit/auditdb"
	"github.com/moatdev/moat/internal/call"
)

// The charts are drawn here as SVG, with no library: bars whose verdicts differ by
// pattern, by a word in the legend and by a count beside them, not by colour alone.
// Every text drawn comes from the records (rules, agents, commands) and is XML-escaped.

// chart is one chart of the charts page: the verdicts over time, or a top list drawn
// as horizontal bars.
type chart struct {
	name, title string
	// rows are the top list of a bar chart; nil for the verdicts over time.
	rows func(auditdb.Stats) []auditdb.KeyCounts
	// label names a key of the top list, an empty one included.
	label func(string) string
}

// charts are the charts of the page, in its order.
var charts = []chart{
	{name: "verdicts", title: "Decisions over time by verdict"},
	{"rules", "Top rules", func(st auditdb.Stats) []auditdb.KeyCounts { return st.Rules }, ruleLabel},
	{"denied", "Top denied commands", func(st auditdb.Stats) []auditdb.KeyCounts { return st.Denied }, plainLabel},
	{"agents", "Decisions per agent", func(st auditdb.Stats) []auditdb.KeyCounts { return st.Agents }, agentLabel},
}

// alt says the chart's numbers in a sentence.
func (c chart) alt(st auditdb.Stats, loc *time.Location) string {
	if c.rows == nil {
		return verdictsAlt(st, loc)
	}
	return topAlt(c.title, c.rows(st), c.label)
}

// draw draws the chart as an SVG document.
func (c chart) draw(st auditdb.Stats, loc *time.Location) []byte {
	if c.rows == nil {
		return drawVerdicts(st, loc)
	}
	return drawTop(c.title, c.rows(st), c.label)
}

func chartNamed(name string) (chart, bool) {
	for _, c := range charts {
		if c.name == name {
			return c, true
		}
	}
	return chart{}, false
}

// verdictStyle is how one verdict is drawn: a colour, a pattern over it, and its word
// and symbol in the legend.
type verdictStyle struct {
	verdict call.Verdict
	symbol  string
	fill    string
	// pattern is the SVG of the pattern's marks over the fill, in a 8×8 tile.
	pattern string
}

// verdictStyles are in stacking order, bottom up.
var verdictStyles = []verdictStyle{
	{call.Allow, "✓", "#1f7a3a", ``},
	{call.Audit, "•", "#1f5fa8", `<circle cx="4" cy="4" r="1.6" fill="#ffffff"/>`},
	{call.Ask, "?", "#8a5a00", `<path d="M-2,2 l4,-4 M0,8 l8,-8 M6,10 l4,-4" stroke="#ffffff" stroke-width="1.6"/>`},
	{call.Deny, "✕", "#b3261e", `<path d="M0,0 l8,8 M8,0 l-8,8" stroke="#ffffff" stroke-width="1.4"/>`},
}

// paint is the fill of a verdict's marks: its pattern, or its colour when it has none.
func (vs verdictStyle) paint() string {
	if vs.pattern == "" {
		return vs.fill
	}
	return "url(#p-" + vs.verdict.String() + ")"
}

// Sizes of the charts, in SVG user units.
const (
	chartWidth = 760
	fontSize   = 12
	textColour = "#1d1f21"
	lineColour = "#c8cacd"
)

// svgDoc builds one chart's SVG document.
type svgDoc struct {
	b bytes.Buffer
}

// start opens the document with its title and description (what a screen reader or a
// failed load says), the background (the image is read on light and dark pages alike),
// the patterns and the legend.
func (d *svgDoc) start(height int, title, desc string) {
	fmt.Fprintf(&d.b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-labelledby="title desc" font-family="system-ui, sans-serif" font-size="%d">`,
		chartWidth, height, chartWidth, height, fontSize)
	fmt.Fprintf(&d.b, `<title id="title">%s</title><desc id="desc">%s</desc>`, esc(title), esc(desc))
	fmt.Fprintf(&d.b, `<rect width="%d" height="%d" fill="#ffffff"/><defs>`, chartWidth, height)
	for _, vs := range verdictStyles {
		if vs.pattern != "" {
			fmt.Fprintf(&d.b, `<pattern id="p-%s" width="8" height="8" patternUnits="userSpaceOnUse"><rect width="8" height="8" fill="%s"/>%s</pattern>`, vs.verdict, vs.fill, vs.pattern)
		}
	}
	d.b.WriteString(`</defs>`)
	d.text(8, 18, "start", 14, title)
	// The legend: a swatch, the symbol and the word of each verdict.
	x := chartWidth - 4*96
	for _, vs := range verdictStyles {
		fmt.Fprintf(&d.b, `<rect x="%d" y="8" width="14" height="14" fill="%s" stroke="%s"/>`, x, vs.paint(), textColour)
		d.text(x+19, 20, "start", fontSize, vs.symbol+" "+vs.verdict.String())
		x += 96
	}
}

// text draws s, escaped, at x, y.
func (d *svgDoc) text(x, y int, anchor string, size int, s string) {
	fmt.Fprintf(&d.b, `<text x="%d" y="%d" text-anchor="%s" font-size="%d" fill="%s">%s</text>`, x, y, anchor, size, textColour, esc(s))
}

func (d *svgDoc) end() []byte {
	d.b.WriteString(`</svg>`)
	return d.b.Bytes()
}

// esc escapes s for XML text and attribute values.
func esc(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s)) //nolint:errcheck // a strings.Builder does not fail
	return b.String()
}

// clip shortens s to n runes, marking the cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// countsText says counts by verdict: "3 allow, 1 deny"; "no decisions" when there are none.
func countsText(c auditdb.VerdictCounts) string {
	var parts []string
	for _, vs := range verdictStyles {
		if n := c.Of(vs.verdict); n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, vs.verdict))
		}
	}
	if len(parts) == 0 {
		return "no decisions"
	}
	return strings.Join(parts, ", ")
}

// bucketLabel names a bucket's start: the hour within a day, the day for wider buckets.
func bucketLabel(st auditdb.Stats, t time.Time, loc *time.Location) string {
	if d, err := time.ParseDuration(st.Bucket); err == nil && d >= 24*time.Hour {
		return t.In(loc).Format("Jan 2")
	}
	return t.In(loc).Format("Jan 2 15:04")
}

func rangeText(st auditdb.Stats, loc *time.Location) string {
	return fmt.Sprintf("%s to %s", st.Since.In(loc).Format("Jan 2 15:04"), st.Until.In(loc).Format("Jan 2 15:04"))
}

func verdictsAlt(st auditdb.Stats, loc *time.Location) string {
	busiest, most := -1, int64(0)
	for i, b := range st.Buckets {
		if n := b.Counts.Total(); n > most {
			busiest, most = i, n
		}
	}
	s := fmt.Sprintf("Decisions over time by verdict, %s, in %d bars: %s in all.", rangeText(st, loc), len(st.Buckets), countsText(st.Total))
	if busiest >= 0 {
		s += fmt.Sprintf(" Busiest from %s: %s.", bucketLabel(st, st.Buckets[busiest].Start, loc), countsText(st.Buckets[busiest].Counts))
	}
	return s
}

// drawVerdicts draws stacked bars, one per bucket, each verdict a segment.
func drawVerdicts(st auditdb.Stats, loc *time.Location) []byte {
	const (
		height = 300
		left   = 56
		right  = 16
		top    = 44
		bottom = 44
	)
	var d svgDoc
	d.start(height, "Decisions over time by verdict", verdictsAlt(st, loc))
	plotW, plotH := chartWidth-left-right, height-top-bottom
	var most int64
	for _, b := range st.Buckets {
		most = max(most, b.Counts.Total())
	}
	// The axes: the baseline, and the top of the scale with its count.
	fmt.Fprintf(&d.b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s"/>`, left, top+plotH, left+plotW, top+plotH, textColour)
	fmt.Fprintf(&d.b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-dasharray="4 3"/>`, left, top, left+plotW, top, lineColour)
	d.text(left-6, top+4, "end", fontSize, fmt.Sprint(most))
	d.text(left-6, top+plotH+4, "end", fontSize, "0")
	n := len(st.Buckets)
	if n == 0 {
		return d.end()
	}
	slot := float64(plotW) / float64(n)
	barW := max(slot*0.8, 1)
	labelEvery := max(1, (n+7)/8)
	for i, b := range st.Buckets {
		x := float64(left) + float64(i)*slot + (slot-barW)/2
		fmt.Fprintf(&d.b, `<g><title>%s</title>`, esc(bucketLabel(st, b.Start, loc)+": "+countsText(b.Counts)))
		y := float64(top + plotH)
		for _, vs := range verdictStyles {
			c := b.Counts.Of(vs.verdict)
			if c == 0 || most == 0 {
				continue
			}
			h := float64(c) / float64(most) * float64(plotH)
			y -= h
			fmt.Fprintf(&d.b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" stroke="#ffffff" stroke-width="0.5"/>`, x, y, barW, h, vs.paint())
		}
		d.b.WriteString(`</g>`)
		if total := b.Counts.Total(); total > 0 && n <= 31 {
			fmt.Fprintf(&d.b, `<text x="%.1f" y="%.1f" text-anchor="middle" font-size="10" fill="%s">%d</text>`, x+barW/2, y-3, textColour, total)
		}
		if i%labelEvery == 0 {
			fmt.Fprintf(&d.b, `<text x="%.1f" y="%d" text-anchor="middle" font-size="10" fill="%s">%s</text>`, x+barW/2, top+plotH+16, textColour, esc(bucketLabel(st, b.Start, loc)))
		}
	}
	return d.end()
}

// Labels of the keys of the top lists: what an empty key means in each.
func ruleLabel(k string) string {
	if k == "" {
		return "(no rule: the default)"
	}
	return k
}

func agentLabel(k string) string {
	if k == "" {
		return "(no agent named)"
	}
	return k
}

func plainLabel(k string) string {
	if k == "" {
		return "(no command recorded)"
	}
	return k
}

func topAlt(title string, rows []auditdb.KeyCounts, label func(string) string) string {
	if len(rows) == 0 {
		return title + ": no decisions in this range."
	}
	parts := make([]string, 0, 3)
	for _, r := range rows[:min(3, len(rows))] {
		parts = append(parts, fmt.Sprintf("%s: %s", clip(label(r.Key), 80), countsText(r.Counts)))
	}
	return fmt.Sprintf("%s, %d shown. %s.", title, len(rows), strings.Join(parts, "; "))
}

// drawTop draws horizontal bars, one per key, each verdict a segment, with the key on
// the left and the total on the right.
func drawTop(title string, rows []auditdb.KeyCounts, label func(string) string) []byte {
	const (
		top    = 44
		rowH   = 26
		labelW = 300
		barX   = labelW + 16
		barW   = chartWidth - barX - 64
	)
	height := top + max(len(rows), 1)*rowH + 12
	var d svgDoc
	d.start(height, title, topAlt(title, rows, label))
	if len(rows) == 0 {
		d.text(8, top+18, "start", fontSize, "No decisions in this range.")
		return d.end()
	}
	var most int64
	for _, r := range rows {
		most = max(most, r.Counts.Total())
	}
	for i, r := range rows {
		y := top + i*rowH
		full := label(r.Key)
		fmt.Fprintf(&d.b, `<g><title>%s</title>`, esc(full+": "+countsText(r.Counts)))
		d.text(labelW, y+17, "end", fontSize, clip(full, 44))
		x := float64(barX)
		for _, vs := range verdictStyles {
			c := r.Counts.Of(vs.verdict)
			if c == 0 || most == 0 {
				continue
			}
			w := float64(c) / float64(most) * float64(barW)
			fmt.Fprintf(&d.b, `<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s" stroke="#ffffff" stroke-width="0.5"/>`, x, y+4, w, rowH-8, vs.paint())
			x += w
		}
		d.b.WriteString(`</g>`)
		fmt.Fprintf(&d.b, `<text x="%.1f" y="%d" font-size="%d" fill="%s">%d</text>`, x+6, y+17, fontSize, textColour, r.Counts.Total())
	}
	return d.end()
}
