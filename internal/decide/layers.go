package decide

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"

	"github.com/moatdev/moat/internal/dirs"
	"github.com/moatdev/moat/internal/pathset"
	"github.com/moatdev/moat/internal/policy"
	"github.com/moatdev/moat/internal/policy/source"
	"github.com/moatdev/moat/internal/regfile"
	"github.com/moatdev/moat/internal/trust"
)

// loadLayers compiles src and the layers deciding with it (the managed policy above it,
// the user's below a project policy) into one policy (policy.Combine).
func (l *Local) loadLayers(src source.Source, d dirs.Dirs, host pathset.Host) (*policy.Policy, []policy.Override, error) {
	sources := src.Layers()
	layers := make([]policy.Layer, 0, len(sources))
	for _, s := range sources {
		p, err := policy.LoadWith(s.Name, s.Data, host, policy.LoadOptions{Path: s.Path, ReadInclude: includeReader(s, d), PackDirs: d.PackDirs()})
		if err != nil {
			if s.Kind == source.FromManaged {
				return nil, nil, fmt.Errorf("the managed policy: %w", err)
			}
			return nil, nil, err
		}
		layers = append(layers, policy.Layer{Kind: string(s.Kind), Policy: p})
	}
	return policy.Combine(layers)
}

// includeReader reads the files a policy's extends names. A project policy is trusted by
// its content, so each file it includes must be trusted too: otherwise an edit of the
// shared file would loosen the policy behind the trust check's back.
func includeReader(s source.Source, d dirs.Dirs) func(string) ([]byte, error) {
	read := func(path string) ([]byte, error) { return regfile.Read(path, policy.MaxIncludedBytes) }
	if s.Kind != source.FromProject {
		return read
	}
	store := trust.Open(d.TrustStore())
	return func(path string) ([]byte, error) {
		data, err := read(path)
		if err != nil {
			return nil, err
		}
		status, err := store.Check(path, data)
		if err != nil {
			return nil, fmt.Errorf("checking trust of %s: %w", path, err)
		}
		if status != trust.Trusted {
			return nil, fmt.Errorf("%s is not trusted as it is: a project policy includes only trusted files; review it, then run `moat trust %s`", path, path)
		}
		return data, nil
	}
}

// withIncluded is host with the files included by extends among moat's own paths, which
// self-protection guards like the policy file itself.
func withIncluded(host pathset.Host, included []string) pathset.Host {
	if len(included) == 0 {
		return host
	}
	host.Moat = append(slices.Clip(host.Moat), included...)
	return host
}

// digestFiles names the current content of files; "" when there are none. A file that
// cannot be read is named by its error, so that it differs from any content.
func digestFiles(files []string) string {
	if len(files) == 0 {
		return ""
	}
	h := sha256.New()
	for _, f := range files {
		data, err := regfile.Read(f, policy.MaxIncludedBytes)
		if err != nil {
			fmt.Fprintf(h, "%s\x00error %v\x00", f, err)
			continue
		}
		fmt.Fprintf(h, "%s\x00%d\x00", f, len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// includesUnchanged reports whether the files the policy included still hold what was
// compiled: the cache key covers only the policy files themselves.
func (c *Compiled) includesUnchanged() bool {
	return c.included == digestFiles(c.Policy.Included)
}

// Overrides compiles the policy file (validated alone) below the managed policy of the
// user whose directories are d, and lists the settings of the file that the managed
// policy locks, and so ignores; none without a managed policy.
func (l *Local) Overrides(file source.Source, d dirs.Dirs) ([]policy.Override, error) {
	managed, err := source.Managed(source.Options{Dirs: d, VerifyManaged: l.opts.VerifyManaged})
	if err != nil || managed == nil {
		return nil, err
	}
	file.Managed, file.Also = managed, nil
	_, overrides, err := l.loadLayers(file, d, l.Host(d, file.Path))
	return overrides, err
}
