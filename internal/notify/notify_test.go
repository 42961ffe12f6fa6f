//go:build unix

package notify

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/events"
)

// fakeProgram puts a notification program on an otherwise empty PATH that appends its
// arguments, NUL-separated, one run per line, to a file; it returns the reader of the
// runs. exit is its exit status.
func fakeProgram(t *testing.T, exit int) func() [][]string {
	t.Helper()
	if program == "" {
		t.Skip("no notification program on this system")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "runs")
	script := "#!/bin/sh\nprintf '%s\\0' \"$@\" >> '" + out + "'\necho >> '" + out + "'\necho failing >&2\nexit " + string(rune('0'+exit)) + "\n"
	if err := os.WriteFile(filepath.Join(dir, program), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	return func() [][]string {
		data, err := os.ReadFile(out)
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if err != nil {
			t.Fatal(err)
		}
		// The script's run is complete once its newline is written: the file exists,
		// empty or half written, from the moment the shell opens it.
		text := string(data)
		text = text[:strings.LastIndex(text, "\n")+1]
		if text == "" {
			return nil
		}
		var runs [][]string
		for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
			runs = append(runs, strings.Split(strings.TrimSuffix(line, "\x00"), "\x00"))
		}
		return runs
	}
}

// clock is a fake clock the test moves.
type clock struct{ now time.Time }

func (c *clock) Now() time.Time { return c.now }

func deny(agent, command string) events.Decision {
	return events.Decision{Record: audit.Record{Agent: agent, Class: "shell", Tool: "Bash",
		Args: map[string]any{call.ArgCommand: command}, Decision: call.Deny, Rule: "no-delete"}}
}

