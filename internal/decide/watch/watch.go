// Package watch keeps a long-lived decision service's policies current: it watches the
// files a live decide.Local found its policies from, and refreshes it when they change.
package watch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/moatdev/moat/internal/decide"
)

// DefaultDebounce is how long the watcher waits after the last change before it
// refreshes: an editor's save is several events (write, rename, chmod), and a policy
// half written must not be read.
const DefaultDebounce = 100 * time.Millisecond

// maxDebounces bounds the wait for quiet: a file rewritten without pause (a tool that
// saves every few milliseconds) is refreshed after this many debounce periods anyway.
const maxDebounces = 10

// Options tune a Watcher.
type Options struct {
	// Debounce is the quiet time after a change before the refresh; 0 is DefaultDebounce.
	Debounce time.Duration
	// Warn receives what the watcher could not do (a directory it cannot watch); nil
	// drops it. Policies then stay as they are until the next change that is seen.
	Warn func(string)
	// Refreshed, when set, is called after each refresh.
	Refreshed func()
}

// Watcher refreshes a live Local when a policy input changes. The files are watched
// through their directories (the nearest one that exists), so that an editor that saves
// by renaming a new file over the old one, a file deleted and created again, and a policy
// created where there was none are all seen.
type Watcher struct {
	local *decide.Local
	fs    *fsnotify.Watcher
	opts  Options

	done    chan struct{}
	stopped chan struct{}
	once    sync.Once

	// Owned by the loop goroutine.
	watched  map[string]bool // directories
	relevant map[string]bool // files and directories whose change is a change of input
}

// Start watches the inputs of l, which must be live (decide.Options.Live), until Close.
func Start(l *decide.Local, o Options) (*Watcher, error) {
	if l.Added() == nil {
		return nil, errors.New("watching policies: the decision service is not live")
	}
	if o.Debounce <= 0 {
		o.Debounce = DefaultDebounce
	}
	if o.Warn == nil {
		o.Warn = func(string) {}
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watching policies: %w", err)
	}
	w := &Watcher{
		local: l, fs: fw, opts: o,
		done: make(chan struct{}), stopped: make(chan struct{}),
		watched: map[string]bool{}, relevant: map[string]bool{},
	}
	// Scopes looked up before Start: their files are watched from now on, and a change
	// made before that is caught by the refresh the loop starts with.
	select {
	case <-l.Added():
	default:
	}
	w.sync()
	go w.loop()
	return w, nil
}

// Close stops watching and waits for the watcher's goroutine to end.
func (w *Watcher) Close() error {
	var err error
	w.once.Do(func() {
		close(w.done)
		<-w.stopped
		err = w.fs.Close()
	})
	return err
}

func (w *Watcher) loop() {
	defer close(w.stopped)
	timer := time.NewTimer(0) // the first refresh covers changes made before Start
	defer timer.Stop()
	var pending time.Time // the first change not refreshed yet, or zero
	changed := func() {
		now := time.Now()
		if pending.IsZero() {
			pending = now
		}
		timer.Reset(max(0, min(w.opts.Debounce, pending.Add(maxDebounces*w.opts.Debounce).Sub(now))))
	}
	for {
		select {
		case <-w.done:
			return
		case <-w.local.Added():
			w.sync()
			timer.Reset(0)
		case ev, ok := <-w.fs.Events:
			if !ok {
				return
			}
			if w.relevant[filepath.Clean(ev.Name)] {
				changed()
			}
		case err, ok := <-w.fs.Errors:
			if !ok {
				return
			}
			// An overflow loses events: refresh, as if everything changed.
			w.opts.Warn(fmt.Sprintf("watching policies: %v", err))
			changed()
		case <-timer.C:
			pending = time.Time{}
			w.local.Refresh()
			w.sync()
			if w.opts.Refreshed != nil {
				w.opts.Refreshed()
			}
		}
	}
}

// sync watches the directories of the local's inputs now, and stops watching the ones
// no input needs any more.
func (w *Watcher) sync() {
	relevant := map[string]bool{}
	want := map[string]bool{}
	for _, file := range w.local.Inputs() {
		w.want(file, relevant, want)
		// A link is followed: an edit of the file it points to is an edit of the policy.
		if real, err := filepath.EvalSymlinks(file); err == nil && real != file {
			w.want(real, relevant, want)
		}
	}
	for dir := range want {
		if w.watched[dir] {
			continue
		}
		if err := w.fs.Add(dir); err != nil {
			w.opts.Warn(fmt.Sprintf("watching policies: %v", err))
			continue
		}
		w.watched[dir] = true
	}
	for dir := range w.watched {
		if !want[dir] {
			// The directory may be gone already, which removed its watch.
			_ = w.fs.Remove(dir)
			delete(w.watched, dir)
		}
	}
	w.relevant = relevant
}

// want marks file relevant, with the directories between it and the nearest one that
// exists (whose creation is a step towards the file), and wants that directory watched.
func (w *Watcher) want(file string, relevant, want map[string]bool) {
	file = filepath.Clean(file)
	relevant[file] = true
	dir := filepath.Dir(file)
	for {
		relevant[dir] = true // created, removed or renamed: the file's path changed
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			want[dir] = true
			return
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return
		}
		dir = parent
	}
}
