//go:build linux

package linux

import (
	"errors"
	"fmt"
	"runtime"
	"syscall"

	"github.com/moatdev/moat/internal/sandbox"
	"golang.org/x/sys/unix"
)

// Exec applies the plan to this process and replaces it with the program at path, run
// with argv; it returns only when something failed. The Landlock domain is entered by
// this goroutine's OS thread alone, just before execve(2): the new program starts on that
// thread, so it and every process it starts are in the domain, while the rest of moat,
// which is about to be replaced, never needs to be.
func Exec(p *sandbox.Plan, path string, argv []string) error {
	// Never unlocked: after restrictSelf this thread must not run other goroutines, and
	// if execve fails the process exits.
	runtime.LockOSThread()
	for _, l := range p.Limits {
		if err := setLimit(l); err != nil {
			return err
		}
	}
	if p.Landlock() {
		if err := enterDomain(p); err != nil {
			return err
		}
	}
	err := syscall.Exec(path, argv, p.Env)
	return &ExecError{Path: path, Err: err}
}

func setLimit(l sandbox.Limit) error {
	var cur syscall.Rlimit
	if err := syscall.Getrlimit(l.Resource, &cur); err != nil {
		return fmt.Errorf("reading the %s limit: %w", l.Name, err)
	}
	v := min(l.Value, cur.Max)
	// Soft and hard limit alike, so that nothing in the sandbox can raise it again.
	if err := syscall.Setrlimit(l.Resource, &syscall.Rlimit{Cur: v, Max: v}); err != nil {
		return fmt.Errorf("setting the %s limit to %d: %w", l.Name, v, err)
	}
	return nil
}

// enterDomain builds the Landlock ruleset and restricts the calling thread with it.
func enterDomain(p *sandbox.Plan) error {
	var net uint64
	if p.NetEnforced {
		if p.Connect != nil {
			net |= unix.LANDLOCK_ACCESS_NET_CONNECT_TCP
		}
		if p.Bind != nil {
			net |= unix.LANDLOCK_ACCESS_NET_BIND_TCP
		}
	}
	var scoped uint64
	if p.ScopeSockets {
		scoped |= unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
	}
	if p.ScopeSignals {
		scoped |= unix.LANDLOCK_SCOPE_SIGNAL
	}
	fd, err := createRuleset(uint64(p.Handled), net, scoped, p.ABI)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	for _, r := range p.Rules {
		access := r.Access & p.Handled
		if access == 0 {
			continue
		}
		if err := addPathRule(fd, r.Path, uint64(access)); err != nil {
			if errors.Is(err, unix.ENOENT) {
				continue // removed since the plan was made: nothing to grant
			}
			return err
		}
	}
	if net&unix.LANDLOCK_ACCESS_NET_CONNECT_TCP != 0 {
		for _, port := range p.Connect {
			if err := addPortRule(fd, port, unix.LANDLOCK_ACCESS_NET_CONNECT_TCP); err != nil {
				return err
			}
		}
	}
	if net&unix.LANDLOCK_ACCESS_NET_BIND_TCP != 0 {
		for _, port := range p.Bind {
			if err := addPortRule(fd, port, unix.LANDLOCK_ACCESS_NET_BIND_TCP); err != nil {
				return err
			}
		}
	}
	if err := restrictSelf(fd); err != nil {
		return err
	}
	if p.RefuseMPTCP {
		return refuseMPTCP()
	}
	return nil
}
