package cli

import (
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/moatdev/moat/internal/agent"
	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/logview"
	"github.com/moatdev/moat/internal/mcpconfig"
	"github.com/moatdev/moat/internal/policy"
	"github.com/moatdev/moat/internal/sandbox"
)

// completer lists the values a flag or an argument takes, for shell completion.
type completer func(a *app) []string

// Value completions, in one place: by flag name (the same flag means the same thing in
// every command, except where flagCompletionsOf says otherwise) and by the command
// whose positional arguments they complete.
var (
	flagCompletions = map[string]completer{
		"agent":    allAgentNames,
		"profile":  func(*app) []string { return sandbox.ProfileNames() },
		"template": func(*app) []string { return policy.TemplateNames() },
		"decision": verdictNames,
		"to":       verdictNames,
		"tool":     toolNames,
		"seq":      (*app).recentRecords,
		"scope":    func(*app) []string { return []string{"user", "project"} },
	}
	argCompletions = map[string]completer{
		"moat hook":         func(*app) []string { return hookAgentNames() },
		"moat setup":        func(*app) []string { return strings.Split(agentNames(), ", ") },
		"moat packs show":   (*app).packNames,
		"moat packs test":   (*app).packNames,
		"moat profile show": func(*app) []string { return sandbox.ProfileNames() },
		"moat approve":      (*app).pendingApprovals,
		"moat deny":         (*app).pendingApprovals,
		"moat fix":          (*app).recentRecords,
	}
)

// flagCompletionsOf is flagCompletions for cmd: the MCP config commands' --agent names
// the MCP clients whose configs moat edits.
func flagCompletionsOf(cmd *cobra.Command, flag string) completer {
	if flag == "agent" && slices.Contains([]string{"moat mcp wrap", "moat mcp unwrap", "moat mcp scan"}, cmd.CommandPath()) {
		return func(*app) []string { return mcpClientNames() }
	}
	return flagCompletions[flag]
}

// addCompletions registers the value completions of every command under root.
func (a *app) addCompletions(root *cobra.Command) {
	var walk func(*cobra.Command)
	walk = func(cmd *cobra.Command) {
		cmd.Flags().VisitAll(func(f *pflag.Flag) {
			if c := flagCompletionsOf(cmd, f.Name); c != nil {
				cmd.RegisterFlagCompletionFunc(f.Name, func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
					return c(a), cobra.ShellCompDirectiveNoFileComp
				})
			}
		})
		if c, ok := argCompletions[cmd.CommandPath()]; ok && cmd.ValidArgsFunction == nil {
			cmd.ValidArgsFunction = func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
				return c(a), cobra.ShellCompDirectiveNoFileComp
			}
		}
		for _, sub := range cmd.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

func allAgentNames(*app) []string {
	var out []string
	for _, ag := range agent.All() {
		out = append(out, ag.Name)
	}
	return out
}

func mcpClientNames() []string {
	var out []string
	for _, c := range mcpconfig.Clients {
		out = append(out, c.Name)
	}
	return out
}

func verdictNames(*app) []string {
	return []string{call.Allow.String(), call.Audit.String(), call.Ask.String(), call.Deny.String()}
}

// toolNames are the classes and every native tool name, each once.
func toolNames(*app) []string {
	var out []string
	for _, c := range call.Classes {
		out = append(out, string(c))
	}
	for _, t := range call.NativeTools {
		if !slices.Contains(out, t.Name) {
			out = append(out, t.Name)
		}
	}
	return out
}

// completionRecords is how many of the newest records completion offers.
const completionRecords = 20

// recentRecords are the numbers of the newest records of the user's audit log, each with
// its call as the description.
func (a *app) recentRecords() []string {
	d, err := a.dirs()
	if err != nil {
		return nil
	}
	var out []string
	audit.Read(d.AuditLog(), func(r audit.Record) error {
		if r.Seq == 0 {
			return nil
		}
		out = append(out, strconv.FormatUint(r.Seq, 10)+"\t"+oneLineOf(r.Decision.String()+" "+logview.CallSummary(r)))
		if len(out) > completionRecords {
			out = out[1:]
		}
		return nil
	})
	slices.Reverse(out)
	return out
}

// pendingApprovals are the IDs of the calls waiting for approval, each with its call.
func (a *app) pendingApprovals() []string {
	d, err := a.dirs()
	if err != nil {
		return nil
	}
	list, err := a.approvalQueue().Store(d).List()
	if err != nil {
		return nil
	}
	var out []string
	for _, l := range list {
		desc := l.Rule
		if len(l.Calls) > 0 {
			desc = l.Calls[0]
		}
		out = append(out, l.ID+"\t"+oneLineOf(desc))
	}
	return out
}

// oneLineOf keeps a completion's description on one short line.
func oneLineOf(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}
