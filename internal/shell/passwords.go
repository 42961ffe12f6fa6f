package shell

import "sync"

// This file finds passwords given on a command line through the options that take one:
// docker login -p, mysql -pSECRET, redis-cli -a, ldapsearch -w. The secret detectors read
// the words of every command, but a short option's value says nothing of itself: only
// the program's options tell that "hunter2" after -p is a password. On a command line it
// is in the process list, the shell history and the agent's transcript. A value computed
// at run time ("$DB_PASS") or read from standard input (--password-stdin, -p -) is how a
// password should be passed, and is left alone.

// findPasswordArg is the finding of a password written after a password option; the
// recommended pack asks about it as about every secret.* (ask-secret-in-arguments).
const findPasswordArg = "secret.cli-password"

// passwordOption is where a program takes a password on its command line.
type passwordOption struct {
	sub   []string // the subcommand's words, when only one takes it (docker login)
	names []string // the options' canonical names (short letters, long names)
}

// passwordOptions maps a canonical program name to its password options. Each option is
// among the program's value options (options.go, or passwordValueOptions below), so
// that its value is read as one.
var passwordOptions = sync.OnceValue(func() map[string][]passwordOption {
	login := []passwordOption{{sub: []string{"login"}, names: []string{"p", "password"}}}
	mysql := []passwordOption{{names: []string{"p", "password"}}}
	ldap := []passwordOption{{names: []string{"w"}}}
	redis := []passwordOption{{names: []string{"a", "pass"}}}
	return map[string][]passwordOption{
		"docker": login, "podman": login,
		"mysql": mysql, "mariadb": mysql, "mysqladmin": mysql, "mycli": mysql,
		"redis-cli": redis, "valkey-cli": redis,
		"ldapsearch": ldap, "ldapadd": ldap, "ldapmodify": ldap, "ldapdelete": ldap,
		"sqlcmd": {{names: []string{"P"}}},
		"wget":   {{names: []string{"password", "http-password", "ftp-password", "proxy-password"}}},
		"az":     {{sub: []string{"login"}, names: []string{"password"}}},
	}
})

// passwordValueOptions are the value options of this file's programs that no other table
// lists, merged into valueOptions.
var passwordValueOptions = sync.OnceValue(func() map[string]valueOpts {
	ldap := valueOpts{short: "wDHbsfxy"}
	return map[string]valueOpts{
		"ldapsearch": ldap, "ldapadd": ldap, "ldapmodify": ldap, "ldapdelete": ldap,
		"valkey-cli": {short: "hpsanuc", long: []string{"user", "pass", "tls", "cacert", "cert", "key", "sni"}},
	}
})

// passwordRules are the rules of passwordOptions, merged into effectRules.
func passwordRules() map[string][]rule {
	out := make(map[string][]rule, len(passwordOptions()))
	for name, pos := range passwordOptions() {
		for _, po := range pos {
			out[name] = append(out[name], rule{sub: po.sub, when: passwordIn(po.names), finding: findPasswordArg})
		}
	}
	return out
}

// passwordIn returns the rule body that finds one of the options names given a password
// written out; it names the option, never the password.
func passwordIn(names []string) func(*analyzer, *view) string {
	return func(_ *analyzer, v *view) string {
		for _, o := range v.opts {
			if o.hasValue && !o.val.dynamic && o.val.lit != "" && o.val.lit != "-" && contains(names, o.name) {
				return v.name + " " + optionSpelling(o.name) + " (a password written on the command line)"
			}
		}
		return ""
	}
}
