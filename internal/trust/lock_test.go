package trust

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/testbin"
)

// trustMany trusts n policy files named prefix0.yaml … in dir, in the store at storePath.
func trustMany(storePath, dir, prefix string, n int) error {
	store := Open(storePath)
	for i := range n {
		p := filepath.Join(dir, prefix+strconv.Itoa(i)+".yaml")
		data := []byte("version: 1\n# " + p + "\n")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return err
		}
		if err := store.Trust(p, data, time.Now()); err != nil {
			return fmt.Errorf("trusting %s: %w", p, err)
		}
	}
	return nil
}

// TestConcurrentWritersAllLand: writers that trust files at the same time, from
// goroutines and from separate processes, all find their entries in the store afterwards
// (without the lock, a writer that read the store before another wrote it drops that
// other's entries).
func TestConcurrentWritersAllLand(t *testing.T) {
	if os.Getenv("MOAT_TRUST_TEST_WRITER") != "" {
		t.Skip("run as a writer by TestConcurrentWritersAllLand")
	}
	const perWriter = 8
	dir := t.TempDir()
	storePath := filepath.Join(dir, "state", "trusted.json")
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 4 {
		wg.Go(func() { errs <- trustMany(storePath, dir, "g"+strconv.Itoa(g)+"-", perWriter) })
	}
	for p := range 2 {
		wg.Go(func() {
			cmd := testbin.Rerun("TestTrustWriterProcess", "MOAT_TRUST_TEST_WRITER=p"+strconv.Itoa(p)+"-",
				"MOAT_TRUST_TEST_STORE="+storePath, "MOAT_TRUST_TEST_DIR="+dir, "MOAT_TRUST_TEST_N="+strconv.Itoa(perWriter))
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Errorf("writer process %d: %v\n%s", p, err, out)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	entries, err := Open(storePath).List()
	if err != nil {
		t.Fatal(err)
	}
	if want := 6 * perWriter; len(entries) != want {
		t.Errorf("%d of %d trusted files are in the store", len(entries), want)
	}
}

// TestTrustWriterProcess is one writer process of TestConcurrentWritersAllLand.
func TestTrustWriterProcess(t *testing.T) {
	prefix := os.Getenv("MOAT_TRUST_TEST_WRITER")
	if prefix == "" {
		t.Skip("only run by TestConcurrentWritersAllLand")
	}
	n, err := strconv.Atoi(os.Getenv("MOAT_TRUST_TEST_N"))
	if err != nil {
		t.Fatal(err)
	}
	if err := trustMany(os.Getenv("MOAT_TRUST_TEST_STORE"), os.Getenv("MOAT_TRUST_TEST_DIR"), prefix, n); err != nil {
		t.Fatal(err)
	}
}
