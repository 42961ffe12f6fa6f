package shell

import (
	"strings"
	"sync"

	"github.com/moatdev/moat/internal/shell/sqlscan"
)

// Database clients run the statements given in their arguments (psql -c, mysql -e,
// sqlite3 DB SQL…) or read on their standard input (flow.go); sqlscan says which are
// destructive. Which client takes its statements where is data: dbClients.

// queryLang is the language a database client reads.
type queryLang uint8

const (
	langSQL   queryLang = iota + 1 // SQL and its dialects (CQL, InfluxQL, HiveQL…)
	langMongo                      // the MongoDB shell's JavaScript
	langRedis                      // redis commands
)

// dbClient says where a database client takes the statements it runs.
type dbClient struct {
	lang queryLang
	// options are the options whose value is a script (psql -c, mysql --execute).
	options []string
	// words are options spelled with one dash and a long name, which the generic option
	// parser would split into letters (influx -execute 'DROP …').
	words []string
	// sub are the subcommand's words that open the client (cockroach sql, clickhouse
	// client, wrangler d1 execute).
	sub []string
	// positional means the operands after the first (the database) are statements too:
	// sqlite3 DB 'DROP TABLE t'.
	positional bool
	// stdin means statements are read on standard input when no script is given.
	stdin bool
	// statements means every operand after sub is a statement (bq query 'SQL').
	statements bool
}

// dbClients maps a client's canonical name to where it takes its statements.
var dbClients = sync.OnceValue(func() map[string]dbClient {
	sqlStdin := func(options ...string) dbClient { return dbClient{lang: langSQL, options: options, stdin: true} }
	return map[string]dbClient{
		"psql":              sqlStdin("c", "command"),
		"mysql":             sqlStdin("e", "execute", "init-command"),
		"mariadb":           sqlStdin("e", "execute", "init-command"),
		"mycli":             sqlStdin("e", "execute"),
		"pgcli":             sqlStdin(),
		"usql":              sqlStdin("c", "command"),
		"sqlite3":           {lang: langSQL, options: []string{"cmd"}, positional: true, stdin: true},
		"duckdb":            {lang: langSQL, options: []string{"c", "s", "cmd"}, positional: true, stdin: true},
		"litecli":           sqlStdin("e", "execute"),
		"clickhouse-client": sqlStdin("q", "query"),
		"clickhouse":        {lang: langSQL, options: []string{"q", "query"}, sub: []string{"client"}, stdin: true},
		"cockroach":         {lang: langSQL, options: []string{"e", "execute"}, sub: []string{"sql"}, stdin: true},
		// Cloudflare's D1: wrangler d1 execute DB --command SQL.
		"wrangler": {lang: langSQL, options: []string{"command"}, sub: []string{"d1", "execute"}},
		"sqlcmd":   sqlStdin("Q", "q", "query"),
		"cqlsh":    sqlStdin("e", "execute"),
		// BigQuery: bq query [FLAGS] 'SQL'.
		"bq":         {lang: langSQL, sub: []string{"query"}, statements: true, stdin: true},
		"influx":     {lang: langSQL, options: []string{"execute"}, words: []string{"-execute"}, stdin: true},
		"snowsql":    sqlStdin("q", "query"),
		"trino":      sqlStdin("execute"),
		"presto":     sqlStdin("execute"),
		"spark-sql":  sqlStdin("e"),
		"hive":       sqlStdin("e"),
		"beeline":    sqlStdin("e"),
		"vsql":       sqlStdin("c", "command"),
		"sqlplus":    sqlStdin(),
		"isql":       sqlStdin(),
		"mongosh":    {lang: langMongo, options: []string{"eval"}, stdin: true},
		"mongo":      {lang: langMongo, options: []string{"eval"}, stdin: true},
		"redis-cli":  {lang: langRedis, positional: true, stdin: true},
		"valkey-cli": {lang: langRedis, positional: true, stdin: true},
		"keydb-cli":  {lang: langRedis, positional: true, stdin: true},
	}
})

