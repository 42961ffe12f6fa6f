package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/decide"
	"github.com/moatdev/moat/internal/mcp"
	"github.com/moatdev/moat/internal/mcp/httpproxy"
	"github.com/moatdev/moat/internal/mcp/toolscan"
	"github.com/moatdev/moat/internal/scan"
)

func newMCPCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Guard MCP servers: run them through moat's proxy",
		Long: `An MCP server's tools reach the agent through the MCP protocol, where no hook sees
them. 'moat mcp proxy' sits between the agent and a server and decides every tool call,
resource read and prompt request with the same policy as the hooks; 'moat mcp wrap'
rewrites the agents' MCP configs so that every server runs through it, and 'moat mcp
unwrap' restores them.`,
	}
	cmd.AddCommand(newMCPProxyCmd(a), newMCPWrapCmd(a, false), newMCPWrapCmd(a, true), newMCPPinCmd(a), newMCPScanCmd(a))
	return cmd
}

func newMCPProxyCmd(a *app) *cobra.Command {
	var policyFlag, name, agent, upstream, upstreamEnv, listen string
	var allowRemote, stdio, noDaemon bool
	var listTimeout time.Duration
	var maxRequests int
	cmd := &cobra.Command{
		Use:   "proxy [--policy F] [--name SERVER] [--agent AGENT] (-- COMMAND [ARGS…] | --upstream URL [--listen ADDR | --stdio])",
		Short: "Run an MCP server behind moat (stdio, or Streamable HTTP with --upstream)",
		Long: `Proxy starts COMMAND as an MCP server speaking stdio and relays newline-delimited
JSON-RPC between it and the client on moat's own standard input and output, unchanged in
both directions. The server's standard error passes through; signals are forwarded to it;
its exit status is moat's.

Every tools/call is decided as the mcp call mcp:SERVER/TOOL with its arguments, every
resources/read as mcp:SERVER/resources/read (argument uri) and every prompts/get as
mcp:SERVER/prompts/get (arguments name and arguments). A call the policy denies never
reaches the server: a tools/call is answered with a tool error whose text is
"blocked by moat: <reason>", the others with JSON-RPC error -32003. An ask is refused the
same way, saying that approval is needed (there is no approval over MCP yet). Every
decision is recorded in the audit log.

Every tools/list result is read before the client sees it: a tool whose description or
parameter documentation gives the model hidden instructions (read a file, pass data in a
parameter, keep something from the user), shadows other tools or hides text is removed
from the list, every other tool kept as the server sent it, and its calls are refused.
No tools/call is relayed before its tool was vetted: a call to a tool that no listing of
the session showed yet (the client never listed, or its list is still on the way, or the
server said its tools changed) waits while moat lists the server's tools itself, with
requests and answers the client never sees; a tool that is poisoned, changed or not
listed is refused, and so is the call when the server does not list within
--list-timeout.
Each tool's definition is pinned the first time it is seen (in moat's state directory); a
tool listed later with another description or schema (a "rug pull") is hidden and its
calls refused until you review it and run 'moat mcp pin --accept SERVER'.

Tool results are read for prompt injection and credentials, as the hooks read a tool's
output: by default a result that holds either reaches the client with a note added for the
model (treat it as data, do not repeat the credential); with 'output: {injection: block}'
or 'secrets: block' in the policy it is withheld and replaced by a tool error saying why.

Messages are checked strictly before anything is relayed: invalid JSON or UTF-8, duplicate
keys or keys differing only in case, numbers out of range and messages over 64 MiB are
refused, with an error to the sender when its id can be read. Batch arrays are decided
element by element.

With --upstream URL, moat serves the Streamable HTTP transport on --listen (default: a
free port of 127.0.0.1, printed on standard error with the URL to give the agent; a
non-loopback address needs --allow-remote) in front of the server at
URL, in both protocol eras (sessions, GET streams and DELETE of the legacy revisions;
the header checks of 2026-07-28, where Mcp-Method and Mcp-Name must agree with the body).
Streams are relayed event by event, each event read like a stdio message; a client that
goes away cancels its upstream request. Requests from other origins than a loopback
one are refused, and so is every request without moat's token: clients must send
"Authorization: Bearer TOKEN", where TOKEN is $MOAT_MCP_TOKEN (at least 16 letters,
digits or -._~+/=) or, when it is not set, a random token made at each start and printed
on standard error. The agent's config then names moat's URL and that header (its MCP
entry's "headers"). At most --max-requests requests (and as many GET streams) are
handled at once; beyond them a request waits up to a second, then gets 503 with
Retry-After. Decisions are recorded by one writer, off the request path: a slow or
locked audit log never holds a request; when its queue is full a record is dropped,
and the number dropped is recorded as a failure (rule mcp-records-dropped) as soon as
the log can be written again.

With --stdio as well, there is nothing to keep running: the agent starts moat as an
ordinary stdio server, and moat is the Streamable HTTP client of the server at URL
(initialize and its session, the GET stream and DELETE of the legacy revisions; the
headers of 2026-07-28, Mcp-Param-* included, derived from each message). Messages keep
their ids and bytes both ways. --upstream-env VAR takes the URL and the headers to send
(credentials) from a variable holding {"url": "…", "headers": {…}}, in which ${NAME} and
${NAME:-default} are expanded from the environment; this is what 'moat mcp wrap' writes
for an agent's HTTP servers. A request the server leaves unanswered (an HTTP error, a
401 asking for a login moat cannot do, a stream cut short) is answered with an error.

SERVER (default: the command's file name, or the upstream's host) is the name rules use.
AGENT (default: $MOAT_AGENT) must be an agent moat knows; every decision is recorded with
the agent (when one is named), the server and the tool. The policy is found
from the working directory, as for hooks; a policy that cannot be loaded stops moat
before the server starts.`,
		Example: `  moat mcp proxy --name filesystem -- npx -y @modelcontextprotocol/server-filesystem ~/project
  moat mcp proxy --name docs --upstream https://mcp.example.com/mcp
  MOAT_MCP_TOKEN=$(openssl rand -hex 32) moat mcp proxy --name docs --upstream https://mcp.example.com/mcp --listen 127.0.0.1:8765
  MOAT_MCP_UPSTREAM='{"url":"https://api.example.com/mcp","headers":{"Authorization":"Bearer ${TOKEN}"}}' \
    moat mcp proxy --name example --stdio --upstream-env MOAT_MCP_UPSTREAM`,
		RunE: func(cmd *cobra.Command, args []string) error {
			// The agent is checked before anything starts: a name moat does not know
			// would match no rule that names agents, and record nothing useful.
			ag, err := guardAgent(agent, a.env.Getenv)
			if err != nil {
				return usageError(err)
			}
			var up *httpproxy.Upstream
			switch {
			case upstream != "" && upstreamEnv != "":
				return fmt.Errorf("give --upstream or --upstream-env, not both")
			case (upstream != "" || upstreamEnv != "") && len(args) > 0:
				return fmt.Errorf("give a command or an upstream, not both")
			case stdio && upstream == "" && upstreamEnv == "":
				return fmt.Errorf("--stdio bridges to a remote server: give --upstream URL or --upstream-env VAR")
			case stdio && cmd.Flags().Changed("listen"):
				return fmt.Errorf("--stdio serves the client on standard input and output: it takes no --listen")
			case maxRequests < 1:
				return fmt.Errorf("--max-requests must be at least 1, not %d", maxRequests)
			case upstream != "":
				u, err := url.Parse(upstream)
				if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
					return fmt.Errorf("--upstream must be an http or https URL, not %q", scan.Redact(upstream))
				}
				up = &httpproxy.Upstream{URL: u}
			case upstreamEnv != "":
				spec := a.env.Getenv(upstreamEnv)
				if spec == "" {
					return fmt.Errorf("--upstream-env %s: the variable is not set", upstreamEnv)
				}
				u, err := httpproxy.ParseUpstream(spec, a.env.Getenv)
				if err != nil {
					return fmt.Errorf("--upstream-env %s: %w", upstreamEnv, err)
				}
				up = &u
			}
			switch {
			case up != nil:
				if name == "" {
					name = up.URL.Hostname()
				}
			case len(args) == 0 || cmd.ArgsLenAtDash() != 0:
				return fmt.Errorf("put the server's command after --: moat mcp proxy [flags] -- COMMAND [ARGS…] (or give --upstream URL)")
			case name == "":
				name = filepath.Base(args[0])
			}
			cwd, err := a.cwd()
			if err != nil {
				return err
			}
			// Decisions are recorded before each answer, through one open log for the
			// process's life; the HTTP proxy, which serves many clients at once, queues
			// them instead (write is set below, before the first call).
			var write func(audit.Record) error
			// The daemon decides and records when it runs; else a service in this process.
			// Either way the policy's rules are watched: an edit decides the calls that
			// follow (its output and changed-tools settings apply from the next start).
			svc := a.decisionService(cmd.Context(), decisionServiceOptions{noDaemon: noDaemon, live: true, local: decide.Options{Write: func(r audit.Record) error { return write(r) }}})
			defer svc.Close()
			scope := decide.Scope{Flag: policyFlag, Cwd: cwd}
			pol, err := svc.Lookup(cmd.Context(), scope)
			if err != nil {
				return fmt.Errorf("cannot load the policy, so the MCP server %s is not started: %w", name, err)
			}
			// current is the policy in force; the live service keeps the last good one.
			current := func(ctx context.Context) decide.Policy {
				if p, err := svc.Lookup(ctx, scope); err == nil {
					return p
				}
				return pol
			}
			d, err := a.dirs()
			if err != nil {
				return err
			}
			w := &auditWriter{a: a, path: d.AuditLog(), lockWait: audit.DefaultLockWait}
			defer w.close()
			write = w.write
			warnNotRecorded := func(err error) {
				if err != nil {
					fmt.Fprintf(a.env.Stderr, "moat: recording decision: %s\n", scan.Redact(err.Error()))
				}
			}
			p := &mcp.Proxy{
				Server: name, Cwd: cwd, Project: decide.ProjectRoot(cwd), Log: a.env.Stderr,
				Output: pol.Output, ChangedTools: pol.ChangedTools, VetTimeout: listTimeout,
				Decide: func(ctx context.Context, c call.Call) call.Decision {
					if ag != "" {
						c.Agent = ag // else the agent the client's clientInfo names, if any
					}
					event := "mcp " + c.MCP.String()
					pol := current(ctx)
					res, err := svc.Decide(ctx, decide.CallRequest{Policy: pol.Key, Event: event, Calls: []call.Call{c}, Record: true, Unattended: mcpUnattended})
					if err != nil {
						reason := "cannot decide the call: " + err.Error()
						warnNotRecorded(svc.RecordFailure(ctx, decide.Failure{Agent: c.Agent, Event: event, Call: c, Policy: pol.Name, Reason: reason, Open: pol.FailOpen()}))
						return decide.FailDecision(pol.FailOpen(), reason)
					}
					for _, e := range res.NotRecorded {
						warnNotRecorded(e)
					}
					return heldDecision(res)
				},
				Record: func(kind mcp.RecordKind, c call.Call, d call.Decision) {
					if ag != "" {
						c.Agent = ag
					}
					event := "mcp " + c.MCP.String() // a call, as Decide records it
					if kind != mcp.RecordCall {
						event = "mcp " + string(kind) + " " + c.MCP.String()
					}
					warnNotRecorded(svc.Record(cmd.Context(), decide.RecordRequest{Policy: current(cmd.Context()).Key, Event: event, Call: c, Decision: d}))
				},
			}
			pins, err := toolscan.Open(d.MCPPins(), name)
			if err != nil {
				return fmt.Errorf("cannot read the pinned tools of %s, so the server is not started: %w", name, err)
			}
			p.Pins = pins
			switch {
			case up != nil && stdio:
				return a.bridgeMCPHTTP(cmd.Context(), p, up)
			case up != nil:
				w.lockWait = recorderLockWait
				rec, err := httpproxy.NewRecorder(httpproxy.RecorderOptions{
					Write: w.write,
					Warn:  func(msg string) { fmt.Fprintln(a.env.Stderr, scan.Redact(msg)) },
					Now:   a.env.Now,
				})
				if err != nil {
					return err
				}
				write = func(r audit.Record) error { rec.Add(r); return nil }
				return a.serveMCPHTTP(cmd.Context(), p, up, httpOptions{listen: listen, allowRemote: allowRemote, maxRequests: maxRequests, recorder: rec})
			}
			server := exec.Command(args[0], args[1:]...)
			server.Stderr = a.env.Stderr
			signals := make(chan os.Signal, 4)
			signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
			defer signal.Stop(signals)
			code, err := (&mcp.Stdio{Proxy: p, Signals: signals}).Run(cmd.Context(), server, a.env.Stdin, a.env.Stdout)
			if err != nil {
				return err
			}
			if code != 0 {
				return &exitCode{code: code}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&policyFlag, "policy", "", "policy file to use instead of the one found from the working directory")
	cmd.Flags().StringVar(&name, "name", "", "the server's name in rules (mcp:NAME/TOOL); default: the command's file name")
	cmd.Flags().StringVar(&agent, "agent", "", "the agent the server works for (claude-code, cursor, windsurf, gemini-cli, codex, …), for rules that name agents and for the audit log; default $"+envAgent)
	cmd.Flags().StringVar(&upstream, "upstream", "", "the URL of a Streamable HTTP MCP server to proxy, instead of a command")
	cmd.Flags().StringVar(&upstreamEnv, "upstream-env", "", `like --upstream, from the environment variable VAR holding {"url": "…", "headers": {…}} (what 'moat mcp wrap' writes; keeps credentials out of the command line)`)
	cmd.Flags().BoolVar(&stdio, "stdio", false, "with an upstream: serve the client on standard input and output, as a stdio server, instead of listening")
	cmd.Flags().StringVar(&listen, "listen", httpproxy.DefaultListen, "with --upstream: the address moat serves on")
	cmd.Flags().DurationVar(&listTimeout, "list-timeout", mcp.DefaultVetTimeout, "how long moat waits for the server to list its tools when a call needs them vetted; the call is refused after it")
	cmd.Flags().BoolVar(&allowRemote, "allow-remote", false, "with --upstream: accept a non-loopback --listen address and Host (clients still need the token)")
	cmd.Flags().BoolVar(&noDaemon, "no-daemon", false, "decide in this process even when the daemon runs (MOAT_DAEMON=off does the same)")
	cmd.Flags().IntVar(&maxRequests, "max-requests", httpproxy.DefaultMaxInFlight, "with --upstream: requests handled at once (and, apart, GET streams); beyond them a request waits up to 1s, then gets 503 with Retry-After")
	return cmd
}

// envMCPToken holds the token clients of the HTTP proxy must send; without it, a new one
// is made at each start.
const envMCPToken = "MOAT_MCP_TOKEN"

// httpOptions are the flags of the HTTP proxy.
type httpOptions struct {
	listen      string
	allowRemote bool
	maxRequests int
	recorder    *httpproxy.Recorder
}

// recorderLockWait bounds the proxy's writer's wait for the audit log's lock. The writer
// is off the request path, so nothing waits for it but the records queued behind it: a
// record that cannot take the lock this soon goes to the spool, which the next writer
// merges, and the queue moves on.
const recorderLockWait = 50 * time.Millisecond

// auditWriter is an MCP proxy's writer of the audit log. It keeps the log open for the
// process's life: a Log abandons at most one wait for a held lock at a time (each holds
// an OS thread), where a Log per record would leave one thread stuck per record while
// another process holds the lock. It is safe for concurrent use.
type auditWriter struct {
	a        *app
	path     string
	lockWait time.Duration

	mu  sync.Mutex
	log *audit.Log // nil until opened, and after a failure to open
}

func (w *auditWriter) write(r audit.Record) error {
	_, err := w.writeSeq(r)
	return err
}

// writeSeq is write, returning the number the record got in the log (decide.Options.WriteSeq).
func (w *auditWriter) writeSeq(r audit.Record) (uint64, error) {
	w.mu.Lock()
	log := w.log
	if log == nil {
		var err error
		log, err = audit.Open(audit.Options{Path: w.path, Redactor: scan.Redactor{}, Now: w.a.env.Now, LockWait: w.lockWait})
		if err != nil {
			w.mu.Unlock()
			return 0, fmt.Errorf("opening audit log: %w", err)
		}
		w.log = log
	}
	w.mu.Unlock()
	seq, err := log.AppendSeq(r)
	if err != nil {
		return seq, fmt.Errorf("writing audit log: %w", err)
	}
	return seq, nil
}

// close closes the log; no write may be under way.
func (w *auditWriter) close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.log == nil {
		return nil
	}
	err := w.log.Close()
	w.log = nil
	return err
}

