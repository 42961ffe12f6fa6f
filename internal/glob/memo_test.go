package glob

import (
	"errors"
	"fmt"
	"sync"
	"testing"
)

// A memo compiles each pattern and options once, and otherwise answers as CompilePath.
func TestMemo(t *testing.T) {
	m := NewMemo()
	tests := []struct {
		pattern string
		opt     Options
		wantErr bool
	}{
		{pattern: "/home/u/.ssh/**"},
		{pattern: "/home/u/.ssh/**", opt: Options{FoldCase: true}},
		{pattern: "/**/.env.*"},
		{pattern: "relative/x", wantErr: true},
		{pattern: "/a/[b", wantErr: true},
	}
	for _, tt := range tests {
		first, err := m.CompilePath(tt.pattern, tt.opt)
		again, err2 := m.CompilePath(tt.pattern, tt.opt)
		direct, derr := CompilePath(tt.pattern, tt.opt)
		if tt.wantErr {
			var pe, pe2 *PatternError
			if err == nil || err2 == nil || derr == nil || !errors.As(err, &pe) || !errors.As(err2, &pe2) || err.Error() != derr.Error() || err2.Error() != derr.Error() {
				t.Errorf("%q: errors %v, %v; CompilePath's %v", tt.pattern, err, err2, derr)
			}
			continue
		}
		if err != nil || err2 != nil {
			t.Fatalf("%q: %v, %v", tt.pattern, err, err2)
		}
		if first != again {
			t.Errorf("%q %+v: compiled twice", tt.pattern, tt.opt)
		}
		for _, p := range []string{"/home/u/.ssh/id_rsa", "/HOME/U/.SSH/id_rsa", "/x/.env.local", "/x/.env"} {
			if first.Match(p) != direct.Match(p) {
				t.Errorf("%q %+v on %s: memo %v, CompilePath %v", tt.pattern, tt.opt, p, first.Match(p), direct.Match(p))
			}
		}
	}
	if a, _ := m.CompilePath("/home/u/.ssh/**", Options{}); a == must(m.CompilePath("/home/u/.ssh/**", Options{FoldCase: true})) {
		t.Error("the options are not part of the key")
	}
	var none *Memo
	if p, err := none.CompilePath("/a/*", Options{}); err != nil || !p.Match("/a/b") {
		t.Errorf("a nil memo: %v, %v", p, err)
	}
}

// The memo keeps at most maxMemoPaths patterns, and compiles the rest each time.
func TestMemoBounded(t *testing.T) {
	m := NewMemo()
	for i := range maxMemoPaths + 10 {
		must(m.CompilePath(fmt.Sprintf("/p/%d", i), Options{}))
	}
	if n := len(m.paths); n != maxMemoPaths {
		t.Errorf("%d patterns kept, want %d", n, maxMemoPaths)
	}
	over := fmt.Sprintf("/p/%d", maxMemoPaths+1)
	if p := must(m.CompilePath(over, Options{})); !p.Match(over) {
		t.Errorf("a pattern past the bound does not match itself")
	}
}

// The memo is safe for concurrent use (run with -race).
func TestMemoConcurrent(t *testing.T) {
	m := NewMemo()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 50 {
				p := must(m.CompilePath(fmt.Sprintf("/c/%d/**", (i+j)%10), Options{}))
				if !p.Match(fmt.Sprintf("/c/%d/x", (i+j)%10)) {
					t.Errorf("pattern %s does not match", p)
				}
			}
		})
	}
	wg.Wait()
}

func must(p *Path, err error) *Path {
	if err != nil {
		panic(err)
	}
	return p
}
