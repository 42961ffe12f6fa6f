// Package doctor checks whether moat protects this user: its binary, the policy, each
// agent's hooks and MCP servers, the kernel sandbox, and the permissions of moat's files.
package doctor

import (
	"fmt"
	"strings"
	"time"

	"github.com/moatdev/moat/internal/dirs"
)

// Status is the outcome of one check.
type Status string

// Statuses, from good to bad. A warning is something that weakens protection or will
// surprise the user but leaves what moat guards guarded; a failure leaves something
// unguarded, or makes moat block every call.
const (
	OK   Status = "ok"
	Warn Status = "warn"
	Fail Status = "fail"
)

// Finding is the result of one check.
type Finding struct {
	// ID names the check, such as "hooks.claude-code"; scripts can rely on it.
	ID      string `json:"id"`
	Status  Status `json:"status"`
	Message string `json:"message"`
	// Fix is the command or step that fixes a warning or a failure.
	Fix string `json:"fix,omitempty"`
}

// PolicyInfo describes the policy that applies in a directory.
type PolicyInfo struct {
	// Name is the file's path, or "embedded:recommended".
	Name string
	// Kind says where it was found: flag, env, project, user or embedded.
	Kind string
	// Path is the file, empty for the embedded policy.
	Path  string
	Rules int
	Packs []string
	// Warnings are the sources discovery skipped, such as an untrusted project policy.
	Warnings []string
	// Layers are the policies that decide together, highest first ("managed /etc/moat/
	// managed.yaml"); nil when one policy decides alone.
	Layers []string
	// Overrides are the settings of the user's policies that the managed policy locks.
	Overrides []string
}

// Inputs is everything the checks look at, injected so that they can run against a
// temporary home.
type Inputs struct {
	Dirs dirs.Dirs
	// Cwd is the directory whose policy and project settings are checked.
	Cwd string
	// Project is the repository root above Cwd, or empty.
	Project string
	GOOS    string
	// Executable is the absolute path of the running moat, links resolved; Version is
	// its version.
	Executable, Version string
	// LookPath finds a program on PATH (exec.LookPath).
	LookPath func(string) (string, error)
	// VersionOf returns the version of the moat binary at path.
	VersionOf func(path string) (string, error)
	// Policy finds and compiles the policy for Cwd the way the hooks do.
	Policy func() (PolicyInfo, error)
	// Validate compiles the policy file at path.
	Validate func(path string) error
	// LandlockABI returns the kernel's Landlock ABI version.
	LandlockABI func() (int, error)
	// Loc is the time zone times are shown in; nil means UTC.
	Loc *time.Location
	// Now is the time; nil means time.Now.
	Now func() time.Time
	// Daemon looks for the user's daemon and its service; nil skips the daemon's
	// checks.
	Daemon func() DaemonInfo
}

// Run runs every check, in a fixed order.
func Run(in Inputs) []Finding {
	var out []Finding
	out = append(out, checkBinary(in))
	out = append(out, checkPolicy(in)...)
	out = append(out, checkHooks(in)...)
	out = append(out, checkMCP(in)...)
	out = append(out, checkLandlock(in))
	out = append(out, checkDaemon(in)...)
	out = append(out, checkFiles(in)...)
	return out
}

// Worst returns the worst status among findings, OK when there are none.
func Worst(findings []Finding) Status {
	worst := OK
	for _, f := range findings {
		switch {
		case f.Status == Fail:
			return Fail
		case f.Status == Warn:
			worst = Warn
		}
	}
	return worst
}

func checkBinary(in Inputs) Finding {
	f := Finding{ID: "moat.binary"}
	found, err := in.LookPath("moat")
	if err != nil {
		f.Status = Warn
		f.Message = fmt.Sprintf("moat %s is at %s, but no moat is on PATH: the hooks name moat by its full path, but you cannot run moat's commands by name", in.Version, in.Executable)
		f.Fix = fmt.Sprintf("ln -s %s ~/.local/bin/moat   # or add %s to PATH", shellQuote(in.Executable), shellQuote(dirOf(in.Executable)))
		return f
	}
	real := resolve(found)
	if sameFile(real, in.Executable) {
		f.Status = OK
		f.Message = fmt.Sprintf("moat %s at %s, the moat on PATH", in.Version, in.Executable)
		return f
	}
	other, err := in.VersionOf(real)
	switch {
	case err != nil:
		f.Status = Warn
		f.Message = fmt.Sprintf("the moat on PATH (%s) is not this moat (%s, %s) and does not say its version: %v", found, in.Executable, in.Version, err)
	case other != in.Version:
		f.Status = Warn
		f.Message = fmt.Sprintf("the moat on PATH (%s) is version %s, but this moat (%s) is %s: the hooks and your shell may run different versions", found, other, in.Executable, in.Version)
	default:
		f.Status = OK
		f.Message = fmt.Sprintf("moat %s at %s; the moat on PATH (%s) is another copy of the same version", in.Version, in.Executable, found)
		return f
	}
	f.Fix = fmt.Sprintf("keep one moat: remove the other, or run `moat setup` again with the one you keep")
	return f
}

