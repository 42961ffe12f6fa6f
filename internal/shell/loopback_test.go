package shell

import "testing"

func TestLoopback(t *testing.T) {
	for h, want := range map[string]bool{
		"localhost": true, "LOCALHOST": true, "localhost.": true, "app.localhost": true,
		"127.0.0.1": true, "127.1.2.3": true, "::1": true, "[::1]": true, "0.0.0.0": true,
		"::": true, "::ffff:127.0.0.1": true, "ip6-localhost": true,
		"localhost.evil.example": false, "evil-localhost": false, "10.0.0.5": false,
		"128.0.0.1": false, "example.com": false, "": false, "[::2]": false,
	} {
		if got := loopback(h); got != want {
			t.Errorf("loopback(%q) = %v, want %v", h, got, want)
		}
	}
}
