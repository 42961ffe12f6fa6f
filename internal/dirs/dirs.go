// Package dirs locates the directories that moat reads and writes: the user's, and the
// system's managed configuration.
package dirs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// Dirs are the directories moat uses for one user.
type Dirs struct {
	Home string
	// Config holds the user policy (moat.yaml).
	Config string
	// State holds the audit log and the trust store.
	State string
	// Temp lists the directories $temp stands for.
	Temp []string
	// Runtime lists where the daemon may keep its socket, preferred first:
	// $XDG_RUNTIME_DIR/moat when that is set, then a per-user directory in the
	// temporary directory. The daemon takes the first it finds safe; all of them are
	// moat's own paths, which self-protection guards.
	Runtime []string
	// Managed is the system directory of the managed configuration (ManagedDir on this
	// OS), which an administrator writes and every user's decisions obey; "" means none.
	// It never comes from the environment, which an agent could set: tests put a
	// temporary directory here.
	Managed string
	// Vars are the XDG variables that placed these directories, as they were set (only
	// absolute values, which the specification honours), so that a command naming
	// $XDG_STATE_HOME/moat is read as the directory it is.
	Vars map[string]string
}

// ManagedPolicy is the path of the managed policy layer, or "" without a managed
// directory.
func (d Dirs) ManagedPolicy() string { return d.managedFile("managed.yaml") }

// ManagedKey is the path of the pinned public key that the managed policy must be signed
// with when it exists, or "" without a managed directory.
func (d Dirs) ManagedKey() string { return d.managedFile("managed.pub") }

func (d Dirs) managedFile(name string) string {
	if d.Managed == "" {
		return ""
	}
	return filepath.Join(d.Managed, name)
}

// ManagedSerials is the file that keeps, per signing key, the highest serial of a managed
// policy accepted on this machine, so that an older signed policy is refused.
func (d Dirs) ManagedSerials() string { return filepath.Join(d.State, "managed-serials.json") }

// PackDirs are the drop-in directories of a team's own packs, searched in order for a
// pack moat does not embed: the managed directory's (an administrator's packs win), then
// the user's configuration directory's.
func (d Dirs) PackDirs() []string {
	var out []string
	if d.Managed != "" {
		out = append(out, filepath.Join(d.Managed, "packs"))
	}
	return append(out, filepath.Join(d.Config, "packs"))
}

// FleetBundle is the last good signed policy bundle fetched from the fleet (see package
// bundle), which decides as the managed layer when fleet.yaml configures `policy:`.
func (d Dirs) FleetBundle() string { return filepath.Join(d.State, "fleet", "bundle.yaml") }

// Keys is where moat policy keygen writes a key pair by default: in moat's configuration,
// which self-protection keeps agents out of, and outside every project.
func (d Dirs) Keys() string { return filepath.Join(d.Config, "keys") }

// UserPolicy is the path of the user's own policy file.
func (d Dirs) UserPolicy() string { return filepath.Join(d.Config, "moat.yaml") }

// AuditLog is the path of the decision log.
func (d Dirs) AuditLog() string { return filepath.Join(d.State, "audit.jsonl") }

// Notices holds one marker file per notice already shown to the user (a project policy
// the hooks ignore, once per content).
func (d Dirs) Notices() string { return filepath.Join(d.State, "notices") }

// TrustStore is the path of the file that records trusted project policies.
func (d Dirs) TrustStore() string { return filepath.Join(d.State, "trusted.json") }

// Sessions is the directory of the agent sessions' histories, one file per session
// (package sessionhistory).
func (d Dirs) Sessions() string { return filepath.Join(d.State, "sessions") }

// MCPPins is the directory of the pinned MCP tool definitions, one file per server.
func (d Dirs) MCPPins() string { return filepath.Join(d.State, "mcp-pins") }

// FromEnv derives the directories from environment variables the way the XDG base directory
// specification says, on every platform, so that one set of documentation holds everywhere:
// $XDG_CONFIG_HOME/moat (default ~/.config/moat) and $XDG_STATE_HOME/moat (default
// ~/.local/state/moat). Relative XDG values are ignored, as the specification requires.
func FromEnv(getenv func(string) string) (Dirs, error) {
	home := getenv("HOME")
	if home == "" {
		home = getenv("USERPROFILE")
	}
	if home == "" {
		return Dirs{}, errors.New("cannot locate the home directory: HOME is not set")
	}
	if !filepath.IsAbs(home) {
		return Dirs{}, fmt.Errorf("HOME %q is not an absolute path", home)
	}
	home = filepath.Clean(home)
	base := func(env, fallback string) string {
		if v := getenv(env); v != "" && filepath.IsAbs(v) {
			return filepath.Join(filepath.Clean(v), "moat")
		}
		return filepath.Join(home, fallback, "moat")
	}
	return Dirs{
		Home:    home,
		Config:  base("XDG_CONFIG_HOME", ".config"),
		State:   base("XDG_STATE_HOME", filepath.Join(".local", "state")),
		Temp:    tempDirs(getenv),
		Runtime: runtimeDirs(getenv, os.Getuid()),
		Vars:    xdgVars(getenv),
		Managed: ManagedDir,
	}, nil
}

// xdgVars returns the XDG variables among those that place moat's directories that are
// set to an absolute path; nil when none is.
func xdgVars(getenv func(string) string) map[string]string {
	var out map[string]string
	for _, k := range []string{"XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR"} {
		if v := getenv(k); v != "" && filepath.IsAbs(v) {
			if out == nil {
				out = map[string]string{}
			}
			out[k] = filepath.Clean(v)
		}
	}
	return out
}

// runtimeDirs lists the daemon's candidate directories for the user uid. The per-user
// fallback is named by uid, not by user name, so that no name lookup (and no cgo) is
// needed; a system without uids (Windows, uid -1) has none.
func runtimeDirs(getenv func(string) string, uid int) []string {
	var out []string
	if v := getenv("XDG_RUNTIME_DIR"); v != "" && filepath.IsAbs(v) {
		out = append(out, filepath.Join(filepath.Clean(v), "moat"))
	}
	if uid < 0 {
		return out
	}
	tmp := getenv("TMPDIR")
	if tmp == "" || !filepath.IsAbs(tmp) {
		tmp = "/tmp"
	}
	return append(out, filepath.Join(filepath.Clean(tmp), "moat-"+strconv.Itoa(uid)))
}

func tempDirs(getenv func(string) string) []string {
	dirs := []string{"/tmp", "/var/tmp", "/dev/shm"}
	if t := getenv("TMPDIR"); t != "" && filepath.IsAbs(t) {
		t = filepath.Clean(t)
		for _, d := range dirs {
			if d == t {
				return dirs
			}
		}
		dirs = append(dirs, t)
	}
	return dirs
}
