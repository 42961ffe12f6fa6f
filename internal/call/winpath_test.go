package call

import "testing"

func TestWindowsPath(t *testing.T) {
	for _, tt := range []struct {
		in, want string
		ok       bool
	}{
		{`C:\Users\me\.ssh\id_rsa`, "/C:/Users/me/.ssh/id_rsa", true},
		{`d:/work/x.ps1`, "/d:/work/x.ps1", true},
		{`\\server\share\x`, "/server/share/x", true},
		{`A:/`, "/A:", true},
		{`c:\x\..\..\y\`, "/y", true},
		{`C:relative`, "", false},
		{`./x`, "", false},
		{`/home/u/x`, "", false},
		{`1:\x`, "", false},
		{`x`, "", false},
	} {
		got, ok := WindowsPath(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("WindowsPath(%q) = %q, %v, want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}
