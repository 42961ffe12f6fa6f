package shell

import (
	"strings"

	"github.com/moatdev/moat/internal/shell/sqlscan"
)

// Database clients run the statements given in their arguments (psql -c, mysql -e,
// sqlite3 DB SQL…) or read on their standard input (flow.go); sqlscan says which are
// destructive.

// sqlArgs reports the destructive statements a database client is given as arguments.
func sqlArgs(a *analyzer, v *view) string {
	var scripts []string
	for _, x := range v.values("c", "command", "e", "execute", "query", "cmd") {
		if !x.dynamic {
			scripts = append(scripts, x.lit)
		}
	}
	switch v.name {
	case "sqlite3":
		// sqlite3 [OPTIONS] DATABASE [SQL…]
		for _, o := range v.raw[min(1, len(v.raw)):] {
			if !o.dynamic {
				scripts = append(scripts, o.lit)
			}
		}
	case "cockroach":
		if len(v.ops) == 0 || v.ops[0] != "sql" {
			return ""
		}
	}
	found := ""
	for _, s := range scripts {
		for _, f := range sqlscan.SQL(s) {
			a.report(f.ID, f.Evidence)
			found = f.Evidence
		}
	}
	return found
}

// redisArgs: redis-cli [OPTIONS] COMMAND ARGS…
func redisArgs(a *analyzer, v *view) string {
	argv := make([]string, 0, len(v.raw))
	for _, o := range v.raw {
		argv = append(argv, o.lit)
	}
	found := ""
	for _, f := range sqlscan.Redis(argv) {
		a.report(f.ID, f.Evidence)
		found = f.Evidence
	}
	return found
}

// mongoArgs: mongosh --eval JS.
func mongoArgs(a *analyzer, v *view) string {
	found := ""
	for _, x := range v.values("eval") {
		if x.dynamic {
			continue
		}
		for _, f := range sqlscan.Mongo(x.lit) {
			a.report(f.ID, f.Evidence)
			found = f.Evidence
		}
	}
	if found == "" {
		for _, x := range v.args {
			if strings.HasPrefix(x.lit, "--eval=") {
				for _, f := range sqlscan.Mongo(strings.TrimPrefix(x.lit, "--eval=")) {
					a.report(f.ID, f.Evidence)
					found = f.Evidence
				}
			}
		}
	}
	return found
}
