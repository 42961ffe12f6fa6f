package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/moatdev/moat/internal/didyoumean"
	"github.com/moatdev/moat/internal/mcp"
	"github.com/moatdev/moat/internal/mcp/toolscan"
	"github.com/moatdev/moat/internal/mcpconfig"
	"github.com/moatdev/moat/internal/policy/source"
	"github.com/moatdev/moat/internal/scan"
)

type mcpWrapOptions struct {
	agents       []string
	all, dryRun  bool
	json, unwrap bool
	skip         []string // servers wrap leaves alone
	stdioOnly    bool     // wrap leaves every remote server alone
}

func newMCPWrapCmd(a *app, unwrap bool) *cobra.Command {
	o := mcpWrapOptions{unwrap: unwrap}
	names := make([]string, len(mcpconfig.Clients))
	for i, c := range mcpconfig.Clients {
		names[i] = c.Name
	}
	use, short, long := "wrap", "Run every MCP server of the agents' configs through moat",
		`Wrap rewrites each MCP server entry in the agents' MCP configuration files so that the
server runs through moat (the absolute path of this binary):

  - a stdio server runs as 'moat mcp proxy --name NAME -- ORIGINAL COMMAND…';
  - a remote (Streamable HTTP) server becomes a stdio entry that runs moat's bridge,
    'moat mcp proxy --name NAME --stdio --upstream-env MOAT_MCP_UPSTREAM', with the
    server's URL and headers as JSON in the entry's env (MOAT_MCP_UPSTREAM) and the
    entry's original text beside them (MOAT_MCP_ORIGINAL), for unwrap.

Everything else in the files stays byte for byte as it was; entries already wrapped are
left alone, so running it twice changes nothing. Each file is copied to
FILE.moat-backup before it changes. Entries moat cannot wrap (SSE and WebSocket servers,
remote servers that sign in by themselves (OAuth, a headers helper) or have keys moat
does not know, forms moat cannot edit safely) are listed with the reason, never
silently passed over.

The bridge cannot sign in to a server with OAuth as the agent does: a remote server
with no headers of its own is wrapped with a warning. Leave such a server alone with
--skip NAME (every server of that name, in every file), or all remote servers with
--stdio-only.`
	if unwrap {
		use, short, long = "unwrap", "Restore the MCP server entries that 'moat mcp wrap' changed",
			`Unwrap restores every MCP server entry that 'moat mcp wrap' changed to exactly what it
was. A stdio server's entry comes back byte for byte, unless the agent has reformatted
the file since, in which case the command and arguments are restored in its new layout.
A remote server's entry comes back byte for byte from the copy it keeps in
MOAT_MCP_ORIGINAL, unless the entry was changed since it was wrapped (a reformatted file
is no change): restoring the copy would undo the change, so the entry is left as it is
and the reason given. Nothing else changes.`
	}
	usage := use + " [--agent AGENT]… [--all] [--dry-run] [--json]"
	if !unwrap {
		usage += " [--skip SERVER]… [--stdio-only]"
	}
	cmd := &cobra.Command{
		Use:   usage,
		Short: short,
		Long: long + `

Agents: ` + strings.Join(names, ", ") + `. Without --agent or --all, every agent whose
configuration files exist is handled; the user's files and the project's (from the
repository root) are both read.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return a.mcpWrap(o) },
	}
	f := cmd.Flags()
	f.StringArrayVar(&o.agents, "agent", nil, "an agent whose config to change (repeatable): "+strings.Join(names, ", "))
	f.BoolVar(&o.all, "all", false, "every agent moat knows (the same as no --agent: missing files are skipped)")
	f.BoolVar(&o.dryRun, "dry-run", false, "show the changes as a diff, change nothing")
	f.BoolVar(&o.json, "json", false, "print one JSON object per file")
	if !unwrap {
		f.StringArrayVar(&o.skip, "skip", nil, "a server to leave as it is (repeatable), such as a remote server the agent signs in to with OAuth")
		f.BoolVar(&o.stdioOnly, "stdio-only", false, "leave remote (HTTP) servers as they are")
	}
	return cmd
}

// mcpFileReport is what wrap or unwrap did to one file, for --json.
type mcpFileReport struct {
	Agent   string   `json:"agent"`
	File    string   `json:"file"`
	Written bool     `json:"written"`
	Backup  string   `json:"backup,omitempty"`
	Changes []string `json:"changes"`
	Diff    string   `json:"diff,omitempty"`
	Error   string   `json:"error,omitempty"`
}

func (a *app) mcpWrap(o mcpWrapOptions) error {
	if o.all && len(o.agents) > 0 {
		return errors.New("give --agent or --all, not both")
	}
	clients := mcpconfig.Clients
	if len(o.agents) > 0 {
		var err error
		if clients, err = mcpClientsNamed(o.agents, "wraps"); err != nil {
			return err
		}
	}
	d, err := a.dirs()
	if err != nil {
		return err
	}
	moat, err := a.env.Executable()
	if err != nil {
		return fmt.Errorf("finding the moat binary: %w", err)
	}
	if real, err := filepath.EvalSymlinks(moat); err == nil {
		moat = real
	}
	project := ""
	if cwd, err := a.cwd(); err == nil {
		project = source.RepoRoot(cwd)
	}
	failed := false
	found := false
	for _, c := range clients {
		for _, file := range c.Files(d.Home, project, runtime.GOOS) {
			var res mcpconfig.FileResult
			if o.unwrap {
				res, err = c.UnwrapFile(file, mcpconfig.Options{DryRun: o.dryRun})
			} else {
				res, err = c.WrapFile(file, moat, mcpconfig.Options{DryRun: o.dryRun, Skip: o.skip, StdioOnly: o.stdioOnly})
			}
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			found = true
			r := mcpFileReport{Agent: c.Name, File: file, Written: res.Written, Backup: res.Backup, Changes: []string{}}
			for _, ch := range res.Changes {
				r.Changes = append(r.Changes, ch.String())
			}
			if o.dryRun && res.Old != res.New {
				// A remote server's headers are in its diff, and a diff is read on
				// terminals and in CI logs: credentials are masked.
				r.Diff = scan.Redact(proposedDiff(file, res.Old, res.New))
			}
			if err != nil {
				failed = true
				r.Error = err.Error()
			}
			a.printMCPReport(o, r)
		}
	}
	if !found && !o.json {
		fmt.Fprintln(a.env.Stdout, "no MCP configuration files found for", clientNamesOf(clients))
	}
	if failed {
		return &exitCode{code: exitError}
	}
	return nil
}

func (a *app) printMCPReport(o mcpWrapOptions, r mcpFileReport) {
	if o.json {
		json.NewEncoder(a.env.Stdout).Encode(r)
		return
	}
	w := a.env.Stdout
	switch {
	case r.Error != "":
		fmt.Fprintf(a.env.Stderr, "moat: %s (%s): %s\n", r.File, r.Agent, r.Error)
		return
	case r.Written:
		fmt.Fprintf(w, "%s (%s): changed; backup in %s\n", r.File, r.Agent, r.Backup)
	case o.dryRun && r.Diff != "":
		fmt.Fprintf(w, "%s (%s): would change\n", r.File, r.Agent)
	default:
		fmt.Fprintf(w, "%s (%s): unchanged\n", r.File, r.Agent)
	}
	for _, ch := range r.Changes {
		fmt.Fprintf(w, "  %s\n", ch)
	}
	if r.Diff != "" {
		fmt.Fprint(w, r.Diff)
	}
}

func clientNames() string { return clientNamesOf(mcpconfig.Clients) }

// mcpClientsNamed are the MCP clients names names; what moat does with their servers
// (verb: "wraps", "scans") is in the error of a name it does not know.
func mcpClientsNamed(names []string, verb string) ([]mcpconfig.Client, error) {
	var out []mcpconfig.Client
	for _, name := range names {
		c, ok := mcpconfig.ForClient(name)
		if !ok {
			return nil, usageError(fmt.Errorf("unknown agent %q%s (moat %s the MCP servers of %s)", name, didyoumean.Hint(name, mcpClientNames()), verb, clientNames()))
		}
		out = append(out, c)
	}
	return out, nil
}

func clientNamesOf(cs []mcpconfig.Client) string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

// mcpScanReport is what scanning one configured server found.
type mcpScanReport struct {
	Agent    string           `json:"agent"`
	File     string           `json:"file"`
	Server   string           `json:"server"`
	Tools    int              `json:"tools"`
	Poisoned []mcpScanFinding `json:"poisoned"`
	Changed  []string         `json:"changed"`
	Unpinned []string         `json:"unpinned"`
	// Pinned, with --pin, lists the tools pinned now (first seen by this scan).
	Pinned   []string           `json:"pinned,omitempty"`
	Skipped  string             `json:"skipped,omitempty"`
	Error    string             `json:"error,omitempty"`
	findings []toolscan.Finding // for the text output
}

type mcpScanFinding struct {
	Tool     string `json:"tool"`
	Field    string `json:"field"`
	ID       string `json:"id"`
	Evidence string `json:"evidence"`
}

func newMCPScanCmd(a *app) *cobra.Command {
	var agents []string
	var asJSON, pin bool
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "scan [--agent AGENT]… [--pin] [--json] [--timeout D]",
		Short: "Audit every MCP server the agents are configured with: poisoned and changed tools",
		Long: `Scan reads the agents' MCP configuration files (as 'moat mcp wrap' does), starts each
stdio server there as the agent would (a wrapped server without moat's proxy), asks it for
its tools, stops it, and reports tools whose definition is poisoned (hidden instructions,
shadowing, hidden text) and tools whose definition differs from the one moat pinned.
Nothing is sent anywhere and no pin is changed; tools moat has not pinned yet are listed.
Starting a server runs its command, as the agent would (npx may download the package).
Remote (HTTP) servers are listed as not scanned.

With --pin, the tools seen for the first time are pinned, as the proxy pins them when it
first lists them, so that a later change is caught; a changed tool is recorded as
waiting for 'moat mcp pin --accept', never accepted. Use it to pin an agent's servers
from outside 'moat launch', whose sandbox keeps the proxies from saving pins.

Exit status: 0 nothing found, 3 a poisoned or changed tool, 1 a server that could not be
scanned (and nothing worse).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.mcpScan(cmd.Context(), agents, asJSON, pin, timeout)
		},
	}
	cmd.Flags().StringArrayVar(&agents, "agent", nil, "an agent whose servers to scan (repeatable): "+clientNames())
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object per server")
	cmd.Flags().BoolVar(&pin, "pin", false, "pin the tools seen for the first time (a changed tool is recorded, never accepted)")
	cmd.Flags().DurationVar(&timeout, "timeout", 30*time.Second, "how long one server may take to list its tools")
	return cmd
}

