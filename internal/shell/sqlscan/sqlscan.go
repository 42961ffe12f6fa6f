// Package sqlscan finds destructive statements in the text that database clients are given
// to run: SQL scripts (psql, mysql, sqlite3 and the like), redis-cli commands and mongo
// shell JavaScript. It reads that text lexically, skipping quoted text and comments, and
// does not parse it, connect to anything or know a database's schema; SQL built at run
// time (string concatenation, variables) and calls hidden behind JavaScript indirection
// are not seen.
package sqlscan

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"
)

// The finding ids, declared in Kinds.
const (
	// IDDrop is a statement that removes a database, table, column, key space or the like,
	// or empties one: DROP, TRUNCATE, ALTER … DROP, FLUSHALL, dropDatabase().
	IDDrop = "destructive.db.drop"
	// IDUnboundedWrite is a delete or update of every row or document: DELETE or UPDATE
	// without WHERE, deleteMany({}).
	IDUnboundedWrite = "destructive.db.unbounded-write"
	// IDRedisConfig is a redis CONFIG SET of dir or dbfilename, which points the dump
	// file elsewhere: a known way to write files (ssh keys, cron jobs) on the server.
	IDRedisConfig = "persistence.redis-config"
	// IDServerReach is a statement that reaches past the database into the server it
	// runs on, or hands out the database's every power: a program run (COPY … PROGRAM,
	// xp_cmdshell), code in an untrusted procedural language, files read or written on
	// the server (pg_read_file, lo_export, INTO OUTFILE, LOAD_FILE, LOAD DATA INFILE), an extension loaded (load_extension), or a superuser made.
	IDServerReach = "privilege.db-server"
	// IDGrant is a statement that hands out access to the database: GRANT, a user or
	// role created or altered (a password set, a login given), row-level security
	// switched off.
	IDGrant = "privilege.db-grant"
)

// Finding is a destructive statement found.
type Finding struct {
	ID       string // one of the IDs above
	Evidence string // the statement, whitespace collapsed and shortened to at most 80 bytes
}

// maxEvidence is the length of Finding.Evidence at most, in bytes.
const maxEvidence = 80

// evidence returns s with each run of ASCII whitespace made one space, trimmed, and cut to
// at most maxEvidence bytes, ending in "…" where it was cut. It reads only as much of s as
// it needs.
func evidence(s string) string {
	var b strings.Builder
	space := false
	for i := 0; i < len(s); {
		if isSpace(s[i]) {
			space = b.Len() > 0
			i++
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteString(s[i : i+size])
		i += size
		if b.Len() > maxEvidence {
			return cut(b.String())
		}
	}
	return b.String()
}

// cut shortens s, longer than maxEvidence, to maxEvidence bytes ending in "…", at a
// character boundary.
func cut(s string) string {
	const ellipsis = "…"
	n := maxEvidence - len(ellipsis)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return strings.TrimRight(s[:n], " ") + ellipsis
}

func isSpace(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\v', '\f', '\r':
		return true
	}
	return false
}

// A finding at an offset of the text, so findings from several passes can be ordered.
type placed struct {
	Finding
	at int
}

// collect orders findings by where they were found and drops repeats, keeping the first.
func collect(found []placed) []Finding {
	slices.SortStableFunc(found, func(a, b placed) int { return cmp.Compare(a.at, b.at) })
	var out []Finding
	seen := make(map[Finding]bool)
	for _, f := range found {
		if !seen[f.Finding] {
			seen[f.Finding] = true
			out = append(out, f.Finding)
		}
	}
	return out
}