func checkPolicy(in Inputs) []Finding {
	var out []Finding
	p, err := in.Policy()
	f := Finding{ID: "policy"}
	switch {
	case err != nil:
		f.Status = Fail
		f.Message = fmt.Sprintf("the policy for %s does not load, so the hooks fail closed and every call is blocked: %v", in.Cwd, oneLine(err.Error()))
		f.Fix = "moat validate" + pathArg(p.Path)
	case len(p.Warnings) > 0:
		f.Status = Warn
		f.Message = fmt.Sprintf("in %s the hooks use %s (%s); %s", in.Cwd, p.Name, describePolicy(p), strings.Join(p.Warnings, "; "))
		f.Fix = "review the project's moat.yaml, then run `moat trust`"
	case p.Kind == "embedded":
		f.Status = OK
		f.Message = fmt.Sprintf("no policy file applies in %s: the hooks use moat's built-in recommended policy (%s)", in.Cwd, describePolicy(p))
	default:
		f.Status = OK
		f.Message = fmt.Sprintf("in %s the hooks use %s, from the %s (%s)", in.Cwd, p.Name, kindName(p.Kind), describePolicy(p))
	}
	out = append(out, f)
	if err == nil && len(p.Layers) > 0 {
		out = append(out, Finding{ID: "policy.layers", Status: OK, Message: fmt.Sprintf("the policies that decide together, highest first: %s; the strictest decision of those whose rules match stands", strings.Join(p.Layers, "; "))})
	}
	if err == nil && len(p.Overrides) > 0 {
		out = append(out, Finding{ID: "policy.locked", Status: Warn,
			Message: fmt.Sprintf("settings the managed policy locks are set in your policies too, and ignored: %s", strings.Join(p.Overrides, "; ")),
			Fix:     "remove those settings from your policies, or ask your administrator"})
	}

	user := in.Dirs.UserPolicy()
	if p.Path != user && exists(user) {
		u := Finding{ID: "policy.user", Status: OK, Message: fmt.Sprintf("your policy %s is valid; it applies in every directory, together with the trusted project policy where there is one", user)}
		if err := in.Validate(user); err != nil {
			u.Status = Fail
			u.Message = fmt.Sprintf("your policy %s does not load, so outside trusted projects the hooks block every call: %v", user, oneLine(err.Error()))
			u.Fix = "moat validate " + shellQuote(user)
		}
		out = append(out, u)
	}
	return out
}

func describePolicy(p PolicyInfo) string {
	s := fmt.Sprintf("%d rules", p.Rules)
	if len(p.Packs) > 0 {
		s += ", packs " + strings.Join(p.Packs, ", ")
	}
	return s
}

func kindName(kind string) string {
	switch kind {
	case "env":
		return "MOAT_POLICY environment variable (the agents must have it too)"
	case "project":
		return "project, trusted"
	case "user":
		return "user's configuration"
	}
	return kind
}

func pathArg(p string) string {
	if p == "" {
		return ""
	}
	return " " + shellQuote(p)
}

func checkLandlock(in Inputs) Finding {
	f := Finding{ID: "sandbox.landlock"}
	if in.GOOS != "linux" {
		f.Status = Warn
		f.Message = fmt.Sprintf("Landlock is Linux only: on %s `moat launch` cannot confine an agent in the kernel; the hooks and the MCP proxy still apply", in.GOOS)
		return f
	}
	abi, err := in.LandlockABI()
	if err != nil {
		f.Status = Warn
		f.Message = fmt.Sprintf("the kernel has no Landlock (%v): `moat launch` cannot confine an agent; the hooks and the MCP proxy still apply", err)
		f.Fix = "use Linux 5.13 or later with Landlock enabled (the lsm= boot parameter must list landlock)"
		return f
	}
	f.Status = OK
	f.Message = fmt.Sprintf("the kernel supports Landlock ABI %d", abi)
	if abi < 4 {
		f.Status = Warn
		f.Message += ": `moat launch` can confine files, but not network connections (those need ABI 4, Linux 6.7)"
		f.Fix = "use Linux 6.7 or later for network rules in the sandbox"
	}
	return f
}

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	return strings.ReplaceAll(s, "\n", "; ")
}

// shellQuote quotes s for a POSIX shell when it needs quoting, so that fixes can be
// pasted.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`!*?[]{}()<>|&;#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
