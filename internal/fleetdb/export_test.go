package fleetdb

import "context"

// SelectForTest returns what the SQL of f alone selects, without Match deciding again,
// so that tests check the SQL.
func SelectForTest(ctx context.Context, db Reader, f Filter) ([]RemoteRecord, error) {
	var w where
	f.render(&w)
	var out []RemoteRecord
	err := scan(ctx, db, w, "ASC", -1, func(rr RemoteRecord) { out = append(out, rr) })
	return out, err
}
