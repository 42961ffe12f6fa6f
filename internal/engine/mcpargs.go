package engine

import (
	"slices"
	"strings"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/findings"
	"github.com/moatdev/moat/internal/scan/injection"
	"github.com/moatdev/moat/internal/shell"
	"github.com/moatdev/moat/internal/shell/sqlscan"
)

// An MCP tool's arguments say what the tool will do as much as its name does: the SQL a
// database server runs, the URL a fetch or browser server requests, the text a GitHub,
// Slack or memory server posts where people and other agents read it. Reading them
// holds the tool to the rules the same action meets on the agent's other channels:
// DROP TABLE asks whether psql or a query tool runs it.

// mcpArgFindings returns the findings of an MCP call's arguments. accesses are the local
// files the call names (mcpAccesses).
func (e *Engine) mcpArgFindings(c *call.Call, accesses []call.Access) []call.Finding {
	var fs []call.Finding
	ctx := mcpContext(c)
	tool := nameWords(c.MCP.Tool)
	fetches := hasWord(tool, mcpFetchWords)
	searches := hasWord(tool, mcpSearchWords)
	// A database's tool that runs what it is given: any argument that starts as SQL is
	// SQL to run, whatever it is called (text, body, query_text).
	runsSQL := hasWord(ctx, mcpDBWords) && hasWord(tool, mcpSQLRunWords)
	walkStrings(c.Args, "", func(s, at string) {
		if len(s) > maxScanned {
			return // reported by carriedSecrets as input.too-large
		}
		key := lastKey(at)
		fs = append(fs, statementFindings(s, at, key, ctx, searches, runsSQL)...)
		if isURLArg(s, key) {
			fs = append(fs, urlFindings(s, at, fetches)...)
		}
	})
	fs = append(fs, e.sentInjections(c, accesses)...)
	fs = append(fs, mcpDestructive(c, accesses)...)
	fs = append(fs, mcpGrants(c)...)
	fs = append(fs, pageScriptFindings(c)...)
	if hasWord(tool, mcpContainerVerbs) && hasWord(ctx, mcpContainerWords) {
		// A container server's run_container: its mounts and privileges, as docker run's.
		if id, ev := shell.ContainerSpec(c.Args, e.host.Home); id != "" {
			fs = append(fs, findings.New(id, c.MCP.Tool+": "+ev))
		}
	}
	return fs
}

// mcpContainerVerbs, in a tool's name, and mcpContainerWords, in its server's or tool's,
// say that the tool creates or runs a container.
var (
	mcpContainerVerbs = []string{"run", "create", "start", "up", "launch", "deploy", "spawn"}
	mcpContainerWords = []string{"docker", "podman", "container", "containers", "nerdctl", "compose"}
)

// mcpContext returns the words of an MCP call's server and tool names, which say what
// kind of service it speaks to (postgres, redis, mongodb, github…).
func mcpContext(c *call.Call) []string {
	return append(nameWords(c.MCP.Server), nameWords(c.MCP.Tool)...)
}

// lastKey returns the name of the innermost argument of a walkStrings position:
// "query" for "params.query", "sqlStatements" for "sqlStatements[2]".
func lastKey(at string) string {
	for strings.HasSuffix(at, "]") {
		i := strings.LastIndexByte(at, '[')
		if i < 0 {
			break
		}
		at = at[:i]
	}
	if i := strings.LastIndexByte(at, '.'); i >= 0 {
		at = at[i+1:]
	}
	return at
}

func hasWord(words, list []string) bool {
	return slices.ContainsFunc(words, func(w string) bool { return containsWord(list, w) })
}

// Argument names, by their words (nameWords), that say what a value is.
var (
	// mcpSQLWords name arguments whose value is SQL to run (sql, sqlQuery, statement,
	// sqlStatements, ddl).
	mcpSQLWords = []string{"sql", "sqls", "statement", "statements", "stmt", "stmts", "ddl", "dml"}
	// mcpProseWords name arguments whose value is text for a reader (an issue's body, a
	// message, a file's content): SQL in it is written about, not run.
	mcpProseWords = []string{
		"title", "body", "description", "comment", "comments", "message", "messages", "text", "content",
		"contents", "summary", "note", "notes", "observation", "observations", "subject", "reason",
		"caption", "markdown", "html", "prompt", "question", "answer", "explanation", "reply",
	}
	// mcpRedisWords and mcpMongoWords, in a server's or tool's name, say that the code
	// it is given (in an argument named by mcpCodeWords) is Redis commands or mongo shell
	// JavaScript. Its other arguments are data: a key or value that reads FLUSHALL.
	mcpRedisWords = []string{"redis", "valkey", "keydb", "upstash"}
	mcpMongoWords = []string{"mongo", "mongodb", "mongosh", "documentdb", "cosmosdb"}
	mcpCodeWords  = []string{"command", "commands", "cmd", "script", "query", "code", "eval", "js", "javascript", "expression", "input", "args", "argv"}
)

