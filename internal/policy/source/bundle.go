package source

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/moatdev/moat/internal/dirs"
	"github.com/moatdev/moat/internal/fleet"
	"github.com/moatdev/moat/internal/regfile"
)

func fleetConfig(d dirs.Dirs) (*fleet.Config, error) {
	cfg, err := fleet.Load(d)
	if err != nil {
		return nil, fmt.Errorf("moat refuses every call until the fleet configuration is fixed: %w", err)
	}
	return cfg, nil
}

// bundleOf reads the fleet's policy bundle of o.Dirs: when cfg configures `policy:`, the
// last good bundle the daemon fetched (dirs.FleetBundle), verified again against the key
// cfg pins, as o.VerifyManaged checks a managed.yaml. It decides as the managed layer.
// There is none (nil) before the first fetch; a kept bundle that no longer verifies is
// an error, and so fails every decision closed: the kept file is a signed policy, and a
// modified copy of it must not silently stop deciding.
func bundleOf(o Options, cfg *fleet.Config) (*Source, error) {
	if cfg == nil || cfg.Policy == nil {
		return nil, nil
	}
	path := o.Dirs.FleetBundle()
	src, err := readSource(FromManaged, path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("the fleet's policy bundle: %w", err)
	case o.VerifyManaged == nil:
		return nil, fmt.Errorf("the fleet's policy bundle %s must be signed by the key pinned in %s, and this moat cannot verify signatures", path, cfg.Policy.Key)
	}
	key, err := regfile.Read(cfg.Policy.Key, MaxKeyBytes)
	if err != nil {
		return nil, fmt.Errorf("reading the policy bundle's pinned key (%s): %w", cfg.Path, err)
	}
	serial, err := o.VerifyManaged(path, src.Data, key)
	if err != nil {
		return nil, fmt.Errorf("refusing the fleet's policy bundle (key pinned in %s); moat refuses every call until a good bundle is fetched: %w", cfg.Policy.Key, err)
	}
	if serial < 1 {
		return nil, fmt.Errorf("the fleet's policy bundle %s has no serial", path)
	}
	src.Serial = serial
	return &src, nil
}

// withBundle is the managed layer of o given its managed.yaml (file, nil when there is
// none): the file, or the fleet's bundle. A machine whose fleet.yaml configures `policy:`
// while its managed directory holds a managed.yaml is refused rather than combined: two
// administrators' policies with managed powers would each lock settings the other sets,
// and which one wins would be a guess. Checking the configuration, not the bundle,
// keeps the refusal from appearing only once the first bundle arrives.
func withBundle(o Options, file *Source) (*Source, error) {
	cfg, err := fleetConfig(o.Dirs)
	if err != nil {
		return nil, err
	}
	if file == nil {
		return bundleOf(o, cfg)
	}
	if cfg != nil && cfg.Policy != nil {
		return nil, fmt.Errorf("both a managed policy (%s) and a fleet policy bundle (`policy:` in %s) are configured; moat refuses every call until one of them is removed", file.Path, cfg.Path)
	}
	return file, nil
}

// bundleInputs are the files whose change may change what Bundle returns: the fleet
// configuration where it may be, and the kept bundle.
func bundleInputs(d dirs.Dirs) []string {
	var out []string
	if d.Managed != "" {
		out = append(out, filepath.Join(d.Managed, fleet.FileName))
	}
	return append(out, filepath.Join(d.Config, fleet.FileName), d.FleetBundle())
}
