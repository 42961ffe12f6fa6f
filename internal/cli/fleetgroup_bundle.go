package cli

import "github.com/spf13/cobra"

// newFleetCmd is a minimal `moat fleet` group for `moat fleet publish`: the group is
// the audit-shipping part's (internal/cli/fleet.go, with `migrate`), not yet on main
// when this was written. When both are merged, this file goes and fleet.go registers
// newFleetPublishCmd with one line.
func newFleetCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "fleet",
		Short: "Administer a fleet: its PostgreSQL database and signed policy bundles",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newFleetPublishCmd(a))
	return cmd
}
