package shell

import (
	"strings"
	"testing"
)

func TestSedShapeData(t *testing.T) {
	for _, tt := range []struct {
		shape string // with $ standing for a value known at run time
		data  bool
	}{
		{"s/VERSION/$/", true},
		{"s@IMAGE@$:$@g", true},
		{"/$/p", true},
		{"/$/,/end/d", true},
		{"1i $", true},
		{"y/$/$/", true},
		{`\,$,d`, true},
		{"s/x/y/$", false},
		{"$", false},
		{"s$x$y$", false},
		{"w $", false},
		{"s/x/y/w $", false},
		{"e $", false},
		{"b $", false},
		{"r $", false},
		{`\$x$d`, false},
		{"s/a/b/;$", false},
	} {
		shape := strings.ReplaceAll(tt.shape, "$", string(rune(shapeMark)))
		if got := sedShapeData(shape); got != tt.data {
			t.Errorf("sedShapeData(%q) = %v, want %v", tt.shape, got, tt.data)
		}
	}
}
