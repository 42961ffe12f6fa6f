package cli

import (
	"bytes"
	"testing"

	"github.com/moatdev/moat/internal/policyschema"
)

// TestSchemaCommand checks that moat schema prints the generated schema, and nothing on
// standard error.
func TestSchemaCommand(t *testing.T) {
	env, out, errOut, _ := fixEnv(t)
	if code := Main([]string{"schema"}, env); code != exitOK {
		t.Fatalf("moat schema: exit %d: %s", code, errOut)
	}
	want, err := policyschema.Generate()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Errorf("moat schema printed %d bytes, not the %d of policyschema.Generate", out.Len(), len(want))
	}
	if errOut.Len() > 0 {
		t.Errorf("moat schema wrote on standard error: %s", errOut)
	}
	if code := Main([]string{"schema", "extra"}, env); code != exitUsage {
		t.Errorf("moat schema extra: exit %d, want the usage error's %d", code, exitUsage)
	}
}
