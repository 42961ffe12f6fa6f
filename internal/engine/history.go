package engine

import (
	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/shell"
)

// History is what a session's earlier calls left behind, kept by the caller between
// calls, and where the call being decided reports what it leaves behind in turn. The
// engine reads and reports; whether what a call leaves is kept (only when the call is
// about to run, and under its record's number) is the caller's business.
type History interface {
	// Earlier returns what the session's earlier calls left behind; nil when nothing.
	Earlier() *shell.Earlier
	// Leave is told what the call being decided leaves behind, should it run: files it
	// downloads and writes, credentials it reads. It is called at most once per call,
	// and not for a call that leaves nothing.
	Leave(shell.Left)
}

// earlierOf is the history's earlier facts for the shell analysis: never nil when the
// session has a history, so that the analysis follows what the line leaves.
func earlierOf(h History) *shell.Earlier {
	if h == nil {
		return nil
	}
	if e := h.Earlier(); e != nil {
		return e
	}
	return &shell.Earlier{}
}

// leftByTool is what a call of a file tool leaves behind: the text a Write puts in a
// file, the credentials a Read reads. An Edit's result is not known from the call alone,
// as sed -i's is not in a line: it is kept as a write of unknown text, so that an earlier
// text of the same file is not taken for its content.
func (e *Engine) leftByTool(c *call.Call, accesses []call.Access) shell.Left {
	var l shell.Left
	for _, acc := range accesses {
		switch {
		case acc.Kind == call.Read && e.secrets.touches(acc):
			l.Secrets = append(l.Secrets, acc.Path)
		case acc.Kind == call.Write && !acc.Glob:
			w := shell.Written{Path: acc.Path}
			if c.Class == call.FileWrite {
				if text, ok := c.Args[call.ArgContent].(string); ok {
					w.Text, w.Known = text, true
				}
			}
			l.Written = append(l.Written, w)
		}
	}
	return l
}
