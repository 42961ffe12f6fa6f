package shell

import (
	"slices"
	"strings"
	"testing"
)

// xargs splits its input as its options say, and the analysis reads the items so.
func TestXargsOptions(t *testing.T) {
	const input = "  rm -rf ~\nls\x00x y\n"
	for _, tt := range []struct {
		wrappers string
		replace  string
		replaces bool
		items    []string
	}{
		{"xargs", "", false, []string{"rm", "-rf", "~", "ls\x00x", "y"}},
		{"xargs -0", "", false, []string{"  rm -rf ~\nls", "x y\n"}},
		{"xargs --null", "", false, []string{"  rm -rf ~\nls", "x y\n"}},
		{`xargs -d \n`, "", false, []string{"  rm -rf ~", "ls\x00x y"}},
		{"xargs --delimiter=x", "", false, []string{"  rm -rf ~\nls\x00", " y\n"}},
		{"xargs -I {}", "{}", true, []string{"rm -rf ~", "ls\x00x y"}},
		{"xargs -I% -n1", "%", true, []string{"rm -rf ~", "ls\x00x y"}},
		{"xargs -i", "{}", true, []string{"rm -rf ~", "ls\x00x y"}},
		{"xargs --replace=@", "@", true, []string{"rm -rf ~", "ls\x00x y"}},
		{"xargs -0 -I {}", "{}", true, []string{"  rm -rf ~\nls", "x y\n"}},
		{"xargs -n 2 -P4", "", false, []string{"rm", "-rf", "~", "ls\x00x", "y"}},
		{"sudo", "", false, []string{"rm", "-rf", "~", "ls\x00x", "y"}},
	} {
		var ws []arg
		for _, w := range strings.Fields(tt.wrappers) {
			ws = append(ws, arg{lit: w})
		}
		spec := xargsOptions(ws)
		if spec.replace != tt.replace || spec.replaces != tt.replaces {
			t.Errorf("%s: replace %q %v; want %q %v", tt.wrappers, spec.replace, spec.replaces, tt.replace, tt.replaces)
		}
		if got := spec.split(input); !slices.Equal(got, tt.items) {
			t.Errorf("%s: items %q; want %q", tt.wrappers, got, tt.items)
		}
	}
}
