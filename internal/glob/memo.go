package glob

import "sync"

// maxMemoPaths bounds the patterns a Memo keeps: a long-lived process (the daemon)
// compiling policy after edited policy keeps the first ones, and compiles the rest afresh.
const maxMemoPaths = 8192

// Memo keeps compiled path patterns, so that a pattern compiled again (the same set of
// paths resolved for the policy, for self-protection and for the engine) is compiled
// once. A compiled Path is immutable, so sharing it changes no match. A nil *Memo
// compiles every pattern afresh. A Memo is safe for concurrent use.
type Memo struct {
	mu    sync.Mutex
	paths map[memoKey]*Path
}

type memoKey struct {
	pattern string
	opt     Options
}

// NewMemo returns an empty Memo.
func NewMemo() *Memo { return &Memo{paths: map[memoKey]*Path{}} }

// CompilePath is CompilePath, through the memo: a pattern compiled before with the same
// options is returned as compiled then. Errors are not kept: a pattern that does not
// compile fails again, with the same error.
func (m *Memo) CompilePath(pattern string, opt Options) (*Path, error) {
	if m == nil {
		return CompilePath(pattern, opt)
	}
	k := memoKey{pattern, opt}
	m.mu.Lock()
	p, ok := m.paths[k]
	m.mu.Unlock()
	if ok {
		return p, nil
	}
	p, err := CompilePath(pattern, opt)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	if len(m.paths) < maxMemoPaths {
		m.paths[k] = p
	}
	m.mu.Unlock()
	return p, nil
}
