package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/moatdev/moat/internal/decide"
	"github.com/moatdev/moat/internal/scan"
)

func newTestCmd(a *app) *cobra.Command {
	var (
		asJSON  bool
		verbose bool
	)
	cmd := &cobra.Command{
		Use:   "test [FILE]",
		Short: "Run a policy's inline tests",
		Long: `Test evaluates every call in the policy's tests: section and compares the decision
(and, when the test names one, the deciding rule) with the expected one. Each failure
is printed with the trace of how the decision was reached.

Tests without a cwd run in the policy file's directory, which is also their workspace.
Without FILE, test uses the project's moat.yaml, else your user policy. When the hooks
would not use the file as it is (a project policy not trusted yet; one changed since it
was, for which they keep enforcing the version you trusted), a note on stderr says so
and why.

Exit status: 0 when every test passes, 1 when one fails or the policy is invalid.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			file, err := a.fileArg(args)
			if err != nil {
				return err
			}
			a.noteHooks(file)
			l, err := a.compileFile(file)
			if err != nil {
				return err
			}
			results := l.compiled.RunTests(cmd.Context(), filepath.Dir(file))
			return a.reportTests(file, results, asJSON, verbose)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the results as JSON")
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "also list the tests that pass, and show every rule a failing test's call was tried against")
	return cmd
}

func (a *app) reportTests(file string, results []decide.TestResult, asJSON, verbose bool) error {
	failed := 0
	for _, r := range results {
		if !r.Passed() {
			failed++
		}
	}
	if asJSON {
		type jsonResult struct {
			Name     string `json:"name"`
			Line     int    `json:"line"`
			Pass     bool   `json:"pass"`
			Expect   string `json:"expect"`
			Decision string `json:"decision"`
			Rule     string `json:"rule"`
			Failure  string `json:"failure,omitempty"`
		}
		out := make([]jsonResult, len(results))
		for i, r := range results {
			out[i] = jsonResult{r.Test.Name, r.Test.Line, r.Passed(), r.Test.Expect.String(), r.Decision.Verdict.String(), r.Decision.Rule, r.Failure}
		}
		data, err := json.Marshal(map[string]any{"file": file, "tests": out, "failed": failed})
		if err != nil {
			return err
		}
		fmt.Fprintln(a.env.Stdout, scan.Redact(string(data)))
	} else {
		var b strings.Builder
		for _, r := range results {
			switch {
			case !r.Passed():
				fmt.Fprintf(&b, "FAIL %s:%d %s: %s\n", file, r.Test.Line, r.Test.Name, r.Failure)
				var tb strings.Builder
				write := r.Trace.WriteConcise
				if verbose {
					write = r.Trace.WriteText
				}
				if err := write(&tb, nil); err != nil {
					return err
				}
				for _, line := range strings.Split(strings.TrimRight(tb.String(), "\n"), "\n") {
					fmt.Fprintf(&b, "    %s\n", line)
				}
			case verbose:
				fmt.Fprintf(&b, "ok   %s:%d %s: %s\n", file, r.Test.Line, r.Test.Name, r.Decision.Verdict)
			}
		}
		if failed == 0 {
			fmt.Fprintf(&b, "PASS %s: %d %s\n", file, len(results), plural(len(results), "test", "tests"))
		} else {
			fmt.Fprintf(&b, "FAIL %s: %d of %d %s failed\n", file, failed, len(results), plural(len(results), "test", "tests"))
		}
		fmt.Fprint(a.env.Stdout, scan.Redact(b.String()))
	}
	if failed > 0 {
		return &exitCode{code: exitError}
	}
	return nil
}
