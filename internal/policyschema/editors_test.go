package policyschema

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/moatdev/moat/internal/policy"
)

// ajvCheck compiles the schema with Ajv, the validator of the JavaScript world, in which
// editors evaluate patterns (as JavaScript regular expressions in unicode mode), and
// prints the names of the documents whose validity is not the expected one.
const ajvCheck = `
const Ajv2020 = require(process.argv[2]).default;
const fs = require("fs");
const schema = JSON.parse(fs.readFileSync(process.argv[3], "utf8"));
const validate = new Ajv2020({allErrors: true, allowUnionTypes: true}).compile(schema);
const docs = JSON.parse(fs.readFileSync(process.argv[4], "utf8"));
for (const d of docs) {
  if (validate(d.doc) !== d.valid) {
    console.log(d.name + ": " + (d.valid ? JSON.stringify(validate.errors) : "accepted"));
  }
}
`

// TestSchemaInJavaScript checks that a JavaScript validator, as editors use, compiles
// the schema and agrees with the Go one on the shipped documents and the wrong ones. It
// needs node and the npm packages .ci/run installs (MOAT_TEST_AGENT_CLIS), which bring
// Ajv with the MCP SDK.
func TestSchemaInJavaScript(t *testing.T) {
	dir := os.Getenv("MOAT_TEST_AGENT_CLIS")
	ajv := filepath.Join(dir, "node_modules", "ajv", "dist", "2020.js")
	node, err := exec.LookPath("node")
	if dir == "" || err != nil {
		t.Skip("set MOAT_TEST_AGENT_CLIS to the npm directory .ci/run installs, with node on PATH, to check the schema with Ajv")
	}
	if _, err := os.Stat(ajv); err != nil {
		t.Skipf("no Ajv in %s: %v", dir, err)
	}
	type doc struct {
		Name  string `json:"name"`
		Doc   any    `json:"doc"`
		Valid bool   `json:"valid"`
	}
	var docs []doc
	add := func(name string, data []byte, valid bool) {
		var v any
		if err := yaml.Unmarshal(data, &v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		docs = append(docs, doc{name, v, valid})
	}
	for _, name := range policy.TemplateNames() {
		data, err := policy.Template(name)
		if err != nil {
			t.Fatal(err)
		}
		add("template "+name, data, true)
	}
	packs, err := filepath.Glob(filepath.Join(repoRoot, "internal/policy/packs/*.yaml"))
	if err != nil || len(packs) == 0 {
		t.Fatalf("no packs: %v", err)
	}
	for _, f := range packs {
		add(f, readFile(t, f), true)
	}
	for _, w := range wrongDocuments {
		add(w.name, []byte(w.doc), false)
	}
	tmp := t.TempDir()
	schema, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	docsJSON, err := json.Marshal(docs)
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"check.js": []byte(ajvCheck), "schema.json": schema, "docs.json": docsJSON} {
		if err := os.WriteFile(filepath.Join(tmp, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, err := exec.Command(node, filepath.Join(tmp, "check.js"), ajv, filepath.Join(tmp, "schema.json"), filepath.Join(tmp, "docs.json")).CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	if s := strings.TrimSpace(string(out)); s != "" {
		t.Errorf("Ajv disagrees with the Go validator:\n%s", s)
	}
}
