package shell

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"
)

// This file reads the commands that cloud, VM and platform tools run on the machine or
// container they reach, given as words after the machine's name (hcloud server ssh web-1
// uptime, multipass exec vm -- ls, heroku run 'rake db:reset'), or inside the tool's own
// parameters (aws ssm send-command --parameters commands=[…]). Each is analysed as ssh's
// remote command is: a command line run on another host.

// remoteLogin is a subcommand that runs a command on the machine it reaches.
type remoteLogin struct {
	sub []string // the subcommand's words
	// targets is how many operands after the subcommand name the machine (or app) before
	// the command's words begin.
	targets int
	// afterDashes says the command is only the words after "--" (vagrant ssh -- CMD);
	// otherwise the words after the targets are the command, "--" or not.
	afterDashes bool
	// ownOptions says the tool takes its value options anywhere on the line, after the
	// command's words too (heroku run CMD -a APP): those are left out of the command.
	ownOptions bool
	// argv says the words are the command's arguments, run as they are (multipass exec,
	// lxc exec); otherwise they are joined into a line the remote shell reads again, as
	// ssh joins them.
	argv bool
}

// remoteLogins maps a canonical program name to its subcommands that run a command
// elsewhere. Options given as --name=value or listed in the program's value options are
// skipped over; the command's own options follow its first word.
var remoteLogins = sync.OnceValue(func() map[string][]remoteLogin {
	return map[string][]remoteLogin{
		"gcloud":         {{sub: []string{"compute", "ssh"}, targets: 1, afterDashes: true}, {sub: []string{"compute", "tpus", "tpu-vm", "ssh"}, targets: 1, afterDashes: true}},
		"vagrant":        {{sub: []string{"ssh"}, afterDashes: true}},
		"hcloud":         {{sub: []string{"server", "ssh"}, targets: 1}},
		"multipass":      {{sub: []string{"exec"}, targets: 1, argv: true}},
		"lxc":            {{sub: []string{"exec"}, targets: 1, argv: true}},
		"incus":          {{sub: []string{"exec"}, targets: 1, argv: true}},
		"limactl":        {{sub: []string{"shell"}, targets: 1}},
		"colima":         {{sub: []string{"ssh"}}},
		"minikube":       {{sub: []string{"ssh"}}},
		"heroku":         {{sub: []string{"run"}, ownOptions: true}, {sub: []string{"run:detached"}, ownOptions: true}, {sub: []string{"run:inside"}, targets: 1, ownOptions: true}},
		"fly":            {{sub: []string{"machine", "exec"}, targets: 1}, {sub: []string{"machines", "exec"}, targets: 1}},
		"flyctl":         {{sub: []string{"machine", "exec"}, targets: 1}, {sub: []string{"machines", "exec"}, targets: 1}},
		"docker-machine": {{sub: []string{"ssh"}, targets: 1}},
	}
})

// remoteLoginArgs reads the command a remote login of x's program runs, if x is one. It
// never handles the command fully: the program's own knowledge applies too.
func (a *analyzer) remoteLoginArgs(x *execCall) bool {
	values := valueOptions()[x.prog]
	for _, l := range remoteLogins()[x.prog] {
		words, ok := loginCommand(x.rest, values, l)
		if !ok || len(words) == 0 {
			continue
		}
		line := joinArgs(words)
		if l.argv {
			line = quotedArgs(words)
		}
		code := line
		if line.dynamic {
			for _, w := range words {
				if w.dynamic {
					code = w
					break
				}
			}
		}
		a.remoteCode(x.at, code, x.prog+" "+strings.Join(l.sub, " "))
		return false
	}
	return false
}

// loginCommand returns the words of the command that login l of a program runs in rest,
// the words after the program, and whether rest is that subcommand.
func loginCommand(rest []arg, values valueOpts, l remoteLogin) ([]arg, bool) {
	operands := 0
	for i := 0; i < len(rest); i++ {
		x := rest[i]
		if !x.dynamic && x.lit == "--" {
			if operands < len(l.sub)+l.targets && !(l.afterDashes && operands >= len(l.sub)) {
				return nil, false
			}
			return rest[i+1:], true
		}
		if _, _, last, isOpt := optionAt(rest, i, values); isOpt {
			i = last
			continue
		}
		if operands < len(l.sub) {
			if x.dynamic || !strings.EqualFold(x.lit, l.sub[operands]) {
				return nil, false
			}
			operands++
			continue
		}
		if operands < len(l.sub)+l.targets {
			operands++
			continue
		}
		if l.afterDashes {
			return nil, operands >= len(l.sub)
		}
		if l.ownOptions {
			return withoutOptions(rest[i:], values), true
		}
		return rest[i:], true
	}
	return nil, operands >= len(l.sub)
}

