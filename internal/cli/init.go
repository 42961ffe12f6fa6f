package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/moatdev/moat/internal/atomicfile"
	"github.com/moatdev/moat/internal/policy"
	"github.com/moatdev/moat/internal/policy/source"
	"github.com/moatdev/moat/internal/trust"
)

func newInitCmd(a *app) *cobra.Command {
	var (
		template string
		force    bool
		user     bool
	)
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Write a moat.yaml policy in the current directory and trust it",
		Long: `Init writes moat.yaml, with its tests, in the current directory from a template,
and records it as trusted (a project policy is only used once you trust it).

Templates:
  recommended  deny the catastrophic, ask about the destructive-but-plausible, allow the rest
  strict       like recommended, but anything not explicitly allowed asks first
  permissive   only the catastrophic is stopped; risky calls run and are flagged (audit)

With --user, init writes your own policy (~/.config/moat/moat.yaml) instead: it applies
in every project, together with each trusted project's moat.yaml and below the managed
policy of the machine, if any; a layer can add restrictions to another, never loosen them.

Init never overwrites an existing policy unless --force is given.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			data, err := policy.Template(template)
			if err != nil {
				return usageError(err) // a name moat has no template for
			}
			cwd, err := a.cwd()
			if err != nil {
				return err
			}
			d, err := a.dirs()
			if err != nil {
				return err
			}
			file := filepath.Join(cwd, source.ProjectFile)
			if user {
				file = d.UserPolicy()
				if err := os.MkdirAll(d.Config, 0o700); err != nil {
					return fmt.Errorf("creating %s: %w", d.Config, err)
				}
			}
			if force {
				err = atomicfile.WriteFile(file, data, 0o644)
			} else {
				err = atomicfile.WriteNew(file, data, 0o644)
			}
			if errors.Is(err, fs.ErrExist) {
				return fmt.Errorf("%s already exists; use --force to replace it", file)
			}
			if err != nil {
				return fmt.Errorf("writing %s: %w", file, err)
			}
			if user {
				// The user's own policy needs no trust: nothing but the user writes there.
				_, err = fmt.Fprintf(a.env.Stdout, "wrote %s (template %s): your policy in every project, with each trusted project's moat.yaml\nnext: review it, then run `moat test %s` to run its tests\n", file, template, file)
				return err
			}
			if err := trust.Open(d.TrustStore()).Trust(file, data, a.env.Now()); err != nil {
				return fmt.Errorf("wrote %s but could not trust it: %w", file, err)
			}
			_, err = fmt.Fprintf(a.env.Stdout, "wrote %s (template %s) and trusted it\nnext: review it, then run `moat test` to run its tests\n", file, template)
			return err
		},
	}
	cmd.Flags().StringVar(&template, "template", policy.DefaultTemplate, "template to start from: "+strings.Join(policy.TemplateNames(), ", "))
	cmd.Flags().BoolVar(&force, "force", false, "replace an existing policy file")
	cmd.Flags().BoolVar(&user, "user", false, "write your own policy (~/.config/moat/moat.yaml), for every project, instead of the project's")
	return cmd
}
