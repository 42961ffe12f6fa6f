// Package userservice renders the files that run moat's daemon as a service of the
// user's own (a systemd user unit, a launchd agent) and names where they live.
package userservice

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/moatdev/moat/internal/dirs"
)

// Manager is the service manager a unit is written for.
type Manager string

// The service managers moat installs its daemon with.
const (
	Systemd Manager = "systemd"
	Launchd Manager = "launchd"
)

// Names of the daemon's service: systemd's unit name and launchd's label.
const (
	SystemdUnit  = "moat.service"
	LaunchdLabel = "dev.moat.daemon"
)

// ErrUnsupported says that moat knows no per-user service manager on a system.
var ErrUnsupported = errors.New("no per-user service manager moat can install its daemon with")

// Spec is what the service runs.
type Spec struct {
	// Executable is the absolute path of the moat binary; Args follow it.
	Executable string
	Args       []string
	// Env holds the variables the service runs with, as NAME=VALUE, in order: the
	// manager's own environment is not the user's shell's, and the daemon must find the
	// same policy and socket as the shell's moat does.
	Env []string
	// Log is the file launchd appends the daemon's output to (systemd keeps it in its
	// journal).
	Log string
}

// Unit is one service file: where it goes and what it holds.
type Unit struct {
	Manager Manager
	// Name is the unit's name (systemd) or label (launchd).
	Name    string
	Path    string
	Content []byte
}

// For renders the unit for goos, for the user of d.
func For(goos string, d dirs.Dirs, s Spec) (Unit, error) {
	if !filepath.IsAbs(s.Executable) {
		return Unit{}, fmt.Errorf("the service's program %q is not an absolute path", s.Executable)
	}
	for _, v := range append(append([]string{s.Executable, s.Log}, s.Args...), s.Env...) {
		if strings.ContainsFunc(v, isControl) {
			return Unit{}, fmt.Errorf("%q holds a control character, which a service file cannot carry", v)
		}
	}
	for _, kv := range s.Env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return Unit{}, fmt.Errorf("environment entry %q is not NAME=VALUE", kv)
		}
	}
	switch goos {
	case "linux":
		return Unit{Manager: Systemd, Name: SystemdUnit, Path: SystemdPath(d), Content: systemdUnit(s)}, nil
	case "darwin":
		if !filepath.IsAbs(s.Log) {
			return Unit{}, fmt.Errorf("the service's log %q is not an absolute path", s.Log)
		}
		return Unit{Manager: Launchd, Name: LaunchdLabel, Path: LaunchdPath(d), Content: launchdAgent(s)}, nil
	}
	return Unit{}, fmt.Errorf("%s: %w", goos, ErrUnsupported)
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// SystemdPath is where the user's systemd unit of the daemon lives:
// $XDG_CONFIG_HOME/systemd/user (d.Config is $XDG_CONFIG_HOME/moat).
func SystemdPath(d dirs.Dirs) string {
	return filepath.Join(filepath.Dir(d.Config), "systemd", "user", SystemdUnit)
}

// LaunchdPath is where the user's launchd agent of the daemon lives.
func LaunchdPath(d dirs.Dirs) string {
	return filepath.Join(d.Home, "Library", "LaunchAgents", LaunchdLabel+".plist")
}

// Protected lists the files that decide what the daemon's service runs, on every
// system, as patterns of moat's own paths: whoever rewrites them chooses the program
// that answers for moat at the next login. For systemd that is the unit and its drop-in
// directories (which override ExecStart) in the user's unit directories, and the
// drop-ins that apply to every service.
func Protected(d dirs.Dirs) []string {
	config := filepath.Dir(d.Config)
	var out []string
	for _, dir := range []string{
		filepath.Join(config, "systemd", "user"),
		filepath.Join(config, "systemd", "user.control"),
		filepath.Join(d.Home, ".local", "share", "systemd", "user"),
	} {
		out = append(out,
			filepath.Join(dir, SystemdUnit),
			filepath.Join(dir, SystemdUnit+".d", "**"),
			filepath.Join(dir, "service.d", "**"))
	}
	return append(out, LaunchdPath(d))
}

