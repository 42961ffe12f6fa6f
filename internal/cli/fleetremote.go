package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/spf13/pflag"

	"github.com/moatdev/moat/internal/fleet"
	"github.com/moatdev/moat/internal/fleetdb"
)

// remoteOptions say which fleet database the commands that read it (logs --remote,
// report --remote, fleet machines) connect to: the one given, else fleet.yaml's audit
// section.
type remoteOptions struct {
	postgres, passwordFile string
}

func (o *remoteOptions) flags(f *pflag.FlagSet) {
	f.StringVar(&o.postgres, "postgres", "", "the fleet's PostgreSQL connection string (default: fleet.yaml's audit: postgres); no password in it")
	f.StringVar(&o.passwordFile, "password-file", "", "a file whose first line is the database password (default: fleet.yaml's audit: password_file, or PGPASSFILE)")
}

// errNoFleetDatabase says where a fleet database is named.
var errNoFleetDatabase = errors.New("no fleet database: give --postgres DSN, or add an audit: section with postgres: to fleet.yaml (see moat fleet --help)")

// fleetDatabase is the connection string and password file of the fleet database that
// section picks from fleet.yaml (auditDatabase, policyDatabase); missing, as a usage
// error, when fleet.yaml is absent or names no such database.
func (a *app) fleetDatabase(section func(*fleet.Config) (dsn, passwordFile string), missing error) (dsn, passwordFile string, err error) {
	d, err := a.dirs()
	if err != nil {
		return "", "", err
	}
	cfg, err := fleet.Load(d)
	if err != nil {
		return "", "", err
	}
	if cfg != nil {
		dsn, passwordFile = section(cfg)
	}
	if dsn == "" {
		return "", "", usageError(missing)
	}
	return dsn, passwordFile, nil
}

// auditDatabase is the database fleet.yaml's audit section ships to.
func auditDatabase(c *fleet.Config) (dsn, passwordFile string) {
	if c.Audit == nil {
		return "", ""
	}
	return c.Audit.Postgres, c.Audit.PasswordFile
}

// policyDatabase is the database fleet.yaml's policy section fetches bundles from.
func policyDatabase(c *fleet.Config) (dsn, passwordFile string) {
	if c.Policy == nil {
		return "", ""
	}
	return c.Policy.Postgres, c.Policy.PasswordFile
}

// fleetConn connects to the fleet database of o and checks its schema. The connection
// string is not printed (it names the host, the database and the user only: fleet.yaml
// refuses a password in it, and --password-file carries one).
func (a *app) fleetConn(ctx context.Context, o remoteOptions) (*pgx.Conn, error) {
	dsn, pwFile := o.postgres, o.passwordFile
	if dsn == "" {
		if pwFile != "" {
			return nil, usageError(errors.New("--password-file goes with --postgres"))
		}
		var err error
		if dsn, pwFile, err = a.fleetDatabase(auditDatabase, errNoFleetDatabase); err != nil {
			return nil, err
		}
	}
	conn, err := fleetdb.Connect(ctx, dsn, pwFile)
	if err != nil {
		return nil, err
	}
	if err := fleetdb.CheckSchema(ctx, conn); err != nil {
		conn.Close(context.Background())
		return nil, fmt.Errorf("fleet database: %w", err)
	}
	return conn, nil
}
