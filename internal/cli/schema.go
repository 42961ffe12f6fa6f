package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/moatdev/moat/internal/policyschema"
)

func newSchemaCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "schema",
		Short: "Print the JSON Schema of policy files, for editors",
		Long: `Print the JSON Schema (draft 2020-12) of moat.yaml and of pack files, generated from
the policy language's types. Editors use it to complete and explain keys and to flag
mistakes as you type; moat validate remains the full check.

The same schema is published at
  ` + policyschema.ID,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			schema, err := policyschema.Generate()
			if err != nil {
				return fmt.Errorf("generating the schema: %w", err)
			}
			_, err = a.env.Stdout.Write(schema)
			return err
		},
	}
}
