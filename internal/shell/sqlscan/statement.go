package sqlscan

import (
	"strings"
	"sync"
)

// role is what a keyword may mean to the rules of a statement.
type role uint8

const (
	dropObject      role = 1 << iota // after DROP, names what is dropped
	dropModifier                     // may stand between DROP and what it drops
	deleteModifier                   // may stand between MySQL's DELETE and FROM
	notName                          // shows that no object is named where one may be
	notBeforeUpdate                  // before UPDATE, shows that it does not start an UPDATE
)

// keywordID names the keywords that have rules of their own.
type keywordID uint8

const (
	otherKeyword keywordID = iota
	kwAlter
	kwDelete
	kwDo
	kwDrop
	kwExecute
	kwFrom
	kwImmediate
	kwPrepare
	kwSet
	kwTruncate
	kwUpdate
	kwWhere
	kwGrant
	kwCreate
	kwDisable
	kwRestore
)

type keywordInfo struct {
	id    keywordID
	roles role
}

// keywords are the words the rules look for. A word not listed may be a name. The map is
// built on first use: Go builds a map literal at run time, and a process that scans no
// SQL should not pay for it.
var keywords = sync.OnceValue(func() map[string]keywordInfo {
	return map[string]keywordInfo{
		// What DROP drops. (What may follow DROP only inside ALTER, like PRIMARY KEY, is
		// caught by the ALTER rule.)
		"ACCESS": {roles: dropObject}, "AGGREGATE": {roles: dropObject}, "CAST": {roles: dropObject},
		"COLLATION": {roles: dropObject}, "COLUMN": {roles: dropObject}, "COLUMNFAMILY": {roles: dropObject},
		"CONSTRAINT": {roles: dropObject}, "CONVERSION": {roles: dropObject}, "DATABASE": {roles: dropObject},
		"DICTIONARY": {roles: dropObject}, "DOMAIN": {roles: dropObject}, "EVENT": {roles: dropObject},
		"EXTENSION": {roles: dropObject}, "FOREIGN": {roles: dropObject}, "FUNCTION": {roles: dropObject},
		"GROUP": {roles: dropObject}, "INDEX": {roles: dropObject}, "KEYSPACE": {roles: dropObject},
		"LANGUAGE": {roles: dropObject}, "LOGIN": {roles: dropObject}, "MATERIALIZED": {roles: dropObject},
		"OPERATOR": {roles: dropObject}, "OWNED": {roles: dropObject}, "PACKAGE": {roles: dropObject},
		"PARTITION": {roles: dropObject}, "POLICY": {roles: dropObject}, "PROCEDURE": {roles: dropObject},
		"PUBLICATION": {roles: dropObject}, "ROLE": {roles: dropObject}, "ROUTINE": {roles: dropObject},
		"RULE": {roles: dropObject}, "SCHEMA": {roles: dropObject}, "SEQUENCE": {roles: dropObject},
		"SERVER": {roles: dropObject}, "STATISTICS": {roles: dropObject}, "SUBSCRIPTION": {roles: dropObject},
		"SYNONYM": {roles: dropObject}, "TABLE": {roles: dropObject}, "TABLESPACE": {roles: dropObject},
		"TEXT": {roles: dropObject}, "TRANSFORM": {roles: dropObject}, "TRIGGER": {roles: dropObject},
		"TYPE": {roles: dropObject}, "USER": {roles: dropObject}, "VIEW": {roles: dropObject},

		"TEMPORARY": {roles: dropModifier}, "TEMP": {roles: dropModifier},
		"ONLINE": {roles: dropModifier}, "OFFLINE": {roles: dropModifier},

		"LOW_PRIORITY": {roles: deleteModifier}, "QUICK": {roles: deleteModifier}, "IGNORE": {roles: deleteModifier},

		// Not names after DROP in ALTER, after TRUNCATE and after UPDATE: ALTER COLUMN c DROP
		// DEFAULT, GRANT TRUNCATE ON t, ON UPDATE SET NULL.
		"ALL": {roles: notName}, "AND": {roles: notName}, "AS": {roles: notName},
		"BY": {roles: notName}, "CASCADE": {roles: notName}, "DEFAULT": {roles: notName},
		"EXPRESSION": {roles: notName}, "IDENTITY": {roles: notName}, "IN": {roles: notName},
		"IS": {roles: notName}, "NOT": {roles: notName}, "NOWAIT": {roles: notName},
		"NULL": {roles: notName}, "OF": {roles: notName}, "OR": {roles: notName},
		"RESTRICT": {roles: notName}, "TO": {roles: notName}, "WITH": {roles: notName},
		"ON": {roles: notName | notBeforeUpdate},

		// ON UPDATE, DO UPDATE, ON DUPLICATE KEY UPDATE, FOR UPDATE.
		"KEY": {roles: notBeforeUpdate}, "FOR": {roles: notBeforeUpdate},

		"ALTER": {id: kwAlter}, "DELETE": {id: kwDelete}, "DO": {kwDo, notBeforeUpdate},
		"DROP": {id: kwDrop}, "EXECUTE": {id: kwExecute}, "FROM": {kwFrom, notName},
		"IMMEDIATE": {id: kwImmediate}, "PREPARE": {id: kwPrepare}, "SET": {kwSet, notName},
		"TRUNCATE": {id: kwTruncate}, "UPDATE": {id: kwUpdate}, "WHERE": {kwWhere, notName},
		"GRANT": {id: kwGrant}, "CREATE": {id: kwCreate}, "DISABLE": {id: kwDisable},
		"RESTORE": {id: kwRestore},
	}
})

