package fleetdb

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// ErrSerialNotNewer is a bundle published with a serial not above the newest one the
// table holds: machines would refuse it as a rollback, or keep the one they have.
var ErrSerialNotNewer = errors.New("the serial is not above the newest published bundle's")

// LatestBundle returns the newest policy bundle (the highest serial) of
// moat_policy_bundles; ok is false when the table holds none.
func LatestBundle(ctx context.Context, q Querier) (serial int64, bundle string, ok bool, err error) {
	err = q.QueryRow(ctx, `SELECT serial, bundle FROM moat_policy_bundles ORDER BY serial DESC LIMIT 1`).Scan(&serial, &bundle)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, "", false, nil
	}
	if err != nil {
		return 0, "", false, fmt.Errorf("reading the newest policy bundle: %w", err)
	}
	return serial, bundle, true, nil
}

// PublishBundle inserts a signed bundle (verified by the caller) with its serial, which
// must be above every serial the table holds. The table is locked for the insert, so
// that two administrators publishing at once cannot both pass the check.
func PublishBundle(ctx context.Context, conn *pgx.Conn, serial int64, bundle string) error {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return fmt.Errorf("publishing the bundle: %w", err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // a no-op after Commit
	if _, err := tx.Exec(ctx, `LOCK TABLE moat_policy_bundles IN SHARE ROW EXCLUSIVE MODE`); err != nil {
		return fmt.Errorf("publishing the bundle: %w", err)
	}
	newest, _, ok, err := LatestBundle(ctx, tx)
	if err != nil {
		return err
	}
	if ok && serial <= newest {
		return fmt.Errorf("serial %d: %w (%d); sign the policy with a higher serial", serial, ErrSerialNotNewer, newest)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO moat_policy_bundles (serial, bundle) VALUES ($1, $2)`, serial, bundle); err != nil {
		return fmt.Errorf("publishing the bundle: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("publishing the bundle: %w", err)
	}
	return nil
}
