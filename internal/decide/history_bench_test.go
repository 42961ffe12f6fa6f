package decide

import (
	"testing"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/sessionhistory"
	"github.com/moatdev/moat/internal/shell"
)

// inSession gives the benchmark's Local a session history in its state directory and
// every call a session id; with facts, the session has downloaded a file, written a
// script and read a secret before.
func inSession(facts bool) func(testing.TB, *Local, []call.Call) {
	return func(tb testing.TB, l *Local, calls []call.Call) {
		d, err := l.Dirs()
		if err != nil {
			tb.Fatal(err)
		}
		store := sessionhistory.Open(sessionhistory.Options{Dir: d.Sessions()})
		l.opts.History = store
		for i := range calls {
			calls[i].Session = "bench"
		}
		if facts {
			err := store.Add(string(calls[0].Agent), "bench", 1, shell.Left{
				Downloads: []string{"/tmp/install.sh"},
				Written:   []shell.Written{{Path: "/home/u/project/scripts/build.sh", Text: "#!/bin/sh\ngo build ./...\n", Known: true}},
				Secrets:   []string{"/home/u/.aws/credentials"},
			})
			if err != nil {
				tb.Fatal(err)
			}
		}
	}
}
