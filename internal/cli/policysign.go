package cli

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/moatdev/moat/internal/atomicfile"
	"github.com/moatdev/moat/internal/policy"
	"github.com/moatdev/moat/internal/policy/source"
	"github.com/moatdev/moat/internal/policysign"
)

// defaultKeyName names the key pair moat policy keygen writes when --name is not given.
const defaultKeyName = "moat-policy"

func newPolicyCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "policy",
		Short: "Sign policies and verify their signatures",
		Long: `A team that rolls one policy out to many machines signs it, and pins the public key
on each machine: moat then refuses the managed policy unless it is intact, signed by
that key, and no older than the newest one the machine accepted (its serial).

  moat policy keygen                  writes moat-policy.moat-key and moat-policy.moat-pub
  moat policy sign --key K FILE       signs FILE in place (it needs a top-level serial:)
  moat policy verify --key P FILE     exits 0 only for an intact file signed by P

The signature is the file's last line, a YAML comment, so a signed policy is still a
policy file. Agents can never read, copy or move a *.moat-key file (self-protection),
and moat reads private keys under that name only.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newPolicyKeygenCmd(a), newPolicySignCmd(a), newPolicyVerifyCmd(a))
	return cmd
}

func newPolicyKeygenCmd(a *app) *cobra.Command {
	var out, name string
	cmd := &cobra.Command{
		Use:   "keygen [--out DIR] [--name NAME]",
		Short: "Write a new key pair for signing policies",
		Long: `Keygen writes a new Ed25519 key pair: NAME.moat-key, the private key (mode 0600),
and NAME.moat-pub, the public key, into DIR, or by default into the keys directory of
moat's configuration (~/.config/moat/keys), which agents cannot read or change; the
directory is created, mode 0700, if missing. It never replaces a key: when either file
exists, it writes nothing.

Keep the private key out of every project an agent works in: a copy of the project
(an archive, a commit, a push) copies the key. Pin the public key on each machine by
copying it as managed.pub into moat's managed directory (/etc/moat on Linux,
/Library/Application Support/moat on macOS, %ProgramData%\moat on Windows).

Examples:
  moat policy keygen                       # ~/.config/moat/keys/moat-policy.moat-key and .moat-pub
  moat policy keygen --name team --out /secure/keys`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return a.policyKeygen(out, name) },
	}
	cmd.Flags().StringVar(&out, "out", "", "directory to write the key pair in, created if missing (default: moat's keys directory, ~/.config/moat/keys)")
	cmd.Flags().StringVar(&name, "name", defaultKeyName, "name of the key files, before .moat-key and .moat-pub")
	return cmd
}

func (a *app) policyKeygen(out, name string) error {
	cwd, err := a.cwd()
	if err != nil {
		return err
	}
	var dir string
	if out != "" {
		dir = absFrom(cwd, out)
	} else {
		d, err := a.dirs()
		if err != nil {
			return err
		}
		dir = d.Keys()
	}
	// A directory made for keys is its owner's alone.
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("creating the key directory: %w", err)
	}
	priv, pub, err := policysign.GenerateKey(rand.Reader)
	if err != nil {
		return err
	}
	privPath, pubPath, err := policysign.WriteKeyPair(dir, name, priv)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(a.env.Stdout, `wrote %s (the private key: keep it secret, and out of every project an agent works in)
wrote %s (the public key, id %s)
next: add a top-level "serial: 1" to the policy and run: moat policy sign --key %s FILE
then pin the public key: copy %s as managed.pub into moat's managed directory
`, privPath, pubPath, pub.KeyID(), privPath, pubPath)
	return err
}

func newPolicySignCmd(a *app) *cobra.Command {
	var key, out string
	cmd := &cobra.Command{
		Use:   "sign --key KEY [--out FILE] FILE",
		Short: "Sign a policy file with a private key",
		Long: `Sign checks that FILE is a valid policy with a top-level serial (a positive whole
number: raise it with each version you sign, since moat refuses a signed policy older
than the newest it accepted), then writes it signed, in place or to --out, replacing
a signature it had. KEY is a private key file named *.moat-key that only its owner
can read.

Exit status: 0 when the file was signed, 1 when it was not (invalid policy, no serial,
unusable key), 64 for wrong arguments.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if key == "" {
				return usageError(errors.New("policy sign needs --key KEY, the private key file (*.moat-key)"))
			}
			return a.policySign(key, out, args[0])
		},
	}
	cmd.Flags().StringVar(&key, "key", "", "private key file to sign with (*.moat-key)")
	cmd.Flags().StringVar(&out, "out", "", "file to write the signed policy to (default: FILE itself)")
	return cmd
}

