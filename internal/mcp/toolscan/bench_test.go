package toolscan

import (
	"testing"
)

// benchTools returns the first n tools of the benign corpus and the names of the rest,
// a listing the size of a large server's among other servers' tools.
func benchTools(b *testing.B, n int) ([]Tool, []string) {
	var tools []Tool
	var others []string
	for _, c := range loadCorpus(b, "benign") {
		for _, t := range c.tools {
			if len(tools) < n {
				tools = append(tools, t)
			} else {
				others = append(others, t.Name)
			}
		}
	}
	if len(tools) < n {
		b.Fatalf("the benign corpus has %d tools, fewer than %d", len(tools), n)
	}
	return tools, others
}

// BenchmarkInspect inspects a 50-tool listing, as the proxy does for each tools/list.
func BenchmarkInspect(b *testing.B) {
	tools, others := benchTools(b, 50)
	signals() // compiled once per process, not per listing
	bytes := 0
	for _, t := range tools {
		bytes += len(t.Raw)
	}
	b.SetBytes(int64(bytes))
	b.ReportAllocs()
	for b.Loop() {
		Inspect("bench", tools, others)
	}
}

func BenchmarkPinOf(b *testing.B) {
	tools, _ := benchTools(b, 50)
	b.ReportAllocs()
	for b.Loop() {
		for _, t := range tools {
			PinOf(t)
		}
	}
}

func BenchmarkFilter(b *testing.B) {
	c := loadCorpus(b, "benign")[0]
	drop := map[string]bool{c.tools[1].Name: true}
	b.SetBytes(int64(len(c.Result)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Filter(c.Result, drop); err != nil {
			b.Fatal(err)
		}
	}
}
