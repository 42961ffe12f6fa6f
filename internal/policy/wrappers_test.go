package policy

import (
	"slices"
	"strings"
	"testing"
)

func TestWrappers(t *testing.T) {
	src := `version: 1
wrappers:
  - name: with-vault
    value_options: [-r, --role]
    assignments: true
    operands: 1
  - name: nocache
`
	p, err := Load("p.yaml", []byte(src), testHost())
	if err != nil {
		t.Fatal(err)
	}
	want := []Wrapper{
		{Name: "with-vault", ValueShort: "r", ValueLong: []string{"role"}, Assigns: true, Operands: 1, Line: 3},
		{Name: "nocache", Line: 7},
	}
	if len(p.Wrappers) != len(want) {
		t.Fatalf("got %+v", p.Wrappers)
	}
	for i, w := range want {
		g := p.Wrappers[i]
		if g.Name != w.Name || g.ValueShort != w.ValueShort || !slices.Equal(g.ValueLong, w.ValueLong) || g.Assigns != w.Assigns || g.Operands != w.Operands || g.Line != w.Line {
			t.Errorf("wrapper %d: got %+v, want %+v", i, g, w)
		}
	}
}

func TestWrapperErrors(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
	}{
		{"not a list", "version: 1\nwrappers: sudo\n", []string{"p.yaml:2:11: wrappers must be a list"}},
		{"no name", "version: 1\nwrappers:\n  - operands: 1\n", []string{"p.yaml:3:5: a wrapper needs a name"}},
		{"path as name", "version: 1\nwrappers:\n  - name: /usr/bin/x\n", []string{"p.yaml:3:11: a wrapper's name is a program name"}},
		{"bad option", "version: 1\nwrappers:\n  - {name: x, value_options: [role]}\n", []string{`p.yaml:3:31: value_options entries are options such as -u or --user, not "role"`}},
		{"bad operands", "version: 1\nwrappers:\n  - {name: x, operands: -1}\n", []string{"p.yaml:3:25: operands must be a whole number from 0 to 8"}},
		{"bad assignments", "version: 1\nwrappers:\n  - {name: x, assignments: yes please}\n", []string{"p.yaml:3:28: assignments must be true or false"}},
		{"unknown key", "version: 1\nwrappers:\n  - {name: x, operand: 1}\n", []string{`unknown key "operand" in a wrapper (did you mean "operands"?)`}},
		{"twice", "version: 1\nwrappers:\n  - name: x\n  - name: x\n", []string{`p.yaml:4:5: wrapper "x" is declared twice (first at line 3)`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load("p.yaml", []byte(tt.src), testHost())
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}
