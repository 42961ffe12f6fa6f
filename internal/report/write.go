package report

import (
	"bufio"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"strings"
	"time"
)

// Formats returns the names of the formats Write knows, the default first.
func Formats() []string { return []string{"md", "json", "html"} }

// Write writes rep to w in format (md, json or html), times shown in loc.
func Write(w io.Writer, rep Report, format string, loc *time.Location) error {
	if loc == nil {
		loc = time.UTC
	}
	switch format {
	case "md":
		return writeMarkdown(w, rep, loc)
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	case "html":
		return writeHTML(w, rep, loc)
	}
	return fmt.Errorf("unknown report format %q (want %s)", format, strings.Join(Formats(), ", "))
}

// section is one table of a report: a title, the heading of its value column, and the
// counts.
type section struct {
	Title, Column string
	Counts        []Count
	// Code says the values are calls as recorded, shown as code.
	Code bool
}

func sections(rep Report) []section {
	return []section{
		{Title: "Decisions", Column: "Decision", Counts: rep.Decisions},
		{Title: "Findings by category", Column: "Category", Counts: rep.Categories},
		{Title: "Findings by OWASP Top 10 for LLM Applications (2025)", Column: "Entry", Counts: rep.OWASP},
		{Title: "Findings by MITRE ATT&CK technique", Column: "Technique", Counts: rep.ATTACK},
		{Title: "Findings by MITRE ATLAS technique", Column: "Technique", Counts: rep.ATLAS},
		{Title: "Findings", Column: "Finding", Counts: rep.Findings},
		{Title: "Top rules", Column: "Rule", Counts: rep.TopRules},
		{Title: "Top agents", Column: "Agent", Counts: rep.TopAgents},
		{Title: "Top denied calls", Column: "Call (as recorded, redacted)", Counts: rep.TopDenied, Code: true},
	}
}

func period(rep Report, loc *time.Location) string {
	from := "the start of the audit trail"
	if !rep.Since.IsZero() {
		from = rep.Since.In(loc).Format(time.RFC3339)
	}
	return fmt.Sprintf("%s to %s", from, rep.Generated.In(loc).Format(time.RFC3339))
}

func writeMarkdown(w io.Writer, rep Report, loc *time.Location) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# moat report\n\nPeriod: %s.\n\n", period(rep, loc))
	fmt.Fprintf(bw, "%d %s, %d with findings, %d failed (answered by the fail mode).\n",
		rep.Total, plural(rep.Total, "decision", "decisions"), rep.WithFindings, rep.Failures)
	fmt.Fprintln(bw, "\nFinding counts count decisions: one with two findings of a category counts once for it.")
	for _, s := range sections(rep) {
		fmt.Fprintf(bw, "\n## %s\n\n", s.Title)
		if len(s.Counts) == 0 {
			fmt.Fprintln(bw, "None.")
			continue
		}
		fmt.Fprintf(bw, "| %s | Count |\n|---|---:|\n", s.Column)
		for _, c := range s.Counts {
			cell := mdText(c.ID)
			if s.Code {
				cell = mdCode(c.ID)
			}
			if c.Name != "" {
				cell += " " + mdText(c.Name)
			}
			fmt.Fprintf(bw, "| %s | %d |\n", cell, c.Count)
		}
	}
	if rep.Fleet != nil {
		writeFleetMarkdown(bw, *rep.Fleet, loc)
	}
	return bw.Flush()
}

// mdText escapes s for a Markdown table cell: what a record holds was written by an
// agent, so it must not add markup, links or cells.
func mdText(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '\\', '`', '*', '_', '[', ']', '|', '~':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// mdCode shows s as a code span in a table cell: fenced with more backticks than any run
// in s, and with its pipes escaped, which GitHub's tables read even inside code.
func mdCode(s string) string {
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	return fence + " " + strings.ReplaceAll(s, "|", `\|`) + " " + fence
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// pageHTML is the whole report as one self-contained HTML file: styles inline, no
// script, no external asset. html/template escapes every value, commands included.
const pageHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>moat report</title>
<style>
body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:60rem;padding:0 1rem;color:#222}
table{border-collapse:collapse;margin:.5rem 0 1.5rem}
th,td{border:1px solid #ccc;padding:.25rem .6rem;text-align:left;vertical-align:top}
td.n{text-align:right}
code{white-space:pre-wrap;word-break:break-all}
</style>
</head>
<body>
<h1>moat report</h1>
<p>Period: {{.Period}}.</p>
<p>{{.R.Total}} decisions, {{.R.WithFindings}} with findings, {{.R.Failures}} failed (answered by the fail mode).
Finding counts count decisions: one with two findings of a category counts once for it.</p>
{{range .Sections}}<h2>{{.Title}}</h2>
{{if .Counts}}<table>
<tr><th>{{.Column}}</th><th>Count</th></tr>
{{$code := .Code}}{{range .Counts}}<tr><td>{{if $code}}<code>{{.ID}}</code>{{else}}{{.ID}}{{end}}{{with .Name}} {{.}}{{end}}</td><td class="n">{{.Count}}</td></tr>
{{end}}</table>
{{else}}<p>None.</p>
{{end}}{{end}}{{with .Fleet}}{{template "fleet" .}}{{end}}</body>
</html>
`

func writeHTML(w io.Writer, rep Report, loc *time.Location) error {
	// Parsed here rather than at start-up: a report is made once per run.
	page, err := template.New("report").Parse(pageHTML)
	if err == nil {
		_, err = page.Parse(fleetHTML)
	}
	if err != nil {
		return fmt.Errorf("report page template: %w", err)
	}
	var fleet *fleetPage
	if rep.Fleet != nil {
		fleet = &fleetPage{Summary: fleetSummary(*rep.Fleet), Tables: fleetTables(*rep.Fleet, loc)}
	}
	return page.Execute(w, struct {
		R        Report
		Period   string
		Sections []section
		Fleet    *fleetPage
	}{rep, period(rep, loc), sections(rep), fleet})
}
