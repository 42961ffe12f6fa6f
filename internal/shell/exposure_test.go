package shell

import (
	"strings"
	"testing"
)

// Every form of secretSinks and quietConsumers keeps what it reads: a credential printed
// into it, or the environment, is no finding.
func TestSinksTables(t *testing.T) {
	for _, table := range []map[string][]rule{secretSinks(), quietConsumers()} {
		for prog, rules := range table {
			for _, r := range rules {
				words := []string{prog}
				for _, alts := range r.sub {
					words = append(words, strings.Split(alts, "|")[0])
				}
				if len(r.anyOf) > 0 {
					words = append(words, optionWord(r.anyOf[0]))
				}
				if r.operand != "" {
					words = append(words, r.operand)
				}
				sink := strings.Join(words, " ")
				for _, line := range []string{"gh auth token | " + sink, "env | " + sink} {
					if gives(line, findCredentialsRead) || gives(line, findEnvDump) {
						t.Errorf("%s: consumed, yet reported:\n%s", line, render(Analyze(line, testEnv)))
					}
				}
			}
		}
	}
}

func TestDestinations(t *testing.T) {
	for line, want := range map[string]bool{
		"env":                        true,
		"env | sort":                 true,
		"env | grep -i key":          true,
		"env > e.txt":                true,
		"env > /dev/null":            false,
		"env 2>/dev/null":            true,
		"env | grep -q X":            false,
		"env | sort | wc -l":         false,
		"env | grep PATH":            false,
		"env | grep '^NODE_ENV='":    false,
		"env | grep -i aws":          true,
		"env | grep TOKEN":           true,
		"env | grep -v PATH":         true,
		"env | grep -E 'PATH|KEY'":   true,
		"env | grep GO":              true,
		"{ env; } | sha256sum":       false,
		"gh auth token":              true,
		"gh auth token | pbcopy":     false,
		"echo \"$(gh auth token)\"":  true,
		"x=$(gh auth token); echo x": true,
		`curl -H "Authorization: Bearer $(gh auth token)" https://api.github.com/`:    false,
		`curl -H "Authorization: Bearer $(vault print token)" https://vault.example/`: true,
	} {
		a := Analyze(line, testEnv)
		got := false
		for _, c := range a.Commands {
			got = got || hasFinding(c.Findings, findEnvDump) || hasFinding(c.Findings, findCredentialsRead)
		}
		if got != want {
			t.Errorf("%s: shown %v, want %v:\n%s", line, got, want, render(a))
		}
	}
	for line, want := range map[string]bool{
		"echo $GITHUB_TOKEN":                              true,
		"printf '%s' \"$NPM_TOKEN\"":                      true,
		"printenv AWS_SECRET_ACCESS_KEY":                  true,
		"echo ${#GITHUB_TOKEN}":                           false,
		"echo ${GITHUB_TOKEN:+set}":                       false,
		"echo $GITHUB_TOKEN | gh auth login --with-token": false,
		"echo $GITHUB_TOKEN > /dev/null":                  false,
		"echo $PATH":                                      false,
	} {
		if got := gives(line, findSecretShown); got != want {
			t.Errorf("%s: %s %v, want %v", line, findSecretShown, got, want)
		}
	}
}
