package engine

import (
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/findings"
)

func TestStartsAsSQL(t *testing.T) {
	for s, want := range map[string]bool{
		"DROP TABLE users":                   true,
		"  select 1":                         true,
		"-- cleanup\ndelete from t":          true,
		"/* x */ (SELECT 1)":                 true,
		"# mysql comment\nTRUNCATE t":        true,
		"WITH d AS (DELETE FROM t) SELECT 1": true,
		"how to drop table in postgres":      false,
		"dropdb prod":                        false,
		"":                                   false,
		"-- only a comment":                  false,
		"/* unterminated DROP TABLE x":       false,
	} {
		if got := startsAsSQL(s); got != want {
			t.Errorf("startsAsSQL(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestLastKey(t *testing.T) {
	for at, want := range map[string]string{
		"query":            "query",
		"params.query":     "query",
		"sqlStatements[2]": "sqlStatements",
		"a.b[0][1]":        "b",
		"":                 "",
	} {
		if got := lastKey(at); got != want {
			t.Errorf("lastKey(%q) = %q, want %q", at, got, want)
		}
	}
}

func TestDestroys(t *testing.T) {
	for _, tt := range []struct {
		tool         string
		args         map[string]any
		verb, object string
	}{
		{"delete_repository", nil, "delete", "repository"},
		{"deleteRepository", nil, "delete", "repository"},
		{"delete_github_repository", nil, "delete", "repository"},
		{"API-delete-a-block", nil, "delete", "block"},
		{"delete_all_documents", nil, "delete", "document"},
		{"pods_delete", nil, "delete", "pod"},
		{"s3_bucket_delete", nil, "delete", "bucket"},
		{"delete_entities", nil, "delete", "entity"},
		{"drop_indexes", nil, "drop", "index"},
		{"kubectl_delete", map[string]any{"resourceType": "namespaces"}, "delete", "namespace"},
		{"resources_delete", map[string]any{"kind": "Namespace"}, "delete", "namespace"},
		{"use_aws", map[string]any{"operation_name": "delete-bucket"}, "delete", "bucket"},
		{"use_aws", map[string]any{"operationName": "DeleteDBInstance"}, "delete", "db"},
		{"delete_db_instance", nil, "delete", "db"},
		{"bucket_op", map[string]any{"action": "delete"}, "delete", "bucket"},
		// Not destroying, or not saying what.
		{"remove_label_from_issue", nil, "", ""},
		{"destroy_everything", map[string]any{"target": "all"}, "", ""},
		{"list_deleted_files", nil, "", ""},
		{"undelete_file", nil, "", ""},
		{"create_repository", nil, "", ""},
		{"execute_command", map[string]any{"command": "docker rm web"}, "", ""},
	} {
		c := call.Call{Class: call.MCP, MCP: &call.MCPTarget{Server: "s", Tool: tt.tool}, Args: tt.args}
		verb, object, ok := destroys(&c)
		if verb != tt.verb || object != tt.object || ok != (tt.object != "") {
			t.Errorf("destroys(%s %v) = %q %q %v, want %q %q", tt.tool, tt.args, verb, object, ok, tt.verb, tt.object)
		}
	}
}

// Every kind a destroying tool can take away gives a catalogued finding.
func TestMCPCatalogueFindings(t *testing.T) {
	for _, k := range mcpDestroyed {
		if _, ok := findings.Lookup(k.finding); !ok {
			t.Errorf("%s (%s): not a catalogued finding", k.finding, k.what)
		}
		if len(k.words) == 0 {
			t.Errorf("%s: no words", k.what)
		}
	}
	seen := map[string]string{}
	for _, k := range mcpDestroyed {
		for _, w := range k.words {
			if w != strings.ToLower(w) || strings.ContainsAny(w, "_- ") {
				t.Errorf("%q: words are single lower-case words", w)
			}
			if prev, dup := seen[w]; dup {
				t.Errorf("%q is both %s and %s", w, prev, k.what)
			}
			seen[w] = k.what
		}
	}
	for _, keys := range [][]string{mcpKindKeys, mcpOperationKeys} {
		for _, k := range keys {
			if squash(k) != k {
				t.Errorf("%q: argument names here are squashed (%q)", k, squash(k))
			}
		}
	}
	for _, a := range mcpArgTools {
		for _, test := range a.args {
			for _, k := range test.keys {
				if squash(k) != k {
					t.Errorf("%s: %q: argument names here are squashed (%q)", a.what, k, squash(k))
				}
			}
		}
		if _, ok := findings.Lookup(a.finding); !ok {
			t.Errorf("%s (%s): not a catalogued finding", a.finding, a.what)
		}
		if a.tool == nil && a.args == nil {
			t.Errorf("%s: an entry with neither tool words nor arguments matches every call", a.what)
		}
	}
	for _, id := range []string{findMetadata, findURLScheme, findUnreadable} {
		if _, ok := findings.Lookup(id); !ok {
			t.Errorf("%s: not catalogued", id)
		}
	}
}
