package cli

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/moatdev/moat/internal/fleetdb"
	"github.com/moatdev/moat/internal/logview"
)

type fleetMachinesOptions struct {
	json    bool
	fleetDB remoteOptions
}

func newFleetMachinesCmd(a *app) *cobra.Command {
	var o fleetMachinesOptions
	cmd := &cobra.Command{
		Use:   "machines [--json] [--postgres DSN [--password-file F]]",
		Short: "List the machines that ship their audit to the fleet's database",
		Long: `Machines lists the machines that have shipped records to the fleet's database, by
name: the machine, the user its records were made as, the moat version shipping, the
serial of the signed managed policy in force (0: none), the number of the last record
shipped and when it was shipped. A machine whose last record is old has gone quiet:
moat report --remote lists those.

--json prints the list as one JSON array with stable field names.`,
		Example: `  moat fleet machines
  moat fleet machines --json | jq -r '.[] | select(.managed_serial < 7) | .machine'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.fleetMachines(cmd.Context(), o)
		},
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print the machines as a JSON array")
	o.fleetDB.flags(cmd.Flags())
	return cmd
}

func (a *app) fleetMachines(ctx context.Context, o fleetMachinesOptions) error {
	conn, err := a.fleetConn(ctx, o.fleetDB)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	ms, err := fleetdb.Machines(ctx, conn)
	if err != nil {
		return err
	}
	if o.json {
		if ms == nil {
			ms = []fleetdb.MachineStatus{}
		}
		return writeJSON(a.env.Stdout, ms)
	}
	if len(ms) == 0 {
		fmt.Fprintln(a.env.Stderr, "moat: no machine has shipped records to this database yet")
		return nil
	}
	out := bufio.NewWriter(a.env.Stdout)
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "MACHINE\tUSER\tVERSION\tSERIAL\tLAST SEQ\tLAST SEEN")
	for _, m := range ms {
		// Names come from the machines: cleaned of terminal controls.
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", logview.Clean(cmp.Or(m.Machine, m.MachineID)), logview.Clean(cmp.Or(m.OSUser, "-")),
			logview.Clean(cmp.Or(m.Version, "-")), m.ManagedSerial, strconv.FormatUint(m.LastSeq, 10), m.LastSeen.In(time.Local).Format(time.RFC3339))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return out.Flush()
}
