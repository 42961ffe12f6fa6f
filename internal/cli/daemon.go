package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/moatdev/moat/internal/daemon"
	"github.com/moatdev/moat/internal/decide"
)

// How long start waits for a new daemon to answer, and stop for one to end; and how long
// a daemon told to stop gives the requests in progress.
const (
	daemonStartWait = 10 * time.Second
	daemonStopWait  = 10 * time.Second
	daemonDrainWait = 10 * time.Second
)

func newDaemonCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "daemon",
		Short: "Run the optional daemon that decides for the user's other moat processes",
		Long: `The daemon keeps moat's decision service in one long-lived process: policies are
compiled once, and decisions are answered over a unix socket in a private directory
($XDG_RUNTIME_DIR/moat, or moat-UID in the temporary directory), to processes of the
same user only. Nothing uses it unless it runs; every entry point works without it.

The socket speaks newline-delimited JSON, one request and one answer per line:

  {"version":1,"agent":"claude-code","event":"pre_tool_use","tool":"Bash",
   "args":{"command":"ls"},"cwd":"/abs/dir"}
  → {"decision":"allow","reason":null,"rule":"…","findings":[],"latency_ms":0.02,"policy":"…"}

Exit status: 0 on success, 1 on an error (status: 1 when no daemon runs).`,
	}
	cmd.AddCommand(newDaemonRunCmd(a), newDaemonStartCmd(a), newDaemonStopCmd(a), newDaemonStatusCmd(a),
		newDaemonInstallCmd(a), newDaemonUninstallCmd(a))
	return cmd
}

type daemonOptions struct {
	tcp      string
	noRecord bool
	sinks    daemonSinkOptions
}

func (o *daemonOptions) flags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&o.tcp, "tcp", "", "also listen on this loopback address (127.0.0.1:PORT), for peers presenting the token in the runtime directory")
	f.BoolVar(&o.noRecord, "no-record", false, "do not record the decisions of requests in the seed format")
	o.sinks.flags(cmd)
}

func newDaemonRunCmd(a *app) *cobra.Command {
	var o daemonOptions
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run the daemon in the foreground, logging to stderr, until SIGINT or SIGTERM",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return a.daemonRun(ctx, o)
		},
	}
	o.flags(cmd)
	return cmd
}

func (a *app) daemonLog(msg string) {
	fmt.Fprintf(a.env.Stderr, "moat daemon: %s %s\n", a.env.Now().UTC().Format(time.RFC3339), msg)
}

func (a *app) daemonRun(ctx context.Context, o daemonOptions) error {
	paths, err := a.daemonPaths(true)
	if err != nil {
		return &exitCode{code: exitError, err: err}
	}
	var tcp net.Listener
	var token string
	if o.tcp != "" {
		if tcp, err = listenLoopback(o.tcp); err != nil {
			return &exitCode{code: exitError, err: err}
		}
		defer tcp.Close()
	}
	sock, err := daemon.ListenUnix(paths)
	if err != nil {
		return &exitCode{code: exitError, err: err}
	}
	defer sock.Close()
	if tcp != nil {
		if token, err = daemon.NewToken(paths); err != nil {
			return &exitCode{code: exitError, err: err}
		}
	}
	// One live service per environment of the daemon's clients, each recording into its
	// own environment's audit log.
	sinks, err := a.startDaemonSinks(o.sinks)
	if err != nil {
		return &exitCode{code: exitError, err: err}
	}
	defer sinks.close()
	services := newDaemonServices(a, decide.Options{Warn: func(msg string) { a.daemonLog("warning: " + msg) }, Approvals: a.approvalQueue()})
	services.sinks = sinks
	defer services.close()
	own, err := services.own()
	if err != nil {
		return &exitCode{code: exitError, err: err}
	}
	methods := launchMethods(services)
	methods[daemonMethodHook] = a.daemonHookMethod(services)
	methods[methodApprovals] = a.daemonApprovalsMethod(services)
	methods[methodApprove] = a.daemonAnswerMethod(services, methodApprove)
	methods[methodDeny] = a.daemonAnswerMethod(services, methodDeny)
	methods[methodUI] = a.daemonUIMethod(services)
	srv, err := daemon.New(daemon.Options{Service: own.svc, Bind: services.bind, Environments: services.count, Problems: services.problems, Methods: methods, Record: !o.noRecord, Token: token, Log: a.daemonLog, Now: a.env.Now,
		Observe: sinks.observe, Sinks: sinks.describe(services), Spawn: services.workers.run, PolicyBundle: services.bundleStatus})
	if err != nil {
		return &exitCode{code: exitError, err: err}
	}
	failed := make(chan error, 2)
	serve := func(ln net.Listener) {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, daemon.ErrServerClosed) {
			failed <- err
		}
	}
	go serve(sock)
	a.daemonLog(fmt.Sprintf("serving on %s (pid %d)", paths.Socket, os.Getpid()))
	if tcp != nil {
		go serve(tcp)
		a.daemonLog(fmt.Sprintf("serving on tcp %s, token in %s", tcp.Addr(), paths.Token))
	}
	var runErr error
	select {
	case <-ctx.Done():
		a.daemonLog("signalled: stopping")
	case <-srv.Stopped():
		a.daemonLog("asked to stop: stopping")
	case runErr = <-failed:
	}
	drain, cancel := context.WithTimeout(context.Background(), daemonDrainWait)
	defer cancel()
	if err := srv.Shutdown(drain); err != nil {
		a.daemonLog(fmt.Sprintf("requests still in progress after %s were cut off", daemonDrainWait))
	}
	if tcp != nil {
		os.Remove(paths.Token)
	}
	if runErr != nil {
		return &exitCode{code: exitError, err: runErr}
	}
	a.daemonLog("stopped")
	return nil
}

