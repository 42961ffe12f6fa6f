package sqlscan

import "strings"

// Redis returns the destructive redis-cli command in argv, the words after redis-cli's
// own options (which the caller removes). Command and parameter names are matched without
// regard to case:
//
//   - FLUSHALL and FLUSHDB, and EVAL of a script that calls either: IDDrop.
//   - CONFIG SET of dir or dbfilename, among any number of parameter-value pairs:
//     IDRedisConfig.
//   - REPLICAOF (SLAVEOF) a host, which makes the server discard its data for the
//     host's, and SHUTDOWN NOSAVE and DEBUG SEGFAULT (or CRASH-AND-RECOVER), which lose
//     what was written since the last save: IDDrop.
//   - MODULE LOAD, which loads native code into the server: IDServerReach.
//
// It does not report commands whose harm depends on the data (DEL, UNLINK, EXPIRE, or
// KEYS piped into DEL), nor scripts that build their commands at run time.
func Redis(argv []string) []Finding {
	if len(argv) == 0 {
		return nil
	}
	var id string
	switch strings.ToUpper(argv[0]) {
	case "FLUSHALL", "FLUSHDB":
		id = IDDrop
	case "EVAL":
		if len(argv) > 1 && callsFlush(argv[1]) {
			id = IDDrop
		}
	case "REPLICAOF", "SLAVEOF":
		if len(argv) > 1 && !strings.EqualFold(argv[1], "NO") {
			id = IDDrop
		}
	case "SHUTDOWN":
		for _, a := range argv[1:] {
			if strings.EqualFold(a, "NOSAVE") {
				id = IDDrop
			}
		}
	case "DEBUG":
		if len(argv) > 1 && (strings.EqualFold(argv[1], "SEGFAULT") || strings.EqualFold(argv[1], "CRASH-AND-RECOVER")) {
			id = IDDrop
		}
	case "MODULE":
		if len(argv) > 1 && (strings.EqualFold(argv[1], "LOAD") || strings.EqualFold(argv[1], "LOADEX")) {
			id = IDServerReach
		}
	case "CONFIG":
		if len(argv) < 3 || !strings.EqualFold(argv[1], "SET") {
			break
		}
		for i := 2; i < len(argv); i += 2 {
			if strings.EqualFold(argv[i], "dir") || strings.EqualFold(argv[i], "dbfilename") {
				id = IDRedisConfig
			}
		}
	}
	if id == "" {
		return nil
	}
	return []Finding{{ID: id, Evidence: evidence(strings.Join(argv, " "))}}
}

// callsFlush reports whether a Lua script names FLUSHALL or FLUSHDB, as it would to call
// them with redis.call.
func callsFlush(script string) bool {
	s := strings.ToLower(script)
	return strings.Contains(s, "flushall") || strings.Contains(s, "flushdb")
}

// RedisScript returns the destructive commands in a script of redis-cli commands, one a
// line, as redis-cli reads them from its standard input: words are split at whitespace,
// "…" quotes with backslash escapes (\n, \xHH…), '…' quotes with \' only, and a line
// whose quotes do not close is not run. Each line is checked as Redis checks argv.
func RedisScript(script string) []Finding {
	var found []placed
	at := 0
	for line := range strings.Lines(script) {
		if argv, ok := splitRedisLine(line); ok {
			for _, f := range Redis(argv) {
				found = append(found, placed{f, at})
			}
		}
		at += len(line)
	}
	return collect(found)
}

// splitRedisLine splits a line into words as redis-cli does (sdssplitargs). ok is false
// for a line redis-cli rejects: unbalanced quotes, or a closing quote not followed by
// whitespace.
func splitRedisLine(line string) (argv []string, ok bool) {
	i := 0
	for {
		for i < len(line) && isSpace(line[i]) {
			i++
		}
		if i == len(line) {
			return argv, true
		}
		var w strings.Builder
		switch line[i] {
		case '"':
			i++
			for {
				if i == len(line) {
					return nil, false
				}
				c := line[i]
				if c == '"' {
					break
				}
				if c == '\\' && i+1 < len(line) {
					i++
					c = line[i]
					if c == 'x' && i+2 < len(line) && isHex(line[i+1]) && isHex(line[i+2]) {
						c = hexByte(line[i+1])<<4 | hexByte(line[i+2])
						i += 2
					} else if r, ok := redisEscapes[c]; ok {
						c = r
					}
				}
				w.WriteByte(c)
				i++
			}
			i++
		case '\'':
			i++
			for {
				if i == len(line) {
					return nil, false
				}
				c := line[i]
				if c == '\'' {
					break
				}
				if c == '\\' && i+1 < len(line) && line[i+1] == '\'' {
					i++
					c = '\''
				}
				w.WriteByte(c)
				i++
			}
			i++
		default:
			for i < len(line) && !isSpace(line[i]) {
				w.WriteByte(line[i])
				i++
			}
			argv = append(argv, w.String())
			continue
		}
		if i < len(line) && !isSpace(line[i]) {
			return nil, false
		}
		argv = append(argv, w.String())
	}
}

// redisEscapes are the one-letter escapes of redis-cli's double quotes; another escaped
// byte stands for itself.
var redisEscapes = map[byte]byte{'n': '\n', 'r': '\r', 't': '\t', 'b': '\b', 'a': '\a'}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func hexByte(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}
