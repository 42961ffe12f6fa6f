package approval

import (
	"errors"
	"fmt"
	"strings"

	"github.com/moatdev/moat/internal/agent"
	"github.com/moatdev/moat/internal/proc"
)

// Approver is who answered an approval, and how.
type Approver struct {
	UID, PID int
	// Terminal is the controlling terminal the answer came from, or "".
	Terminal string
	// How: "terminal", or "dashboard" for an answer with the dashboard's token.
	How string
}

// String is the approver as records and the list show it.
func (a Approver) String() string {
	s := fmt.Sprintf("uid %d, pid %d", a.UID, a.PID)
	if a.Terminal != "" {
		s += ", on " + a.Terminal
	}
	return s + " (" + a.How + ")"
}

// Refused is an answer refused because of who gave it.
type Refused struct {
	Approver Approver
	Why      string
}

func (r *Refused) Error() string {
	return "refusing to answer approvals from " + r.Approver.String() + ": " + r.Why
}

// ErrRefused matches every Refused with errors.Is.
var ErrRefused = errors.New("approval refused")

// Is makes a Refused ErrRefused.
func (r *Refused) Is(target error) bool { return target == ErrRefused }

// Lineage reads a process and its ancestors, nearest first (proc.Lineage).
type Lineage func(pid int) ([]proc.Process, error)

// CheckApprover decides whether process pid may answer approvals: only the user may, so
// it is refused when it or any of its ancestors runs a guarded agent's program (an agent
// approving its own calls), when it has no controlling terminal, or when its process tree
// cannot be read. A dashboard holding its token (dashboard true) needs no terminal, but
// may not run under an agent either.
func CheckApprover(pid int, lineage Lineage, dashboard bool) (Approver, error) {
	who := Approver{PID: pid, How: "terminal"}
	if dashboard {
		who.How = "dashboard"
	}
	if dashboard && pid <= 0 {
		// The dashboard's browser, over the daemon's TCP port: no process to read.
		return who, nil
	}
	line, err := lineage(pid)
	if err != nil {
		return who, &Refused{Approver: who, Why: "its process tree cannot be read (" + err.Error() + "), so it cannot be told from an agent's"}
	}
	who.UID, who.Terminal = line[0].UID, line[0].Terminal
	for _, p := range line {
		if a, ok := agent.ByProcess(p.Args); ok {
			return who, &Refused{Approver: who, Why: fmt.Sprintf("it runs inside %s (pid %d: %s), and an agent may not approve its own calls; run moat approve from a terminal outside the agent", a.Title, p.PID, strings.Join(clip(p.Args, 3), " "))}
		}
	}
	if who.Terminal == "" && !dashboard {
		return who, &Refused{Approver: who, Why: "it has no controlling terminal, as a process an agent started would not; run moat approve from your terminal"}
	}
	return who, nil
}

func clip(args []string, n int) []string {
	if len(args) > n {
		return append(args[:n:n], "…")
	}
	return args
}