// systemdUnit renders the systemd user unit. systemd splits ExecStart= into words
// itself, so every word is quoted for systemd, not for a shell.
func systemdUnit(s Spec) []byte {
	var b bytes.Buffer
	b.WriteString("# Written by `moat daemon install`; `moat daemon uninstall` removes it.\n")
	b.WriteString("[Unit]\nDescription=moat daemon: one decision service for AI coding agents' tool calls\n\n")
	b.WriteString("[Service]\nType=simple\n")
	for _, kv := range s.Env {
		fmt.Fprintf(&b, "Environment=%s\n", systemdQuote(kv, false))
	}
	words := make([]string, 0, 1+len(s.Args))
	for _, w := range append([]string{s.Executable}, s.Args...) {
		words = append(words, systemdQuote(w, true))
	}
	fmt.Fprintf(&b, "ExecStart=%s\n", strings.Join(words, " "))
	b.WriteString("Restart=on-failure\nRestartSec=2\n\n")
	b.WriteString("[Install]\nWantedBy=default.target\n")
	return b.Bytes()
}

// systemdQuote quotes one word of a unit: % starts a specifier everywhere, and $ a
// variable in ExecStart=; a word with blanks, quotes or backslashes is double-quoted
// with C escapes.
func systemdQuote(w string, exec bool) string {
	w = strings.ReplaceAll(w, "%", "%%")
	if exec {
		w = strings.ReplaceAll(w, "$", "$$")
	}
	if w != "" && !strings.ContainsAny(w, " \t\"'\\;") {
		return w
	}
	w = strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(w)
	return `"` + w + `"`
}

// launchdAgent renders the launchd agent: started at login, started again when it
// exits with a failure, its output appended to the log.
func launchdAgent(s Spec) []byte {
	var b bytes.Buffer
	b.WriteString(xml.Header)
	b.WriteString(`<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">` + "\n")
	b.WriteString("<!-- Written by `moat daemon install`; `moat daemon uninstall` removes it. -->\n")
	b.WriteString("<plist version=\"1.0\">\n<dict>\n")
	key := func(k string) { fmt.Fprintf(&b, "\t<key>%s</key>\n", k) }
	str := func(indent, v string) {
		fmt.Fprintf(&b, "%s<string>", indent)
		xml.EscapeText(&b, []byte(v))
		b.WriteString("</string>\n")
	}
	key("Label")
	str("\t", LaunchdLabel)
	key("ProgramArguments")
	b.WriteString("\t<array>\n")
	for _, a := range append([]string{s.Executable}, s.Args...) {
		str("\t\t", a)
	}
	b.WriteString("\t</array>\n")
	if len(s.Env) > 0 {
		key("EnvironmentVariables")
		b.WriteString("\t<dict>\n")
		for _, kv := range s.Env {
			k, v, _ := strings.Cut(kv, "=")
			fmt.Fprintf(&b, "\t\t<key>")
			xml.EscapeText(&b, []byte(k))
			b.WriteString("</key>\n")
			str("\t\t", v)
		}
		b.WriteString("\t</dict>\n")
	}
	key("RunAtLoad")
	b.WriteString("\t<true/>\n")
	key("KeepAlive")
	b.WriteString("\t<dict>\n\t\t<key>SuccessfulExit</key>\n\t\t<false/>\n\t</dict>\n")
	key("ProcessType")
	str("\t", "Background")
	key("StandardOutPath")
	str("\t", s.Log)
	key("StandardErrorPath")
	str("\t", s.Log)
	b.WriteString("</dict>\n</plist>\n")
	return b.Bytes()
}

// RunsProgram reports whether installed, the content of a service file of manager m,
// runs the program exe; other arguments and variables may differ. It reads the files
// that For writes, not every file a user could write.
func RunsProgram(m Manager, installed []byte, exe string) bool {
	switch m {
	case Systemd:
		prefix := "ExecStart=" + systemdQuote(exe, true)
		for line := range strings.Lines(string(installed)) {
			line = strings.TrimRight(line, "\n")
			if line == prefix || strings.HasPrefix(line, prefix+" ") {
				return true
			}
		}
	case Launchd:
		var want bytes.Buffer
		want.WriteString("<key>ProgramArguments</key>\n\t<array>\n\t\t<string>")
		xml.EscapeText(&want, []byte(exe))
		want.WriteString("</string>\n")
		return bytes.Contains(installed, want.Bytes())
	}
	return false
}