// maxKeyword is the length of the longest keyword.
const maxKeyword = 12

// keyword returns what the rules know of t, the zero keywordInfo for a word that is not a
// keyword or another token. It does not allocate.
func keyword(t token) keywordInfo {
	if t.kind != word || len(t.text) > maxKeyword {
		return keywordInfo{}
	}
	var buf [maxKeyword]byte
	for i := range len(t.text) {
		c := t.text[i]
		if 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		buf[i] = c
	}
	return keywords()[string(buf[:len(t.text)])]
}

// isName reports whether t, whose keyword info is k, may name a table, column or the like.
func isName(t token, k keywordInfo) bool {
	switch t.kind {
	case name, str:
		return true
	case word:
		return k.roles&notName == 0
	}
	return false
}

// expectation is what a keyword just read waits for in the next token.
type expectation uint8

const (
	expectNothing     expectation = iota
	expectDropped                 // after DROP: modifiers, then what is dropped
	expectTruncated               // after TRUNCATE: a name
	expectFrom                    // after DELETE: modifiers, then FROM
	expectUpdated                 // after UPDATE: a name
	expectRun                     // after EXECUTE: IMMEDIATE, then a string to run
	expectPrepared                // after PREPARE: a name
	expectPrepareFrom             // after PREPARE name: FROM
	expectPrepareText             // after PREPARE name FROM: a string to run
	expectRestored                // after a statement's first RESTORE: what is restored
)

// clause is what is known, at one depth of parentheses, of a DELETE or UPDATE that no
// WHERE has yet limited.
type clause struct {
	deleting bool // DELETE FROM seen
	updateOf bool // UPDATE name seen, SET not yet
	updating bool // UPDATE name … SET seen
}

