package shell

import "testing"

func TestFindName(t *testing.T) {
	for _, tt := range []struct {
		expr  []string
		want  string
		named bool
	}{
		{[]string{"-name", "*.pyc", "-delete"}, "*.pyc", true},
		{[]string{"-type", "f", "-name", "*.ts", "-not", "-path", "./node_modules/*"}, "*.ts", true},
		{[]string{"-name", "*.ts", "!", "-name", "*.d.ts"}, "*.ts", true},
		{[]string{"-path", "./src/*", "-name", "*.go"}, "*.go", true},
		{[]string{"-name", "{a,b}"}, `\{a\,b\}`, true},
		{[]string{"-not", "-name", "x"}, "", false},                                    // no positive -name: anything else
		{[]string{"-not", "(", "-name", "a", ")"}, "", false},                          // a parenthesis
		{[]string{"-name", "a", "-o", "-name", "b"}, "{a,b}", true},                    // both printed
		{[]string{"-name", "*.log", "-o", "-name", "*.tmp", "-delete"}, "*.tmp", true}, // the action is the last one's
		{[]string{"(", "-name", "*.log", "-o", "-name", "*.tmp", ")", "-delete"}, "{*.log,*.tmp}", true},
		{[]string{"-type", "f", "(", "-name", "a", "-or", "-name", "b", ")", "-print0"}, "{a,b}", true},
		{[]string{"(", "-name", "a", ")", "-name", "b"}, "", false},                  // two names in one conjunction
		{[]string{"-name", "a", "-delete", "-o", "-name", "b"}, "", false},           // an action before the last
		{[]string{"-name", "a", "-o", "-type", "f", "-delete"}, "", false},           // the last picks by type only
		{[]string{"(", "-name", "a", "-o", "-path", "x", ")", "-delete"}, "", false}, // an alternative without a name
		{[]string{"-name", "a", "-o"}, "", false},                                    // a dangling -o
		{[]string{"(", "-name", "a"}, "", false},                                     // an unclosed group
		{[]string{"-name", "a", "-not"}, "", false},                                  // a dangling negation
		{[]string{"-regex", ".*\\.moat-key"}, "", false},                             // no -name
		{[]string{"-name", "a", "-exec", "rm", "{}", ";"}, "a", true},                // an action selects nothing
	} {
		got, named := findName(tt.expr)
		if got != tt.want || named != tt.named {
			t.Errorf("findName(%q) = %q, %v; want %q, %v", tt.expr, got, named, tt.want, tt.named)
		}
	}
}