func (a *app) policySign(keyPath, out, file string) error {
	cwd, err := a.cwd()
	if err != nil {
		return err
	}
	file = absFrom(cwd, file)
	target := file
	if out != "" {
		target = absFrom(cwd, out)
	}
	src, err := source.ReadFile(file)
	if err != nil {
		return err
	}
	if isKeyFile(src.Data) {
		// Never parsed as a policy: its errors would quote the key.
		return fmt.Errorf("%s holds a moat key, not a policy; nothing was written", file)
	}
	fi, err := os.Stat(file)
	if err != nil {
		return err
	}
	priv, err := policysign.ReadPrivate(absFrom(cwd, keyPath))
	if err != nil {
		return err
	}
	signed, err := policysign.Sign(src.Data, priv)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	// What is checked is exactly what is signed: the text before the signature line.
	payload, err := policysign.Verify(signed, priv.Public())
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	d, err := a.dirs()
	if err != nil {
		return err
	}
	l, err := a.compile(source.Source{Kind: source.FromFile, Path: file, Name: file, Data: payload}, d)
	var list policy.ErrorList
	switch {
	case errors.As(err, &list):
		for _, e := range list {
			fmt.Fprintln(a.env.Stderr, e)
		}
		return &exitCode{code: exitError, err: fmt.Errorf("%s: %d %s; nothing was signed", file, len(list), plural(len(list), "error", "errors"))}
	case err != nil:
		return err
	}
	if l.policy.Serial == 0 {
		return fmt.Errorf("%s has no serial; nothing was signed\nhint: add a top-level \"serial: 1\" and raise it with each version you sign: moat refuses a signed policy older than the newest it accepted", file)
	}
	if err := atomicfile.WriteFile(target, signed, fi.Mode().Perm()); err != nil {
		return err
	}
	into := ""
	if target != file {
		into = " into " + target
	}
	_, err = fmt.Fprintf(a.env.Stdout, "signed %s%s: serial %d, key %s\n", file, into, l.policy.Serial, priv.Public().KeyID())
	return err
}

func newPolicyVerifyCmd(a *app) *cobra.Command {
	var key string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "verify --key PUB [--json] FILE",
		Short: "Check that a policy file is intact and signed by a key",
		Long: `Verify checks that FILE ends with a signature by the public key PUB (a .moat-pub
file, or a pinned managed.pub), that not one byte before the signature changed, and
that the signed policy has a serial. It does not validate the policy's rules
('moat validate' does), nor compare the serial with the one this machine accepted.

Exit status: 0 only for an intact, correctly signed file; 1 otherwise, with the
reason; 64 for wrong arguments.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if key == "" {
				return usageError(errors.New("policy verify needs --key PUB, the public key file (*.moat-pub or managed.pub)"))
			}
			return a.policyVerify(key, args[0], asJSON)
		},
	}
	cmd.Flags().StringVar(&key, "key", "", "public key file to verify with (*.moat-pub, or managed.pub)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}

// verifyResult is what moat policy verify --json prints.
type verifyResult struct {
	File  string `json:"file"`
	Valid bool   `json:"valid"`
	// Key is the id of the key that verified; SignedBy, the one the signature names.
	Key      string `json:"key"`
	SignedBy string `json:"signed_by,omitempty"`
	Serial   int64  `json:"serial,omitempty"`
	// Reason is why the file is refused: unsigned, malformed, wrong-key, bad-signature,
	// no-serial or bad-serial.
	Reason string `json:"reason,omitempty"`
	Error  string `json:"error,omitempty"`
}

func (a *app) policyVerify(keyPath, file string, asJSON bool) error {
	cwd, err := a.cwd()
	if err != nil {
		return err
	}
	file = absFrom(cwd, file)
	pub, err := policysign.ReadPublic(absFrom(cwd, keyPath))
	if err != nil {
		return err
	}
	src, err := source.ReadFile(file)
	if err != nil {
		return err
	}
	res := verifyResult{File: file, Key: pub.KeyID()}
	res.SignedBy, _ = policysign.SignedBy(src.Data)
	res.Serial, res.Reason, err = verifySigned(file, src.Data, pub)
	res.Valid = err == nil
	if err != nil {
		res.Error = err.Error()
	}
	if asJSON {
		if err := json.NewEncoder(a.env.Stdout).Encode(res); err != nil {
			return err
		}
		if !res.Valid {
			return &exitCode{code: exitError}
		}
		return nil
	}
	if err != nil {
		return &exitCode{code: exitError, err: fmt.Errorf("%s: %w", file, err)}
	}
	_, err = fmt.Fprintf(a.env.Stdout, "%s: intact, signed by key %s, serial %d\n", file, pub.KeyID(), res.Serial)
	return err
}

// verifySigned checks doc's signature by pub and its serial, and returns the serial or
// the reason it is refused.
func verifySigned(file string, doc []byte, pub policysign.PublicKey) (serial int64, reason string, err error) {
	payload, err := policysign.Verify(doc, pub)
	switch {
	case errors.Is(err, policysign.ErrUnsigned):
		return 0, "unsigned", err
	case errors.Is(err, policysign.ErrWrongKey):
		return 0, "wrong-key", err
	case errors.Is(err, policysign.ErrBadSignature):
		return 0, "bad-signature", err
	case err != nil:
		return 0, "malformed", err
	}
	serial, ok, err := policysign.Serial(file, payload)
	switch {
	case err != nil:
		return 0, "bad-serial", err
	case !ok:
		return 0, "no-serial", fmt.Errorf("%w: moat refuses it as the managed policy, since it could not tell it from an older one", policysign.ErrNoSerial)
	}
	return serial, "", nil
}

// isKeyFile reports whether data looks like one of moat's key files.
func isKeyFile(data []byte) bool {
	return bytes.Contains(data, []byte("-----BEGIN MOAT POLICY "))
}

// absFrom makes p absolute against cwd.
func absFrom(cwd, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(cwd, p)
}