// withoutOptions is words less the options that take a value in values, with their
// values, up to a "--", after which every word is kept.
func withoutOptions(words []arg, values valueOpts) []arg {
	var out []arg
	for i := 0; i < len(words); i++ {
		x := words[i]
		if !x.dynamic && x.lit == "--" {
			return append(out, words[i+1:]...)
		}
		if name, _, last, ok := optionAt(words, i, values); ok && takesValue(values, name) {
			i = last
			continue
		}
		out = append(out, x)
	}
	return out
}

// takesValue reports whether the option name (a short option's letter, or a long
// option's name) is one of values'.
func takesValue(values valueOpts, name string) bool {
	if len(name) == 1 {
		return strings.Contains(values.short, name)
	}
	return slices.Contains(values.long, name)
}

// awsRemote reads the commands of aws ssm send-command: the commands parameter of a
// document that runs a shell script (AWS-RunShellScript, or any document: moat cannot
// see a custom document's steps, and reads a commands parameter as what it runs). A
// send-command whose commands moat cannot read (a file:// reference, a computed value,
// a document given no commands parameter, whose steps are its own) is opaque.
func (a *analyzer) awsRemote(x *execCall) {
	if len(x.ops) < 2 || x.ops[0].dynamic || x.ops[1].dynamic ||
		!strings.EqualFold(x.ops[0].lit, "ssm") || !strings.EqualFold(x.ops[1].lit, "send-command") {
		return
	}
	const carrier = "aws ssm send-command"
	read := false
	for _, o := range x.opts {
		if !o.hasValue || (o.name != "parameters" && o.name != "cli-input-json") {
			continue
		}
		if o.val.dynamic {
			a.opaque(x.at, carrier+" --"+o.name+" is known only at run time: "+shorten(o.val.lit))
			return
		}
		commands, ok := ssmCommands(o.val.lit, o.name == "cli-input-json")
		if !ok {
			a.opaque(x.at, carrier+" runs commands moat cannot read: "+shorten(o.val.lit))
			return
		}
		for _, c := range commands {
			a.remoteCode(x.at, arg{lit: c}, carrier)
			read = true
		}
	}
	if !read {
		document := "its document"
		for _, o := range x.opts {
			if o.name == "document-name" && o.hasValue {
				document = "the document " + shorten(o.val.lit)
			}
		}
		a.opaque(x.at, carrier+" runs the steps of "+document+", which moat cannot read")
	}
}

// ssmCommands reads the commands of send-command's --parameters: JSON
// ({"commands":["…"]}), or the CLI's shorthand (commands=["…"], commands=ls,
// commands='["…"]'); inInput says the value is --cli-input-json's, whose parameters are
// under "Parameters". ok is false for a value it cannot read (file:// and the like).
func ssmCommands(value string, inInput bool) ([]string, bool) {
	value = strings.TrimSpace(value)
	if strings.HasPrefix(value, "{") {
		var params map[string]json.RawMessage
		if err := json.Unmarshal([]byte(value), &params); err != nil {
			return nil, false
		}
		if inInput {
			raw, ok := params["Parameters"]
			if !ok {
				return nil, true
			}
			params = nil
			if err := json.Unmarshal(raw, &params); err != nil {
				return nil, false
			}
		}
		raw, ok := params["commands"]
		if !ok {
			return nil, true
		}
		var commands []string
		if err := json.Unmarshal(raw, &commands); err != nil {
			return nil, false
		}
		return commands, true
	}
	if inInput {
		return nil, false // file://… names the input
	}
	rest, ok := strings.CutPrefix(value, "commands=")
	if !ok {
		// Other parameters only (executionTimeout=…), or a file:// reference.
		return nil, !strings.Contains(value, "://") && !strings.Contains(value, "commands")
	}
	if strings.HasPrefix(rest, "[") {
		end := strings.LastIndexByte(rest, ']')
		if end < 0 {
			return nil, false
		}
		var commands []string
		if err := json.Unmarshal([]byte(rest[:end+1]), &commands); err == nil {
			return commands, true
		}
		// The shorthand's list of bare words: [ls,uptime].
		return strings.Split(rest[1:end], ","), true
	}
	return []string{rest}, true
}
