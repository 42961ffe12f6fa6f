package fleetdb

import (
	"context"
	"errors"
	"os"
	"sync"
	"testing"

	"github.com/moatdev/moat/internal/testpg"
)

func TestMigrate(t *testing.T) {
	pg := testpg.Start(t, testpg.Options{})
	pg.CreateDatabase(t, "fleet")
	ctx := context.Background()
	conn, err := Connect(ctx, pg.DSN("fleet"), pg.PasswordFile)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := CheckSchema(ctx, conn); !errors.Is(err, ErrNotMigrated) {
		t.Fatalf("before migrating: %v, want ErrNotMigrated", err)
	}
	// Migrations racing each other apply once.
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := Connect(ctx, pg.DSN("fleet"), pg.PasswordFile)
			if err != nil {
				errs[i] = err
				return
			}
			defer c.Close(ctx)
			_, _, errs[i] = Migrate(ctx, c)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := CheckSchema(ctx, conn); err != nil {
		t.Fatal(err)
	}
	from, to, err := Migrate(ctx, conn)
	if err != nil || from != SchemaVersion || to != SchemaVersion {
		t.Fatalf("again: %d→%d %v", from, to, err)
	}
	if _, err := conn.Exec(ctx, `UPDATE moat_schema SET version = 99`); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Migrate(ctx, conn); err == nil {
		t.Fatal("a newer schema must be refused")
	}
	if err := CheckSchema(ctx, conn); err == nil || errors.Is(err, ErrNotMigrated) {
		t.Fatalf("newer schema: %v", err)
	}
}

func TestConnectWrongPassword(t *testing.T) {
	pg := testpg.Start(t, testpg.Options{})
	bad := t.TempDir() + "/pw"
	if err := os.WriteFile(bad, []byte("wrong\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Connect(context.Background(), pg.DSN("postgres"), bad); err == nil {
		t.Fatal("a wrong password connected")
	}
}