// statement follows the statement being read, token by token, so that memory does not
// grow with its length (but for the clauses, one per depth of parentheses).
type statement struct {
	tokens      int
	start, stop int       // the extent of the tokens read, in the text read
	skip        bool      // the statement cannot run: its first token starts no statement
	alter       bool      // an ALTER statement, in which DROP name drops a column
	do          bool      // a DO statement, whose strings are code run at once
	drop        bool      // found
	unbounded   bool      // found
	reach       bool      // found: IDServerReach
	grant       bool      // found: IDGrant
	first       keywordID // the first token's
	granting    bool      // a GRANT statement
	userStmt    bool      // CREATE or ALTER of a USER or ROLE
	prevStar    bool      // the tokens just read are * or *. (of *.*)
	copying     bool      // a COPY statement, whose PROGRAM runs a command
	setColumn   string    // in an UPDATE's SET list: the column just named, before its =
	setValue    bool      // … and its = read: the next token is the value
	prevReach   reachRole // what the previous token said of reaching the server
	depth       int
	expect      expectation
	prev        keywordInfo // the previous token's
	clauses     []clause    // by depth
	// where follows the condition of the outermost WHERE of a DELETE or UPDATE.
	where condition
}

// token reads the next token of the statement.
func (s *statement) token(r *reading, t token) {
	if s.tokens == 0 {
		s.start = t.start
		// No statement starts with punctuation but a parenthesised query or a PL/pgSQL
		// <<label>>: such a statement fails without running. This is what keeps text
		// commented out in the other dialect's way (# in MySQL, --x in PostgreSQL) from
		// being reported.
		s.skip = t.kind == punct && t.text != "(" && t.text != "<"
	}
	s.tokens++
	s.stop = t.end
	if s.skip {
		return
	}
	if t.kind == punct && t.text == ")" && s.depth > 0 {
		s.depth--
	}
	depth := s.depth
	if t.kind == punct && t.text == "(" {
		s.depth++
	}
	if s.where.active && !s.where.add(t, depth) {
		s.endWhere()
	}
	s.closeTo(depth)
	for len(s.clauses) <= depth {
		s.clauses = append(s.clauses, clause{})
	}
	c := &s.clauses[depth]
	k := keyword(t)

	switch s.expect {
	case expectDropped:
		if k.roles&dropModifier != 0 {
			return
		}
		if k.roles&dropObject != 0 || s.alter && isName(t, k) {
			s.drop = true
		}
	case expectTruncated:
		if isName(t, k) {
			s.drop = true
		}
	case expectFrom:
		if k.roles&deleteModifier != 0 {
			return
		}
		if k.id == kwFrom {
			c.deleting = true
		}
	case expectUpdated:
		if isName(t, k) {
			c.updateOf = true
		}
	case expectRun:
		if k.id == kwImmediate {
			return
		}
		if t.kind == str {
			r.body(t)
		}
	case expectPrepared:
		s.expect, s.prev = expectPrepareFrom, k
		return
	case expectPrepareFrom:
		if k.id == kwFrom {
			s.expect, s.prev = expectPrepareText, k
			return
		}
	case expectPrepareText:
		if t.kind == str {
			r.body(t)
		}
	case expectRestored:
		// SQL Server's RESTORE DATABASE puts a backup in place of the database's
		// data (WITH REPLACE over any other database of that name).
		if k.roles&dropObject != 0 && strings.EqualFold(t.text, "DATABASE") {
			s.drop = true
		}
	}
	s.expect = expectNothing

	if s.reachesServer(t) {
		s.reach = true
	}
	if s.grants(t, k) || c.updating && s.setsPrivilege(t, k) {
		s.grant = true
	}
	switch k.id {
	case kwAlter:
		s.alter = true
	case kwDrop:
		s.expect = expectDropped
	case kwTruncate:
		s.expect = expectTruncated
	case kwDelete:
		s.expect = expectFrom
	case kwUpdate:
		if s.prev.roles&notBeforeUpdate == 0 {
			s.expect = expectUpdated
		}
	case kwSet:
		if c.updateOf {
			c.updateOf, c.updating = false, true
		}
	case kwWhere:
		if (c.deleting || c.updating) && !s.where.active {
			s.where.start(depth)
		}
		*c = clause{}
	case kwDo:
		// PostgreSQL's DO runs the code in its string at once.
		s.do = s.tokens == 1 && r.d == standard
	case kwExecute:
		s.expect = expectRun
	case kwPrepare:
		s.expect = expectPrepared
	case kwRestore:
		if s.tokens == 1 {
			s.expect = expectRestored
		}
	}
	if s.do && t.kind == str && depth == 0 {
		r.body(t)
	}
	s.prev = k
}