func newNotifier(t *testing.T, c *clock) *Notifier {
	t.Helper()
	n, err := New(Options{Now: c.Now, Interval: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// titleBody is a run's last two arguments: the title and the text, on every platform.
func titleBody(t *testing.T, run []string) (string, string) {
	t.Helper()
	if len(run) < 2 {
		t.Fatalf("run with arguments %q", run)
	}
	return run[len(run)-2], run[len(run)-1]
}

// TestNotifiesAsksAndDenies runs the fake program through the bus, for asks and denies
// only.
func TestNotifiesAsksAndDenies(t *testing.T) {
	runs := fakeProgram(t, 0)
	c := &clock{now: time.Unix(1_700_000_000, 0)}
	n := newNotifier(t, c)
	ask := deny("codex", "git push --force")
	ask.Record.Decision = call.Ask
	unseenAsk := ask
	unseenAsk.Record.Answer = "deny"
	mcp := events.Decision{Record: audit.Record{Class: "mcp", Tool: "tools/call", MCP: "mcp:github/delete_repo", Decision: call.Deny, Rule: "mcp-deny"}}
	allow := deny("codex", "ls")
	allow.Record.Decision = call.Allow
	audited := deny("codex", "ls")
	audited.Record.Decision = call.Audit
	for _, tc := range []struct {
		name        string
		ev          events.Event
		title, body string // "" title: no notification
	}{
		{"deny", deny("claude-code", "rm -rf ~"), "moat denied a call", "claude-code: Bash rm -rf ~ (rule no-delete)"},
		{"ask", ask, "moat asks about a call", "codex: Bash git push --force (rule no-delete)"},
		{"ask nobody could see", unseenAsk, "moat denied a call", "codex: Bash git push --force (rule no-delete)"},
		{"mcp deny without agent", mcp, "moat denied a call", "a call: mcp:github/delete_repo (rule mcp-deny)"},
		{"allow", allow, "", ""},
		{"audit", audited, "", ""},
		{"reload", events.PolicyReload{Err: errors.New("bad")}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c.now = c.now.Add(time.Minute)
			bus, err := events.New(events.Options{}, events.Lossy("notify", n, 4))
			if err != nil {
				t.Fatal(err)
			}
			before := len(runs())
			if err := bus.Publish(context.Background(), tc.ev); err != nil {
				t.Fatal(err)
			}
			if err := bus.Close(context.Background()); err != nil {
				t.Fatal(err)
			}
			got := runs()[before:]
			if tc.title == "" {
				if len(got) != 0 {
					t.Fatalf("notified %q", got)
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("%d notifications, want 1", len(got))
			}
			if title, body := titleBody(t, got[0]); title != tc.title || body != tc.body {
				t.Errorf("notified %q / %q, want %q / %q", title, body, tc.title, tc.body)
			}
			if program == "notify-send" && got[0][1] != "--" {
				t.Errorf("arguments %q: the text does not follow --", got[0])
			}
		})
	}
}

// TestRateLimited: within the interval, asks and denies are counted, not shown; the
// next notification says how many were left out.
func TestRateLimited(t *testing.T) {
	runs := fakeProgram(t, 0)
	c := &clock{now: time.Unix(1_700_000_000, 0)}
	n := newNotifier(t, c)
	ctx := context.Background()
	for i, cmd := range []string{"rm -rf a", "rm -rf b", "rm -rf c"} {
		c.now = c.now.Add(time.Duration(i) * time.Second)
		if err := n.Handle(ctx, deny("codex", cmd)); err != nil {
			t.Fatal(err)
		}
	}
	if got := runs(); len(got) != 1 {
		t.Fatalf("%d notifications within the interval, want 1", len(got))
	}
	c.now = c.now.Add(10 * time.Second)
	if err := n.Handle(ctx, deny("codex", "rm -rf d")); err != nil {
		t.Fatal(err)
	}
	got := runs()
	if len(got) != 2 {
		t.Fatalf("%d notifications after the interval, want 2", len(got))
	}
	if _, body := titleBody(t, got[1]); body != "codex: Bash rm -rf d (rule no-delete), and 2 more since the last notification" {
		t.Errorf("second notification %q", body)
	}
}

// TestTextRedactedAndBounded: a secret never reaches the notification, nor a control
// character, and the text is one bounded line; the command is an argument, never shell.
func TestTextRedactedAndBounded(t *testing.T) {
	runs := fakeProgram(t, 0)
	canary := filepath.Join(t.TempDir(), "canary")
	c := &clock{now: time.Unix(1_700_000_000, 0)}
	n := newNotifier(t, c)
	cmd := `psql "postgres://app:Vq8nT2xLp4Rz@db/orders"` + "\n\x1b[31m\u202e $(touch " + canary + ") `touch " + canary + "`; " + strings.Repeat("x", 1000)
	if err := n.Handle(context.Background(), deny("claude-code", cmd)); err != nil {
		t.Fatal(err)
	}
	got := runs()
	if len(got) != 1 {
		t.Fatalf("%d notifications", len(got))
	}
	_, body := titleBody(t, got[0])
	if strings.Contains(body, "Vq8nT2xLp4Rz") || !strings.Contains(body, "[REDACTED:url-password]") {
		t.Errorf("the secret is not redacted: %q", body)
	}
	if n := utf8.RuneCountInString(body); n > MaxBody || !strings.HasSuffix(body, "…") {
		t.Errorf("text of %d characters, want at most %d and cut with an ellipsis", n, MaxBody)
	}
	for _, r := range body {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			t.Errorf("text holds %U: %q", r, body)
		}
	}
	if !strings.Contains(body, "$(touch "+canary+")") {
		t.Errorf("the command did not arrive as text: %q", body)
	}
	if _, err := os.Stat(canary); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the command's text was run by a shell: %v", err)
	}
}

func TestProgramFailureIsAnError(t *testing.T) {
	fakeProgram(t, 1)
	n := newNotifier(t, &clock{now: time.Unix(1_700_000_000, 0)})
	err := n.Handle(context.Background(), deny("codex", "rm -rf /"))
	if err == nil || !strings.Contains(err.Error(), "failing") {
		t.Errorf("Handle = %v, want the program's failure with its stderr", err)
	}
}

func TestUnavailable(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	if _, err := New(Options{}); !errors.Is(err, ErrUnavailable) {
		t.Errorf("New without a program = %v, want ErrUnavailable", err)
	}
}