// mcpDBWords, in a server's or tool's name, say it speaks to an SQL database, and
// mcpSQLRunWords, in a tool's name, that it runs what it is given.
var (
	mcpDBWords = []string{"postgres", "postgresql", "pg", "mysql", "mariadb", "sqlite", "sqlite3", "sql", "mssql",
		"sqlserver", "oracle", "snowflake", "bigquery", "redshift", "clickhouse", "duckdb", "planetscale", "neon",
		"supabase", "cockroach", "cockroachdb", "db", "database", "databases", "tidb", "timescale", "athena", "trino", "presto"}
	mcpSQLRunWords = []string{"query", "execute", "exec", "run", "sql", "statement"}
)

// mcpSearchWords name tools whose query is words to look for (search_code, find_issues):
// "delete from users" there is a search, not a statement.
var mcpSearchWords = []string{"search", "find", "grep", "lookup", "suggest", "autocomplete"}

// statementFindings returns the destructive statements in an argument's value: SQL in an
// argument named for SQL, or in any argument but prose whose value starts as SQL does,
// unless the tool searches (a query argument holds SQL for a database tool and words for
// a search tool); Redis commands and mongo shell code in the code arguments of those
// databases' tools.
func statementFindings(s, at, key string, ctx []string, searches, runsSQL bool) []call.Finding {
	words := nameWords(key)
	sql := hasWord(words, mcpSQLWords) || runsSQL && startsAsSQL(s)
	if !sql && hasWord(words, mcpProseWords) {
		return nil
	}
	var found []sqlscan.Finding
	if sql || !searches && startsAsSQL(s) {
		found = append(found, sqlscan.SQL(s)...)
	}
	if code := hasWord(words, mcpCodeWords); code && hasWord(ctx, mcpRedisWords) {
		found = append(found, sqlscan.RedisScript(s)...)
	} else if code && hasWord(ctx, mcpMongoWords) {
		found = append(found, sqlscan.Mongo(s)...)
	}
	fs := make([]call.Finding, 0, len(found))
	for _, f := range found {
		fs = append(fs, sqlscan.Kinds.New(f.ID, at+": "+f.Evidence))
	}
	return fs
}

// sqlLeadWords are the words SQL statements (and the scripts of SQL clients) start with.
var sqlLeadWords = []string{
	"alter", "analyze", "attach", "begin", "call", "cluster", "comment", "commit", "copy", "create",
	"deallocate", "declare", "delete", "delimiter", "describe", "detach", "do", "drop", "exec",
	"execute", "explain", "grant", "insert", "load", "lock", "merge", "optimize", "pragma",
	"prepare", "reindex", "rename", "replace", "revoke", "rollback", "savepoint", "select", "set",
	"show", "start", "truncate", "unload", "update", "upsert", "use", "vacuum", "values", "with",
}

// startsAsSQL reports whether s begins, after blanks, comments and parentheses, with the
// word an SQL statement begins with.
func startsAsSQL(s string) bool {
	for {
		s = strings.TrimLeft(s, " \t\r\n(;")
		switch {
		case strings.HasPrefix(s, "--"), strings.HasPrefix(s, "#"):
			_, rest, ok := strings.Cut(s, "\n")
			if !ok {
				return false
			}
			s = rest
			continue
		case strings.HasPrefix(s, "/*"):
			_, rest, ok := strings.Cut(s[2:], "*/")
			if !ok {
				return false
			}
			s = rest
			continue
		}
		break
	}
	n := 0
	for n < len(s) && isASCIILetter(s[n]) {
		n++
	}
	return n > 0 && containsWord(sqlLeadWords, strings.ToLower(s[:n]))
}

func isASCIILetter(c byte) bool { return 'A' <= c&^0x20 && c&^0x20 <= 'Z' }