// dbOptions are the options of the clients of dbClients that take a value and that
// options.go does not list, merged into valueOptions.
var dbOptions = sync.OnceValue(func() map[string]valueOpts {
	return map[string]valueOpts{
		"wrangler":          {long: []string{"command", "file", "config", "env", "database", "persist-to"}, subcommand: true},
		"mycli":             {short: "ehPuSD", attached: "p", long: []string{"execute", "host", "port", "user", "socket", "password", "database", "login-path"}},
		"usql":              {short: "cfoJ", long: []string{"command", "file", "output", "set", "variable"}},
		"duckdb":            {short: "cs", long: []string{"cmd"}},
		"litecli":           {short: "e", long: []string{"execute"}},
		"clickhouse-client": {short: "qhudf", long: []string{"query", "host", "port", "user", "password", "database", "format", "queries-file"}},
		"clickhouse":        {short: "qhudf", long: []string{"query", "host", "port", "user", "password", "database", "format", "queries-file"}, subcommand: true},
		"cockroach":         {short: "ed", long: []string{"execute", "url", "database", "host", "port", "user", "certs-dir", "format", "set"}, subcommand: true},
		"sqlcmd":            {short: "QqSUPdiosHlAtWvcfrhkMKaeLyY", long: []string{"query", "server", "user-name", "password", "database-name", "input-file", "output-file"}},
		"cqlsh":             {short: "ekuprf", long: []string{"execute", "keyspace", "username", "password", "file", "cqlversion", "encoding", "connect-timeout", "request-timeout"}},
		"snowsql":           {short: "qaudsrwfoh", long: []string{"query", "accountname", "username", "dbname", "schemaname", "rolename", "warehouse", "filename", "option", "host", "config", "connection"}},
		"trino":             {short: "f", long: []string{"execute", "server", "catalog", "schema", "user", "file", "output-format", "session"}},
		"presto":            {short: "f", long: []string{"execute", "server", "catalog", "schema", "user", "file", "output-format", "session"}},
		"spark-sql":         {short: "efid", long: []string{"database", "hiveconf", "hivevar", "master", "conf", "name"}},
		"hive":              {short: "efid", long: []string{"database", "hiveconf", "hivevar"}},
		"beeline":           {short: "eufpndw", long: []string{"hiveconf", "hivevar"}},
		"vsql":              {short: "cdfhoPpUvFRw", long: []string{"command", "dbname", "file", "host", "output", "port", "username", "variable"}},
		"influx":            {short: "", long: []string{"execute", "host", "port", "username", "password", "database", "format", "precision"}},
		"valkey-cli":        {short: "hpsanuc", long: []string{"user", "pass", "tls", "cacert", "cert", "key", "sni"}},
		"keydb-cli":         {short: "hpsanuc", long: []string{"user", "pass", "tls", "cacert", "cert", "key", "sni"}},
	}
})

// opened reports whether the command v opens the client: its subcommand, if it has one.
func (c dbClient) opened(v *view) bool {
	if len(v.ops) < len(c.sub) {
		return false
	}
	for i, w := range c.sub {
		if v.ops[i] != w {
			return false
		}
	}
	return true
}

// dbArgs reports the destructive statements a database client is given in its arguments.
func dbArgs(a *analyzer, v *view) string {
	client, ok := dbClients()[v.name]
	if !ok {
		return ""
	}
	ops := v.raw
	if !client.opened(v) || dryRun(v) {
		return "" // bq query --dry_run: the statement is checked, not run
	}
	ops = ops[len(client.sub):]
	var scripts []string
	for _, x := range v.values(client.options...) {
		if !x.dynamic {
			scripts = append(scripts, x.lit)
		}
	}
	for i, x := range v.args {
		for _, w := range client.words {
			if x.dynamic {
				continue
			}
			if val, ok := strings.CutPrefix(x.lit, w+"="); ok {
				scripts = append(scripts, val)
			} else if x.lit == w && i+1 < len(v.args) && !v.args[i+1].dynamic {
				scripts = append(scripts, v.args[i+1].lit)
			}
		}
	}
	if client.positional && client.lang == langRedis {
		// redis-cli [OPTIONS] COMMAND ARGS…: one command.
		argv := make([]string, 0, len(ops))
		for _, o := range ops {
			argv = append(argv, o.lit)
		}
		return reportDB(a, sqlscan.Redis(argv))
	}
	if client.statements {
		for _, o := range ops {
			if !o.dynamic {
				scripts = append(scripts, o.lit)
			}
		}
	}
	if client.positional {
		// sqlite3 [OPTIONS] DATABASE [SQL…]
		for _, o := range ops[min(1, len(ops)):] {
			if !o.dynamic {
				scripts = append(scripts, o.lit)
			}
		}
	}
	found := ""
	for _, s := range scripts {
		if e := reportDB(a, scanQuery(client.lang, s)); e != "" {
			found = e
		}
	}
	return found
}

// scanQuery returns the destructive statements of a script in the client's language.
func scanQuery(lang queryLang, script string) []sqlscan.Finding {
	switch lang {
	case langMongo:
		return sqlscan.Mongo(script)
	case langRedis:
		return sqlscan.RedisScript(script)
	}
	return sqlscan.SQL(script)
}

func reportDB(a *analyzer, fs []sqlscan.Finding) string {
	found := ""
	for _, f := range fs {
		a.report(f.ID, f.Evidence)
		found = f.Evidence
	}
	return found
}

// dbStdin returns the language in which the client reads statements on its standard
// input, or 0 when it does not: it was given a script in its arguments (psql -c), or a
// redis command.
func dbStdin(v *view) queryLang {
	client, ok := dbClients()[v.name]
	if !ok || !client.stdin {
		return 0
	}
	if !client.opened(v) {
		return 0
	}
	if len(client.options) > 0 && len(v.values(client.options...)) > 0 {
		return 0
	}
	switch {
	case client.lang == langRedis && len(v.ops) > 0:
		return 0 // redis-cli COMMAND runs that command
	case client.positional && client.lang == langSQL && len(v.ops) > 1:
		return 0 // sqlite3 DB SQL runs SQL
	}
	return client.lang
}