// grants reports whether t, whose keyword info is k, makes the statement hand out access
// beyond a grant of some privileges to a named user, which migrations do every day: a
// GRANT of ALL, on every database (*.*), to PUBLIC or any host ('%'), or WITH GRANT
// OPTION; a user or role created or altered with a password (CREATE|ALTER USER|ROLE …
// PASSWORD, IDENTIFIED BY); row-level security switched off (ALTER … DISABLE ROW).
func (s *statement) grants(t token, k keywordInfo) bool {
	switch {
	case s.tokens == 1:
		s.first = k.id
		s.granting = k.id == kwGrant
		return false
	case s.tokens == 2 && (s.first == kwCreate || s.first == kwAlter) && t.kind == word &&
		(strings.EqualFold(t.text, "USER") || strings.EqualFold(t.text, "ROLE")):
		s.userStmt = true
		return false
	case s.userStmt:
		return t.kind == word && (strings.EqualFold(t.text, "PASSWORD") || strings.EqualFold(t.text, "IDENTIFIED"))
	case s.granting:
		switch {
		case s.tokens == 2 && t.kind == word && strings.EqualFold(t.text, "ALL"):
			return true
		case t.kind == word && (strings.EqualFold(t.text, "PUBLIC") || strings.EqualFold(t.text, "OPTION")):
			return true
		case t.kind == str && strings.Trim(t.text, `'"`) == "%":
			return true
		case t.kind == punct && t.text == "*" && s.prevStar:
			return true // *.*
		}
		s.prevStar = t.kind == punct && (t.text == "*" || t.text == ".") && (s.prevStar || t.text == "*")
		return false
	}
	return s.alter && s.prev.id == kwDisable && t.kind == word && strings.EqualFold(t.text, "ROW")
}

// setsPrivilege follows an UPDATE's SET list and reports an assignment that makes an
// account an administrator in the application's own tables: is_admin = true,
// is_superuser = 1, role = 'admin'. Applications keep their users' rights in rows, so
// this is the GRANT of an application: privilege.db-grant.
func (s *statement) setsPrivilege(t token, k keywordInfo) bool {
	switch {
	case s.setValue:
		col := s.setColumn
		s.setColumn, s.setValue = "", false
		return privilegeAssignment(col, t)
	case t.kind == punct && t.text == "=" && s.setColumn != "":
		s.setValue = true
	case (t.kind == word || t.kind == name) && k.id == otherKeyword:
		s.setColumn = strings.ToLower(t.text)
	default:
		s.setColumn = ""
	}
	return false
}

// privilegeAssignment reports whether setting column col to the value t makes an
// administrator: a flag of one set true, or a role set to one.
func privilegeAssignment(col string, t token) bool {
	col = strings.Trim(col, "`\"[]")
	if i := strings.LastIndexByte(col, '.'); i >= 0 {
		col = col[i+1:]
	}
	v := strings.ToLower(strings.Trim(t.text, "'\""))
	switch col {
	case "is_admin", "isadmin", "admin", "is_superuser", "issuperuser", "superuser", "is_staff", "isstaff",
		"is_root", "is_super_admin", "rolsuper", "is_owner":
		return v == "true" || v == "1" || v == "t" || v == "y" || v == "yes"
	case "role", "roles", "user_role", "userrole", "account_role", "access_level", "accesslevel", "user_type",
		"usertype", "account_type", "permission_level", "privileges", "group", "user_group":
		switch v {
		case "admin", "administrator", "superuser", "super_admin", "superadmin", "owner", "root", "sysadmin":
			return true
		}
	}
	return false
}

// endWhere ends the condition followed: one that holds for every row limits nothing.
func (s *statement) endWhere() {
	if s.where.always() {
		s.unbounded = true
	}
	s.where.active = false
}

