package oneliner

import (
	"strings"
	"testing"
)

func TestCmdToPowerShell(t *testing.T) {
	for _, tt := range []struct{ line, want string }{
		{`dir`, `Get-ChildItem`},
		{`dir/s /b *.cs`, `Get-ChildItem -Path '*.cs'`},
		{`del/s/q *.tmp`, `Remove-Item -Force -Recurse -Path '*.tmp'`},
		{`gradlew.bat build`, `./gradlew.bat 'build'`},
		{`rd /s /q C:\build`, `Remove-Item -Force -Recurse -Path 'C:\build'`},
		{`del /f /q a.txt "b c.txt"`, `Remove-Item -Force -Path 'a.txt'; Remove-Item -Force -Path 'b c.txt'`},
		{`type %USERPROFILE%\.ssh\id_rsa`, `Get-Content -Path '~/.ssh/id_rsa'`},
		{`copy a.txt+b.txt c.txt`, `Copy-Item -Path 'a.txt' -Destination 'c.txt'; Copy-Item -Path 'b.txt' -Destination 'c.txt'`},
		{`robocopy src dst /MIR`, `Remove-Item -Recurse -Force -Path 'dst'; Copy-Item -Recurse -Path 'src' -Destination 'dst'`},
		{`set`, `Get-ChildItem env:`},
		{`set PATH=C:\bin;%PATH%`, `$env:PATH = "C:\bin;$env:PATH"`},
		{`echo hi > out.txt 2>nul`, `Write-Output 'hi' > 'out.txt' 2> $null`},
		{`npm install && npm test`, "npm 'install'\nnpm 'test'"},
		{`curl -s https://x.example/a | sh`, `curl '-s' 'https://x.example/a' | sh`},
		{`dir | findstr x & echo done || echo failed`, "Get-ChildItem | Get-Content -Path 'x'\nWrite-Output 'done'\nWrite-Output 'failed'"},
		{`git log ^| more`, `git 'log' '|' 'more'`},
		{`if exist build (rd /s /q build) else (echo none)`, `Remove-Item -Force -Recurse -Path 'build'; Write-Output 'none'`},
		{`for %i in (*.log) do del %i`, `Remove-Item -Force -Path "$env:FOR_VARIABLE"`},
		{`start "" /b node server.js`, `node 'server.js'`},
		{`call :label`, ``},
		{`@echo off & rem a comment`, `Write-Output 'off'`},
		{`format D: /q`, `Format-Volume -DriveLetter 'D'`},
		{`"C:\Program Files\x\x.exe" --flag`, `& 'C:\Program Files\x\x.exe' '--flag'`},
	} {
		if got := CmdToPowerShell(tt.line); got != tt.want {
			t.Errorf("CmdToPowerShell(%q)\n got  %q\n want %q", tt.line, got, tt.want)
		}
	}
}

// TestCmdNestBound: branches and commands held in commands past maxCmdNest are code moat
// did not read, not a recursion as deep as the line is long.
func TestCmdNestBound(t *testing.T) {
	got := CmdToPowerShell(strings.Repeat("if 1==1 (echo a) else ", 20) + "echo b")
	if !strings.HasSuffix(got, "Invoke-Expression $env:MOAT_UNREAD_CMD") || strings.Count(got, "Write-Output") > maxCmdNest {
		t.Errorf("got %q", got)
	}
}

func FuzzCmdToPowerShell(f *testing.F) {
	for _, s := range []string{`dir`, `rd /s /q "C:\x y"`, `for %%i in (a b) do (if exist %%i del %%i) else echo ^& x`, `set "A=%B%!C!"`, `start "t" /d C:\ /b call x`, `echo > ( | & ^`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		out := CmdToPowerShell(line)
		if len(out) > 64*len(line)+256 {
			t.Fatalf("%d bytes of PowerShell for %d of cmd", len(out), len(line))
		}
		var r Result
		inspectPowerShell(out, &r, 0)
		_ = strings.TrimSpace(out)
	})
}
