package audit

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Kinds of Issue. Every kind but IssueUnchained and IssueCutOff is a problem: the trail
// is not as moat wrote it.
const (
	// A record was changed after it was written: the record after it chains to another
	// version of it (or, for the last record, the head does).
	IssueEdited = "edited"
	// Records are missing before this one (its number jumps).
	IssueDeleted = "deleted"
	// A record moat did not write there: nothing chains to it.
	IssueInserted = "inserted"
	// A record is not where it was written.
	IssueReordered = "reordered"
	// The log ends before the last record written: the head names a record that is gone.
	IssueTruncated = "truncated"
	// A record chains to no record of the log, for a reason Verify cannot name.
	IssueBroken = "broken"
	// A line that is not a record.
	IssueMalformed = "malformed"
	// A file of the log that a writer refuses: a link, not a regular file, another
	// user's; or a directory others may write to.
	IssueRefused = "refused"
	// A record without a chain, as moats before chaining wrote them. Not a problem: they
	// are reported so that the reader knows what the chain does not vouch for.
	IssueUnchained = "unchained"
	// The start of a record whose writer was killed while writing it (a kill -9 can stop
	// a write between two pages of the file), ended by the next writer's newline. Not a
	// problem: the record after it chains to the record before it (or, at the end, the
	// head names that record), so the chain vouches that no record is missing.
	IssueCutOff = "cut-off"
)

