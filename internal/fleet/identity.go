package fleet

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/moatdev/moat/internal/atomicfile"
	"github.com/moatdev/moat/internal/dirs"
	"github.com/moatdev/moat/internal/regfile"
)

// machineIDFile is the state file holding this installation's identity.
const machineIDFile = "machine-id"

var machineIDPattern = regexp.MustCompile(`^[0-9a-f]{32}$`)

// MachineID returns the identity of d's installation (one user's state directory on one
// machine): 32 hex digits, drawn at random the first time and kept in the state
// directory. Shipped records are keyed by it and their sequence number, so that a record
// sent twice is stored once. Names can collide (two laptops called "dev"); this cannot.
func MachineID(d dirs.Dirs) (string, error) {
	path := filepath.Join(d.State, machineIDFile)
	data, err := regfile.Read(path, 256)
	switch {
	case err == nil:
		id := strings.TrimSpace(string(data))
		if !machineIDPattern.MatchString(id) {
			return "", fmt.Errorf("%s: not a machine id (want 32 hex digits); remove it to draw a new one", path)
		}
		return id, nil
	case !errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("reading the machine id: %w", err)
	}
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("drawing a machine id: %w", err)
	}
	id := hex.EncodeToString(b[:])
	if err := os.MkdirAll(d.State, 0o700); err != nil {
		return "", fmt.Errorf("creating the state directory: %w", err)
	}
	// WriteNew refuses to replace a file: when two processes draw at once, the first
	// one's id stands and the other reads it.
	if err := atomicfile.WriteNew(path, []byte(id+"\n"), 0o600); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return MachineID(d)
		}
		return "", fmt.Errorf("writing the machine id: %w", err)
	}
	return id, nil
}
