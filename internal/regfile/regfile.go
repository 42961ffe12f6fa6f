// Package regfile reads files that must be regular files (policies, the trust store)
// without ever blocking on one that is not, and tells a dangling link from a missing file.
package regfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// NotRegularError is a file that is there but is not a regular file: a FIFO, a device, a
// socket or a directory. Reading a FIFO would wait for a writer forever, and a device
// could be anything, so none of them is read.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file", e.Path, describe(e.Mode))
}

// describe names the kind of a file that is not regular.
func describe(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO (named pipe)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	}
	return "an irregular file"
}

// DanglingLinkError is a symbolic link, at the path read or at one of its directories,
// whose target does not exist. It is not fs.ErrNotExist: a file someone pointed somewhere
// is not a file nobody wrote, and the callers that fall back on a missing file must not
// fall back on it.
type DanglingLinkError struct {
	Path   string // the path read
	Link   string // the dangling link: Path or one of its directories
	Target string // what the link says, as written
}

func (e *DanglingLinkError) Error() string {
	if e.Link == e.Path {
		return fmt.Sprintf("%s is a symbolic link to %s, which does not exist", e.Path, e.Target)
	}
	return fmt.Sprintf("%s is in %s, a symbolic link to %s, which does not exist", e.Path, e.Link, e.Target)
}

// TooLargeError is a file larger than the caller reads.
type TooLargeError struct {
	Path string
	Max  int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is larger than %d bytes", e.Path, e.Max)
}

// Read returns the content of path, which must be a regular file (symbolic links to one
// are followed) of at most max bytes. A missing file is an error for which
// errors.Is(err, fs.ErrNotExist) holds; a dangling link, a file that is not regular and a
// file over max are errors of their own types. Read never blocks on what it finds: the
// kind of file is checked before it is opened, the file is opened without blocking, and
// checked again on the descriptor, so a FIFO swapped in between is refused too.
func Read(path string, max int64) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, missing(path, err)
	}
	if !st.Mode().IsRegular() {
		return nil, &NotRegularError{Path: path, Mode: st.Mode()}
	}
	f, err := openNonBlocking(path)
	if err != nil {
		return nil, missing(path, err)
	}
	defer f.Close()
	if st, err = f.Stat(); err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &NotRegularError{Path: path, Mode: st.Mode()}
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, &TooLargeError{Path: path, Max: max}
	}
	return data, nil
}

// missing is the error for path that Stat or Open failed with err: when err says the file
// does not exist, a dangling link at path or at one of its directories is named instead.
func missing(path string, err error) error {
	if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if dl := danglingLink(path); dl != nil {
		return dl
	}
	return err
}

// danglingLink returns the dangling link that makes path missing, if a link is the
// reason: path itself, or the nearest of its directories that exists as a name.
func danglingLink(path string) *DanglingLinkError {
	for p := filepath.Clean(path); ; p = filepath.Dir(p) {
		lst, err := os.Lstat(p)
		if err == nil {
			if lst.Mode()&fs.ModeSymlink == 0 {
				return nil // the nearest existing name is no link: the file is simply missing
			}
			if _, err := os.Stat(p); err == nil {
				return nil
			}
			target, _ := os.Readlink(p)
			return &DanglingLinkError{Path: path, Link: p, Target: target}
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}
