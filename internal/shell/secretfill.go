package shell

import (
	"strings"
	"sync"

	"github.com/moatdev/moat/internal/call"
)

// findStoreFill is the finding of a command that copies files into a secret store.
const findStoreFill = "credentials.store-fill"

// storeFill says which files a command copies into a secret store: a cluster's secrets
// (kubectl create secret --from-file), a repository's (gh secret set -f .env), a cloud's
// or a vault's. The files are read, and their content goes to the store, not to the
// agent nor to a destination the line chose: the store is where secrets are meant to be.
// Which files may be copied so is the policy's (allow-secret-store-filling: the
// project's own).
type storeFill struct {
	sub     []string   // the subcommand, as in rule.sub
	sources operandSet // which operands after sub are files; 0 for none
	options []string   // options whose value is a file
	keyed   []string   // options whose value is [KEY=]FILE
	// atFiles: operands KEY=@FILE and @FILE name files whose content is sent (vault kv
	// put); fileParams: values file://FILE and fileb://FILE (aws).
	atFiles, fileParams bool
	// elsewhere are options that name the store instead of the one the tool is set up
	// with (kubectl --server, vault -address, gh --repo): a store the line chose may be
	// anyone's, so the files are sent there as any upload is.
	elsewhere []string
}

// storeFills maps a program to the ways it fills a secret store from files.
var storeFills = sync.OnceValue(func() map[string][]storeFill {
	kube := []storeFill{{sub: []string{"create", "secret|configmap"}, options: []string{"cert", "key"}, keyed: []string{"from-file", "from-env-file"}, elsewhere: []string{"server", "s", "kubeconfig"}}}
	docker := []string{"H", "host"}
	return map[string][]storeFill{
		"kubectl": kube,
		"oc":      kube,
		"docker":  {{sub: []string{"secret|config", "create"}, sources: lastOperand, elsewhere: docker}},
		"podman":  {{sub: []string{"secret", "create"}, sources: lastOperand, elsewhere: []string{"url", "connection", "c"}}},
		"gh":      {{sub: []string{"secret", "set"}, options: []string{"f", "env-file"}, elsewhere: []string{"R", "repo"}}},
		"wrangler": {
			{sub: []string{"secret", "bulk"}, sources: allOperands},
			{sub: []string{"secret:bulk"}, sources: allOperands},
		},
		"gcloud":  {{sub: []string{"secrets", "create|versions"}, options: []string{"data-file"}}},
		"az":      {{sub: []string{"keyvault", "secret|certificate", "set|import"}, options: []string{"file", "f"}}},
		"vault":   {{sub: []string{"kv", "put|patch"}, atFiles: true, elsewhere: []string{"address"}}, {sub: []string{"write"}, atFiles: true, elsewhere: []string{"address"}}},
		"doppler": {{sub: []string{"secrets", "upload"}, sources: allOperands}},
		"op":      {{sub: []string{"document", "create|edit"}, sources: allOperands}},
		"aws": {
			{sub: []string{"secretsmanager", "create-secret|put-secret-value|update-secret"}, fileParams: true, elsewhere: []string{"endpoint-url"}},
			{sub: []string{"ssm", "put-parameter"}, fileParams: true, elsewhere: []string{"endpoint-url"}},
		},
	}
})

// fillsSecretStore reports whether the command fills the secret store its tool is set
// up with, so that the files it reads are not also judged as uploads.
func fillsSecretStore(v *view) bool {
	for _, f := range storeFills()[v.name] {
		if _, ok := holds(&rule{sub: f.sub}, v); ok {
			return len(optionValues(v, f.elsewhere...)) == 0
		}
	}
	return false
}

// storeFills records the files a command copies into a secret store: read accesses,
// which the policy judges by their paths, and the finding that says where they go. A
// file named only at run time leaves the command opaque, as an upload's does (cat "$F",
// aws s3 cp "$F" …). These subcommands touch no other files of the machine than those
// (and their tool's own configuration), so that the command is no longer opaque once
// each is known.
func (a *analyzer) storeFills(cmd *call.Command, m *cmdMeta, v *view, cwd dir) {
	for _, f := range storeFills()[v.name] {
		if _, ok := holds(&rule{sub: f.sub}, v); !ok {
			continue
		}
		var files []arg
		ops := v.raw[len(f.sub):]
		if f.sources != 0 {
			lo, hi := f.sources.span(len(ops))
			files = append(files, ops[lo:hi]...)
		}
		files = append(files, optionValues(v, f.options...)...)
		for _, x := range optionValues(v, f.keyed...) {
			if _, file, ok := strings.Cut(x.lit, "="); ok && !x.dynamic {
				x = arg{lit: file, glob: x.glob}
			}
			files = append(files, x)
		}
		for _, x := range v.args {
			switch {
			case x.dynamic:
				continue
			case f.atFiles:
				if i := strings.Index(x.lit, "@"); i >= 0 && (i == 0 || x.lit[i-1] == '=') && i+1 < len(x.lit) {
					files = append(files, arg{lit: x.lit[i+1:]})
				}
			case f.fileParams:
				val := x.lit
				if strings.HasPrefix(val, "--") {
					_, val, _ = strings.Cut(val, "=")
				}
				if file, ok := awsFileParam(val); ok {
					files = append(files, arg{lit: file})
				}
			}
		}
		if dest := optionValues(v, f.elsewhere...); len(dest) > 0 {
			host := ""
			if !dest[0].dynamic {
				host = dest[0].lit
			}
			a.sendFiles(cmd, m, files, host, false, cwd)
			return
		}
		var filled []string
		known := m.prog != ""
		for _, x := range files {
			switch {
			case x.dynamic:
				known = false
			case x.lit == "-" || x.lit == "/dev/stdin":
				// standard input: secretSinks say where it goes
			default:
				p, ok, opaque := a.resolve(expandTildeLike(x.lit, a), cwd)
				if !ok || opaque {
					known = false
				}
				if ok {
					filled = append(filled, p)
					cmd.Accesses = append(cmd.Accesses, call.Access{Kind: call.Read, Path: p, Recursive: true, Glob: x.glob})
				}
			}
		}
		if _, tabled := programEffects()[v.name]; known && !tabled {
			// It was opaque only for having no file effects in the table.
			cmd.Opaque = false
		} else if !known {
			cmd.Opaque = true
		}
		if len(filled) > 0 {
			m.filled = append(m.filled, filled...)
			cmd.Findings = appendFinding(cmd.Findings, findStoreFill, v.name+" "+strings.Join(v.ops[:len(f.sub)], " ")+" "+strings.Join(filled, " "))
		}
		return
	}
}
