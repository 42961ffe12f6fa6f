package cli

import (
	"fmt"

	"github.com/moatdev/moat/internal/policy/source"
)

// lockedNotes lists the settings of the policy file that the managed policy locks, as
// validate reports them: a lower layer's attempt to change a locked setting is never
// ignored silently. A managed policy that does not load is said in one note.
func (a *app) lockedNotes(file string) []string {
	d, err := a.dirs()
	if err != nil {
		return nil
	}
	src, err := source.ReadFile(file)
	if err != nil {
		return nil
	}
	overrides, err := a.local(nil).Overrides(src, d)
	if err != nil {
		return []string{fmt.Sprintf("the managed policy does not load, so the hooks block every call: %v", err)}
	}
	var notes []string
	for _, o := range overrides {
		notes = append(notes, o.String())
	}
	return notes
}
