// Package linux enforces a sandbox plan on Linux: it enters a Landlock domain, installs a seccomp filter and resource limits, and execs the program; elsewhere it reports that it cannot.
package linux