// recorderDrain is how long a stopping proxy waits for its queued records.
const recorderDrain = 5 * time.Second

// serveMCPHTTP serves the Streamable HTTP proxy until the context ends or a signal
// stops it, then writes the records still queued.
func (a *app) serveMCPHTTP(ctx context.Context, p *mcp.Proxy, up *httpproxy.Upstream, o httpOptions) (err error) {
	defer func() {
		drain, cancel := context.WithTimeout(context.Background(), recorderDrain)
		defer cancel()
		if cerr := o.recorder.Close(drain); cerr != nil {
			fmt.Fprintf(a.env.Stderr, "moat: %v\n", cerr)
		}
		if s := o.recorder.Stats(); s.Dropped > 0 || s.Failed > 0 || s.Spooled > 0 {
			fmt.Fprintf(a.env.Stderr, "moat: decision records: %d written, %d spooled, %d dropped (queue full), %d lost\n", s.Written, s.Spooled, s.Dropped, s.Failed)
		}
	}()
	token, given := a.env.Getenv(envMCPToken), true
	if token == "" {
		if token, err = httpproxy.NewToken(); err != nil {
			return err
		}
		given = false
	}
	upstream := up.URL
	h, err := httpproxy.New(httpproxy.Options{Upstream: upstream, Header: up.Header, Proxy: p, Token: token, AllowRemote: o.allowRemote, MaxInFlight: o.maxRequests, ReturnMemory: true})
	if err != nil {
		if given {
			return fmt.Errorf("$%s: %w", envMCPToken, err)
		}
		return err
	}
	ln, err := httpproxy.Listen(o.listen, o.allowRemote)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	fmt.Fprintf(a.env.Stderr, "moat: proxying %s for %s on http://%s%s\n", scan.Redact(upstream.Redacted()), p.Server, ln.Addr(), upstream.EscapedPath())
	// The token is said only to whoever started moat (its stderr); a given one is not
	// repeated, since it may be a shared secret kept out of logs.
	if given {
		fmt.Fprintf(a.env.Stderr, "moat: clients must send \"Authorization: Bearer $%s\"\n", envMCPToken)
	} else {
		fmt.Fprintf(a.env.Stderr, "moat: clients must send \"Authorization: Bearer %s\" (a new token at each start; set %s to keep one)\n", token, envMCPToken)
	}
	return httpproxy.Serve(ctx, ln, h)
}

