package hookrelay

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/moatdev/moat/internal/daemonenv"
	"github.com/moatdev/moat/internal/hookpayload"
)

// Env is what Main reads and writes: the process's streams, environment and files.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	Getwd          func() (string, error)
	// Executable is the running client's path, for the moat beside it.
	Executable func() (string, error)
	// LookPath finds a program on PATH.
	LookPath func(string) (string, error)
	// Fallback runs moat (the program at path, with args) on payload and ends the
	// process with its answer; it returns only when moat could not be run.
	Fallback func(path string, args []string, payload []byte) error
}

// exitBlock is the status that blocks the call in every agent's protocol: the client's
// answer when neither the daemon nor moat can answer.
const exitBlock = 2

// Main is moat-hook: `moat-hook AGENT [hook flags]` answers as `moat hook AGENT [hook
// flags]` does, through the daemon when it answers, else by running moat hook with the
// event already read. It returns the exit status.
func Main(args []string, env Env) int {
	started := time.Now()
	// Read as moat hook reads: one byte past the bound, so that an event too large is
	// answered as too large, by whoever answers.
	payload, err := readEvent(env.Stdin, hookpayload.MaxPayload+1)
	if err != nil {
		// moat hook would fail reading it too; it answers that in the agent's form.
		return fallback(env, args, payload, fmt.Errorf("reading the hook event: %w", err))
	}
	ans, err := relay(env, args, payload, started)
	if err != nil {
		return fallback(env, args, payload, err)
	}
	// Nothing is written where there is nothing to say (an allow is silence).
	if len(ans.Stdout) > 0 {
		if _, err := env.Stdout.Write(ans.Stdout); err != nil {
			fmt.Fprintf(env.Stderr, "moat-hook: %v\n", err)
			return exitBlock
		}
	}
	if ans.Stderr != "" {
		io.WriteString(env.Stderr, ans.Stderr)
	}
	return ans.Code
}

// eventBuffer is the first size of the buffer an event is read into when its size is not
// known beforehand (a pipe): an agent's event is a few hundred bytes to a few KiB, read
// in one call and its end in a second.
const eventBuffer = 16 << 10

// readEvent reads r to its end, at most limit bytes, as io.ReadAll(io.LimitReader(r,
// limit)) does, in a buffer sized once: by the file's size when r is a regular file,
// else eventBuffer, grown only for a larger event.
func readEvent(r io.Reader, limit int) ([]byte, error) {
	size := eventBuffer
	if f, ok := r.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			// One byte more, to read the end in the same buffer.
			size = int(min(fi.Size()+1, int64(limit)))
		}
	}
	buf := make([]byte, 0, min(size, limit))
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):min(cap(buf), limit)])
		buf = buf[:len(buf)+n]
		if err == io.EOF || len(buf) == limit {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// relay asks the daemon for the answer to the event.
func relay(env Env, args []string, payload []byte, started time.Time) (Answer, error) {
	if len(args) == 0 {
		return Answer{}, errors.New("no agent named")
	}
	socket, err := Locate(env.Getenv)
	if err != nil {
		return Answer{}, err
	}
	cwd, err := env.Getwd()
	if err != nil {
		return Answer{}, fmt.Errorf("finding the working directory: %w", err)
	}
	c := Client{Socket: socket, Wait: AnswerWait(env.Getenv)}
	return c.Relay(Request{Agent: args[0], Args: args[1:], Payload: payload, Cwd: cwd, Env: daemonenv.CaptureHook(env.Getenv), Started: started})
}

// fallback answers without the daemon: moat hook, given the payload already read.
// When moat cannot be run at all, the call is blocked, with the reason.
func fallback(env Env, args []string, payload []byte, why error) int {
	moat, err := findMoat(env)
	if err == nil {
		err = env.Fallback(moat, append([]string{"hook"}, args...), payload)
	}
	fmt.Fprintf(env.Stderr, "moat-hook: no decision (the daemon: %v; moat: %v); blocking\n", why, err)
	return exitBlock
}

// findMoat finds the moat program: the one beside this client's executable (through
// links, as installed), else moat on PATH.
func findMoat(env Env) (string, error) {
	name := "moat"
	if runtime.GOOS == "windows" {
		name = "moat.exe"
	}
	var errs []error
	if exe, err := env.Executable(); err != nil {
		errs = append(errs, err)
	} else if exe, err = filepath.EvalSymlinks(exe); err != nil {
		errs = append(errs, err)
	} else {
		beside := filepath.Join(filepath.Dir(exe), name)
		fi, err := os.Stat(beside)
		if err == nil && fi.Mode().IsRegular() {
			return beside, nil
		}
		errs = append(errs, fmt.Errorf("no %s beside %s", name, exe))
	}
	p, err := env.LookPath("moat")
	if err == nil {
		return p, nil
	}
	return "", errors.Join(append(errs, err)...)
}
