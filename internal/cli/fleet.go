package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/moatdev/moat/internal/fleetdb"
)

// newFleetCmd is the `moat fleet` group: what an administrator of many machines runs.
// Each part adds its subcommand here, from its own file.
func newFleetCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "fleet",
		Short: "Administer a fleet: the PostgreSQL database machines ship their audit to",
		Long: `A fleet of machines ships every audit record to one PostgreSQL database, as the
fleet configuration (fleet.yaml, in the managed directory or ~/.config/moat) says:

  audit:
    postgres: postgres://moat@db.example.com:5432/moat?sslmode=verify-full
    password_file: /etc/moat/pg-password

Machines only insert and read; an administrator creates the tables once, and again after
an upgrade of moat, with 'moat fleet migrate'. 'moat fleet machines' lists the machines
that shipped, and moat logs --remote and moat report --remote read their records.
'moat fleet publish' puts a signed policy bundle in the database for machines whose
fleet.yaml fetches theirs from it.

Exit status: 0 on success, 1 on an error, 64 on a bad flag.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newFleetMigrateCmd(a), newFleetMachinesCmd(a), newFleetPublishCmd(a))
	return cmd
}

// fleetMigrateOptions are the flags of `moat fleet migrate`.
type fleetMigrateOptions struct {
	postgres     string
	passwordFile string
	asJSON       bool
}

func newFleetMigrateCmd(a *app) *cobra.Command {
	var o fleetMigrateOptions
	cmd := &cobra.Command{
		Use:   "migrate [--postgres DSN] [--password-file FILE] [--json]",
		Short: "Create or upgrade moat's tables in the fleet's PostgreSQL database",
		Long: `Migrate creates moat's tables in the fleet's database, or brings them to the version
this moat uses, and prints the schema version before and after. Running it again changes
nothing; two administrators running it at once apply each step once. A database of a
newer moat is refused.

The database is fleet.yaml's audit section's, unless --postgres names another; the
connection string holds no password (--password-file, or PGPASSFILE).`,
		Example: `  moat fleet migrate
  moat fleet migrate --postgres postgres://admin@db.example.com/moat --password-file ~/.pg-admin
  moat fleet migrate --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return a.fleetMigrate(cmd.Context(), o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.postgres, "postgres", "", "the database's connection string (default: fleet.yaml's audit postgres)")
	f.StringVar(&o.passwordFile, "password-file", "", "a file whose first line is the password (default: fleet.yaml's audit password_file)")
	f.BoolVar(&o.asJSON, "json", false, "print the result as JSON")
	return cmd
}

// fleetMigrateResult is what `moat fleet migrate --json` prints.
type fleetMigrateResult struct {
	Target string `json:"target"`
	From   int    `json:"from"`
	To     int    `json:"to"`
}

func (a *app) fleetMigrate(ctx context.Context, o fleetMigrateOptions) error {
	dsn, passwordFile := o.postgres, o.passwordFile
	if dsn == "" {
		cfgDSN, cfgPasswordFile, err := a.fleetDatabase(auditDatabase, errors.New("no database given: pass --postgres, or set audit: postgres: in fleet.yaml"))
		if err != nil {
			return err
		}
		dsn = cfgDSN
		if passwordFile == "" {
			passwordFile = cfgPasswordFile
		}
	}
	target := fleetdb.Target(dsn)
	conn, err := fleetdb.Connect(ctx, dsn, passwordFile)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	from, to, err := fleetdb.Migrate(ctx, conn)
	if err != nil {
		return fmt.Errorf("%s: %w", target, err)
	}
	if o.asJSON {
		return json.NewEncoder(a.env.Stdout).Encode(fleetMigrateResult{Target: target, From: from, To: to})
	}
	if from == to {
		_, err = fmt.Fprintf(a.env.Stdout, "%s: schema version %d, up to date\n", target, to)
	} else {
		_, err = fmt.Fprintf(a.env.Stdout, "%s: schema version %d → %d\n", target, from, to)
	}
	return err
}
