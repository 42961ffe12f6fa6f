package mcpconfig

import (
	"errors"
	"github.com/rogpeppe/go-internal/diff"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWrapFileAndBack(t *testing.T) {
	c := client(t, "cursor")
	dir := t.TempDir()
	path := filepath.Join(dir, "mcp.json")
	input := readFile(t, "testdata/golden/cursor/mcp.json")
	if err := os.WriteFile(path, []byte(input), 0o640); err != nil {
		t.Fatal(err)
	}

	res, err := c.WrapFile(path, moatBin, Options{DryRun: true})
	if err != nil || res.Written || res.Backup != "" || res.New == input || res.Old != input {
		t.Fatalf("dry run: %+v %v", res, err)
	}
	if readFile(t, path) != input {
		t.Fatal("a dry run wrote the file")
	}

	res, err = c.WrapFile(path, moatBin, Options{})
	if err != nil || !res.Written || res.Backup != path+".moat-backup" || len(res.Changes) != 4 {
		t.Fatalf("wrap: %+v %v", res, err)
	}
	if got := readFile(t, path); got != readFile(t, "testdata/golden/cursor/mcp.wrapped.json") || got != res.New {
		t.Errorf("the file holds:\n%s", got)
	}
	if readFile(t, res.Backup) != input {
		t.Error("the backup is not the old file")
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o640 {
		t.Errorf("the file's mode became %v", st.Mode())
	}
	if st, _ := os.Stat(res.Backup); st.Mode().Perm() != 0o600 {
		t.Errorf("the backup's mode is %v", st.Mode())
	}

	again, err := c.WrapFile(path, moatBin, Options{})
	if err != nil || again.Written || again.Backup != "" || again.Old != again.New {
		t.Errorf("wrapping twice: %+v %v", again, err)
	}

	back, err := c.UnwrapFile(path, Options{})
	if err != nil || !back.Written || len(back.Changes) != 4 {
		t.Fatalf("unwrap: %+v %v", back, err)
	}
	if readFile(t, path) != input {
		t.Errorf("unwrapping did not restore the file:\n%s", diff.Diff("input", []byte(input), path, []byte(readFile(t, path))))
	}
}

func TestWrapFileFollowsLinks(t *testing.T) {
	c := client(t, "codex")
	dir := t.TempDir()
	real := filepath.Join(dir, "dotfiles", "config.toml")
	link := filepath.Join(dir, "config.toml")
	if err := os.MkdirAll(filepath.Dir(real), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(real, []byte("[mcp_servers.s]\ncommand = \"x\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	res, err := c.WrapFile(link, moatBin, Options{})
	if err != nil || !res.Written || res.Path != real || res.Backup != real+".moat-backup" {
		t.Fatalf("%+v %v", res, err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Error("the link is no longer a link")
	}
	if !strings.Contains(readFile(t, real), moatBin) {
		t.Error("the linked file was not wrapped")
	}
}

func TestWrapFileErrors(t *testing.T) {
	c := client(t, "vscode")
	dir := t.TempDir()
	if _, err := c.WrapFile(filepath.Join(dir, "none.json"), moatBin, Options{}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte("{\n  \"servers\": {,}\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := c.WrapFile(bad, moatBin, Options{})
	var pe *ParseError
	if !errors.As(err, &pe) || pe.File != bad || err.Error() != bad+":2:15: expected a key in quotes" {
		t.Errorf("a file that does not parse: %v", err)
	}
	if _, err := os.Stat(bad + BackupSuffix); !errors.Is(err, fs.ErrNotExist) {
		t.Error("a file that does not parse was backed up")
	}
	if _, err := c.UnwrapFile(bad, Options{}); !errors.As(err, &pe) {
		t.Errorf("unwrap of a file that does not parse: %v", err)
	}
}

// TestEditFileRetries: a file its client rewrites while moat edits it is edited again
// from what the client wrote, so that the client's write is not lost.
func TestEditFileRetries(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	calls := 0
	res, err := editFile(path, false, func(text string) (string, []Change, error) {
		calls++
		if calls == 1 {
			// The client writes while moat is working.
			if err := os.WriteFile(path, []byte("two"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return text + "+moat", nil, nil
	})
	if err != nil || calls != 2 || readFile(t, path) != "two+moat" || res.Old != "two" {
		t.Errorf("calls %d, file %q, %+v %v", calls, readFile(t, path), res, err)
	}

	n := 0
	_, err = editFile(path, false, func(text string) (string, []Change, error) {
		n++
		if err := os.WriteFile(path, []byte(strings.Repeat("x", n)), 0o644); err != nil {
			t.Fatal(err)
		}
		return text + "+moat", nil, nil
	})
	if err == nil || strings.Contains(readFile(t, path), "moat") {
		t.Errorf("a file that keeps changing was edited: %v", err)
	}
}