// Issue is one thing Verify found.
type Issue struct {
	File    string `json:"file"`
	Line    int    `json:"line,omitempty"`
	Seq     uint64 `json:"seq,omitempty"`
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

func (i Issue) String() string {
	where := i.File
	if i.Line > 0 {
		where = fmt.Sprintf("%s:%d", i.File, i.Line)
	}
	return fmt.Sprintf("%s: %s: %s", where, i.Kind, i.Message)
}

// Report is what Verify found.
type Report struct {
	Path string `json:"path"`
	// OK is true when no issue is a problem (unchained records are not).
	OK bool `json:"ok"`
	// Files are the files read, oldest first.
	Files []string `json:"files"`
	// Records counts the well-formed records; Unchained those without a chain.
	Records   int `json:"records"`
	Unchained int `json:"unchained"`
	// FirstSeq and LastSeq number the first and last chained records of the rotated and
	// active files.
	FirstSeq uint64 `json:"first_seq,omitempty"`
	LastSeq  uint64 `json:"last_seq,omitempty"`
	// FromStart is true when the trail begins with the first record the log ever had;
	// false when earlier ones were rotated away (or the trail began under an older moat).
	FromStart bool `json:"from_start"`
	// Last is the time of the newest record.
	Last time.Time `json:"last,omitzero"`
	// Issues lists what was found, in the order of the files.
	Issues []Issue `json:"issues"`
}

// Problems counts the issues that are problems.
func (r *Report) Problems() int {
	n := 0
	for _, i := range r.Issues {
		if i.Kind != IssueUnchained && i.Kind != IssueCutOff {
			n++
		}
	}
	return n
}

// entry is one well-formed record of the trail as Verify sees it.
type entry struct {
	file  string
	line  int
	hash  string
	seq   uint64
	chain string
}

// Verify walks the log at path (its kept files, rotated files and active file) and checks
// the chain of its records: each record must chain to the line before it, the numbers
// must follow each other, and the log must end with the record the head in the lock file
// names. It reports every record that breaks the chain, with what most likely happened:
// an edited, deleted, inserted or reordered record, a cut tail; and malformed lines and
// refused files. The kept files hold a chain of their own, checked the same way.
//
// The first record of the trail cannot be checked against anything: the records before
// it were rotated away, unless it is the first record the log had (FromStart).
//
// Verify returns an error only when the log cannot be read; one wrapping fs.ErrNotExist
// when there is none.
func Verify(path string) (*Report, error) {
	rep := &Report{Path: path, Issues: []Issue{}}
	var h head
	haveHead := false
	refusedFn := func(err error) {
		rep.Issues = append(rep.Issues, refusedIssue(err))
	}
	files, err := snapshot(path, refusedFn, func(lock *os.File) { h, haveHead = readHead(lock) })
	defer func() {
		for _, sf := range files {
			sf.f.Close()
		}
	}()
	switch {
	case err != nil && errors.Is(err, ErrRefused) && len(rep.Issues) > 0:
		// Only refused files: the report says so.
	case err != nil:
		return nil, fmt.Errorf("verify audit log %s: %w", path, err)
	}
	if err := checkDir(filepath.Dir(path)); err != nil {
		rep.Issues = append(rep.Issues, refusedIssue(err))
	}
	var kept, main []entry
	var bad []badLine // malformed lines of the rotated and active files
	for _, sf := range files {
		rep.Files = append(rep.Files, sf.name)
		if err := inspectFile(sf.name); err != nil {
			rep.Issues = append(rep.Issues, refusedIssue(err))
		}
		isKept := sf.name == keptPath(path) || sf.name == keptOldPath(path)
		err := scanFile(sf, func(line []byte, lineNo int, r Record, perr error) error {
			if perr != nil {
				why := perr.Error()
				if line[len(line)-1] != '\n' {
					why = "a line cut off: " + why
				}
				issue := Issue{File: sf.name, Line: lineNo, Kind: IssueMalformed, Message: why}
				if !isKept {
					bad = append(bad, badLine{issue: len(rep.Issues), after: len(main), recordStart: bytes.HasPrefix(line, []byte("{"))})
				}
				rep.Issues = append(rep.Issues, issue)
				return nil
			}
			rep.Records++
			if r.Time.After(rep.Last) {
				rep.Last = r.Time
			}
			e := entry{file: sf.name, line: lineNo, hash: lineHash(line), seq: r.Seq, chain: r.Chain}
			if isKept {
				kept = append(kept, e)
			} else {
				main = append(main, e)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("verify audit log %s: %w", path, err)
		}
	}
	rep.checkChain(kept, true)
	rep.FromStart = rep.checkChain(main, false)
	rep.checkBeginning(main, path)
	for _, e := range main {
		if e.chain == "" {
			continue
		}
		if rep.FirstSeq == 0 {
			rep.FirstSeq = e.seq
		}
		rep.LastSeq = e.seq
	}
	if haveHead {
		rep.checkHead(main, h)
	}
	rep.classifyCutOff(bad, main, h, haveHead)
	rep.OK = rep.Problems() == 0
	return rep, nil
}

// badLine is a malformed line of the rotated and active files, as Verify met it.
type badLine struct {
	issue       int  // its Issue in Report.Issues
	after       int  // how many records of the chain came before it
	recordStart bool // it begins as a record does
}

// classifyCutOff turns the malformed lines that are records cut off by a killed writer
// into IssueCutOff: a line that begins as a record, between two records that chain to
// each other (or after the last record, which the head names). Anything else stays
// malformed: a line in the middle of a chain it breaks, or one that is no record's start.
func (rep *Report) classifyCutOff(bad []badLine, main []entry, h head, haveHead bool) {
	for _, b := range bad {
		if !b.recordStart || b.after == 0 {
			continue
		}
		prev := main[b.after-1]
		if prev.chain == "" {
			continue
		}
		switch {
		case b.after < len(main):
			if main[b.after].chain != prev.hash {
				continue
			}
		case !haveHead || h.hash != prev.hash:
			continue
		}
		issue := &rep.Issues[b.issue]
		issue.Kind = IssueCutOff
		issue.Message = fmt.Sprintf("a record cut off while it was written (its writer was killed); the chain runs on from %s, so no record is missing", where(prev))
	}
}

func refusedIssue(err error) Issue {
	return Issue{File: refusal(err).Path, Kind: IssueRefused, Message: err.Error()}
}

// checkChain checks one chain of entries and reports whether it begins with the first
// record its log had. kept chains number their records with gaps (only some were kept).
func (rep *Report) checkChain(entries []entry, kept bool) (fromStart bool) {
	index := make(map[string]int, len(entries))
	chainedTo := make(map[string]bool, len(entries))
	for i, e := range entries {
		index[e.hash] = i
		if e.chain != "" {
			chainedTo[e.chain] = true
		}
	}
	add := func(e entry, kind, msg string, args ...any) {
		rep.Issues = append(rep.Issues, Issue{File: e.file, Line: e.line, Seq: e.seq, Kind: kind, Message: fmt.Sprintf(msg, args...)})
	}
	prev := -1 // the last chained record
	for i, e := range entries {
		if e.chain == "" {
			rep.Unchained++
			if prev >= 0 {
				add(e, IssueUnchained, "a record without a chain after chained ones: written by an older moat, or inserted")
			}
			continue
		}
		if prev < 0 {
			prev = i
			switch q, found := index[e.chain]; {
			case e.chain == chainStart:
				fromStart = true
			case found && q > i:
				add(e, IssueReordered, "the record chains to a record that comes after it (%s)", where(entries[q]))
			}
			continue
		}
		p := entries[prev]
		if e.chain == p.hash || e.chain == entries[i-1].hash {
			// The second: a writer that found no head chained to the unchained record
			// before it.
			prev = i
			continue
		}
		q, found := index[e.chain]
		switch {
		case e.chain == chainStart:
			add(e, IssueBroken, "the chain starts again here: the records before it are not the ones this log began with")
		case found && q > i:
			add(e, IssueReordered, "the record was written after %s, which comes later", where(entries[q]))
		case found && q < i:
			inserted := false
			for _, x := range entries[q+1 : i] {
				if x.chain != "" && !chainedTo[x.hash] {
					add(x, IssueInserted, "moat did not write this record here: %s is followed by %s in the chain", where(entries[q]), where(e))
					inserted = true
				}
			}
			if !inserted {
				add(e, IssueReordered, "the record was written right after %s", where(entries[q]))
			}
		case kept:
			add(e, IssueBroken, "the kept record before this one was changed or removed: this one chains to no kept record")
		case p.seq > 0 && e.seq == p.seq+1:
			add(p, IssueEdited, "record %d was changed after it was written: record %d (%s) chains to another version of it", p.seq, e.seq, where(e))
		case p.seq > 0 && e.seq > p.seq+1:
			add(e, IssueDeleted, "records %s are missing before this one", seqSpan(p.seq+1, e.seq-1))
		default:
			add(e, IssueBroken, "the record chains to no record of the log (the one before it is %s)", where(p))
		}
		prev = i
	}
	return fromStart
}

// checkBeginning reports records missing before the first one of the trail when no
// rotation can have taken them: the trail begins in the active file, and no rotated file
// is left. (Rotation drops whole files, and keeps Keep of them.)
func (rep *Report) checkBeginning(main []entry, path string) {
	for i, e := range main {
		if e.chain == "" {
			continue
		}
		if e.chain == chainStart || e.file != path || e.seq <= 1 || (i > 0 && e.chain == main[i-1].hash) {
			return
		}
		for _, f := range rep.Files {
			if f != path && f != keptPath(path) && f != keptOldPath(path) {
				return
			}
		}
		rep.Issues = append(rep.Issues, Issue{File: e.file, Line: e.line, Seq: e.seq, Kind: IssueDeleted,
			Message: fmt.Sprintf("records %s are missing before this one, and no rotated file is left that they could have gone to", seqSpan(1, e.seq-1))})
		return
	}
}

// checkHead checks that the trail ends with the record the head names.
func (rep *Report) checkHead(main []entry, h head) {
	var last *entry
	for i := range main {
		if main[i].chain != "" {
			last = &main[i]
		}
	}
	add := func(file string, line int, seq uint64, kind, msg string, args ...any) {
		rep.Issues = append(rep.Issues, Issue{File: file, Line: line, Seq: seq, Kind: kind, Message: fmt.Sprintf(msg, args...)})
	}
	if last == nil {
		add(rep.Path, 0, 0, IssueTruncated, "the log holds no chained record, but its lock file says %d were written", h.seq)
		return
	}
	if last.hash == h.hash {
		return
	}
	for _, e := range main {
		if e.hash == h.hash {
			return // records after the head's were written without updating it: they are checked above
		}
	}
	switch {
	case last.seq == h.seq:
		add(last.file, last.line, last.seq, IssueEdited, "record %d, the last one, was changed after it was written: the lock file names another version of it", last.seq)
	case last.seq < h.seq:
		add(last.file, last.line, last.seq, IssueTruncated, "the log ends early: records %s, written after this one, are missing", seqSpan(last.seq+1, h.seq))
	default:
		add(last.file, last.line, last.seq, IssueBroken, "the log does not end with the record its lock file names (record %d)", h.seq)
	}
}

func where(e entry) string {
	return fmt.Sprintf("record %d at %s:%d", e.seq, e.file, e.line)
}

func seqSpan(from, to uint64) string {
	if from == to {
		return fmt.Sprint(from)
	}
	return fmt.Sprintf("%d to %d", from, to)
}

// Summary says in one line what the report found.
func (r *Report) Summary() string {
	var b strings.Builder
	if r.OK {
		fmt.Fprintf(&b, "the audit trail verifies: %d %s in %d %s", r.Records, plural(r.Records, "record", "records"), len(r.Files), plural(len(r.Files), "file", "files"))
	} else {
		fmt.Fprintf(&b, "the audit trail is broken: %d %s in %d records in %d files", r.Problems(), plural(r.Problems(), "problem", "problems"), r.Records, len(r.Files))
	}
	if r.LastSeq > 0 {
		fmt.Fprintf(&b, ", chained from record %d to %d", r.FirstSeq, r.LastSeq)
		if r.FromStart {
			b.WriteString(" (the first record of the log)")
		} else {
			b.WriteString(" (earlier records were rotated away)")
		}
	}
	if r.Unchained > 0 {
		fmt.Fprintf(&b, "; %d %s written without a chain (by an older moat) are not vouched for", r.Unchained, plural(r.Unchained, "record", "records"))
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
