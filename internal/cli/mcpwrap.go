package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"github.com/moatdev/moat/internal/discover"
	"github.com/moatdev/moat/internal/mcpconfig"
)

type mcpWrapOptions struct {
	agents       []string
	all, dryRun  bool
	json, unwrap bool
}

func newMCPWrapCmd(a *app, unwrap bool) *cobra.Command {
	o := mcpWrapOptions{unwrap: unwrap}
	names := make([]string, len(mcpconfig.Clients))
	for i, c := range mcpconfig.Clients {
		names[i] = c.Name
	}
	use, short, long := "wrap", "Run every MCP server of the agents' configs through moat",
		`Wrap rewrites each stdio MCP server entry in the agents' MCP configuration files so that
the server runs through 'moat mcp proxy --name NAME -- ORIGINAL COMMAND…', with the
absolute path of this moat binary. Everything else in the files stays byte for byte as it
was; entries already wrapped are left alone, so running it twice changes nothing. Each
file is copied to FILE.moat-backup before it changes. Entries moat cannot wrap (HTTP and
SSE servers, which need the proxy's HTTP transport, not built yet; forms moat cannot edit
safely) are listed with the reason, never silently passed over.`
	if unwrap {
		use, short, long = "unwrap", "Restore the MCP server entries that 'moat mcp wrap' changed",
			`Unwrap restores every MCP server entry that 'moat mcp wrap' changed to exactly what it
was (byte for byte, unless the agent has reformatted the file since, in which case the
command and arguments are restored in its new layout). Nothing else changes.`
	}
	cmd := &cobra.Command{
		Use:   use + " [--agent AGENT]… [--all] [--dry-run] [--json]",
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
		clients = nil
		for _, name := range o.agents {
			c, ok := mcpconfig.ForClient(name)
			if !ok {
				return fmt.Errorf("unknown agent %q (moat wraps the MCP servers of %s)", name, clientNames())
			}
			clients = append(clients, c)
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
		project = discover.RepoRoot(cwd)
	}
	failed := false
	found := false
	for _, c := range clients {
		for _, file := range c.Files(d.Home, project, runtime.GOOS) {
			var res mcpconfig.FileResult
			if o.unwrap {
				res, err = c.UnwrapFile(file, mcpconfig.Options{DryRun: o.dryRun})
			} else {
				res, err = c.WrapFile(file, moat, mcpconfig.Options{DryRun: o.dryRun})
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
				r.Diff = mcpconfig.Diff(res.Old, res.New)
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

func clientNamesOf(cs []mcpconfig.Client) string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}