// bridgeMCPHTTP serves the client on standard input and output, as a stdio server, and
// is itself the client of the remote server, until the client closes its input or a
// signal stops it.
func (a *app) bridgeMCPHTTP(ctx context.Context, p *mcp.Proxy, up *httpproxy.Upstream) error {
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	return httpproxy.Bridge(ctx, httpproxy.BridgeOptions{Upstream: up.URL, Header: up.Header, Proxy: p}, a.env.Stdin, a.env.Stdout)
}

func newMCPPinCmd(a *app) *cobra.Command {
	var accept, asJSON bool
	cmd := &cobra.Command{
		Use:   "pin SERVER [--accept [TOOL…]] [--json]",
		Short: "Show or accept the pinned tool definitions of an MCP server",
		Long: `The proxy pins each tool's definition (a hash of its name, description and input
schema) the first time it sees it. A tool later listed with another definition is hidden
from the agent and its calls refused until the change is accepted here.

Without --accept, pin lists the server's pinned tools and the changes that wait. With
--accept it accepts the waiting changes of the named tools, or all of them: review what
the server's tool now says first, since a changed description is how a trusted server
turns on its users. Agents cannot run this (self-protection).`,
		Example: `  moat mcp pin github
  moat mcp pin --accept github create_issue`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := a.dirs()
			if err != nil {
				return err
			}
			server, tools := args[0], args[1:]
			if len(tools) > 0 && !accept {
				return fmt.Errorf("tool names are for --accept")
			}
			pins, err := toolscan.Open(d.MCPPins(), server)
			if err != nil {
				return err
			}
			pending := pins.Pending()
			if accept {
				var accepted []string
				if len(tools) == 0 {
					accepted = pins.AcceptAll()
				} else if err := pins.Accept(tools...); err != nil {
					return err
				} else {
					accepted = tools
				}
				if err := pins.Save(); err != nil {
					return err
				}
				if asJSON {
					return json.NewEncoder(a.env.Stdout).Encode(map[string]any{"server": server, "accepted": nonNil(accepted)})
				}
				if len(accepted) == 0 {
					fmt.Fprintf(a.env.Stdout, "%s: no changed tools wait to be accepted\n", server)
				}
				for _, t := range accepted {
					fmt.Fprintf(a.env.Stdout, "%s: accepted the new definition of %s\n", server, t)
				}
				return nil
			}
			if asJSON {
				var changes []map[string]any
				for _, c := range pending {
					changes = append(changes, map[string]any{"tool": c.Tool, "description": c.Description, "inputSchema": c.InputSchema, "old": c.OldHash, "new": c.NewHash})
				}
				return json.NewEncoder(a.env.Stdout).Encode(map[string]any{"server": server, "pending": nonNil(changes)})
			}
			if len(pending) == 0 {
				fmt.Fprintf(a.env.Stdout, "%s: no changed tools\n", server)
			}
			for _, c := range pending {
				fmt.Fprintf(a.env.Stdout, "%s: %s changed (%s); hidden until 'moat mcp pin --accept %s %s'\n", server, c.Tool, whatChanged(c), server, c.Tool)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&accept, "accept", false, "accept the waiting changes (of the named tools, or all)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func whatChanged(c toolscan.Change) string {
	switch {
	case c.Description && c.InputSchema:
		return "description and input schema"
	case c.Description:
		return "description"
	case c.InputSchema:
		return "input schema"
	}
	return "definition"
}

// nonNil makes an empty list print as [] rather than null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
