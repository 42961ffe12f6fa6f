package shell

import "testing"

func TestPassShows(t *testing.T) {
	for line, want := range map[string]bool{
		"pass show a/b": true, "pass a/b": true, "gopass show -o x": true, "gopass cat x": true, "pass otp x": true,
		"pass": false, "pass ls": false, "pass -c a/b": false, "pass show -c a/b": false, "pass insert a": false,
		"pass git log": false, "pass rm a": false, "gopass sync": false,
	} {
		if got := gives(line, findCredentialsRead); got != want {
			t.Errorf("%s: %s %v, want %v", line, findCredentialsRead, got, want)
		}
	}
}

// Every credential tool's service has hosts, so that its token sent to them is judged.
func TestCredentialServices(t *testing.T) {
	for prog, service := range credentialServices() {
		if len(serviceHosts()[service]) == 0 {
			t.Errorf("%s: service %s has no hosts", prog, service)
		}
	}
}
