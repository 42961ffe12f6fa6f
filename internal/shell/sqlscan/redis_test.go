package sqlscan

import (
	"slices"
	"testing"
)

var redisTests = []struct {
	argv []string
	want []string
}{
	{[]string{"FLUSHALL"}, []string{drop}},
	{[]string{"flushall", "async"}, []string{drop}},
	{[]string{"FlushDB"}, []string{drop}},
	{[]string{"CONFIG", "SET", "dir", "/root/.ssh"}, []string{config}},
	{[]string{"config", "set", "dbfilename", "authorized_keys"}, []string{config}},
	{[]string{"CONFIG", "SET", "maxmemory", "1gb", "DIR", "/var/spool/cron"}, []string{config}},
	{[]string{"EVAL", "return redis.call('flushall')", "0"}, []string{drop}},
	{[]string{"GET", "x"}, nil},
	{[]string{"KEYS", "*"}, nil},
	{[]string{"DEL", "session:1"}, nil},
	{[]string{"CONFIG", "GET", "dir"}, nil},
	{[]string{"CONFIG", "SET", "maxmemory", "dir"}, nil}, // dir is a value here
	{[]string{"SET", "flushall", "1"}, nil},
	{[]string{"EVAL", "return redis.call('get', KEYS[1])", "1", "k"}, nil},
	{[]string{"REPLICAOF", "evil.example.com", "6379"}, []string{drop}},
	{[]string{"slaveof", "10.0.0.9", "6379"}, []string{drop}},
	{[]string{"REPLICAOF", "NO", "ONE"}, nil},
	{[]string{"SHUTDOWN", "NOSAVE"}, []string{drop}},
	{[]string{"SHUTDOWN"}, nil},
	{[]string{"DEBUG", "SEGFAULT"}, []string{drop}},
	{[]string{"debug", "crash-and-recover", "100"}, []string{drop}},
	{[]string{"DEBUG", "OBJECT", "k"}, nil},
	{[]string{"MODULE", "LOAD", "/tmp/x.so"}, []string{reach}},
	{[]string{"MODULE", "LIST"}, nil},
	{nil, nil},
}

func TestRedis(t *testing.T) {
	for _, tt := range redisTests {
		got := ids(Redis(tt.argv))
		if want := append([]string{}, tt.want...); !slices.Equal(got, want) {
			t.Errorf("Redis(%q) = %q; want %q", tt.argv, got, want)
		}
	}
}

var redisScriptTests = []struct {
	script string
	want   []Finding
}{
	{"FLUSHALL\n", []Finding{{drop, "FLUSHALL"}}},
	{"SET a 1\r\nGET a\r\nflushdb\r\n", []Finding{{drop, "flushdb"}}},
	{"config set dir /root/.ssh\nconfig set dbfilename authorized_keys\nsave\n", []Finding{
		{config, "config set dir /root/.ssh"}, {config, "config set dbfilename authorized_keys"}}},
	{`"FLUSH\x41LL"`, []Finding{{drop, "FLUSHALL"}}},
	{`'config' "set" 'dir' "/tmp"`, []Finding{{config, "config set dir /tmp"}}},
	{`SET k "unterminated FLUSHALL`, nil}, // redis-cli rejects the line
	{`"FLUSHALL"x`, nil},                  // and this one
	{"GET FLUSHALL", nil},
	{"", nil},
}

func TestRedisScript(t *testing.T) {
	for _, tt := range redisScriptTests {
		if got := RedisScript(tt.script); !slices.Equal(got, tt.want) {
			t.Errorf("RedisScript(%q) = %q; want %q", tt.script, got, tt.want)
		}
	}
}

func TestSplitRedisLine(t *testing.T) {
	for _, tt := range []struct {
		line string
		want []string
		ok   bool
	}{
		{"a b  c\n", []string{"a", "b", "c"}, true},
		{`"a b" 'c d'`, []string{"a b", "c d"}, true},
		{`"\x41\n\"\q" 'it\'s'`, []string{"A\n\"q", "it's"}, true},
		{`"\x4"`, []string{"x4"}, true},
		{`""`, []string{""}, true},
		{`"a`, nil, false},
		{`'a`, nil, false},
		{`"a"b`, nil, false},
		{"", nil, true},
	} {
		got, ok := splitRedisLine(tt.line)
		if !slices.Equal(got, tt.want) || ok != tt.ok {
			t.Errorf("splitRedisLine(%q) = %q, %v; want %q, %v", tt.line, got, ok, tt.want, tt.ok)
		}
	}
}
