package cli

import "github.com/spf13/cobra"

// newFleetCmd is the `moat fleet` group. The SHIP part of issue 24 creates the group in
// fleet.go with `migrate`; this minimal one holds `machines` until the lead folds the two
// (keep fleet.go's, and add newFleetMachinesCmd to it).
func newFleetCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "fleet",
		Short: "Read and manage the fleet's PostgreSQL database, where many machines ship their audit",
		Long: `Fleet works on the fleet's PostgreSQL database named by fleet.yaml's audit: section
(in the managed directory, else $XDG_CONFIG_HOME/moat/fleet.yaml), or by --postgres.
moat logs --remote and moat report --remote read the same database.

Exit status: 0 on success, 1 on an error, 64 on a bad flag.`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newFleetMachinesCmd(a))
	return cmd
}
