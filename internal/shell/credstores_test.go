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

func TestInetAton(t *testing.T) {
	for in, want := range map[string]string{
		"169.254.169.254": "169.254.169.254", "2852039166": "169.254.169.254", "0xa9fea9fe": "169.254.169.254",
		"0251.0376.0251.0376": "169.254.169.254", "169.254.43518": "169.254.169.254", "169.16689662": "169.254.169.254",
		"127.1": "127.0.0.1", "0": "0.0.0.0",
	} {
		got, ok := inetAton(in)
		if !ok || got.String() != want {
			t.Errorf("inetAton(%q) = %v %v, want %s", in, got, ok, want)
		}
	}
	for _, bad := range []string{"256.1.1.1", "1.2.3.4.5", "1..2", "x", "0x", "4294967296", "1.2.65536"} {
		if got, ok := inetAton(bad); ok && bad != "0x" {
			t.Errorf("inetAton(%q) = %v, want no address", bad, got)
		}
	}
}
