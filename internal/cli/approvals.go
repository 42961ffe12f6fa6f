package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/moatdev/moat/internal/approval"
	"github.com/moatdev/moat/internal/scan"
)

func newApprovalsCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "approvals",
		Short: "List the calls waiting for your approval, and the approvals and denials in force",
		Long: `List moat's approval queue: the calls the policy asks about that could not be put to
you where they were made (an agent that cannot ask, a headless run, the MCP proxy).
Each was refused with a reason naming its ID; approve it with moat approve ID, or
refuse it with moat deny ID, and the agent's identical retry goes ahead (or not).

Pending approvals and grants expire after the policy's approvals.expire (1h by default).`,
		Example: `  moat approvals
  moat approvals --json | jq '.[] | select(.state == "pending") | .id'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			list, err := a.listApprovals(cmd.Context())
			if err != nil {
				return &exitCode{code: exitError, err: err}
			}
			if asJSON {
				if list == nil {
					list = []approval.Listed{}
				}
				enc := json.NewEncoder(a.env.Stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(list)
			}
			if len(list) == 0 {
				fmt.Fprintln(a.env.Stdout, "No approvals waiting.")
				return nil
			}
			a.printApprovals(list)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the approvals as JSON")
	return cmd
}

// printApprovals shows each approval: ID, state, age, who asked where, the call, and
// the rule and reason that asked.
func (a *app) printApprovals(list []approval.Listed) {
	tw := tabwriter.NewWriter(a.env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATE\tAGE\tAGENT\tSESSION\tCWD")
	now := a.env.Now()
	for _, l := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", l.ID, l.State, age(now, l.Created), printable(l.Agent), printable(l.Session), printable(l.Cwd))
		for _, c := range l.Calls {
			fmt.Fprintf(tw, "  call:\t%s\n", printable(scan.Redact(c)))
		}
		fmt.Fprintf(tw, "  rule:\t%s: %s\n", printable(l.Rule), printable(scan.Redact(l.Reason)))
		if l.By != "" {
			fmt.Fprintf(tw, "  answered:\t%s by %s, until %s\n", age(now, l.Answered)+" ago", printable(l.By), l.Expires.Local().Format(time.TimeOnly))
		}
	}
	tw.Flush()
}

// age is how long ago t was, to the second.
func age(now, t time.Time) string {
	return now.Sub(t).Truncate(time.Second).String()
}

// listApprovals lists the user's approval queue: through the daemon when it runs, from
// the file otherwise (the same file).
func (a *app) listApprovals(ctx context.Context) ([]approval.Listed, error) {
	var list []approval.Listed
	err := a.approvalThroughDaemon(ctx, methodApprovals, approvalRequest{}, &list)
	if !errors.Is(err, errNoDaemon) {
		return list, err
	}
	d, err := a.dirs()
	if err != nil {
		return nil, err
	}
	return a.approvalQueue().Store(d).List()
}
