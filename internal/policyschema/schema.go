// Package policyschema describes moat's policy and pack documents as Go types and
// generates their JSON Schema (draft 2020-12) from those types, for editors and checks.
package policyschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"unicode"
)

// ID is the schema's $id: where the checked-in schema/moat.schema.json is published, the
// address editors and SchemaStore's catalog point at. It names the file on the main
// branch so that it stays the same from release to release.
const ID = "https://raw.githubusercontent.com/moatdev/moat/main/schema/moat.schema.json"

// Schema is one JSON Schema, as much of the vocabulary as the policy needs. Fields are
// written in this order, so that the generated file reads from names to constraints.
type Schema struct {
	SchemaURI            string    `json:"$schema,omitempty"`
	ID                   string    `json:"$id,omitempty"`
	Ref                  string    `json:"$ref,omitempty"`
	Title                string    `json:"title,omitempty"`
	Description          string    `json:"description,omitempty"`
	Type                 any       `json:"type,omitempty"` // a type name, or a list of them
	Const                any       `json:"const,omitempty"`
	Default              any       `json:"default,omitempty"` // what the loader takes when the key is absent
	Enum                 []string  `json:"enum,omitempty"`
	MinLength            *int      `json:"minLength,omitempty"`
	Pattern              string    `json:"pattern,omitempty"`
	Minimum              *int      `json:"minimum,omitempty"`
	Maximum              *int      `json:"maximum,omitempty"`
	Items                *Schema   `json:"items,omitempty"`
	MinItems             *int      `json:"minItems,omitempty"`
	Properties           Fields    `json:"properties,omitempty"`
	PropertyNames        *Schema   `json:"propertyNames,omitempty"`
	AdditionalProperties any       `json:"additionalProperties,omitempty"` // false, or a *Schema
	MinProperties        *int      `json:"minProperties,omitempty"`
	Required             []string  `json:"required,omitempty"`
	AnyOf                []*Schema `json:"anyOf,omitempty"`
	OneOf                []*Schema `json:"oneOf,omitempty"`
	If                   *Schema   `json:"if,omitempty"`
	Then                 *Schema   `json:"then,omitempty"`
	Else                 *Schema   `json:"else,omitempty"`
	Defs                 Fields    `json:"$defs,omitempty"`
}

// Field is one named schema of an object's properties or of $defs.
type Field struct {
	Name   string
	Schema *Schema
}

// Fields are named schemas, written as a JSON object in their order.
type Fields []Field

// MarshalJSON writes fs as an object, keeping their order.
func (fs Fields) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, f := range fs {
		if i > 0 {
			buf.WriteByte(',')
		}
		name, err := json.Marshal(f.Name)
		if err != nil {
			return nil, err
		}
		value, err := marshal(f.Schema)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name, err)
		}
		buf.Write(name)
		buf.WriteByte(':')
		buf.Write(value)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// Generate returns the JSON Schema of moat's policy documents, indented, ending in a
// newline: a document with a top-level pack key is a pack, any other a policy.
func Generate() ([]byte, error) {
	root, _, err := build()
	if err != nil {
		return nil, err
	}
	out, err := marshal(root)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, out, "", "  "); err != nil {
		return nil, err
	}
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}

// build generates the root schema, and returns with it the Go type of each of its $defs.
func build() (*Schema, map[string]reflect.Type, error) {
	g := &generator{seen: make(map[reflect.Type]string)}
	policyRef := g.schemaOf(reflect.TypeFor[Policy]())
	packRef := g.schemaOf(reflect.TypeFor[Pack]())
	// Sandbox profiles are files of their own; their schema is in $defs for the tests
	// and for editors pointed at #/$defs/sandbox-profile.
	g.schemaOf(reflect.TypeFor[SandboxProfile]())
	if g.err != nil {
		return nil, nil, g.err
	}
	types := make(map[string]reflect.Type, len(g.seen))
	for t, name := range g.seen {
		types[name] = t
	}
	return &Schema{
		SchemaURI:   "https://json-schema.org/draft/2020-12/schema",
		ID:          ID,
		Title:       "moat policy",
		Description: "A moat policy (moat.yaml) or pack: the rules that decide which tool calls of AI coding agents may run.",
		If:          &Schema{Type: "object", Required: []string{"pack"}},
		Then:        packRef,
		Else:        policyRef,
		Defs:        g.defs,
	}, types, nil
}

// marshal encodes s without escaping <, > and &, which descriptions use as text.
func marshal(s *Schema) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// selfDescribing is implemented by the document types whose schema is not their Go
// shape: a string or a list of strings, the words of a closed set, a port or a range.
type selfDescribing interface {
	schema(g *generator) *Schema
}

// extender is implemented by the document structs that add a constraint to the object
// their fields describe (at least one key, one key of two).
type extender interface {
	extend(s *Schema)
}