func (a *app) mcpScan(ctx context.Context, agents []string, asJSON, pin bool, timeout time.Duration) error {
	clients := mcpconfig.Clients
	if len(agents) > 0 {
		var err error
		if clients, err = mcpClientsNamed(agents, "scans"); err != nil {
			return err
		}
	}
	d, err := a.dirs()
	if err != nil {
		return err
	}
	project := ""
	if cwd, err := a.cwd(); err == nil {
		project = source.RepoRoot(cwd)
	}
	worst := exitOK
	for _, c := range clients {
		for _, file := range c.Files(d.Home, project, runtime.GOOS) {
			data, err := os.ReadFile(file)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			var servers []mcpconfig.Server
			if err == nil {
				servers, err = c.Servers(string(data))
			}
			if err != nil {
				a.printScan(asJSON, mcpScanReport{Agent: c.Name, File: file, Error: err.Error()})
				worst = max(worst, exitError)
				continue
			}
			for _, s := range servers {
				r := a.scanServer(ctx, d.MCPPins(), c.Name, file, s, pin, timeout)
				switch {
				case len(r.Poisoned) > 0 || len(r.Changed) > 0:
					worst = max(worst, exitDeny)
				case r.Error != "":
					worst = max(worst, exitError)
				}
				a.printScan(asJSON, r)
			}
		}
	}
	if worst != exitOK {
		return &exitCode{code: worst}
	}
	return nil
}

