package policyschema

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"

	"github.com/moatdev/moat/internal/policy"
)

var update = flag.Bool("update", false, "rewrite schema/moat.schema.json from the Go types")

// schemaFile is the checked-in schema, at the path its $id names.
var schemaFile = filepath.Join("..", "..", "schema", "moat.schema.json")

// TestSchemaUpToDate checks that the checked-in schema is the one the types generate;
// go test -run TestSchemaUpToDate -update rewrites it.
func TestSchemaUpToDate(t *testing.T) {
	got, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(schemaFile, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is not the schema the Go types generate: run go test ./internal/policyschema -run TestSchemaUpToDate -update", schemaFile)
	}
}

// TestGenerateIsStable checks that two runs give the same bytes: the file is a golden.
func TestGenerateIsStable(t *testing.T) {
	a, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	b, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Error("two runs of Generate differ")
	}
}

// TestSchemaKeysMatchLoader checks that each mapping of the document has, in the schema,
// exactly the keys the loader accepts there (policy.DocumentKeys), and that every mapping
// the loader reads is described by one document struct.
func TestSchemaKeysMatchLoader(t *testing.T) {
	defs := generatedDefs(t)
	loader := policy.DocumentKeys()
	claimed := map[string]string{}
	for _, typ := range documentStructs(t) {
		lm, ok := reflect.Zero(typ).Interface().(loaderMapped)
		if !ok {
			t.Errorf("%s is a mapping of the document without a loaderMapping method", typ.Name())
			continue
		}
		mapping := lm.loaderMapping()
		if prev, dup := claimed[mapping]; dup {
			t.Errorf("%s and %s both describe the loader's %q mapping", prev, typ.Name(), mapping)
		}
		claimed[mapping] = typ.Name()
		want, ok := loader[mapping]
		if !ok {
			t.Errorf("%s names the mapping %q, which policy.DocumentKeys does not have", typ.Name(), mapping)
			continue
		}
		def, _ := defs[defName(typ.Name())].(map[string]any)
		props, _ := def["properties"].(map[string]any)
		for _, k := range want {
			if _, ok := props[k]; !ok {
				t.Errorf("the loader accepts the key %q in %q (internal/policy, the list DocumentKeys returns for it), but the schema has no such key: add a field with yaml:%q and a doc tag to %s in internal/policyschema/document.go, then run go test ./internal/policyschema -run TestSchemaUpToDate -update",
					k, mapping, k, typ.Name())
			}
		}
		for k := range props {
			if !slices.Contains(want, k) {
				t.Errorf("the schema has the key %q in %s, which the loader does not accept in %q: remove the field from internal/policyschema/document.go", k, typ.Name(), mapping)
			}
		}
		if def["additionalProperties"] != false {
			t.Errorf("the schema of %s allows other keys than its own", typ.Name())
		}
	}
	for mapping := range loader {
		if _, ok := claimed[mapping]; !ok {
			t.Errorf("the loader's %q mapping (policy.DocumentKeys) is described by no struct of internal/policyschema/document.go: add one whose loaderMapping returns it", mapping)
		}
	}
}

// documentStructs are the document structs in the schema's $defs: the mappings.
func documentStructs(t *testing.T) []reflect.Type {
	t.Helper()
	_, types, err := build()
	if err != nil {
		t.Fatal(err)
	}
	var out []reflect.Type
	for _, typ := range types {
		if _, custom := reflect.Zero(typ).Interface().(selfDescribing); typ.Kind() == reflect.Struct && !custom {
			out = append(out, typ)
		}
	}
	slices.SortFunc(out, func(a, b reflect.Type) int { return strings.Compare(a.Name(), b.Name()) })
	return out
}

// generatedDefs returns the $defs of the generated schema, decoded.
func generatedDefs(t *testing.T) map[string]any {
	t.Helper()
	data, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	var root map[string]any
	if err := json.Unmarshal(data, &root); err != nil {
		t.Fatal(err)
	}
	defs, _ := root["$defs"].(map[string]any)
	return defs
}

// compiled is the generated schema compiled by a real validator, which also checks it
// against the draft 2020-12 meta-schema; at is a pointer into it (#/$defs/NAME), or "".
func compiled(t *testing.T, at string) *jsonschema.Schema {
	t.Helper()
	data, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(ID, doc); err != nil {
		t.Fatal(err)
	}
	loc := ID
	if at != "" {
		loc += "#" + at
	}
	s, err := c.Compile(loc)
	if err != nil {
		t.Fatalf("compiling the schema: %v", err)
	}
	return s
}

// instance reads a YAML document as the JSON value a validator sees.
func instance(t *testing.T, name string, data []byte) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	j, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	out, err := jsonschema.UnmarshalJSON(bytes.NewReader(j))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return out
}

// TestDefaultsMatchDescriptions checks that a key whose schema has a default, taken from
// the loader, says the same default in its description, which editors show.
func TestDefaultsMatchDescriptions(t *testing.T) {
	n := 0
	for name, def := range generatedDefs(t) {
		props, _ := def.(map[string]any)["properties"].(map[string]any)
		for key, p := range props {
			prop := p.(map[string]any)
			d, ok := prop["default"]
			if !ok {
				continue
			}
			n++
			if want := fmt.Sprintf("(default: %v)", d); !strings.Contains(prop["description"].(string), want) {
				t.Errorf("%s.%s defaults to %v, but its description says otherwise: %q", name, key, d, prop["description"])
			}
		}
	}
	if n < 9 {
		t.Errorf("%d keys have defaults, want the 9 of policy, hooks, approvals, output and mcp", n)
	}
}
