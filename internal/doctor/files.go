package doctor

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/moatdev/moat/internal/audit"
)

// checkFiles checks moat's own files: the state directory holds the audit log (every
// command the agents ran) and the trust store (which project policies may be used), and
// the configuration directory holds the policy. Others must not read the first nor
// change either.
func checkFiles(in Inputs) []Finding {
	var out []Finding
	if in.GOOS != "windows" {
		out = append(out, checkPrivateDir(in, "state.dir", in.Dirs.State, "the state directory"))
		out = append(out, checkStateFiles(in))
		out = append(out, checkConfig(in)...)
	}
	out = append(out, checkAuditLog(in))
	return out
}

// checkPrivateDir wants dir to be a directory of the user's, mode 0700, or not to exist
// yet (moat creates it so).
func checkPrivateDir(in Inputs, id, dir, what string) Finding {
	f := Finding{ID: id}
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		f.Status, f.Message = OK, fmt.Sprintf("%s %s does not exist yet; moat creates it, private to you, on its first decision", what, dir)
		return f
	case err != nil:
		f.Status, f.Message = Fail, fmt.Sprintf("cannot look at %s %s: %v", what, dir, err)
		return f
	case !fi.IsDir():
		f.Status, f.Message = Fail, fmt.Sprintf("%s %s is not a directory", what, dir)
		f.Fix = fmt.Sprintf("mv %s %s.old", shellQuote(dir), shellQuote(dir))
		return f
	}
	if uid, ok := owner(fi); ok && uid != os.Getuid() {
		f.Status = Fail
		f.Message = fmt.Sprintf("%s %s belongs to user %d, not to you", what, dir, uid)
		f.Fix = fmt.Sprintf("sudo chown -R %d %s", os.Getuid(), shellQuote(dir))
		return f
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		f.Status = Fail
		f.Message = fmt.Sprintf("%s %s has mode %04o: other users can %s it", what, dir, perm, access(perm))
		f.Fix = "chmod 700 " + shellQuote(dir)
		return f
	}
	f.Status, f.Message = OK, fmt.Sprintf("%s %s is private to you (mode 0700)", what, dir)
	return f
}

// checkStateFiles wants every file under the state directory to be private.
func checkStateFiles(in Inputs) Finding {
	f := Finding{ID: "state.files"}
	var open []string
	n := 0
	err := filepath.WalkDir(in.Dirs.State, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == in.Dirs.State {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		n++
		if perm := fi.Mode().Perm(); perm&0o077 != 0 {
			open = append(open, fmt.Sprintf("%s (%04o)", p, perm))
		}
		return nil
	})
	switch {
	case errors.Is(err, fs.ErrNotExist) && n == 0:
		f.Status, f.Message = OK, "no state files yet"
	case err != nil:
		f.Status, f.Message = Fail, fmt.Sprintf("cannot look through %s: %v", in.Dirs.State, err)
	case len(open) > 0:
		f.Status = Fail
		f.Message = fmt.Sprintf("other users can read or change moat's state files: %s", strings.Join(open, ", "))
		f.Fix = "chmod -R go-rwx " + shellQuote(in.Dirs.State)
	default:
		f.Status, f.Message = OK, fmt.Sprintf("the %d files in %s are private to you", n, in.Dirs.State)
	}
	return f
}

// checkConfig wants the user's policy and its directory not to be writable by others,
// who could otherwise change what the agents may do.
func checkConfig(in Inputs) []Finding {
	var out []Finding
	for _, p := range []string{in.Dirs.Config, in.Dirs.UserPolicy()} {
		fi, err := os.Stat(p)
		if err != nil {
			continue
		}
		id := "config.policy"
		if fi.IsDir() {
			id = "config.dir"
		}
		f := Finding{ID: id, Status: OK, Message: fmt.Sprintf("%s can be changed only by you", p)}
		if uid, ok := owner(fi); ok && uid != os.Getuid() && uid != 0 {
			f.Status = Fail
			f.Message = fmt.Sprintf("%s belongs to user %d, who can change your policy", p, uid)
			f.Fix = fmt.Sprintf("sudo chown %d %s", os.Getuid(), shellQuote(p))
		} else if perm := fi.Mode().Perm(); perm&0o022 != 0 {
			f.Status = Fail
			f.Message = fmt.Sprintf("%s has mode %04o: other users can change your policy", p, perm)
			f.Fix = "chmod go-w " + shellQuote(p)
		}
		out = append(out, f)
	}
	return out
}

// checkAuditLog wants the audit log readable and well formed.
func checkAuditLog(in Inputs) Finding {
	path := in.Dirs.AuditLog()
	f := Finding{ID: "audit.log"}
	n := 0
	var last audit.Record
	err := audit.Read(path, func(r audit.Record) error {
		n++
		last = r
		return nil
	})
	var le *audit.LineError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		f.Status, f.Message = OK, fmt.Sprintf("no audit log at %s yet: no decision has been recorded", path)
	case errors.As(err, &le):
		f.Status = Warn
		f.Message = fmt.Sprintf("the audit log %s has malformed lines (the %d good records are readable): %s", path, n, oneLine(err.Error()))
		f.Fix = "moat logs --json > /dev/null   # lists them; move the log aside to start a new one"
	case err != nil:
		f.Status = Fail
		f.Message = fmt.Sprintf("the audit log cannot be read: %s", oneLine(err.Error()))
		f.Fix = "chmod -R u+rwX " + shellQuote(in.Dirs.State)
	default:
		f.Status = OK
		f.Message = fmt.Sprintf("the audit log %s holds %d %s", path, n, plural(n, "record", "records"))
		if n > 0 {
			f.Message += ", the last from " + last.Time.In(cmp.Or(in.Loc, time.UTC)).Format("2006-01-02 15:04:05")
		}
	}
	return f
}

// access says what the group and other bits of perm let others do.
func access(perm fs.FileMode) string {
	var can []string
	if perm&0o044 != 0 {
		can = append(can, "read")
	}
	if perm&0o022 != 0 {
		can = append(can, "change")
	}
	if perm&0o011 != 0 && len(can) == 0 {
		can = append(can, "enter")
	}
	return strings.Join(can, " and ")
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// resolve follows links; a path that cannot be resolved is returned as it is.
func resolve(p string) string {
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	return p
}

func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

func dirOf(p string) string { return filepath.Dir(p) }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