// mcpURLWords name arguments whose value is a URL or a host (url, baseUrl, endpoint,
// href, hostname, ip).
var mcpURLWords = []string{"url", "urls", "uri", "uris", "href", "link", "links", "endpoint", "host", "hostname", "hosts", "ip", "addr", "address", "domain", "origin", "server"}

// mcpFetchWords name tools that request the URLs they are given, as a web fetch does
// (fetch, browser_navigate, http_request, download_url): their URLs are web only. Other
// tools' file: URIs are resources (resources/read), decided by their paths.
var mcpFetchWords = []string{"fetch", "navigate", "browse", "browser", "http", "request", "download", "scrape", "crawl", "curl", "wget", "goto", "visit", "go", "open", "load", "url", "tab"}

// isURLArg reports whether an argument's value is a URL or host the tool connects to or
// hands on: its name says so, or the whole value is one URL. A URL inside prose (an
// issue's body) is text.
func isURLArg(s, key string) bool {
	if hasWord(nameWords(key), mcpURLWords) {
		return true
	}
	s = strings.TrimSpace(s)
	return strings.Contains(s, "://") && !strings.ContainsAny(s, " \t\r\n")
}

// Words of a tool's name and of argument names that say a call sends text where others
// read it.
var (
	// mcpSendVerbs: the tool creates, posts or changes something others read (an issue, a
	// comment, a message, a page, a memory entity).
	mcpSendVerbs = []string{
		"create", "add", "post", "send", "comment", "reply", "respond", "publish", "submit", "share",
		"update", "edit", "write", "append", "insert", "upload", "save", "store", "set", "put", "patch",
		"notify", "message", "email", "mail", "tweet", "remember", "observe", "push", "commit", "forward",
		"invite", "broadcast", "announce", "chat", "draft", "upsert", "replace",
	}
	// mcpTextWords: an argument holds text for people or models to read.
	mcpTextWords = []string{
		"body", "text", "message", "messages", "msg", "comment", "content", "contents", "description",
		"observation", "observations", "note", "notes", "summary", "markdown", "html", "reply",
		"caption", "title", "subject", "blocks",
	}
	// mcpRemoteWords: an argument names a hosted repository, bucket or project, so that a
	// path in the call is a path there, not on this machine.
	mcpRemoteWords = []string{"owner", "repo", "repository", "repositories", "bucket", "gist", "org", "organization", "project", "drive"}
)

// mcpRemote reports whether a call's arguments name a hosted repository, bucket or
// project (GitHub's owner and repo, a bucket): its paths are paths there.
func mcpRemote(args map[string]any) bool {
	for k := range args {
		if hasWord(nameWords(k), mcpRemoteWords) {
			return true
		}
	}
	return false
}

// sendsText reports whether an MCP call sends text where people or other agents read
// it: its tool's name says it creates, posts or changes something, or an argument holds
// text for a reader.
func sendsText(c *call.Call) bool {
	if hasWord(nameWords(c.MCP.Tool), mcpSendVerbs) {
		return true
	}
	for k := range c.Args {
		if hasWord(nameWords(k), mcpTextWords) {
			return true
		}
	}
	return false
}

// sendsOffMachine reports whether an MCP call sends its text off this machine: it sends text
// (sendsText) and is no tool working on files here (a filesystem server's write_file),
// unless the files it names are a hosted repository's or bucket's.
func sendsOffMachine(c *call.Call) bool {
	if !sendsText(c) {
		return false
	}
	if mcpRemote(c.Args) {
		return true
	}
	for k := range c.Args {
		if slices.Contains(mcpFileKeys, k) {
			return false
		}
	}
	return true
}

// sentInjections returns the prompt-injection findings of the text an MCP call sends:
// an issue or pull request, a comment, a chat message, an email, a memory entity, a
// file pushed to a repository. Text written there is read by other agents as data they
// may obey, and by people. A tool that writes files on this machine is read as the
// agents' own file tools are: only what it writes into agent instruction files.
func (e *Engine) sentInjections(c *call.Call, accesses []call.Access) []call.Finding {
	if len(accesses) > 0 && !mcpRemote(c.Args) {
		if !slices.ContainsFunc(accesses, func(acc call.Access) bool {
			return acc.Kind == call.Write && e.instructions.touches(acc)
		}) {
			return nil
		}
	} else if !sendsText(c) {
		return nil
	}
	var fs []call.Finding
	walkStrings(c.Args, "", func(s, at string) {
		if len(s) <= maxScanned {
			fs = append(fs, injection.Findings(s, at)...)
		}
	})
	return fs
}
