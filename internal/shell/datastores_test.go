package shell

import (
	"testing"

	"github.com/moatdev/moat/internal/shell/sqlscan"
)

// destructive is a statement each client's language reports, and harmless one it does not.
var destructive = map[queryLang][2]string{
	langSQL:   {"DROP TABLE users", "SELECT 1"},
	langMongo: {"db.dropDatabase()", "db.users.find()"},
	langRedis: {"FLUSHALL", "GET k"},
}

// Every client of dbClients is read wherever it takes statements: each script option,
// its positional statements and its standard input, and a harmless statement gives
// nothing.
func TestDBClientsTable(t *testing.T) {
	for name, c := range dbClients() {
		bad, ok := destructive[c.lang]
		if !ok {
			t.Errorf("%s: no language", name)
			continue
		}
		prefix := name
		for _, w := range c.sub {
			prefix += " " + w
		}
		var lines [][2]string
		for _, o := range c.options {
			lines = append(lines, [2]string{prefix + " " + optionWord(o) + " " + shellQuote(bad[0]), prefix + " " + optionWord(o) + " " + shellQuote(bad[1])})
		}
		for _, w := range c.words {
			lines = append(lines, [2]string{prefix + " " + w + " " + shellQuote(bad[0]), prefix + " " + w + " " + shellQuote(bad[1])})
		}
		if c.positional {
			// sqlite3 DB 'SQL', but redis-cli COMMAND ARGS…
			line := func(s string) string { return prefix + " app.db " + shellQuote(s) }
			if c.lang == langRedis {
				line = func(s string) string { return prefix + " " + s }
			}
			lines = append(lines, [2]string{line(bad[0]), line(bad[1])})
		}
		if c.stdin {
			lines = append(lines,
				[2]string{"echo " + shellQuote(bad[0]) + " | " + prefix, "echo " + shellQuote(bad[1]) + " | " + prefix},
				[2]string{prefix + " <<'EOF'\n" + bad[0] + "\nEOF", prefix + " <<'EOF'\n" + bad[1] + "\nEOF"})
		}
		if len(lines) == 0 {
			t.Errorf("%s: takes statements nowhere", name)
		}
		for _, l := range lines {
			if !givesDB(l[0]) {
				t.Errorf("%s: want a destructive statement found:\n%s", l[0], render(Analyze(l[0], testEnv)))
			}
			if givesDB(l[1]) {
				t.Errorf("%s: a harmless statement is no finding", l[1])
			}
		}
	}
}

func givesDB(line string) bool {
	return gives(line, sqlscan.IDDrop) || gives(line, sqlscan.IDUnboundedWrite)
}

// dbOptions adds clients that options.go does not list, and never replaces an entry.
func TestDBOptionsAreNew(t *testing.T) {
	for _, more := range []map[string]valueOpts{dbOptions(), systemOptions(), credentialOptions(), exfilOptions()} {
		for name, o := range more {
			if got := valueOptions()[name]; got.short != o.short || len(got.long) != len(o.long) {
				t.Errorf("%s: the merged entry is not this table's", name)
			}
		}
	}
}
