package audit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Incident kinds: what a writer met that kept a record out of the log, or put a rotation
// off. Writers append them to Path.incidents, which Inspect reads.
const (
	// A record went to a spool file: the lock was busy, or a write failed.
	incidentSpooled = "spooled"
	// A file of the log was refused (a link, not a regular file, another user's); the
	// record went to a spool file.
	incidentRefused = "refused"
	// A record could be neither written nor spooled.
	incidentLost = "lost"
	// Lines of a spool file were not records, and were dropped when it was merged.
	incidentDropped = "dropped"
	// A rotation was put off, because the records it would drop could not be kept.
	incidentNotRotated = "not-rotated"
)

// Incident is one line of the incidents file.
type Incident struct {
	Time   time.Time `json:"time"`
	Kind   string    `json:"kind"`
	PID    int       `json:"pid"`
	Detail string    `json:"detail"`
}

// incidentsPath names the file where writers note their incidents.
func incidentsPath(path string) string { return path + ".incidents" }

// maxIncidentsBytes is the size at which the incidents file is moved to Path.incidents.1
// (replacing it): a writer that meets the same problem at every call must not fill the
// disk with it.
const maxIncidentsBytes = 64 << 10

// incident notes what happened, best effort: the incidents file lives beside the log and
// may be as unwritable as the log itself; the caller reports the error anyway.
func (l *Log) incident(kind, detail string) {
	now := time.Now
	if l.now != nil {
		now = l.now
	}
	line, err := json.Marshal(Incident{Time: now().UTC(), Kind: kind, PID: os.Getpid(), Detail: l.redactor.RedactString(detail)})
	if err != nil {
		return
	}
	name := incidentsPath(l.path)
	f, err := openChecked(name, os.O_WRONLY|os.O_APPEND|os.O_CREATE)
	if err != nil {
		return
	}
	if fi, err := f.Stat(); err == nil && fi.Size() > maxIncidentsBytes {
		if os.Rename(name, name+".1") == nil {
			f.Close()
			if f, err = openChecked(name, os.O_WRONLY|os.O_APPEND|os.O_CREATE); err != nil {
				return
			}
		}
	}
	defer f.Close()
	_, _ = f.Write(append(line, '\n'))
}

// Health is how well the log at Path is kept, as the files beside it show.
type Health struct {
	Path string `json:"path"`
	// Waiting counts the records in spool files, not merged into the log yet; Spools
	// lists those files, oldest first.
	Waiting int     `json:"waiting"`
	Spools  []Spool `json:"spools,omitempty"`
	// Refused lists the files of the log (and its directory) that a writer would refuse
	// now.
	Refused []Refusal `json:"refused,omitempty"`
	// Unwritable says why no record can be written or spooled in the log's directory;
	// empty when one can.
	Unwritable string `json:"unwritable,omitempty"`
	// Incidents counts, by kind ("spooled", "refused", "lost", "dropped",
	// "not-rotated"), what writers met, as far back as the incidents file goes; Last is
	// the latest of them.
	Incidents map[string]int `json:"incidents,omitempty"`
	Last      *Incident      `json:"last_incident,omitempty"`
}

// Refusal is a file a writer refuses, and why.
type Refusal struct {
	Path string `json:"path"`
	Why  string `json:"why"`
}

func (r Refusal) String() string { return r.Path + ": " + r.Why }

func refusal(err error) Refusal {
	if re := (*RefusedError)(nil); errors.As(err, &re) {
		return Refusal{Path: re.Path, Why: re.Why}
	}
	return Refusal{Why: err.Error()}
}

// Spool is one spool file waiting to be merged.
type Spool struct {
	Path    string    `json:"path"`
	Records int       `json:"records"`
	Since   time.Time `json:"since"`
}

// Sound reports whether records can be written to the log now and none is waiting.
func (h Health) Sound() bool {
	return h.Waiting == 0 && len(h.Refused) == 0 && h.Unwritable == ""
}

// Inspect looks at the files of the log at path without writing anything: the spool
// files waiting, the files a writer would refuse, whether its directory is writable, and
// the incidents writers noted. It fails only when the directory cannot be listed.
func Inspect(path string) (Health, error) {
	h := Health{Path: path}
	dir := filepath.Dir(path)
	if err := checkDir(dir); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return h, nil // no decision recorded yet; the first writer creates it
		}
		h.Refused = append(h.Refused, refusal(err))
	}
	if err := dirWritable(dir); err != nil {
		h.Unwritable = fmt.Sprintf("%s: %v", dir, err)
	}
	names := []string{path, lockPath(path), keptPath(path), keptOldPath(path), incidentsPath(path)}
	nums, err := rotatedNumbers(path)
	if err != nil {
		return h, fmt.Errorf("inspect audit log %s: %w", path, err)
	}
	for _, n := range nums {
		names = append(names, rotatedPath(path, n))
	}
	for _, name := range names {
		if err := inspectFile(name); err != nil {
			h.Refused = append(h.Refused, refusal(err))
		}
	}
	spools, err := spoolFiles(path)
	if err != nil {
		return h, fmt.Errorf("inspect audit log %s: %w", path, err)
	}
	for _, name := range spools {
		s := Spool{Path: name, Since: spoolTime(name)}
		if err := inspectFile(name); err != nil {
			h.Refused = append(h.Refused, refusal(err))
		}
		if data, err := readSmall(name, 4*maxSpoolBytes); err == nil {
			s.Records = bytes.Count(data, []byte{'\n'})
		}
		if s.Records == 0 {
			continue // the shared spool, empty; a spool file being begun
		}
		h.Waiting += s.Records
		h.Spools = append(h.Spools, s)
	}
	h.Incidents, h.Last = readIncidents(path)
	return h, nil
}

// inspectFile says why a writer would refuse the file at path; nil when it would not, or
// there is none.
func inspectFile(path string) error {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case fi.Mode()&fs.ModeSymlink != 0:
		return refused(path, "it is a symbolic link"+linkTarget(path))
	}
	return checkFile(path, fi)
}

// spoolTime is when a spool file was begun, from its name.
func spoolTime(name string) time.Time {
	rest := name[strings.LastIndex(name, spoolInfix)+len(spoolInfix):]
	nanos, _, _ := strings.Cut(rest, "-")
	if n, err := strconv.ParseInt(nanos, 10, 64); err == nil {
		return time.Unix(0, n).UTC()
	}
	if fi, err := os.Lstat(name); err == nil {
		return fi.ModTime().UTC()
	}
	return time.Time{}
}

// readSmall reads at most limit bytes of a regular file, without following a link.
func readSmall(path string, limit int64) ([]byte, error) {
	f, err := openChecked(path, os.O_RDONLY)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, limit))
}

// readIncidents counts the incidents of both generations of the incidents file.
func readIncidents(path string) (map[string]int, *Incident) {
	counts := map[string]int{}
	var last *Incident
	for _, name := range []string{incidentsPath(path) + ".1", incidentsPath(path)} {
		data, err := readSmall(name, 4*maxIncidentsBytes)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, len(data)+1)
		for sc.Scan() {
			var in Incident
			if json.Unmarshal(sc.Bytes(), &in) != nil || in.Kind == "" {
				continue
			}
			counts[in.Kind]++
			if last == nil || !in.Time.Before(last.Time) {
				last = &in
			}
		}
	}
	if len(counts) == 0 {
		return nil, nil
	}
	return counts, last
}
