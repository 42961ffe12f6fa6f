package sudoers_test

import (
	"strings"
	"testing"

	"example.com/hostcheck/sudoers"
)

func TestFindsNopasswdAll(t *testing.T) {
	in := `
# Managed by ansible - do not edit by hand
root    ALL=(ALL:ALL) ALL
%admin  ALL=(ALL) ALL
deploy  ALL=(ALL) NOPASSWD: ALL
backup  ALL=(root) NOPASSWD: /usr/bin/rsync
`
	findings, err := sudoers.Audit(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(findings) != 1 {
		t.Fatalf("want 1 finding, got %d: %+v", len(findings), findings)
	}
	if findings[0].User != "deploy" {
		t.Errorf("flagged %q, want deploy", findings[0].User)
	}
}

func TestIgnoresComments(t *testing.T) {
	in := "# deploy ALL=(ALL) NOPASSWD: ALL\n"
	findings, err := sudoers.Audit(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(findings) != 0 {
		t.Errorf("commented line should be ignored, got %+v", findings)
	}
}
