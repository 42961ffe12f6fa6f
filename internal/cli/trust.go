package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/moatdev/moat/internal/policy"
	"github.com/moatdev/moat/internal/policy/source"
	"github.com/moatdev/moat/internal/regfile"
	"github.com/moatdev/moat/internal/trust"
)

func newTrustCmd(a *app) *cobra.Command {
	var (
		list     bool
		revoke   bool
		asJSON   bool
		diffOnly bool
	)
	cmd := &cobra.Command{
		Use:   "trust [FILE]",
		Short: "Allow a project's moat.yaml to be used, after you have reviewed it",
		Long: `A project policy (moat.yaml in a repository) is ignored until you trust it, because a
cloned repository must not be able to loosen your policy. Trust records the file's real
path and the SHA-256 of its content in moat's state directory, with a copy of the
content. If the file changes, moat keeps enforcing the version you trusted (from that
copy), never another policy, and tells you once through the agent, until you review the
change and trust it again.

A moat.yaml that is a symbolic link to a file outside its repository is not trusted
(trust is kept by real path, so it would borrow the trust of the file it points to):
trust refuses it; replace the link with a copy. A link to a file inside the repository is
trusted as that file.

When the file changed since you trusted it, trust first prints what changed, as a
unified diff against the version you trusted; --diff prints only that and trusts
nothing (exit status 0 when the file is unchanged, 1 when it changed or was never
trusted, as diff(1) does).

Without FILE, trust acts on the project's moat.yaml found from the working directory.
Trust refuses a policy that does not validate.`,
		Example: `  moat trust                 # trust ./moat.yaml (or the one above, up to the repository root)
  moat trust --diff          # what changed since you trusted it
  moat trust --list --json
  moat trust --revoke services/api/moat.yaml`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := a.dirs()
			if err != nil {
				return err
			}
			store := trust.Open(d.TrustStore())
			if list {
				if len(args) > 0 || revoke {
					return fmt.Errorf("--list takes no file and no --revoke")
				}
				entries, err := store.List()
				if err != nil {
					return err
				}
				if asJSON {
					if entries == nil {
						entries = []trust.Entry{}
					}
					return json.NewEncoder(a.env.Stdout).Encode(entries)
				}
				for _, e := range entries {
					fmt.Fprintf(a.env.Stdout, "%s  %s  %s\n", e.TrustedAt.Format("2006-01-02 15:04"), e.SHA256[:12], e.Path)
				}
				return nil
			}
			cwd, err := a.cwd()
			if err != nil {
				return err
			}
			file := firstArg(args)
			if file == "" {
				p, ok, err := source.ProjectPolicy(cwd)
				if err != nil {
					return err
				}
				if !ok {
					return fmt.Errorf("no %s from %s up to the repository root; name the file to trust", source.ProjectFile, cwd)
				}
				file = p
			} else if file, err = a.policyFile(file, cwd); err != nil {
				return err
			}
			if diffOnly {
				if revoke {
					return fmt.Errorf("--diff does not go with --revoke")
				}
				changed, err := a.trustDiff(store, file)
				if err != nil {
					return err
				}
				if changed {
					return &exitCode{code: exitError}
				}
				return nil
			}
			if revoke {
				was, err := store.Revoke(file)
				if err != nil {
					return err
				}
				if !was {
					return fmt.Errorf("%s was not trusted", file)
				}
				_, err = fmt.Fprintf(a.env.Stdout, "no longer trusted: %s\n", file)
				return err
			}
			// Trust is kept by real path: a link whose real file lies outside the
			// repository would lend that file's trust to this repository, so it is not
			// trusted; a copy can be.
			root := source.RepoRoot(filepath.Dir(file))
			if root == "" {
				root = filepath.Dir(file)
			}
			why, err := source.Escape(file, root)
			if err != nil {
				return err
			}
			if why != "" {
				return fmt.Errorf("not trusting %s", why)
			}
			l, err := a.compileFile(file)
			var invalid policy.ErrorList
			if errors.As(err, &invalid) {
				return fmt.Errorf("not trusting %s: it does not validate:\n%w", file, err)
			}
			if err != nil {
				return err
			}
			if status, err := store.Check(file, l.source.Data); err == nil && status == trust.Changed {
				if _, err := a.trustDiff(store, file); err != nil {
					return err
				}
			}
			// Trust exactly the bytes that were validated.
			if err := store.Trust(file, l.source.Data, a.env.Now()); err != nil {
				return err
			}
			if _, err := fmt.Fprintf(a.env.Stdout, "trusted %s (sha256 %s)\n", file, trust.Hash(l.source.Data)); err != nil {
				return err
			}
			return untrustedIncludes(a.env.Stdout, store, file, l.policy.Included)
		},
	}
	cmd.Flags().BoolVar(&list, "list", false, "list the trusted policy files")
	cmd.Flags().BoolVar(&revoke, "revoke", false, "stop trusting the file")
	cmd.Flags().BoolVar(&asJSON, "json", false, "with --list, print as JSON")
	cmd.Flags().BoolVar(&diffOnly, "diff", false, "print what changed since the file was trusted, and trust nothing")
	return cmd
}

// untrustedIncludes says which of the files a project policy extends are not trusted as
// they are: the project layer reads only trusted files, so until they are, every decision
// under the policy fails closed, and `moat trust` says so rather than leave it to the
// next hook. Each is named with the command that trusts it once reviewed.
func untrustedIncludes(w io.Writer, store *trust.Store, file string, included []string) error {
	var untrusted []string
	for _, inc := range included {
		data, err := regfile.Read(inc, policy.MaxIncludedBytes)
		if err != nil {
			untrusted = append(untrusted, inc)
			continue
		}
		if status, err := store.Check(inc, data); err != nil || status != trust.Trusted {
			untrusted = append(untrusted, inc)
		}
	}
	if len(untrusted) == 0 {
		return nil
	}
	fmt.Fprintf(w, "%s extends files you have not trusted as they are; until you review and trust them, every decision under it fails closed:\n", file)
	for _, u := range untrusted {
		fmt.Fprintf(w, "  moat trust %s\n", u)
	}
	return nil
}

// trustDiff prints what changed in file since it was trusted, and reports whether it
// differs from the trusted version (or was never trusted).
func (a *app) trustDiff(store *trust.Store, file string) (bool, error) {
	src, err := source.ReadFile(file)
	if err != nil {
		return false, err
	}
	current := src.Data
	old, ok, err := store.TrustedContent(file)
	if err != nil {
		return false, err
	}
	if !ok {
		status, err := store.Check(file, current)
		if err != nil {
			return false, err
		}
		switch status {
		case trust.Trusted:
			fmt.Fprintf(a.env.Stdout, "%s is trusted as it is\n", file)
			return false, nil
		case trust.Changed:
			fmt.Fprintf(a.env.Stdout, "%s changed since you trusted it, but the trusted version was not kept (it was trusted by an older moat): review the whole file\n", file)
		default:
			fmt.Fprintf(a.env.Stdout, "%s was never trusted: review the whole file\n", file)
		}
		return true, nil
	}
	if bytes.Equal(old, current) {
		fmt.Fprintf(a.env.Stdout, "%s is trusted as it is\n", file)
		return false, nil
	}
	_, err = io.WriteString(a.env.Stdout, fileDiff(file+" (trusted)", string(old), file+" (now)", string(current)))
	return true, err
}