// listenLoopback listens on addr, which must be a loopback address: the token is the
// only thing between the port and the service.
func listenLoopback(addr string) (net.Listener, error) {
	if err := checkLoopback(addr); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--tcp: %w", err)
	}
	return ln, nil
}

// daemonPaths are the user's daemon's paths; create makes the runtime directory.
func (a *app) daemonPaths(create bool) (daemon.Paths, error) {
	d, err := a.dirs()
	if err != nil {
		return daemon.Paths{}, err
	}
	if create {
		return daemon.Prepare(d)
	}
	return daemon.Locate(d)
}

// daemonStatus asks the user's daemon for its status; an error means none answers.
func (a *app) daemonStatus(ctx context.Context) (daemon.Status, daemon.Paths, error) {
	paths, err := a.daemonPaths(false)
	if err != nil {
		return daemon.Status{}, paths, err
	}
	var st daemon.Status
	err = daemon.Request(ctx, decide.DialUnix(paths.Socket), daemon.MethodStatus, &st)
	return st, paths, err
}

func newDaemonStartCmd(a *app) *cobra.Command {
	var o daemonOptions
	cmd := &cobra.Command{
		Use:   "start",
		Short: "Start the daemon in the background (nothing happens if it runs already)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.daemonStart(cmd.Context(), o)
		},
	}
	o.flags(cmd)
	return cmd
}

func (a *app) daemonStart(ctx context.Context, o daemonOptions) error {
	if st, _, err := a.daemonStatus(ctx); err == nil {
		fmt.Fprintf(a.env.Stdout, "moat daemon: already running (pid %d, %s)\n", st.PID, st.Socket)
		return nil
	}
	paths, err := a.daemonPaths(true)
	if err != nil {
		return &exitCode{code: exitError, err: err}
	}
	exe, err := a.env.Executable()
	if err != nil {
		return &exitCode{code: exitError, err: fmt.Errorf("finding moat's binary: %w", err)}
	}
	logPath := filepath.Join(paths.Dir, "daemon.log")
	logFile, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return &exitCode{code: exitError, err: fmt.Errorf("opening the daemon's log: %w", err)}
	}
	defer logFile.Close()
	args := []string{"daemon", "run"}
	if o.tcp != "" {
		args = append(args, "--tcp", o.tcp)
	}
	if o.noRecord {
		args = append(args, "--no-record")
	}
	args = append(args, o.sinks.args()...)
	child := exec.Command(exe, args...)
	child.Stdout, child.Stderr = logFile, logFile
	child.SysProcAttr = daemon.Detached()
	if err := child.Start(); err != nil {
		return &exitCode{code: exitError, err: fmt.Errorf("starting the daemon: %w", err)}
	}
	exited := make(chan error, 1)
	go func() { exited <- child.Wait() }()
	deadline := time.Now().Add(daemonStartWait)
	for {
		if st, _, err := a.daemonStatus(ctx); err == nil {
			fmt.Fprintf(a.env.Stdout, "moat daemon: started (pid %d, %s)\n", st.PID, st.Socket)
			return nil
		}
		select {
		case err := <-exited:
			// Another start may have won the race: its daemon answers.
			if st, _, serr := a.daemonStatus(ctx); serr == nil {
				fmt.Fprintf(a.env.Stdout, "moat daemon: already running (pid %d, %s)\n", st.PID, st.Socket)
				return nil
			}
			return &exitCode{code: exitError, err: fmt.Errorf("the daemon exited (%v); its log is %s", err, logPath)}
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return &exitCode{code: exitError, err: fmt.Errorf("the daemon did not answer within %s; its log is %s", daemonStartWait, logPath)}
		}
	}
}

func newDaemonStopCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "stop",
		Short: "Stop the daemon, letting the requests in progress finish",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.daemonStop(cmd.Context())
		},
	}
}

func (a *app) daemonStop(ctx context.Context) error {
	st, paths, err := a.daemonStatus(ctx)
	if err != nil {
		fmt.Fprintln(a.env.Stdout, "moat daemon: not running")
		return nil
	}
	if err := daemon.Request(ctx, decide.DialUnix(paths.Socket), daemon.MethodShutdown, nil); err != nil {
		return &exitCode{code: exitError, err: fmt.Errorf("asking the daemon to stop: %w", err)}
	}
	// The daemon has stopped once its socket no longer answers.
	deadline := time.Now().Add(daemonStopWait)
	for time.Now().Before(deadline) {
		conn, err := net.DialTimeout("unix", paths.Socket, time.Second)
		if err != nil {
			fmt.Fprintf(a.env.Stdout, "moat daemon: stopped (pid %d)\n", st.PID)
			return nil
		}
		conn.Close()
		time.Sleep(20 * time.Millisecond)
	}
	return &exitCode{code: exitError, err: fmt.Errorf("the daemon (pid %d) did not stop within %s", st.PID, daemonStopWait)}
}

func newDaemonStatusCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Say whether the daemon runs, and what it has done",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, _, err := a.daemonStatus(cmd.Context())
			if err != nil {
				if asJSON {
					fmt.Fprintln(a.env.Stdout, `{"running":false}`)
				} else {
					fmt.Fprintln(a.env.Stdout, "moat daemon: not running")
				}
				return &exitCode{code: exitError}
			}
			if asJSON {
				b, err := json.Marshal(struct {
					Running bool `json:"running"`
					daemon.Status
				}{true, st})
				if err != nil {
					return err
				}
				fmt.Fprintln(a.env.Stdout, string(b))
				return nil
			}
			fmt.Fprintf(a.env.Stdout, "moat daemon: running\n  pid        %d\n  socket     %s\n", st.PID, st.Socket)
			if st.TCP != "" {
				fmt.Fprintf(a.env.Stdout, "  tcp        %s\n", st.TCP)
			}
			fmt.Fprintf(a.env.Stdout, "  uptime     %s\n  policies   %d compiled\n  decisions  %d served\n",
				time.Duration(st.Uptime*float64(time.Second)).Round(time.Second).String(), st.Policies, st.Decisions)
			fmt.Fprintf(a.env.Stdout, "  environments %d served\n", st.Environments)
			for _, name := range slices.Sorted(maps.Keys(st.Answered)) {
				fmt.Fprintf(a.env.Stdout, "  %-10s %d requests\n", name, st.Answered[name])
			}
			for _, p := range st.Problems {
				fmt.Fprintf(a.env.Stdout, "  policy edit not used (since %s): %s; %s still decides for %s\n",
					p.Since.Local().Format(time.DateTime), p.Error, p.InForce, p.Scope.Cwd)
			}
			writeSinkStatus(a.env.Stdout, st.Sinks)
			writeBundleStatus(a.env.Stdout, st.PolicyBundle)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the status as JSON")
	return cmd
}
