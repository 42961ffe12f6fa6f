// Package daemon serves moat's decision service to the other processes of one user over a
// unix socket in a private directory (and, when asked, a loopback TCP port behind a
// token): newline-delimited JSON, the seeds' request format and the service's own methods.
package daemon
