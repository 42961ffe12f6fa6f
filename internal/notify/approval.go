package notify

import (
	"fmt"
	"io"
	"os/exec"

	"github.com/moatdev/moat/internal/scan"
)

// ApprovalOptions shape NotifyApproval. Every field may be left zero.
type ApprovalOptions struct {
	// LookPath finds the notification program; nil is exec.LookPath.
	LookPath func(string) (string, error)
	// Bell, when there is no notification program (or it cannot start), opens the
	// terminal to ring its bell on; nil or an error rings nothing. Never the standard
	// output of a hook, which is the agent's protocol.
	Bell func() (io.WriteCloser, error)
}

// Approval tells the user that a call waits for approval id: a desktop notification
// with the call and the reason, or the terminal's bell where there is none. It starts
// the notification program and does not wait for it, so that a slow desktop never
// holds up a decision; the text is redacted, one line and bounded.
func Approval(id, what, reason string, opts ApprovalOptions) error {
	if opts.LookPath == nil {
		opts.LookPath = exec.LookPath
	}
	title := clean(scan.Redact("moat: approval "+id+" waits for you"), MaxBody)
	body := clean(scan.Redact(fmt.Sprintf("%s — %s. Run: moat approve %s", what, reason, id)), MaxBody)
	err := ErrUnavailable
	if program != "" {
		var path string
		if path, err = opts.LookPath(program); err == nil {
			cmd := exec.Command(path, args(title, body)...)
			if err = cmd.Start(); err == nil {
				// Reaped when it ends; a process that exits first leaves it to init.
				go cmd.Wait()
				return nil
			}
		}
	}
	if opts.Bell == nil {
		return fmt.Errorf("notify: %w", err)
	}
	tty, berr := opts.Bell()
	if berr != nil {
		return fmt.Errorf("notify: %w; no terminal for the bell: %w", err, berr)
	}
	defer tty.Close()
	_, berr = io.WriteString(tty, "\a")
	return berr
}
