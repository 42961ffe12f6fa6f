package confusable

import "testing"

func BenchmarkLookalikes(b *testing.B) {
	sets := []struct {
		name  string
		words []string
	}{
		// What moat checks nearly always: ASCII command names, path segments, labels.
		{"ascii", []string{"git", "curl", "node_modules", "package-lock.json", "github", "com", "README.md", "x86_64-linux-gnu"}},
		{"lookalike", []string{"сurl", "gіthub", "раураl", "pаsswd", "𝐜𝐮𝐫𝐥", "Zürісh"}},
		{"ordinary", []string{"привет", "αλφα", "東京", "café", "Zürich", "отчет_final.txt"}},
	}
	for _, set := range sets {
		b.Run(set.name, func(b *testing.B) {
			for b.Loop() {
				for _, w := range set.words {
					Lookalikes(w)
				}
			}
		})
	}
}

func BenchmarkSkeleton(b *testing.B) {
	for _, s := range []string{"/usr/local/bin/node_modules", "/еtс/pаsswd"} {
		b.Run(s, func(b *testing.B) {
			for b.Loop() {
				Skeleton(s)
			}
		})
	}
}
