package cli

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X github.com/moatdev/moat/internal/cli.version=v1.2.3".
var version = "dev"

type versionInfo struct {
	Version string `json:"version"`
	Commit  string `json:"commit,omitempty"`
	// Date is the commit's time (RFC 3339), as the Go toolchain stamped it.
	Date string `json:"date,omitempty"`
	// Modified says the binary was built from a tree with uncommitted changes.
	Modified  bool   `json:"modified,omitempty"`
	GoVersion string `json:"go"`
	Platform  string `json:"platform"`
}

// String is the version as `moat version` and `moat --version` print it.
func (v versionInfo) String() string {
	s := "moat " + v.Version
	if v.Commit != "" {
		s += " (commit " + v.Commit
		if v.Modified {
			s += ", modified"
		}
		if v.Date != "" {
			s += ", " + v.Date
		}
		s += ")"
	}
	return s + " " + v.GoVersion + " " + v.Platform
}

func buildInfo() versionInfo {
	v := versionInfo{Version: version, GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v.Version == "dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				v.Commit = s.Value
			case "vcs.time":
				v.Date = s.Value
			case "vcs.modified":
				v.Modified = s.Value == "true"
			}
		}
	}
	return v
}

func newVersionCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print moat's version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			v := buildInfo()
			if asJSON {
				return json.NewEncoder(a.env.Stdout).Encode(v)
			}
			_, err := fmt.Fprintln(a.env.Stdout, v)
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return cmd
}
