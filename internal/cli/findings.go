package cli

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/findings"
)

func newFindingsCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "findings",
		Short: "List the findings analysis can report, for use in rules' findings: conditions",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if asJSON {
				type kind struct {
					ID       string        `json:"id"`
					Category string        `json:"category"`
					Severity call.Severity `json:"severity"`
					Taxonomy string        `json:"taxonomy,omitempty"`
					Summary  string        `json:"summary"`
					// Compliance places the kind in OWASP LLM Top 10, ATT&CK and ATLAS.
					Compliance findings.Mapping `json:"compliance"`
				}
				kinds := findings.Kinds()
				out := make([]kind, len(kinds))
				for i, k := range kinds {
					m, _ := findings.Compliance(k.ID)
					out[i] = kind{k.ID, k.Category, k.Severity, k.Taxonomy, k.Summary, m}
				}
				return json.NewEncoder(a.env.Stdout).Encode(out)
			}
			tw := tabwriter.NewWriter(a.env.Stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tCATEGORY\tSEVERITY\tATT&CK\tSUMMARY")
			for _, k := range findings.Kinds() {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", k.ID, k.Category, k.Severity, k.Taxonomy, k.Summary)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return cmd
}
