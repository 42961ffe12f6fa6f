package doctor

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
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
	out = append(out, checkAuditWrites(in))
	out = append(out, checkAuditLog(in)...)
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

// checkAuditLog wants the audit log readable and well formed, and its chain unbroken.
func checkAuditLog(in Inputs) []Finding {
	path := in.Dirs.AuditLog()
	f := Finding{ID: "audit.log"}
	rep, err := audit.Verify(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		f.Status, f.Message = OK, fmt.Sprintf("no audit log at %s yet: no decision has been recorded", path)
		return []Finding{f}
	case err != nil:
		f.Status = Fail
		f.Message = fmt.Sprintf("the audit log cannot be read: %s", oneLine(err.Error()))
		f.Fix = "chmod -R u+rwX " + shellQuote(in.Dirs.State)
		return []Finding{f}
	}
	var malformed, broken []audit.Issue
	for _, i := range rep.Issues {
		switch i.Kind {
		case audit.IssueMalformed:
			malformed = append(malformed, i)
		case audit.IssueUnchained, audit.IssueCutOff, audit.IssueRefused: // the last is audit.writes'
		default:
			broken = append(broken, i)
		}
	}
	if len(malformed) > 0 {
		f.Status = Warn
		f.Message = fmt.Sprintf("the audit log %s has %d malformed %s (the %d good records are readable): %s", path, len(malformed), plural(len(malformed), "line", "lines"), rep.Records, issueList(malformed))
		f.Fix = "moat logs --json > /dev/null   # lists them; move the log aside to start a new one"
	} else {
		f.Status = OK
		f.Message = fmt.Sprintf("the audit log %s holds %d %s", path, rep.Records, plural(rep.Records, "record", "records"))
		if rep.Records > 0 {
			f.Message += ", the last from " + rep.Last.In(cmp.Or(in.Loc, time.UTC)).Format("2006-01-02 15:04:05")
		}
	}
	c := Finding{ID: "audit.chain", Status: OK, Message: chainHolds(rep)}
	if len(broken) > 0 {
		c.Status = Fail
		c.Message = fmt.Sprintf("the audit trail was changed after it was written (%d %s): %s", len(broken), plural(len(broken), "problem", "problems"), issueList(broken))
		c.Fix = "moat logs --verify   # lists every problem; keep a copy of the files as evidence"
	}
	return []Finding{f, c}
}

// chainHolds says what an unbroken chain vouches for.
func chainHolds(rep *audit.Report) string {
	if rep.LastSeq == 0 {
		return "no chained record yet"
	}
	s := fmt.Sprintf("no record was changed, removed or moved since it was written: records %d to %d chain", rep.FirstSeq, rep.LastSeq)
	if rep.FromStart {
		s += ", from the first record of the log"
	}
	if rep.Unchained > 0 {
		s += fmt.Sprintf("; %d older %s without a chain", rep.Unchained, plural(rep.Unchained, "record", "records"))
	}
	return s
}

// issueList shows the first few issues on one line.
func issueList(issues []audit.Issue) string {
	const shown = 3
	var parts []string
	for _, i := range issues[:min(len(issues), shown)] {
		parts = append(parts, i.String())
	}
	s := strings.Join(parts, "; ")
	if len(issues) > shown {
		s += fmt.Sprintf("; and %d more", len(issues)-shown)
	}
	return s
}

// recentIncidents is how far back an incident writers noted makes audit.writes warn.
const recentIncidents = 7 * 24 * time.Hour

// checkAuditWrites wants every record to reach the log: no file of the log refused (a
// link planted at it, a FIFO, a file of another user's), a writable directory, no record
// waiting in a spool file. Incidents noted in the last week are a warning: the lock was
// held or a file refused then, even if all is well now.
func checkAuditWrites(in Inputs) Finding {
	path := in.Dirs.AuditLog()
	f := Finding{ID: "audit.writes"}
	h, err := audit.Inspect(path)
	if err != nil {
		f.Status, f.Message = Fail, fmt.Sprintf("cannot look at the audit log's directory: %s", oneLine(err.Error()))
		f.Fix = "chmod -R u+rwX " + shellQuote(in.Dirs.State)
		return f
	}
	var problems, fixes []string
	for _, r := range h.Refused {
		problems = append(problems, r.String())
		if r.Path == filepath.Dir(path) {
			fix := "chmod 700 " + shellQuote(r.Path)
			if fi, err := os.Stat(r.Path); err == nil {
				if uid, ok := owner(fi); ok && uid != os.Getuid() {
					fix = fmt.Sprintf("sudo chown %d %s && chmod 700 %s", os.Getuid(), shellQuote(r.Path), shellQuote(r.Path))
				}
			}
			fixes = append(fixes, fix)
		} else {
			fixes = append(fixes, "rm "+shellQuote(r.Path))
		}
	}
	if len(h.Refused) > 0 {
		problems[0] = "moat refuses to write the audit trail through what is there: " + problems[0]
	}
	if h.Unwritable != "" {
		problems = append(problems, "the state directory cannot be written, so decisions are not recorded at all: "+h.Unwritable)
		fixes = append(fixes, "chmod u+rwx "+shellQuote(filepath.Dir(path)))
	}
	if h.Waiting > 0 {
		problems = append(problems, fmt.Sprintf("%d %s %s waited in spool files since %s (the log was locked by another process, or refused): they are merged into the log by the next decision that gets its lock",
			h.Waiting, plural(h.Waiting, "record", "records"), plural(h.Waiting, "has", "have"), h.Spools[0].Since.In(cmp.Or(in.Loc, time.UTC)).Format("2006-01-02 15:04:05")))
		if len(h.Refused) == 0 {
			fixes = append(fixes, "fuser -v "+shellQuote(path+".lock")+"   # who holds the lock")
		}
	}
	now := time.Now
	if in.Now != nil {
		now = in.Now
	}
	switch {
	case len(problems) > 0:
		f.Status = Fail
		f.Message = strings.Join(problems, "; ")
		f.Fix = strings.Join(fixes, " && ")
	case h.Last != nil && now().Sub(h.Last.Time) < recentIncidents:
		f.Status = Warn
		f.Message = fmt.Sprintf("records could not be written straight to the audit log %s: %s; the last at %s: %s (all have reached the log since)",
			path, incidentCounts(h.Incidents), h.Last.Time.In(cmp.Or(in.Loc, time.UTC)).Format("2006-01-02 15:04:05"), oneLine(h.Last.Detail))
		f.Fix = "moat logs --verify   # checks that nothing is missing"
	default:
		f.Status, f.Message = OK, fmt.Sprintf("decisions are written to %s; none waits in a spool file", path)
	}
	return f
}

func incidentCounts(counts map[string]int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		parts = append(parts, fmt.Sprintf("%d %s", counts[k], k))
	}
	return strings.Join(parts, ", ")
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
