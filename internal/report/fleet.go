package report

import (
	"bufio"
	"fmt"
	"strconv"
	"time"
)

// Fleet is the part of a report made across the machines of a fleet (moat report
// --remote): which machines decided most, which went quiet, and which managed policy
// serials decided. Its JSON field names are stable.
type Fleet struct {
	// Machines counts the machines that made decisions in the period, Known those the
	// fleet's database knows.
	Machines int `json:"machines"`
	Known    int `json:"known_machines"`
	// TopMachines are the machines of most decisions, by verdict.
	TopMachines []MachineCount `json:"top_machines"`
	// QuietAfter is how long without shipping makes a machine quiet; Quiet lists them,
	// longest quiet first.
	QuietAfter string         `json:"quiet_after"`
	Quiet      []QuietMachine `json:"quiet_machines"`
	// Serials are the managed policy serials the period's decisions were made with (0:
	// none signed), highest first.
	Serials []SerialCount `json:"managed_serials"`
}

// MachineCount counts one machine's decisions.
type MachineCount struct {
	Machine   string `json:"machine"`
	MachineID string `json:"machine_id"`
	Deny      int64  `json:"deny"`
	Ask       int64  `json:"ask"`
	Audit     int64  `json:"audit"`
	Allow     int64  `json:"allow"`
	Total     int64  `json:"total"`
}

// QuietMachine is a machine that has shipped nothing for a while.
type QuietMachine struct {
	Machine   string    `json:"machine"`
	MachineID string    `json:"machine_id"`
	OSUser    string    `json:"os_user"`
	LastSeen  time.Time `json:"last_seen"`
}

// SerialCount says how many machines and decisions used one managed policy serial.
type SerialCount struct {
	Serial    int64 `json:"serial"`
	Machines  int   `json:"machines"`
	Decisions int64 `json:"decisions"`
}

// fleetTables are the fleet's tables as rows of text cells, for both formats: the
// writers escape every cell (machine names come from the machines).
type fleetTable struct {
	Title string
	Head  []string
	Rows  [][]string
	// Numeric says which columns hold numbers (right-aligned).
	Numeric []bool
}

func fleetTables(f Fleet, loc *time.Location) []fleetTable {
	n := func(v int64) string { return strconv.FormatInt(v, 10) }
	top := fleetTable{Title: "Decisions by machine", Head: []string{"Machine", "Deny", "Ask", "Audit", "Allow", "Total"},
		Numeric: []bool{false, true, true, true, true, true}}
	for _, m := range f.TopMachines {
		top.Rows = append(top.Rows, []string{machineLabel(m.Machine, m.MachineID), n(m.Deny), n(m.Ask), n(m.Audit), n(m.Allow), n(m.Total)})
	}
	quiet := fleetTable{Title: "Machines quiet for more than " + f.QuietAfter, Head: []string{"Machine", "User", "Last seen"},
		Numeric: []bool{false, false, false}}
	for _, m := range f.Quiet {
		quiet.Rows = append(quiet.Rows, []string{machineLabel(m.Machine, m.MachineID), m.OSUser, m.LastSeen.In(loc).Format(time.RFC3339)})
	}
	serials := fleetTable{Title: "Managed policy serials in use", Head: []string{"Serial", "Machines", "Decisions"},
		Numeric: []bool{false, true, true}}
	for _, s := range f.Serials {
		name := n(s.Serial)
		if s.Serial == 0 {
			name = "none (no signed managed policy)"
		}
		serials.Rows = append(serials.Rows, []string{name, strconv.Itoa(s.Machines), n(s.Decisions)})
	}
	return []fleetTable{top, quiet, serials}
}

// machineLabel names a machine by its name, and by its id when it has none.
func machineLabel(name, id string) string {
	if name == "" {
		return id
	}
	return name
}

func fleetSummary(f Fleet) string {
	return fmt.Sprintf("%d %s made decisions in the period, of %d the fleet's database knows.",
		f.Machines, plural(f.Machines, "machine", "machines"), f.Known)
}

func writeFleetMarkdown(bw *bufio.Writer, f Fleet, loc *time.Location) {
	fmt.Fprintf(bw, "\n## Fleet\n\n%s\n", fleetSummary(f))
	for _, t := range fleetTables(f, loc) {
		fmt.Fprintf(bw, "\n### %s\n\n", mdText(t.Title))
		if len(t.Rows) == 0 {
			fmt.Fprintln(bw, "None.")
			continue
		}
		bw.WriteString("|")
		for _, h := range t.Head {
			fmt.Fprintf(bw, " %s |", h)
		}
		bw.WriteString("\n|")
		for _, num := range t.Numeric {
			if num {
				bw.WriteString("---:|")
			} else {
				bw.WriteString("---|")
			}
		}
		bw.WriteString("\n")
		for _, row := range t.Rows {
			bw.WriteString("|")
			for _, c := range row {
				fmt.Fprintf(bw, " %s |", mdText(c))
			}
			bw.WriteString("\n")
		}
	}
}

// fleetHTML is the fleet's part of the report page; html/template escapes every cell.
const fleetHTML = `{{define "fleet"}}<h2>Fleet</h2>
<p>{{.Summary}}</p>
{{range .Tables}}<h3>{{.Title}}</h3>
{{if .Rows}}<table>
<tr>{{range .Head}}<th>{{.}}</th>{{end}}</tr>
{{$num := .Numeric}}{{range .Rows}}<tr>{{range $i, $c := .}}<td{{if index $num $i}} class="n"{{end}}>{{$c}}</td>{{end}}</tr>
{{end}}</table>
{{else}}<p>None.</p>
{{end}}{{end}}{{end}}`

// fleetPage is what fleetHTML shows.
type fleetPage struct {
	Summary string
	Tables  []fleetTable
}
