package decide

import (
	"slices"
	"testing"
)

func TestLRU(t *testing.T) {
	tests := []struct {
		name string
		size int
		ops  []string // "+k" puts k, "?k" gets k
		want []string // keys kept, most recently used first
	}{
		{"under the bound", 3, []string{"+a", "+b"}, []string{"b", "a"}},
		{"oldest goes", 2, []string{"+a", "+b", "+c"}, []string{"c", "b"}},
		{"a get keeps it", 2, []string{"+a", "+b", "?a", "+c"}, []string{"c", "a"}},
		{"a put again keeps it", 2, []string{"+a", "+b", "+a", "+c"}, []string{"c", "a"}},
		{"no bound", 0, []string{"+a", "+b", "+c", "+d"}, []string{"d", "c", "b", "a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newLRU[string, int](tt.size)
			for i, op := range tt.ops {
				if op[0] == '+' {
					c.put(op[1:], i)
				} else {
					c.get(op[1:])
				}
			}
			var got []string
			c.each(func(k string, _ int) { got = append(got, k) })
			if !slices.Equal(got, tt.want) || c.len() != len(tt.want) {
				t.Errorf("kept %q (len %d); want %q", got, c.len(), tt.want)
			}
			for _, k := range tt.want {
				if _, ok := c.get(k); !ok {
					t.Errorf("get %q: missing", k)
				}
			}
		})
	}
}
