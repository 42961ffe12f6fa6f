package sandbox

import (
	"crypto/sha256"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Carving is the part of a plan that depends on the file system: the Landlock rules
// carved around the denied and protected paths, and the notes about what exists. A
// Cache keeps it, and the daemon sends it; Finish completes it into a Plan.
type Carving struct {
	ABI     int
	Handled Access
	Rules   []Rule
	Notes   []Note
}

// probe answers every question the carving asks about the file system. With a record,
// it also writes each question down with the answer it got, so that the answers can be
// checked again later: the carving is a function of its inputs and of these answers
// alone, so while every answer stays the same, carving again would give the same result.
type probe struct {
	rec *record
}

// question is one question asked of the file system.
type question struct {
	op   probeOp
	path string
	mask Access // closed: the cap asked about
}

type probeOp uint8

const (
	opExists  probeOp = iota + 1 // lstat(2) succeeds
	opStat                       // stat(2) succeeds, and whether it is a directory
	opReadDir                    // the names and kinds of a directory's entries
	opReal                       // the path with every symbolic link resolved
	opClosed                     // closedByDAC
)

// answer is what the carving learnt from one question: exactly what it used, nothing more.
type answer struct {
	ok, dir bool
	real    string
	// entries is the digest of a listing (names and kinds), dirID the directory's identity
	// and times when it was listed (see dirState).
	entries [sha256.Size]byte
	dirID   dirState
}

// record is the questions one carving asked, with their answers.
type record struct {
	answers map[question]answer
	// deps lists, for each question about a path, the directories whose entries decide
	// its answer (see lookupDirs); dirs holds each such directory's state, taken before
	// it was first looked into.
	deps map[question][]string
	dirs map[string]dirState
	// unusable is set when the carving changed the file system (it created a missing
	// directory or file) or got two answers to one question: the answers then do not
	// describe one state of the file system, and the carving is not kept.
	unusable bool
	// now is the clock of the racy test of listings; nil is time.Now.
	now func() time.Time
	// mu serializes the checks of a kept carving, which bring its states up to date.
	mu sync.Mutex
}

func newRecord(now func() time.Time) *record {
	if now == nil {
		now = time.Now
	}
	return &record{answers: map[question]answer{}, deps: map[question][]string{}, dirs: map[string]dirState{}, now: now}
}

func (r *record) note(q question, a answer) {
	if old, ok := r.answers[q]; ok && old != a {
		r.unusable = true
	}
	r.answers[q] = a
}

// changed notes that the carving changes the file system.
func (fs probe) changed() {
	if fs.rec != nil {
		fs.rec.unusable = true
	}
}

func (fs probe) exists(path string) bool {
	q := question{op: opExists, path: path}
	fs.lookup(q)
	_, err := os.Lstat(path)
	if fs.rec != nil {
		fs.rec.note(q, answer{ok: err == nil})
	}
	return err == nil
}

// stat reports whether path exists, following symbolic links, and is a directory.
func (fs probe) stat(path string) (ok, dir bool) {
	q := question{op: opStat, path: path}
	fs.lookup(q)
	fi, err := os.Stat(path)
	ok, dir = err == nil, err == nil && fi.IsDir()
	if fs.rec != nil {
		fs.rec.note(q, answer{ok: ok, dir: dir})
	}
	return ok, dir
}

func (fs probe) realPath(path string) (string, error) {
	q := question{op: opReal, path: path}
	fs.lookup(q)
	real, err := filepath.EvalSymlinks(path)
	if fs.rec != nil {
		fs.rec.note(q, answer{ok: err == nil, real: real})
	}
	return real, err
}

// lookup records the directories that decide the answer to a question about a path,
// each with its state taken before anything in it was looked up: a change after that
// shows as a newer change time.
func (fs probe) lookup(q question) {
	if fs.rec == nil {
		return
	}
	fs.rec.deps[q] = lookupDirs(q.path, func(dir string) {
		if _, ok := fs.rec.dirs[dir]; !ok {
			fs.rec.dirs[dir] = statDir(dir, fs.rec.now())
		}
	})
}

// maxLinks bounds the symbolic links lookupDirs follows, as the kernel bounds them.
const maxLinks = 40

// lookupDirs returns the directories whose entries are read in resolving path, every
// symbolic link followed (the last one too), visiting each before looking into it: each
// component is looked up in the directory resolved so far. While none of them changes, the same names lead to the same
// inodes (a symbolic link's target never changes in place, nor an inode's type), so
// whether path exists, what it is and where it leads stay the same. A component that is
// missing ends the walk: its directory's entries prove it missing.
func lookupDirs(path string, visit func(dir string)) []string {
	var dirs []string
	if !filepath.IsAbs(path) {
		return nil // never asked: every path of a carving is absolute
	}
	cur := "/"
	comps := splitPath(path)
	links := 0
	for len(comps) > 0 {
		name := comps[0]
		comps = comps[1:]
		switch name {
		case ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		if !slices.Contains(dirs, cur) {
			visit(cur)
			dirs = append(dirs, cur)
		}
		next := filepath.Join(cur, name)
		fi, err := os.Lstat(next)
		if err != nil {
			return dirs
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			links++
			target, err := os.Readlink(next)
			if err != nil || links > maxLinks {
				return dirs
			}
			if filepath.IsAbs(target) {
				cur = "/"
			}
			comps = append(splitPath(target), comps...)
			continue
		}
		if !fi.IsDir() {
			return dirs
		}
		cur = next
	}
	return dirs
}

func splitPath(p string) []string {
	return strings.FieldsFunc(p, func(r rune) bool { return r == '/' })
}

func (fs probe) closed(path string, mask Access) bool {
	c := closedByDAC(path, mask)
	if fs.rec != nil {
		fs.rec.note(question{op: opClosed, path: path, mask: mask}, answer{ok: c})
	}
	return c
}

// readDir lists a directory. The directory's identity and times are taken before it is
// listed: a change between the two then shows as a newer change time, never as an old
// one beside a new listing.
func (fs probe) readDir(path string) ([]os.DirEntry, error) {
	var st dirState
	if fs.rec != nil {
		st = statDir(path, fs.rec.now())
	}
	entries, err := os.ReadDir(path)
	if fs.rec != nil {
		fs.rec.note(question{op: opReadDir, path: path}, answer{ok: err == nil, entries: digestEntries(entries), dirID: st})
	}
	return entries, err
}

// mkdirAll creates a directory and its parents, noting the change when it creates any.
func (fs probe) mkdirAll(path string) error {
	if _, err := os.Stat(path); err != nil {
		fs.changed()
	}
	return os.MkdirAll(path, 0o700)
}

// digestEntries digests the names and kinds of a listing: all that the carving reads of it.
func digestEntries(entries []os.DirEntry) [sha256.Size]byte {
	h := sha256.New()
	for _, e := range entries {
		var kind byte = 'f'
		switch {
		case e.Type()&fs.ModeSymlink != 0:
			kind = 'l'
		case e.IsDir():
			kind = 'd'
		}
		h.Write([]byte(e.Name()))
		h.Write([]byte{0, kind, '\n'})
	}
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}

// racyWindow is how recent a directory's change may be for its times to be no proof of
// its listing: file systems stamp times from a clock that ticks coarsely (a jiffy, or
// two seconds on FAT), so an entry added in the same tick as the listing leaves the
// times as they were. Such a directory is listed again at every check.
const racyWindow = 2 * time.Second

// holds reports whether every question of the record still gets the same answer.
//
// The directories' states are all taken first, before any question is asked again. So
// a directory whose recorded state proves nothing (it was racy, or it changed) but whose
// state now is old enough to prove its entries has every question that depends on it
// asked again after that state was taken: once all answers hold, the state proves them
// from then on, exactly as a state taken while carving does, and replaces the recorded
// one. Without that, a directory changed within racyWindow of the carving would be
// looked into again at every check for as long as the carving is kept.
func (r *record) holds() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.unusable {
		return false
	}
	check := probe{}
	now := r.now()
	states := make(map[string]dirState, len(r.dirs))
	for dir := range r.dirs {
		states[dir] = statDir(dir, now)
	}
	for q, a := range r.answers {
		if _, ok := states[q.path]; !ok && q.op == opReadDir && a.ok {
			states[q.path] = statDir(q.path, now)
		}
	}
	unchanged := func(dir string, was dirState) bool { return !was.racy && was.same(states[dir]) }
	proven := make(map[string]bool, len(r.dirs)) // the directories as they were, by their times
	for dir, was := range r.dirs {
		proven[dir] = unchanged(dir, was)
	}
	var listed []question // listings taken again, which the states now may prove
	for q, a := range r.answers {
		if deps, ok := r.deps[q]; ok && len(deps) > 0 && !slices.ContainsFunc(deps, func(d string) bool { return !proven[d] }) {
			continue // the directories that decide it are as they were
		}
		var got answer
		switch q.op {
		case opExists:
			got.ok = check.exists(q.path)
		case opStat:
			got.ok, got.dir = check.stat(q.path)
		case opReal:
			real, err := check.realPath(q.path)
			got.ok, got.real = err == nil, real
		case opClosed:
			got.ok = check.closed(q.path, q.mask)
		case opReadDir:
			// The times prove the listing unchanged when they are the same and old
			// enough; otherwise the directory is listed again.
			if a.ok && unchanged(q.path, a.dirID) {
				continue
			}
			entries, err := os.ReadDir(q.path)
			got.ok, got.entries, got.dirID = err == nil, digestEntries(entries), a.dirID
			if a.ok {
				listed = append(listed, q)
			}
		default:
			return false
		}
		if got != a {
			return false
		}
	}
	for dir := range r.dirs {
		if st := states[dir]; st.valid && !st.racy && !proven[dir] {
			r.dirs[dir] = st
		}
	}
	for _, q := range listed {
		if st := states[q.path]; st.valid && !st.racy {
			a := r.answers[q]
			a.dirID = st
			r.answers[q] = a
		}
	}
	return true
}
