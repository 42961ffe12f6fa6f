package toolscan

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// filterCases are tools/list results with the tools to drop and the result wanted; the
// fuzz target is seeded from them.
var filterCases = []struct {
	name       string
	in         string
	drop       []string
	want       string // "" means the input unchanged
	wantErrSub string
}{
	{
		name: "modern result, middle tool",
		in: `{"tools":[{"name":"a","inputSchema":{"type":"object"}},{"name":"evil","description":"x"},{"name":"c","inputSchema":{}}],` +
			`"nextCursor":"abc","ttlMs":60000,"cacheScope":"session","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}}`,
		drop: []string{"evil"},
		want: `{"tools":[{"name":"a","inputSchema":{"type":"object"}},{"name":"c","inputSchema":{}}],` +
			`"nextCursor":"abc","ttlMs":60000,"cacheScope":"session","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}}`,
	},
	{
		name: "indented, first tool, members before tools",
		in: "{\n  \"_meta\": {\"k\": 1},\n  \"tools\": [\n    {\"name\": \"evil\"},\n    {\"name\": \"b\",  \"description\": \"keeps  its   spacing\"},\n" +
			"    {\"description\": \"name last\", \"name\": \"c\"}\n  ],\n  \"nextCursor\": \"n\"\n}\n",
		drop: []string{"evil"},
		want: "{\n  \"_meta\": {\"k\": 1},\n  \"tools\": [\n    {\"name\": \"b\",  \"description\": \"keeps  its   spacing\"},\n" +
			"    {\"description\": \"name last\", \"name\": \"c\"}\n  ],\n  \"nextCursor\": \"n\"\n}\n",
	},
	{
		name: "last tool",
		in:   `{"tools":[ {"name":"a"} , {"name":"evil"} ],"ttlMs":0}`,
		drop: []string{"evil"},
		want: `{"tools":[ {"name":"a"} ],"ttlMs":0}`,
	},
	{
		name: "several, not adjacent",
		in:   `{"tools":[{"name":"x1"},{"name":"a"},{"name":"x2"},{"name":"b"},{"name":"x3"}]}`,
		drop: []string{"x1", "x2", "x3"},
		want: `{"tools":[{"name":"a"},{"name":"b"}]}`,
	},
	{
		name: "every tool",
		in:   "{\"tools\": [ {\"name\":\"a\"}, {\"name\":\"b\"} ], \"nextCursor\": null}",
		drop: []string{"a", "b"},
		want: "{\"tools\": [  ], \"nextCursor\": null}",
	},
	{
		name: "a name written with escapes is the name it decodes to",
		in:   `{"tools":[{"name":"\u0065vil"},{"name":"ok\u00e9"}]}`,
		drop: []string{"evil"},
		want: `{"tools":[{"name":"ok\u00e9"}]}`,
	},
	{name: "nothing to drop", in: `{"tools":[{"name":"a"}] , "nextCursor":"x"}`, drop: []string{"zzz"}},
	{name: "empty list", in: `{"tools":[]}`, drop: []string{"a"}},
	{name: "no drop set", in: `{"tools":[{"name":"a"}]}`},
	{name: "not an object", in: `[{"name":"a"}]`, wantErrSub: "not an object"},
	{name: "no tools", in: `{"nextCursor":"x"}`, wantErrSub: "no tools array"},
	{name: "tools not an array", in: `{"tools":{"name":"a"}}`, wantErrSub: "not an array"},
	{name: "tool not an object", in: `{"tools":["a"]}`, wantErrSub: "not an object"},
	{name: "tool without a name", in: `{"tools":[{"description":"x"}]}`, wantErrSub: "name"},
	{name: "name not a string", in: `{"tools":[{"name":7}]}`, wantErrSub: "name"},
	{name: "name only under another case", in: `{"tools":[{"NAME":"evil"}]}`, wantErrSub: "name"},
	{name: "duplicate key", in: `{"tools":[{"name":"a","name":"evil"}]}`, drop: []string{"evil"}, wantErrSub: "duplicate"},
	{name: "two tools arrays", in: `{"tools":[],"tools":[{"name":"evil"}]}`, drop: []string{"evil"}, wantErrSub: "duplicate"},
	{name: "invalid UTF-8", in: "{\"tools\":[{\"name\":\"a\xff\"}]}", wantErrSub: "UTF-8"},
	{name: "trailing data", in: `{"tools":[]} {}`, wantErrSub: "tools/list result"},
	{name: "truncated", in: `{"tools":[{"name":"a"}`, wantErrSub: "tools/list result"},
}

