package cli

import (
	"errors"
	"fmt"
	"io/fs"
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

Init never overwrites an existing moat.yaml unless --force is given.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			data, err := policy.Template(template)
			if err != nil {
				return err
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
			if err := trust.Open(d.TrustStore()).Trust(file, data, a.env.Now()); err != nil {
				return fmt.Errorf("wrote %s but could not trust it: %w", file, err)
			}
			_, err = fmt.Fprintf(a.env.Stdout, "wrote %s (template %s) and trusted it\nnext: review it, then run `moat test` to run its tests\n", file, template)
			return err
		},
	}
	cmd.Flags().StringVar(&template, "template", policy.DefaultTemplate, "template to start from: "+strings.Join(policy.TemplateNames(), ", "))
	cmd.Flags().BoolVar(&force, "force", false, "replace an existing moat.yaml")
	return cmd
}
