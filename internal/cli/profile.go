package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/moatdev/moat/internal/sandbox"
)

func newProfileCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "profile",
		Short: "List and show the agent profiles moat launch adds to the sandbox",
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "List the embedded agent profiles",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ps, err := sandbox.Profiles()
			if err != nil {
				return err
			}
			for _, p := range ps {
				fmt.Fprintf(a.env.Stdout, "%-14s %-28s for: %s\n", p.Name, p.Sandbox.Description, strings.Join(p.Sandbox.Commands, ", "))
			}
			return nil
		},
	}
	show := &cobra.Command{
		Use:   "show NAME",
		Short: "Print an agent profile",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := sandbox.LookupProfile(args[0])
			if err != nil {
				if !slices.Contains(sandbox.ProfileNames(), args[0]) {
					return usageError(err)
				}
				return err
			}
			_, err = a.env.Stdout.Write(p.Text)
			return err
		},
	}
	cmd.AddCommand(list, show)
	return cmd
}
