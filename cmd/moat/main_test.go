package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/moatdev/moat/internal/cli"
)

// TestMain lets the scripts run moat as a real process: `exec moat …` re-executes this
// test binary as the moat command. The MCP tests' peers are commands of it too. The
// built binary (see moatBinary) is removed after the tests.
func TestMain(m *testing.M) {
	testscript.Main(removeAfter{m}, map[string]func(){
		"moat":            func() { os.Exit(cli.Main(os.Args[1:], cli.OSEnv())) },
		"mcp-test-server": runSDKServer,
		"mcp-raw-server":  runRawServer,
		"sandbox-probe":   runSandboxProbe,
		"no-landlock":     runNoLandlock,
	})
}

// TestScripts replays testdata/script/*.txtar: each runs moat commands with a fresh,
// empty HOME and checks their exit status, stdout, stderr and files.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Setup: func(env *testscript.Env) error {
			home := filepath.Join(env.WorkDir, "home")
			env.Setenv("HOME", home)
			env.Setenv("XDG_CONFIG_HOME", "")
			env.Setenv("XDG_STATE_HOME", "")
			env.Setenv("MOAT_POLICY", "")
			return os.MkdirAll(home, 0o755)
		},
	})
}

// removeAfter runs the tests, then removes the binary they built.
type removeAfter struct{ m *testing.M }

func (r removeAfter) Run() int {
	defer moat.Remove()
	return r.m.Run()
}