func TestFilter(t *testing.T) {
	for _, c := range filterCases {
		t.Run(c.name, func(t *testing.T) {
			drop := map[string]bool{}
			for _, d := range c.drop {
				drop[d] = true
			}
			got, err := Filter(json.RawMessage(c.in), drop)
			if c.wantErrSub != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErrSub) {
					t.Fatalf("Filter = %s, %v; want an error containing %q", got, err, c.wantErrSub)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := c.want
			if want == "" {
				want = c.in
			}
			if string(got) != want {
				t.Fatalf("Filter =\n%s\nwant\n%s", got, want)
			}
			checkFiltered(t, []byte(c.in), got, drop)
		})
	}
}

// checkFiltered checks what Filter promises of any result: strict JSON, the same members
// besides tools, byte for byte, and the kept tools byte for byte in their order.
func checkFiltered(t *testing.T, in, out []byte, drop map[string]bool) {
	t.Helper()
	before, err := ParseList(in)
	if err != nil {
		t.Fatalf("input: %v", err)
	}
	after, err := ParseList(out)
	if err != nil {
		t.Fatalf("output %q: %v", out, err)
	}
	var want []Tool
	for _, tl := range before {
		if !drop[tl.Name] {
			want = append(want, tl)
		}
	}
	if len(after) != len(want) {
		t.Fatalf("kept %d tools, want %d", len(after), len(want))
	}
	for i := range want {
		if !bytes.Equal(after[i].Raw, want[i].Raw) {
			t.Fatalf("tool %d re-encoded: %s, want %s", i, after[i].Raw, want[i].Raw)
		}
	}
	var a, b map[string]json.RawMessage
	if json.Unmarshal(in, &a) != nil || json.Unmarshal(out, &b) != nil {
		t.Fatal("not objects")
	}
	delete(a, "tools")
	delete(b, "tools")
	if len(a) != len(b) {
		t.Fatalf("members %v, want %v", keysOf(b), keysOf(a))
	}
	for k, v := range a {
		if !bytes.Equal(b[k], v) {
			t.Fatalf("member %q changed: %s, want %s", k, b[k], v)
		}
	}
}

func keysOf(m map[string]json.RawMessage) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestFilterCorpus drops every other tool of each listing of the corpora.
func TestFilterCorpus(t *testing.T) {
	for _, dir := range []string{"benign", "poisoned"} {
		for _, c := range loadCorpus(t, dir) {
			drop := map[string]bool{}
			for i, tl := range c.tools {
				if i%2 == 1 {
					drop[tl.Name] = true
				}
			}
			out, err := Filter(c.Result, drop)
			if err != nil {
				t.Fatalf("%s: %v", c.path, err)
			}
			checkFiltered(t, c.Result, out, drop)
		}
	}
}

func TestParseList(t *testing.T) {
	tools, err := ParseList([]byte(`{"tools":[{"name":"a","description":"d","inputSchema":{"type":"object"},"title":"A"},{"name":"b","description":null}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != 2 || tools[0].Name != "a" || tools[0].Description != "d" || string(tools[0].InputSchema) != `{"type":"object"}` ||
		string(tools[0].Raw) != `{"name":"a","description":"d","inputSchema":{"type":"object"},"title":"A"}` || tools[1].Description != "" || tools[1].InputSchema != nil {
		t.Errorf("ParseList = %+v", tools)
	}
	for _, bad := range []string{`{"tools":[{"name":"a","description":3}]}`, `{"tools":[{"name":"a","description":["x"]}]}`} {
		if _, err := ParseList([]byte(bad)); err == nil {
			t.Errorf("ParseList(%s) accepted a description that is not a string", bad)
		}
	}
}
