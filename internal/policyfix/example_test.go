package policyfix_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/decide"
	"github.com/moatdev/moat/internal/policy"
	"github.com/moatdev/moat/internal/policyfix"
)

// The user wants a call the recommended policy asks about to run without asking ("don't
// ask again"). No policy file exists yet, so the rule goes into a new user policy made
// from the recommended template; Apply writes it once it has checked it again.
func Example() {
	home, err := os.MkdirTemp("", "moat-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(home)
	svc := decide.NewLocal(decide.Options{Getenv: func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}})
	d, err := svc.Dirs()
	if err != nil {
		fmt.Println(err)
		return
	}
	template, err := policy.Template(policy.DefaultTemplate)
	if err != nil {
		fmt.Println(err)
		return
	}
	c, err := call.Canonicalize(call.Codex, "shell", map[string]any{"command": "git push --force origin main"})
	if err != nil {
		fmt.Println(err)
		return
	}
	c.Cwd = home

	fixer := policyfix.Fixer{Decider: svc}
	ctx := context.Background()
	p, err := fixer.Propose(ctx, policyfix.Request{
		File: d.UserPolicy(), Text: template, Create: true, Dirs: d,
		Call: c, Want: call.Allow, Origin: "approved once",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := fixer.Apply(ctx, p); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Before.Verdict, p.Before.Rule)
	fmt.Println(p.After.Verdict, p.After.Rule)
	fmt.Println(p.Placed)
	fmt.Println(filepath.Base(p.File))
	// Output:
	// ask ask-git-destructive
	// allow fix-allow-shell-git-push-force-origin-main
	// after your rules, above the packs' rules and the default
	// moat.yaml
}
