package notify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/events"
	"github.com/moatdev/moat/internal/scan"
)

// ErrUnavailable is returned by New on a system with no notification program.
var ErrUnavailable = errors.New("notify: no desktop notification program on this system")

// Defaults for Options fields left zero.
const (
	DefaultInterval = 10 * time.Second
	DefaultTimeout  = 5 * time.Second
	// MaxBody bounds a notification's text, in characters.
	MaxBody = 200
)

// Options shape a Notifier. Every field may be left zero.
type Options struct {
	// Interval is the least time between two notifications: the calls in between are
	// not shown one by one but counted in the next notification.
	Interval time.Duration
	// Timeout bounds each run of the notification program.
	Timeout time.Duration
	Now     func() time.Time
	// LookPath finds the notification program; nil is exec.LookPath.
	LookPath func(string) (string, error)
}

// Notifier is the events.Sink that notifies of asks and denies. It runs the platform's
// notification program (notify-send, osascript) directly, never through a shell, with
// text that is redacted, stripped of control characters and bounded. Register it as a
// lossy sink: a slow desktop must not slow decisions.
type Notifier struct {
	opts    Options
	program string

	mu      sync.Mutex
	last    time.Time // of the last notification shown
	skipped int       // asks and denies not shown since
}

var _ events.Sink = (*Notifier)(nil)

// New returns a Notifier using the platform's notification program, or ErrUnavailable
// when the system has none.
func New(opts Options) (*Notifier, error) {
	if opts.Interval <= 0 {
		opts.Interval = DefaultInterval
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.LookPath == nil {
		opts.LookPath = exec.LookPath
	}
	if program == "" {
		return nil, ErrUnavailable
	}
	path, err := opts.LookPath(program)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	return &Notifier{opts: opts, program: path}, nil
}

// Handle notifies of a decision that asks or denies, at most once per Interval.
func (n *Notifier) Handle(ctx context.Context, ev events.Event) error {
	d, ok := ev.(events.Decision)
	if !ok || (d.Record.Decision != call.Ask && d.Record.Decision != call.Deny) {
		return nil
	}
	n.mu.Lock()
	now := n.opts.Now()
	if !n.last.IsZero() && now.Sub(n.last) < n.opts.Interval {
		n.skipped++
		n.mu.Unlock()
		return nil
	}
	skipped := n.skipped
	n.last, n.skipped = now, 0
	n.mu.Unlock()

	title, body := message(d.Record, skipped)
	ctx, cancel := context.WithTimeout(ctx, n.opts.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, n.program, args(title, body)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("notify: %s: %w: %s", program, err, clean(stderr.String(), MaxBody))
	}
	return nil
}

// message is the title and text of the notification of r, with skipped more not shown.
func message(r audit.Record, skipped int) (title, body string) {
	verb := "denied"
	if r.Decision == call.Ask {
		verb = "asks about"
	}
	if r.Answer == "deny" {
		// An ask nobody could see was answered with a deny.
		verb = "denied"
	}
	title = "moat " + verb + " a call"
	who := r.Agent
	if who == "" {
		who = "a call"
	}
	text := fmt.Sprintf("%s: %s", who, describe(r))
	if r.Rule != "" {
		text += " (rule " + r.Rule + ")"
	}
	if skipped > 0 {
		text = fmt.Sprintf("%s, and %d more since the last notification", text, skipped)
	}
	// Redacted before it is cut, so that no part of a secret survives the cut.
	return title, clean(scan.Redact(text), MaxBody)
}

// describe names what the call would have done: its command, path, URL or MCP tool.
func describe(r audit.Record) string {
	if r.MCP != "" {
		return r.MCP
	}
	for _, key := range []string{call.ArgCommand, call.ArgPath, call.ArgURL, call.ArgPattern} {
		if s, ok := r.Args[key].(string); ok && s != "" {
			return r.Tool + " " + s
		}
	}
	return r.Tool
}

// clean makes s one line of at most limit characters: control and format characters
// (newlines, escapes, bidi overrides, zero-width ones) become spaces, runs of spaces one,
// and a longer text is cut with an ellipsis.
func clean(s string, limit int) string {
	out := make([]rune, 0, min(len(s), limit+1))
	space := false
	for _, r := range s {
		if r == utf8.RuneError || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || unicode.IsSpace(r) {
			space = len(out) > 0
			continue
		}
		if space {
			out = append(out, ' ')
			space = false
		}
		out = append(out, r)
		if len(out) > limit {
			return string(out[:limit-1]) + "…"
		}
	}
	return string(out)
}