func (a *app) scanServer(ctx context.Context, pinsDir, agent, file string, s mcpconfig.Server, pin bool, timeout time.Duration) mcpScanReport {
	r := mcpScanReport{Agent: agent, File: file, Server: s.Name, Poisoned: []mcpScanFinding{}, Changed: []string{}, Unpinned: []string{}}
	switch {
	case s.Skipped != "":
		r.Skipped = s.Skipped
		return r
	case s.URL != "":
		r.Skipped = "a remote server (" + s.URL + "); moat scans stdio servers"
		return r
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	server := exec.Command(s.Command, s.Args...)
	server.Env = os.Environ()
	for k, v := range s.Env {
		server.Env = append(server.Env, k+"="+v)
	}
	server.Stderr = io.Discard
	tools, err := mcp.ListTools(ctx, server, 3*time.Second)
	if err != nil {
		r.Error = scan.Redact(err.Error())
		return r
	}
	r.Tools = len(tools)
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	r.findings = toolscan.Inspect(s.Name, tools, nil)
	for _, f := range r.findings {
		r.Poisoned = append(r.Poisoned, mcpScanFinding{Tool: f.Tool, Field: f.Field, ID: f.ID, Evidence: f.Evidence})
	}
	pins, err := toolscan.Open(pinsDir, s.Name)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	changed, added := pins.Check(tools) // saved only with --pin
	for _, c := range changed {
		r.Changed = append(r.Changed, c.Tool)
	}
	if !pin || (len(added) == 0 && len(changed) == 0) {
		r.Unpinned = append(r.Unpinned, added...)
		return r
	}
	if err := pins.Save(); err != nil {
		r.Unpinned = append(r.Unpinned, added...)
		r.Error = "saving the pins: " + err.Error()
		return r
	}
	r.Pinned = append(r.Pinned, added...)
	return r
}

func (a *app) printScan(asJSON bool, r mcpScanReport) {
	if asJSON {
		json.NewEncoder(a.env.Stdout).Encode(r)
		return
	}
	w := a.env.Stdout
	where := fmt.Sprintf("%s %s (%s)", r.Agent, r.Server, r.File)
	switch {
	case r.Server == "":
		fmt.Fprintf(w, "%s (%s): cannot read: %s\n", r.File, r.Agent, r.Error)
		return
	case r.Skipped != "":
		fmt.Fprintf(w, "%s: not scanned: %s\n", where, r.Skipped)
		return
	case r.Error != "" && r.Tools == 0:
		fmt.Fprintf(w, "%s: could not list its tools: %s\n", where, r.Error)
		return
	}
	status := "clean"
	if len(r.Poisoned) > 0 || len(r.Changed) > 0 {
		status = "FOUND PROBLEMS"
	}
	fmt.Fprintf(w, "%s: %d tools, %s\n", where, r.Tools, status)
	for _, f := range r.findings {
		fmt.Fprintf(w, "  %s %s (%s): %s\n", f.Tool, f.ID, f.Field, f.Evidence)
	}
	for _, t := range r.Changed {
		fmt.Fprintf(w, "  %s changed since it was pinned (moat mcp pin %s)\n", t, r.Server)
	}
	if len(r.Unpinned) > 0 {
		fmt.Fprintf(w, "  not pinned yet: %s\n", strings.Join(r.Unpinned, ", "))
	}
	if len(r.Pinned) > 0 {
		fmt.Fprintf(w, "  pinned now: %s\n", strings.Join(r.Pinned, ", "))
	}
	if r.Error != "" && r.Tools > 0 {
		fmt.Fprintf(w, "  error: %s\n", r.Error)
	}
}
