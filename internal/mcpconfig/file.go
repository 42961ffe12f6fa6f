package mcpconfig

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/moatdev/moat/internal/agent"
	"github.com/moatdev/moat/internal/atomicfile"
)

// FileResult is what WrapFile or UnwrapFile did to one file.
type FileResult struct {
	// Path is the file edited: the path given, with symbolic links resolved, since a
	// configuration file kept elsewhere and linked (dotfiles) is edited where it is
	// and the link stays a link.
	Path string
	// Old and New are the file's text before and after; they are equal when nothing
	// changed. A unified diff of the two shows the change (moat mcp wrap --dry-run).
	Old, New string
	// Changes has a Change per server entry, as Wrap or Unwrap reports them.
	Changes []Change
	// Backup is the copy of the old file (Path + ".moat-backup") written before the
	// file was changed; empty when nothing was written.
	Backup string
	// Written says the file was changed on disk.
	Written bool
}

// BackupSuffix is added to a file's name for the copy kept before moat changes it, as
// `moat setup` does. The backup beside the file is protected like the file itself.
const BackupSuffix = agent.BackupSuffix

// WrapFile wraps the servers of the client's file path, as Wrap does, and writes the
// result unless opts.DryRun is set or nothing changed. Before the file is replaced it is
// copied to path + BackupSuffix; it is replaced atomically and keeps its permissions. A
// file that does not exist gives an error matching fs.ErrNotExist, and a file that does
// not parse a *ParseError naming it.
func (c Client) WrapFile(path, moatPath string, opts Options) (FileResult, error) {
	return editFile(path, opts.DryRun, func(text string) (string, []Change, error) {
		return c.Wrap(text, moatPath, opts)
	})
}

// UnwrapFile restores the servers of the client's file path, as Unwrap does, and writes
// the result as WrapFile does. Only opts.DryRun matters to it.
func (c Client) UnwrapFile(path string, opts Options) (FileResult, error) {
	return editFile(path, opts.DryRun, c.Unwrap)
}

// attempts bounds how often a file is edited again because its client rewrote it while
// moat was editing it (Claude Code rewrites ~/.claude.json all the time).
const attempts = 3

func editFile(path string, dryRun bool, edit func(string) (string, []Change, error)) (FileResult, error) {
	res := FileResult{Path: path}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		res.Path = real
	}
	for range attempts {
		old, err := os.ReadFile(res.Path)
		if err != nil {
			return res, err
		}
		text, changes, err := edit(string(old))
		if err != nil {
			var pe *ParseError
			if errors.As(err, &pe) {
				pe.File = res.Path
				return res, pe
			}
			return res, fmt.Errorf("%s: %w", res.Path, err)
		}
		res.Old, res.New, res.Changes = string(old), text, changes
		if dryRun || text == string(old) {
			return res, nil
		}
		st, err := os.Stat(res.Path)
		if err != nil {
			return res, err
		}
		backup := res.Path + BackupSuffix
		if err := atomicfile.WriteFile(backup, old, 0o600); err != nil {
			return res, fmt.Errorf("backing up %s: %w", res.Path, err)
		}
		res.Backup = backup
		// The client may have written the file since it was read; replacing it then
		// would lose what the client wrote. The window left between this check and the
		// rename is what an editor without locks can offer.
		if now, err := os.ReadFile(res.Path); err != nil || !bytes.Equal(now, old) {
			continue
		}
		if err := atomicfile.WriteFile(res.Path, []byte(text), st.Mode().Perm()); err != nil {
			return res, err
		}
		res.Written = true
		return res, nil
	}
	return res, fmt.Errorf("%s kept changing while moat was editing it; it was left as it is", res.Path)
}
