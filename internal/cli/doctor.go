package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/moatdev/moat/internal/doctor"
	"github.com/moatdev/moat/internal/logview"
	"github.com/moatdev/moat/internal/policy/source"
	"github.com/moatdev/moat/internal/sandbox/linux"
)

func newDoctorCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "doctor [--json]",
		Short: "Check that moat protects you, and say how to fix what does not",
		Long: `Doctor checks everything moat needs to protect you, and prints each finding with the
command that fixes it:

  moat.binary       this moat, its version, and whether it is the moat on PATH
  policy            the policy the hooks use in the current directory, and whether it loads
  policy.user       your own policy, when another one applies here
  hooks.AGENT       for each agent: installed or not, moat's hooks in its settings for
                    every event, the moat they run still there, and for Codex, that
                    Codex trusts them (it skips untrusted hooks without a word)
  setup.backups     no backup of a settings file left inside the repository
  mcp.CLIENT.SCOPE  for each MCP configuration file: which servers run through moat's proxy
  sandbox.landlock  the kernel's Landlock ABI, for 'moat launch'
  state.dir, state.files, config.dir, config.policy
                    moat's directories and files are yours, and private
  audit.writes      decisions reach the audit log: none of its files is a link, a FIFO or
                    another user's, its directory is writable, no record waits in a spool
                    file (the log was locked or refused); warn on such incidents this week
  audit.log         the audit log is readable and well formed
  audit.chain       no record of the trail was edited, removed, inserted or moved since it
                    was written (moat logs --verify)
  daemon            the optional daemon: running (pid, socket, uptime, policies, decisions)
                    or not, a socket left by one that ended
  daemon.service    installed as a service ('moat daemon install') or not; one that runs
                    another moat, or does not run, is a warning

Each finding is ok, warn (protection is weaker than it could be) or fail (something
is not protected, or every call will be blocked).

Exit status: 0 when nothing failed (warnings allowed), 1 when any check failed.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.doctor(cmd.Context(), asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the findings as JSON")
	return cmd
}

func (a *app) doctor(ctx context.Context, asJSON bool) error {
	d, err := a.dirs()
	if err != nil {
		return err
	}
	cwd, err := a.cwd()
	if err != nil {
		return err
	}
	exe, err := a.moatPath()
	if err != nil {
		return err
	}
	in := doctor.Inputs{
		Dirs: d, Cwd: cwd, Project: source.RepoRoot(cwd), GOOS: runtime.GOOS,
		Executable: exe, Version: buildInfo().Version,
		LookPath:  a.lookPath,
		VersionOf: func(path string) (string, error) { return moatVersion(ctx, path) },
		Policy:    func() (doctor.PolicyInfo, error) { return a.doctorPolicy(cwd) },
		Validate: func(path string) error {
			_, err := a.compileFile(path)
			return err
		},
		LandlockABI: linux.KernelABI,
		Loc:         time.Local,
		Now:         a.env.Now,
		Daemon:      func() doctor.DaemonInfo { return a.doctorDaemon(ctx, runtime.GOOS) },
	}
	findings := append(doctor.Run(in), a.doctorBundle()...)
	worst := doctor.Worst(findings)
	if asJSON {
		err = writeJSON(a.env.Stdout, struct {
			OK       bool             `json:"ok"`
			Status   doctor.Status    `json:"status"`
			Findings []doctor.Finding `json:"findings"`
		}{worst != doctor.Fail, worst, findings})
	} else {
		err = a.printFindings(findings)
	}
	if err != nil {
		return err
	}
	if worst == doctor.Fail {
		return &exitCode{code: exitError}
	}
	return nil
}

// lookPath finds a program on the PATH of moat's environment.
func (a *app) lookPath(name string) (string, error) {
	for _, dir := range filepath.SplitList(a.env.Getenv("PATH")) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue // a relative entry names whatever directory moat happens to run in
		}
		if p, err := exec.LookPath(filepath.Join(dir, name)); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: %w", name, exec.ErrNotFound)
}

// moatVersion asks the moat binary at path for its version.
func moatVersion(ctx context.Context, path string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, path, "version", "--json")
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		return "", err
	}
	var v versionInfo
	if err := json.Unmarshal(out.Bytes(), &v); err != nil || v.Version == "" {
		return "", errors.New("it printed no version")
	}
	return v.Version, nil
}

// doctorPolicy finds and compiles the policy for cwd as a hook does, keeping the
// warnings about skipped sources instead of printing them.
func (a *app) doctorPolicy(cwd string) (doctor.PolicyInfo, error) {
	var info doctor.PolicyInfo
	src, d, err := a.findPolicyWarn("", cwd, "", func(msg string) { info.Warnings = append(info.Warnings, msg) })
	if err != nil {
		return info, err
	}
	info.Name, info.Kind, info.Path = src.Name, string(src.Kind), src.Path
	l, err := a.compile(src, d)
	if err != nil {
		return info, err
	}
	info.Rules, info.Packs = len(l.policy.Rules), l.policy.Packs
	for _, layer := range l.policy.Layers {
		info.Layers = append(info.Layers, layer.Kind+" "+layer.Policy.Source)
	}
	for _, o := range l.compiled.Overrides {
		info.Overrides = append(info.Overrides, o.String())
	}
	return info, nil
}

func (a *app) printFindings(findings []doctor.Finding) error {
	counts := map[doctor.Status]int{}
	width := 0
	for _, f := range findings {
		counts[f.Status]++
		width = max(width, len(f.ID))
	}
	_, term := logview.Terminal(a.env.Stdout)
	color := term && a.env.Getenv("NO_COLOR") == ""
	var b strings.Builder
	for _, f := range findings {
		label := map[doctor.Status]string{doctor.OK: "ok  ", doctor.Warn: "warn", doctor.Fail: "FAIL"}[f.Status]
		if color {
			label = map[doctor.Status]string{doctor.OK: "\x1b[32m", doctor.Warn: "\x1b[33m", doctor.Fail: "\x1b[1;31m"}[f.Status] + label + "\x1b[0m"
		}
		fmt.Fprintf(&b, "%s  %-*s  %s\n", label, width, f.ID, logview.Clean(f.Message))
		if f.Fix != "" {
			fmt.Fprintf(&b, "      %-*s  fix: %s\n", width, "", logview.Clean(f.Fix))
		}
	}
	switch {
	case counts[doctor.Fail] > 0:
		fmt.Fprintf(&b, "\n%d %s to fix", counts[doctor.Fail], plural(counts[doctor.Fail], "problem", "problems"))
		if n := counts[doctor.Warn]; n > 0 {
			fmt.Fprintf(&b, ", %d %s", n, plural(n, "warning", "warnings"))
		}
		b.WriteString(".\n")
	case counts[doctor.Warn] > 0:
		fmt.Fprintf(&b, "\nmoat protects you; %d %s.\n", counts[doctor.Warn], plural(counts[doctor.Warn], "warning", "warnings"))
	default:
		b.WriteString("\nmoat protects you: every check passed.\n")
	}
	_, err := fmt.Fprint(a.env.Stdout, b.String())
	return err
}
