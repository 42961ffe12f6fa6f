package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/testbin"
)

// moat is the real static binary, built on first use and removed by TestMain.
var moat = testbin.New(testbin.Moat)

// moatBinary returns the built binary, for tests that run it as an agent does.
func moatBinary(t testing.TB) string {
	t.Helper()
	return moat.Path(t)
}

// runMoat runs moat in process with a fresh HOME as working directory and returns stdout,
// stderr and the exit code.
func runMoat(t *testing.T, stdin []byte, args ...string) ([]byte, []byte, int) {
	t.Helper()
	home := t.TempDir()
	stdout, stderr, code := runInProcess(t, home, []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}, string(stdin), args...)
	return []byte(stdout), []byte(stderr), code
}

type response struct {
	Decision string  `json:"decision"`
	Reason   *string `json:"reason"`
	Rule     string  `json:"rule"`
	Error    string  `json:"error"`
}

// TestCheckStdinStream sends 10,000 requests with malformed, unknown-tool and oversized
// lines mixed in, and checks that every line gets its own answer, in order.
func TestCheckStdinStream(t *testing.T) {
	type expect struct{ decision, errPart string }
	var in bytes.Buffer
	var want []expect
	huge := strings.Repeat("a", 1<<20)
	for i := range 10000 {
		switch {
		case i%1000 == 7:
			in.WriteString(`{"version":1,"tool":"Bash","args":{"command":"echo ` + huge + `"},"cwd":"/w"}` + "\n")
			want = append(want, expect{errPart: "request longer than"})
		case i%100 == 3:
			in.WriteString("{this is not json\n")
			want = append(want, expect{errPart: "malformed request"})
		case i%100 == 5:
			fmt.Fprintf(&in, `{"version":1,"tool":"NoSuchTool%d","args":{},"cwd":"/w"}`+"\n", i)
			want = append(want, expect{errPart: fmt.Sprintf(`unknown tool "NoSuchTool%d"`, i)})
		case i%2 == 0:
			fmt.Fprintf(&in, `{"version":1,"agent":"claude-code","event":"pre_tool_use","tool":"Bash","args":{"command":"ls -la dir%d"},"cwd":"/w","session":"s"}`+"\n", i)
			want = append(want, expect{decision: "allow"})
		default:
			fmt.Fprintf(&in, `{"version":1,"tool":"Bash","args":{"command":"rm -rf / # %d"},"cwd":"/w"}`+"\n", i)
			want = append(want, expect{decision: "deny"})
		}
	}
	stdout, stderr, code := runMoat(t, in.Bytes(), "check", "--stdin")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := bytes.Split(bytes.TrimSuffix(stdout, []byte("\n")), []byte("\n"))
	if len(lines) != len(want) {
		t.Fatalf("%d response lines for %d requests", len(lines), len(want))
	}
	for i, line := range lines {
		var r response
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("line %d is not JSON: %s", i, line)
		}
		w := want[i]
		if r.Decision != w.decision || (w.errPart != "" && !strings.Contains(r.Error, w.errPart)) || (w.errPart == "" && r.Error != "") {
			t.Fatalf("line %d: got %s, want decision %q error %q", i, line, w.decision, w.errPart)
		}
		if r.Decision == "allow" && r.Reason != nil {
			t.Errorf("line %d: an allow carries reason %q", i, *r.Reason)
		}
	}
}

// TestCheckStdinHugeLineWithoutNewline: an oversized last line without a newline is
// answered too, and the process does not hold the whole line.
func TestCheckStdinHugeLastLine(t *testing.T) {
	in := []byte(`{"version":1,"tool":"Bash","args":{"command":"ls"},"cwd":"/w"}` + "\n" + strings.Repeat("x", 3<<20))
	stdout, _, code := runMoat(t, in, "check", "--stdin")
	lines := strings.Split(strings.TrimSpace(string(stdout)), "\n")
	if code != 0 || len(lines) != 2 || !strings.Contains(lines[0], `"allow"`) || !strings.Contains(lines[1], "request longer than") {
		t.Fatalf("exit %d, output:\n%s", code, stdout)
	}
}

// TestCheckRecordRedactsSecrets runs check --record with a secret in the command and
// asserts the value never reaches the state directory.
func TestCheckRecordRedactsSecrets(t *testing.T) {
	home := t.TempDir()
	// Assembled at run time so that the file holds no token-shaped string.
	secret := "ghp_" + "R8fK2mQ9xLp4Vz7Nw3Ht" + "6Yb1Jc5Dg0Es2Ua9"
	stdout, stderr, code := runInProcess(t, home, []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}, "", "check", "--record", "--", "curl -H 'Authorization: token "+secret+"' https://api.github.com/user")
	out := []byte(stdout + stderr)
	// A credential on a command line is asked about (exit 2) by the recommended pack.
	if code != 2 {
		t.Fatalf("want exit 2 (ask), got exit %d: %s", code, out)
	}
	if bytes.Contains(out, []byte(secret)) {
		t.Errorf("the secret was printed: %s", out)
	}
	log, err := os.ReadFile(filepath.Join(home, ".local", "state", "moat", "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(log, []byte(secret)) || !bytes.Contains(log, []byte("REDACTED")) {
		t.Errorf("audit log holds the secret or no redaction marker:\n%s", log)
	}
	var rec map[string]any
	if err := json.Unmarshal(bytes.TrimSpace(log), &rec); err != nil || rec["decision"] != "ask" || rec["class"] != "shell" {
		t.Errorf("record: %v %v", rec, err)
	}
}
