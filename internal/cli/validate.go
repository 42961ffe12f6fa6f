package cli

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/moatdev/moat/internal/policy"
)

func newValidateCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "validate [FILE]",
		Short: "Check a policy file for mistakes",
		Long: `Validate reads a policy file and reports every mistake in it, each with its
file:line:column: unknown keys, wrong types, invalid regular expressions or globs,
unknown packs, path sets, agents, tools or findings, duplicate rule ids, and rules that
can never match. Rules shadowed by an earlier rule that matches every call they match
are reported as warnings, which do not make the policy invalid.

Without FILE it validates the project's moat.yaml (found from the working directory up
to the repository root, trusted or not), else your user policy. When the hooks for the
file's directory would not use the file as it is (a project policy not trusted yet; one
changed since it was, for which they keep enforcing the version you trusted; a link out
of its repository), a note on stderr says so and why; --json reports it as used_by_hooks
and hooks_note. A policy location holding something that is not a regular file (a
dangling link, a FIFO, a device) is an error, as it is for the hooks.

Settings that the machine's managed policy locks (it writes them) are reported too: they
have no effect in FILE (--json: locked).

Exit status: 0 when the policy is valid, 1 when it is not (or cannot be read).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			file, err := a.fileArg(args)
			if err != nil {
				return err
			}
			note := a.noteHooks(file)
			l, err := a.compileFile(file)
			var list policy.ErrorList
			switch {
			case errors.As(err, &list):
				if asJSON {
					return a.printJSONErrors(file, list)
				}
				for _, e := range list {
					fmt.Fprintln(a.env.Stdout, e)
				}
				return &exitCode{code: exitError, err: fmt.Errorf("%s: %d %s", file, len(list), plural(len(list), "error", "errors"))}
			case err != nil:
				return err
			}
			warnings := shadowWarnings(file, l.policy.Shadowed())
			locked := a.lockedNotes(file)
			if asJSON {
				out := map[string]any{"file": file, "valid": true, "errors": []any{}, "warnings": warnings, "rules": len(l.policy.Rules), "tests": len(l.policy.Tests), "used_by_hooks": note == "", "hooks_note": note}
				if len(locked) > 0 {
					out["locked"] = locked
				}
				return json.NewEncoder(a.env.Stdout).Encode(out)
			}
			for _, w := range warnings {
				fmt.Fprintf(a.env.Stdout, "%s:%d: warning: %s\n", w.File, w.Line, w.Message)
			}
			for _, n := range locked {
				fmt.Fprintf(a.env.Stderr, "moat: note: %s\n", n)
			}
			_, err = fmt.Fprintf(a.env.Stdout, "%s: valid (%d rules, %d tests)\n", file, len(l.policy.Rules), len(l.policy.Tests))
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}

func (a *app) printJSONErrors(file string, list policy.ErrorList) error {
	type jsonError struct {
		File    string `json:"file"`
		Line    int    `json:"line"`
		Col     int    `json:"column"`
		Message string `json:"message"`
	}
	errs := make([]jsonError, len(list))
	for i, e := range list {
		errs[i] = jsonError{e.File, e.Line, e.Col, e.Msg}
	}
	if err := json.NewEncoder(a.env.Stdout).Encode(map[string]any{"file": file, "valid": false, "errors": errs}); err != nil {
		return err
	}
	return &exitCode{code: exitError}
}

func firstArg(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return args[0]
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// validateWarning is a mistake that does not make a policy invalid.
type validateWarning struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Message string `json:"message"`
}

// shadowWarnings says, for each shadowed rule, which earlier rule decides its calls.
func shadowWarnings(file string, shadows []policy.Shadow) []validateWarning {
	out := []validateWarning{}
	for _, s := range shadows {
		out = append(out, validateWarning{File: file, Line: s.Rule.Line, Message: fmt.Sprintf(
			"rule %q can never decide a call: rule %q (line %d) matches every call it matches, and comes first", s.Rule.ID, s.By.ID, s.By.Line)})
	}
	return out
}