// closeTo ends the clauses deeper than depth, noting those no WHERE limited.
func (s *statement) closeTo(depth int) {
	for len(s.clauses) > depth+1 {
		if c := s.clauses[len(s.clauses)-1]; c.deleting || c.updating {
			s.unbounded = true
		}
		s.clauses = s.clauses[:len(s.clauses)-1]
	}
}

// end reports what the statement does and starts the next one.
func (s *statement) end(r *reading) {
	if s.tokens > 0 && !s.skip {
		if s.where.active {
			s.endWhere()
		}
		s.closeTo(-1)
		var ev string
		for _, f := range []struct {
			found bool
			id    string
		}{{s.drop, IDDrop}, {s.unbounded, IDUnboundedWrite}, {s.reach, IDServerReach}, {s.grant, IDGrant}} {
			if !f.found {
				continue
			}
			if ev == "" {
				ev = evidence(r.src[s.start:s.stop])
			}
			*r.out = append(*r.out, placed{Finding{ID: f.id, Evidence: ev}, r.base + s.start})
		}
	}
	*s = statement{clauses: s.clauses[:0], where: condition{tokens: s.where.tokens[:0]}}
}

// reachRole is what a word says of reaching the database server (reachesServer).
type reachRole uint8

const (
	reachNone    reachRole = iota
	reachAlways            // a server function, an untrusted language, SUPERUSER
	reachProgram           // PROGRAM, in a COPY statement
	reachOutfile           // OUTFILE or DUMPFILE, after INTO
	reachInfile            // INFILE, after LOAD DATA or LOCAL
	markInto               // INTO
	markLoad               // DATA, LOCAL
)

// reachWords are the words reachesServer looks for, in lower case: the functions that
// reach the server's files or run code there, the procedural languages whose functions
// run with the server's own rights on its machine (untrusted, in PostgreSQL's words),
// and the words around them. Built on first use, as keywords is.
var reachWords = sync.OnceValue(func() map[string]reachRole {
	m := map[string]reachRole{
		"superuser": reachAlways, "bypassrls": reachAlways, "program": reachProgram,
		"outfile": reachOutfile, "dumpfile": reachOutfile, "infile": reachInfile,
		"into": markInto, "data": markLoad, "local": markLoad,
	}
	for _, w := range []string{
		"pg_read_file", "pg_read_binary_file", "pg_ls_dir", "pg_stat_file", "lo_import", "lo_export",
		"load_file", "xp_cmdshell", "sys_exec", "sys_eval", "load_extension", "dblink_exec",
		"plpythonu", "plpython2u", "plpython3u", "plperlu", "pltclu", "plsh", "plrubyu", "plluau",
	} {
		m[w] = reachAlways
	}
	return m
})

// maxReachWord is the length of the longest of reachWords.
const maxReachWord = 19

// reachWord returns what the word t says of reaching the server. It does not allocate.
func reachWord(text string) reachRole {
	if len(text) > maxReachWord {
		return reachNone
	}
	var buf [maxReachWord]byte
	for i := range len(text) {
		c := text[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	return reachWords()[string(buf[:len(text)])]
}

// reachesServer reads one token for what reaches the server: COPY's PROGRAM (not its
// file, which an embedded database such as DuckDB writes as any program would), a server
// function, INTO OUTFILE/DUMPFILE, LOAD DATA INFILE, an untrusted language
// (plpython3u, plperlu…), SUPERUSER.
func (s *statement) reachesServer(t token) bool {
	if s.tokens == 1 && t.kind == word && strings.EqualFold(t.text, "COPY") {
		s.copying = true
	}
	if t.kind != word {
		s.prevReach = reachNone
		return false
	}
	r, prev := reachWord(t.text), s.prevReach
	s.prevReach = r
	switch r {
	case reachAlways:
		return true
	case reachProgram:
		return s.copying
	case reachOutfile:
		return prev == markInto
	case reachInfile:
		return prev == markLoad
	}
	return false
}