// defaulter is implemented by the document structs whose keys have defaults: the values
// the loader takes when a key is absent, by key, from the loader's own defaults.
type defaulter interface {
	defaults() map[string]any
}

// loaderMapped is implemented by every document struct: it names the mapping of
// policy.DocumentKeys whose keys are its fields.
type loaderMapped interface {
	loaderMapping() string
}

// generator builds schemas from the document types, collecting the named ones in $defs.
type generator struct {
	defs Fields
	seen map[reflect.Type]string
	err  error
}

func (g *generator) fail(format string, args ...any) {
	if g.err == nil {
		g.err = fmt.Errorf(format, args...)
	}
}

// schemaOf returns t's schema: a reference into $defs for a named type of this package
// (generic ones excepted, which are shapes rather than things), else the schema itself.
func (g *generator) schemaOf(t reflect.Type) *Schema {
	if t.PkgPath() != reflect.TypeFor[Schema]().PkgPath() || strings.Contains(t.Name(), "[") {
		return g.body(t)
	}
	name, ok := g.seen[t]
	if !ok {
		name = defName(t.Name())
		g.seen[t] = name
		i := len(g.defs)
		g.defs = append(g.defs, Field{Name: name})
		g.defs[i].Schema = g.body(t)
	}
	return &Schema{Ref: "#/$defs/" + name}
}

// body is t's schema, never a reference to it.
func (g *generator) body(t reflect.Type) *Schema {
	if sd, ok := reflect.Zero(t).Interface().(selfDescribing); ok {
		return sd.schema(g)
	}
	switch t.Kind() {
	case reflect.String:
		return &Schema{Type: "string"}
	case reflect.Bool:
		return &Schema{Type: "boolean"}
	case reflect.Int, reflect.Int64, reflect.Uint, reflect.Uint64:
		return &Schema{Type: "integer"}
	case reflect.Float64:
		return &Schema{Type: "number"}
	case reflect.Interface:
		return &Schema{} // any value
	case reflect.Slice:
		return &Schema{Type: "array", Items: g.schemaOf(t.Elem())}
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			g.fail("%s: maps in a policy document have string keys", t)
			return &Schema{}
		}
		s := &Schema{Type: "object", AdditionalProperties: g.schemaOf(t.Elem())}
		if t.Key() != reflect.TypeFor[string]() {
			s.PropertyNames = g.body(t.Key())
		}
		return s
	case reflect.Struct:
		return g.object(t)
	}
	g.fail("%s: no JSON Schema for a %s", t, t.Kind())
	return &Schema{}
}

// object is the schema of a document struct: its fields are the mapping's keys, and no
// other key is allowed.
func (g *generator) object(t reflect.Type) *Schema {
	if _, ok := reflect.Zero(t).Interface().(loaderMapped); !ok {
		g.fail("%s is a mapping of the policy document but has no loaderMapping method naming its keys in policy.DocumentKeys", t)
	}
	s := &Schema{Type: "object", AdditionalProperties: false}
	g.fields(t, s)
	if d, ok := reflect.Zero(t).Interface().(defaulter); ok {
		for key, v := range d.defaults() {
			i := slices.IndexFunc(s.Properties, func(f Field) bool { return f.Name == key })
			if i < 0 {
				g.fail("%s has a default for %q, which is not one of its keys", t, key)
				continue
			}
			s.Properties[i].Schema.Default = v
		}
	}
	if e, ok := reflect.Zero(t).Interface().(extender); ok {
		e.extend(s)
	}
	return s
}

// fields adds the properties of t's fields to s, those of embedded structs in place.
func (g *generator) fields(t reflect.Type, s *Schema) {
	for f := range t.Fields() {
		if f.Anonymous {
			g.fields(f.Type, s)
			continue
		}
		key := f.Tag.Get("yaml")
		if key == "" {
			g.fail("%s.%s has no yaml tag naming its key", t, f.Name)
			continue
		}
		doc := f.Tag.Get("doc")
		if doc == "" {
			g.fail("%s.%s has no doc tag: editors show it as the key's description", t, f.Name)
		}
		fs := g.schemaOf(f.Type)
		fs.Description = doc
		s.Properties = append(s.Properties, Field{Name: key, Schema: fs})
		switch opt := f.Tag.Get("schema"); opt {
		case "":
		case "required":
			s.Required = append(s.Required, key)
		default:
			g.fail("%s.%s: unknown schema option %q", t, f.Name, opt)
		}
	}
}

// defName is the $defs name of a type: its name in kebab case (SandboxProfile is
// sandbox-profile, MCP is mcp).
func defName(name string) string {
	var b strings.Builder
	r := []rune(name)
	for i, c := range r {
		if unicode.IsUpper(c) && i > 0 && (unicode.IsLower(r[i-1]) || i+1 < len(r) && unicode.IsLower(r[i+1])) {
			b.WriteByte('-')
		}
		b.WriteRune(unicode.ToLower(c))
	}
	return b.String()
}

func ptr[T any](v T) *T { return &v }
