package audit

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"
)

// ErrRefused is wrapped by the error about a file or directory of the log that moat will
// not write through: a symbolic link, a FIFO or device, a file with another name too, a
// file or directory of another user's, a directory others may write to.
var ErrRefused = errors.New("refused")

// ErrLockBusy is wrapped by the error of a writer that could not take the log's lock
// within Options.LockWait.
var ErrLockBusy = errors.New("the audit log's lock is held by another process")

// RefusedError says which file of the log was refused, and why.
type RefusedError struct {
	Path string
	Why  string
}

func (e *RefusedError) Error() string { return fmt.Sprintf("refusing %s: %s", e.Path, e.Why) }

// Is makes errors.Is(err, ErrRefused) hold.
func (e *RefusedError) Is(target error) bool { return target == ErrRefused }

func refused(path, why string) error { return &RefusedError{Path: path, Why: why} }

// linkTarget says where the link at path points, for the error that refuses it.
func linkTarget(path string) string {
	if to, err := os.Readlink(path); err == nil {
		return " (to " + to + ")"
	}
	return ""
}

// regularOnly returns f when it is a regular file, and otherwise closes it and refuses
// it: a FIFO or a device would hang or flood a reader, and a directory is no log.
func regularOnly(f *os.File, path string) (*os.File, error) {
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, refused(path, "it is a "+kindOf(fi.Mode())+", not a regular file")
	}
	return f, nil
}

// kindOf names the kind of file mode describes.
func kindOf(mode fs.FileMode) string {
	switch {
	case mode&fs.ModeSymlink != 0:
		return "symbolic link"
	case mode.IsDir():
		return "directory"
	case mode&fs.ModeNamedPipe != 0:
		return "FIFO"
	case mode&fs.ModeSocket != 0:
		return "socket"
	case mode&fs.ModeCharDevice != 0:
		return "character device"
	case mode&fs.ModeDevice != 0:
		return "device"
	}
	return "special file"
}

// pollLock is how long lockWithin sleeps between two tries at first; it doubles up to
// maxPollLock. flock has no timeout, and a blocked flock cannot be abandoned without
// leaving a thread stuck in it, so waiting is a loop of non-blocking tries.
const (
	pollLock    = 50 * time.Microsecond
	maxPollLock = 5 * time.Millisecond
)

// lockWithin takes a lock on f, exclusive or shared, waiting at most budget; when it
// cannot, the error wraps ErrLockBusy.
func lockWithin(f *os.File, exclusive bool, budget time.Duration) error {
	deadline := time.Now().Add(budget)
	wait := pollLock
	for {
		ok, err := tryLock(f, exclusive)
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		left := time.Until(deadline)
		if left <= 0 {
			return fmt.Errorf("%s: %w (waited %v)", f.Name(), ErrLockBusy, budget)
		}
		time.Sleep(min(wait, left))
		wait = min(2*wait, maxPollLock)
	}
}

// takeLock takes the log's lock for l, waiting at most l.lockWait; when it cannot, the
// error wraps ErrLockBusy.
//
// Polling alone starves a writer among busy ones: whoever just released the lock takes it
// again before a sleeping poller looks. So the wait is a blocking flock, on a second open
// of the lock file, in a goroutine that is abandoned when the budget runs out: it then
// releases the lock as soon as it gets it. Only one such goroutine per Log may be blocked
// at a time (each holds a thread); while one is, further waits poll.
func (l *Log) takeLock() error {
	ok, err := tryLock(l.lock, true)
	if err != nil || ok {
		return err
	}
	if !l.waiting.CompareAndSwap(false, true) {
		return lockWithin(l.lock, true, l.lockWait)
	}
	f, err := openChecked(lockPath(l.path), os.O_RDWR)
	if err != nil {
		l.waiting.Store(false)
		return err
	}
	done := make(chan error, 1)
	go func() { done <- lockFile(f, true) }()
	timer := time.NewTimer(l.lockWait)
	defer timer.Stop()
	select {
	case err := <-done:
		l.waiting.Store(false)
		if err != nil {
			f.Close()
			return err
		}
		// f holds the lock now: it becomes the Log's lock file.
		l.lock.Close()
		l.lock = f
		return nil
	case <-timer.C:
		go func() {
			if err := <-done; err == nil {
				_ = unlockFile(f)
			}
			f.Close()
			l.waiting.Store(false)
		}()
		return fmt.Errorf("%s: %w (waited %v)", lockPath(l.path), ErrLockBusy, l.lockWait)
	}
}
