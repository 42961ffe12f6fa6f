package toolscan

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// corpusResults returns the tools/list results of the corpora, for seeding.
func corpusResults(f *testing.F) [][]byte {
	var out [][]byte
	for _, dir := range []string{"benign", "poisoned"} {
		for _, c := range loadCorpus(f, dir) {
			out = append(out, c.Result)
		}
	}
	return out
}

// FuzzFilter checks that Filter never panics and keeps its promises for any result it
// accepts, dropping the tools picked by the bits of mask.
func FuzzFilter(f *testing.F) {
	for _, c := range filterCases {
		f.Add([]byte(c.in), uint64(0b10))
		f.Add([]byte(c.in), ^uint64(0))
	}
	for _, r := range corpusResults(f) {
		f.Add(r, uint64(0b1010))
	}
	f.Fuzz(func(t *testing.T, data []byte, mask uint64) {
		tools, err := ParseList(data)
		drop := map[string]bool{}
		for i, tl := range tools {
			if mask&(1<<(i%64)) != 0 {
				drop[tl.Name] = true
			}
		}
		out, ferr := Filter(data, drop)
		if (err == nil) != (ferr == nil) {
			t.Fatalf("ParseList error %v, Filter error %v", err, ferr)
		}
		if ferr != nil {
			return
		}
		checkFiltered(t, data, out, drop)
		if len(drop) == 0 && !bytes.Equal(out, data) {
			t.Fatal("nothing dropped, yet the result changed")
		}
	})
}

// FuzzCanonical checks that the canonical form is a fixed point, means what its input
// meant, and does not depend on the input's layout; and that PinOf never panics.
func FuzzCanonical(f *testing.F) {
	for _, c := range canonicalCases {
		f.Add([]byte(c.in))
	}
	for _, r := range corpusResults(f) {
		tools, _ := ParseList(r)
		for _, tl := range tools {
			f.Add([]byte(tl.InputSchema))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		PinOf(Tool{Name: string(data), Description: string(data), InputSchema: data})
		out, err := canonical(data)
		if err != nil {
			return
		}
		again, err := canonical(out)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("canonical(%q) = %q, but canonical of that = %q, %v", data, out, again, err)
		}
		var indented bytes.Buffer
		if err := json.Indent(&indented, data, "  ", "\t"); err != nil {
			t.Fatalf("strict JSON that encoding/json cannot indent: %v", err)
		}
		if re, err := canonical(indented.Bytes()); err != nil || !bytes.Equal(re, out) {
			t.Fatalf("layout changed the canonical form: %q vs %q (%v)", re, out, err)
		}
		var a, b any
		da, db := json.NewDecoder(bytes.NewReader(data)), json.NewDecoder(bytes.NewReader(out))
		da.UseNumber()
		db.UseNumber()
		if da.Decode(&a) != nil || db.Decode(&b) != nil || !jsonEqual(a, b) {
			t.Fatalf("canonical(%q) = %q changes the value", data, out)
		}
	})
}

// FuzzInspect checks that Inspect never panics on a listing, whatever its strings hold,
// and reports only catalogued kinds with the tool's name.
func FuzzInspect(f *testing.F) {
	for _, r := range corpusResults(f) {
		f.Add(r)
	}
	lines, _ := os.ReadFile(filepath.Join("testdata", "signals.txt"))
	for _, l := range bytes.Split(lines, []byte("\n")) {
		if len(l) > 2 && (l[0] == '+' || l[0] == '-') {
			b, _ := json.Marshal(string(l[2:]))
			f.Add([]byte(`{"tools":[{"name":"t","description":` + string(b) + `,"inputSchema":{"properties":{"notes":{"description":` + string(b) + `}}}}]}`))
		}
	}
	kinds := map[string]bool{findTooLarge: true, FindPoisoning: true, FindShadowing: true, FindHidden: true, FindChanged: true}
	f.Fuzz(func(t *testing.T, data []byte) {
		tools, err := ParseList(data)
		if err != nil {
			// A hand-built tool can hold anything.
			tools = []Tool{{Name: string(data), Description: string(data), InputSchema: data, Raw: data}}
		}
		for _, fd := range Inspect("s", tools, []string{"send_email", "search", string(data)}) {
			if !kinds[fd.ID] || fd.Field == "" || len(fd.Signals) == 0 {
				t.Fatalf("malformed finding %+v", fd)
			}
		}
	})
}
