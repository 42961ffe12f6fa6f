package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"github.com/moatdev/moat/internal/daemon"
	"github.com/moatdev/moat/internal/daemonenv"
	"github.com/moatdev/moat/internal/decide"
)

// methodUI is the daemon's method that starts the dashboard of the caller's environment
// (once) and returns a one-time login URL for it.
const methodUI = "ui"

// uiRequest is the params of methodUI.
type uiRequest struct {
	Env map[string]string `json:"env"`
}

// uiAnswer is the result of methodUI.
type uiAnswer struct {
	// URL logs one browser in, once, until Expires.
	URL     string    `json:"url"`
	Origin  string    `json:"origin"`
	Expires time.Time `json:"expires"`
}

func newUICmd(a *app) *cobra.Command {
	var noOpen, asJSON bool
	cmd := &cobra.Command{
		Use:   "ui",
		Short: "Open the dashboard: live decisions, approvals, sessions, policy and charts",
		Long: `Open moat's dashboard in your browser. The daemon serves it on a loopback address
(it is started when it does not run yet). The URL moat opens carries a one-time login
token, valid for two minutes, which the browser exchanges for a session cookie; after
that the dashboard works in that browser for 12 hours, or until the daemon stops.

Approving a call in the dashboard is the same as moat approve: the dashboard may be
opened only from a process that does not run under an agent.

Exit status: 0 on success, 1 on an error.`,
		Example: `  moat ui              # open the dashboard in the default browser
  moat ui --no-open    # print the one-time URL instead, to open it yourself
  moat ui --json       # {"url":…,"origin":…,"expires":…} for a script`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ans, err := a.uiLogin(cmd.Context())
			if err != nil {
				return &exitCode{code: exitError, err: err}
			}
			switch {
			case asJSON:
				b, err := json.Marshal(ans)
				if err != nil {
					return &exitCode{code: exitError, err: err}
				}
				fmt.Fprintln(a.env.Stdout, string(b))
			case noOpen:
				fmt.Fprintln(a.env.Stdout, ans.URL)
				fmt.Fprintf(a.env.Stderr, "moat ui: the URL logs one browser in, once, until %s\n", ans.Expires.Local().Format("15:04:05"))
			default:
				if err := openBrowser(ans.URL); err != nil {
					fmt.Fprintf(a.env.Stderr, "moat ui: could not open a browser (%v); open this URL, once, until %s:\n", err, ans.Expires.Local().Format("15:04:05"))
					fmt.Fprintln(a.env.Stdout, ans.URL)
					return nil
				}
				fmt.Fprintf(a.env.Stdout, "moat ui: opened %s/ in your browser\n", ans.Origin)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&noOpen, "no-open", false, "print the one-time login URL on stdout instead of opening a browser")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the login URL, the dashboard's origin and the URL's expiry as JSON; opens nothing")
	return cmd
}

// uiLogin asks the user's daemon, started when it does not run, for a login URL.
func (a *app) uiLogin(ctx context.Context) (uiAnswer, error) {
	if a.env.Getenv(envDaemon) == "off" {
		return uiAnswer{}, fmt.Errorf("the dashboard is served by the daemon, and %s=off", envDaemon)
	}
	if _, _, err := a.daemonStatus(ctx); err != nil {
		quiet := *a
		quiet.env.Stdout = a.env.Stderr
		if err := quiet.daemonStart(ctx, daemonOptions{}); err != nil {
			return uiAnswer{}, fmt.Errorf("starting the daemon, which serves the dashboard: %w", err)
		}
	}
	paths, err := a.daemonPaths(false)
	if err != nil {
		return uiAnswer{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	ans, err := callDaemon[uiAnswer](ctx, decide.DialUnix(paths.Socket), methodUI, uiRequest{Env: daemonenv.Capture(a.env.Getenv)}, 64<<10)
	if err != nil {
		return uiAnswer{}, err
	}
	return *ans, nil
}

// openBrowser opens url in the user's default browser.
func openBrowser(url string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", url)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		cmd = exec.Command("xdg-open", url)
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	// The opener hands the URL over and exits; its status is not waited for.
	go cmd.Wait()
	return nil
}

// daemonUIMethod serves methodUI. Only a local peer whose process tree runs no agent
// may have a login: the dashboard answers approvals, and an agent must not approve its
// own calls (the same check as moat approve's, without the terminal).
func (a *app) daemonUIMethod(services *daemonServices) daemon.Method {
	return func(ctx context.Context, params json.RawMessage, p daemon.Peer) (any, error) {
		var req uiRequest
		if err := strictUnmarshal(params, &req); err != nil {
			return nil, fmt.Errorf("params of %s: %w", methodUI, err)
		}
		if !p.Local || p.PID <= 0 {
			return nil, errors.New("the dashboard is opened only from a process on the daemon's unix socket whose process tree can be read")
		}
		if err := checkDashboardOpener(p.PID); err != nil {
			return nil, err
		}
		ds, err := services.forEnv(req.Env)
		if err != nil {
			return nil, err
		}
		srv, err := ds.dashboardServer(services)
		if err != nil {
			return nil, err
		}
		url, expires, err := srv.NewLogin()
		if err != nil {
			return nil, err
		}
		return uiAnswer{URL: url, Origin: srv.Origin(), Expires: expires}, nil
	}
}
