package hosted

import "testing"

func TestSecurityOff(t *testing.T) {
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"a defence set false", map[string]any{"secret_scanning": false}, "secret_scanning false"},
		{"a defence's status disabled", map[string]any{"security_and_analysis": map[string]any{"secret_scanning": map[string]any{"status": "disabled"}}}, "secret_scanning disabled"},
		{"a setting named by value", map[string]any{"setting": "always_use_https", "value": "off"}, "always_use_https off"},
		{"with enabled after its name", map[string]any{"sslEnabled": "false"}, "sslEnabled false"},
		{"switched on", map[string]any{"secret_scanning": map[string]any{"status": "enabled"}}, ""},
		{"a setting that defends nothing", map[string]any{"setting": "theme", "value": "off"}, ""},
		{"deeper than read", map[string]any{"a": map[string]any{"b": map[string]any{"c": map[string]any{"d": map[string]any{"e": map[string]any{"ssl": "off"}}}}}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SecurityOff(tt.args); got != tt.want {
				t.Errorf("SecurityOff = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSquash(t *testing.T) {
	for _, k := range []string{"force_push", "forcePush", "force-push", "FORCE PUSH"} {
		if got := Squash(k); got != "forcepush" {
			t.Errorf("Squash(%q) = %q", k, got)
		}
	}
}
