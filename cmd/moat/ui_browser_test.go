//go:build linux || darwin

package main

import (
	"context"
	"fmt"
	"html/template"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// TestDashboardInBrowser is issue 22's acceptance, in a real headless Chromium against
// the real daemon: a browser logs in with moat ui's one-time URL, is refused without
// it and on cross-site requests, sees a hook call's decision arrive live, filters the
// live view, approves a held Codex call whose retry then passes, tries a call on the
// policy page, reads the charts' text alternatives, and screenshots the main views. The
// subtests share one daemon and one browser, and run in order.
func TestDashboardInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the daemon and a browser")
	}
	chromium(t) // skips early, before the daemon starts, when there is no browser
	// The fleet page's database starts before the browser's clock: PostgreSQL's start
	// is not the dashboard's to be timed.
	fleetDB := browserFleetDatabase(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	start := time.Now()
	e := newDashboardEnv(t)
	tab := newBrowser(t, ctx)
	loginURL, origin := e.login(t)
	t.Logf("the daemon and the browser are up after %s", time.Since(start).Round(time.Millisecond))

	// Every subtest works in the logged-in tab: the login is made here, so that -run can
	// pick any of them, and the login subtest checks it.
	if err := chromedp.Do(tab, chromedp.Navigate(loginURL)); err != nil {
		t.Fatal(err)
	}

	t.Run("login", func(t *testing.T) {
		if _, err := within(tab, 10*time.Second, chromedp.WaitVisible(chromedp.CSS(`nav a[data-nav="live"]`))); err != nil {
			t.Fatalf("the nav did not appear after the login: %v", err)
		}
		for _, nav := range []string{"live", "approvals", "sessions", "policy", "charts"} {
			if _, err := within(tab, 2*time.Second, chromedp.WaitReady(chromedp.CSS(fmt.Sprintf(`nav a[data-nav=%q]`, nav)))); err != nil {
				t.Errorf("nav link %s: %v", nav, err)
			}
		}
		loc, err := chromedp.Run(tab, chromedp.Location())
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(loc, "token") || !strings.HasPrefix(loc, origin+"/") {
			t.Errorf("address bar after the login: %s; want %s/ without the token", loc, origin)
		}
		hist, err := chromedp.Run(tab, chromedp.NavigationEntries())
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hist.Entries {
			if strings.Contains(h.URL, "token") {
				t.Errorf("the login token is in the history: %s", h.URL)
			}
		}
		// The session's CSRF token reached the page: the shared helpers can change state.
		if csrf, err := chromedp.Run(tab, chromedp.Poll[string](`moat.csrf`, chromedp.WithPollingTimeout(5*time.Second))); err != nil || csrf == "" {
			t.Errorf("the page has no CSRF token: %q %v", csrf, err)
		}
	})

	t.Run("refused without the token", func(t *testing.T) {
		// A fresh browser context has no cookie: the user's other profile, or another
		// local user's browser.
		fresh, cancel := chromedp.NewContext(tab, chromedp.WithNewBrowserContext())
		defer cancel()
		for _, u := range []string{origin + "/", loginURL} { // the login URL works once
			resp, err := chromedp.Run(fresh, chromedp.NavigateResponse(u))
			if err != nil {
				t.Fatalf("%s: %v", u, err)
			}
			text, err := chromedp.Run(fresh, chromedp.Text(chromedp.CSS("body")))
			if err != nil {
				t.Fatal(err)
			}
			if resp.Status != http.StatusUnauthorized || !strings.Contains(text, "moat ui") {
				t.Errorf("%s without a session: %d %q; want 401 and a page saying to run moat ui", u, resp.Status, text)
			}
			if n, _ := within(fresh, time.Second, chromedp.Evaluate[int](`document.querySelectorAll("nav a[data-nav]").length`)); n != 0 {
				t.Errorf("%s without a session shows the dashboard's nav", u)
			}
		}
		status, err := within(fresh, 5*time.Second, chromedp.Evaluate[int](`fetch("/api/session").then(r => r.status)`, chromedp.EvalAwaitPromise))
		if err != nil || status != http.StatusUnauthorized {
			t.Errorf("GET /api/session without a session: %d %v; want 401", status, err)
		}
	})

	t.Run("cross-site POST refused", func(t *testing.T) {
		id := e.pendingApproval(t, e.canary("moat-browser-ask cross-site"))
		// With the session's cookie, from the dashboard's own origin, a state change
		// without the CSRF header is refused: 403, or 404/405 while the approvals API
		// is not in this tree.
		probe := fmt.Sprintf(`fetch(%q, {method: "POST", headers: {"Content-Type": "application/json"}, body: '{"state":"once"}'}).then(r => r.status)`, "/api/approvals/"+id)
		own, err := within(tab, 5*time.Second, chromedp.Evaluate[int](probe, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatal(err)
		}
		approvalsAPI := own != http.StatusNotFound && own != http.StatusMethodNotAllowed
		if approvalsAPI && own != http.StatusForbidden {
			t.Errorf("same-origin POST /api/approvals/%s without %s: %d; want 403", id, "X-Moat-CSRF", own)
		}
		if !approvalsAPI {
			t.Logf("POST /api/approvals/ID answers %d: the approvals API is not in this tree", own)
		}

		attacker := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			attackPage.Execute(w, struct {
				Form   bool
				Target string
			}{r.URL.Query().Get("kind") == "form", r.URL.Query().Get("target")})
		}))
		defer attacker.Close()
		_, port, err := net.SplitHostPort(attacker.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		// localhost is another site than 127.0.0.1: the browser leaves the SameSite=Strict
		// cookie out. 127.0.0.1 on another port is the same site but another origin: the
		// cookie goes along, and the server refuses the request for its origin and
		// missing CSRF header.
		for _, site := range []string{"http://localhost:" + port, "http://127.0.0.1:" + port} {
			for _, target := range []string{"/api/approvals/" + id, "/api/logout"} {
				for _, kind := range []string{"form", "fetch"} {
					name := fmt.Sprintf("%s %s from %s", kind, target, site)
					status := attack(t, tab, site+"/attack?"+url.Values{"kind": {kind}, "target": {origin + target}}.Encode(), origin+target)
					t.Logf("%s: %d", name, status)
					switch {
					case status == http.StatusUnauthorized || status == http.StatusForbidden:
					case !approvalsAPI && strings.HasPrefix(target, "/api/approvals/") && int(status) == own:
					default:
						t.Errorf("%s: the dashboard answered %d; want 401 or 403", name, status)
					}
				}
			}
		}
		if state := e.approvalState(t, id); state != "pending" {
			t.Errorf("approval %s after the cross-site POSTs: %q; want pending", id, state)
		}
		status, err := within(tab, 5*time.Second, chromedp.Evaluate[int](`fetch("/api/session").then(r => r.status)`, chromedp.EvalAwaitPromise))
		if err != nil || status != http.StatusOK {
			t.Errorf("the session after the cross-site logouts: GET /api/session %d %v; want 200 (still logged in)", status, err)
		}
	})

	const session = "browser-s1"
	liveCommand := e.canary("moat-browser-live")
	denyCommand := e.canary("moat-browser-deny filtered")

	t.Run("live", func(t *testing.T) {
		openView(t, tab, "#/live", "table#records")
		// A mark on the page's window: it is gone if the page reloads.
		if _, err := chromedp.Run(tab, chromedp.Evaluate[chromedp.Void](`window.moatNoReload = true`)); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		if out := e.claudeBash(t, session, liveCommand); strings.Contains(out, `"deny"`) {
			t.Fatalf("the live canary was denied: %s", out)
		}
		row := fmt.Sprintf(`[...document.querySelectorAll("table#records tbody tr[data-seq]")].find(tr => (tr.querySelector("td.target") || {}).textContent.includes(%q))`, "moat-browser-live")
		if _, err := within(tab, 5*time.Second, chromedp.Poll[chromedp.Void](row+` !== undefined`, chromedp.WithPollingInterval(50*time.Millisecond))); err != nil {
			t.Fatalf("the hook call's row did not arrive: %v", err)
		}
		t.Logf("the hook call's row arrived %s after the call", time.Since(start).Round(time.Millisecond))
		cells, err := chromedp.Run(tab, chromedp.Evaluate[map[string]string](`(() => { const tr = `+row+`; const c = n => (tr.querySelector("td." + n) || {}).textContent || ""; return {agent: c("agent"), session: c("session"), decision: c("decision"), seq: tr.dataset.seq}; })()`))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(strings.ToLower(cells["agent"]), "claude") || !strings.Contains(cells["session"], session) || !strings.Contains(cells["decision"], "allow") || cells["seq"] == "" {
			t.Errorf("the live row: %v; want agent claude-code, session %s, decision allow, a seq", cells, session)
		}
		if kept, err := chromedp.Run(tab, chromedp.Evaluate[bool](`window.moatNoReload === true`)); err != nil || !kept {
			t.Errorf("the page reloaded to show the row (%v)", err)
		}
		first, err := chromedp.Run(tab, chromedp.Evaluate[string](`document.querySelector("table#records tbody tr[data-seq]").dataset.seq`))
		if err != nil || first != cells["seq"] {
			t.Errorf("the newest row is not first: first seq %s, the new row's %s (%v)", first, cells["seq"], err)
		}
	})

	t.Run("filter", func(t *testing.T) {
		openView(t, tab, "#/live", "form#filters")
		if out := e.claudeBash(t, session, denyCommand); !strings.Contains(out, "deny") {
			t.Fatalf("the deny canary was not denied: %s", out)
		}
		for _, name := range []string{"decision", "agent", "session", "rule", "tool", "since", "until", "q"} {
			labelled := fmt.Sprintf(`(() => { const c = document.querySelector('form#filters [name=%q]'); return !!c && c.labels.length > 0; })()`, name)
			if ok, err := chromedp.Run(tab, chromedp.Evaluate[bool](labelled)); err != nil || !ok {
				t.Errorf("form#filters has no labelled control named %s (%v)", name, err)
			}
		}
		// As a user does: choose deny (the page may apply it on change) and submit the
		// form (requestSubmit fires the submit event as the form's button does).
		choose := `(() => {
			const f = document.querySelector("form#filters"), d = f.querySelector('select[name="decision"]');
			d.value = "deny";
			d.dispatchEvent(new Event("input", {bubbles: true}));
			d.dispatchEvent(new Event("change", {bubbles: true}));
			f.requestSubmit();
		})()`
		if _, err := chromedp.Run(tab, chromedp.Evaluate[chromedp.Void](choose)); err != nil {
			t.Fatal(err)
		}
		if _, err := within(tab, 5*time.Second, chromedp.Poll[chromedp.Void](`location.hash.includes("decision=deny")`)); err != nil {
			hash, _ := chromedp.Run(tab, chromedp.Evaluate[string](`location.hash`))
			t.Fatalf("submitting the filters did not put decision=deny in the address: %s", hash)
		}
		// Only deny rows, the canary's among them, and the allowed live call gone.
		onlyDeny := fmt.Sprintf(`(() => {
			const rows = [...document.querySelectorAll("table#records tbody tr[data-seq]")];
			const text = (tr, n) => (tr.querySelector("td." + n) || {}).textContent || "";
			return rows.length > 0 && rows.every(tr => /\bdeny\b/.test(text(tr, "decision"))) &&
				rows.some(tr => text(tr, "target").includes(%q));
		})()`, "moat-browser-deny filtered")
		if _, err := within(tab, 5*time.Second, chromedp.Poll[chromedp.Void](onlyDeny, chromedp.WithPollingInterval(50*time.Millisecond))); err != nil {
			rows, _ := chromedp.Run(tab, chromedp.Evaluate[[]string](`[...document.querySelectorAll("table#records tbody tr[data-seq]")].map(tr => tr.textContent)`))
			t.Fatalf("filtered by decision=deny, the rows are:\n%s", strings.Join(rows, "\n"))
		}
	})

	t.Run("approve", func(t *testing.T) {
		openView(t, tab, "#/approvals", "#approvals")
		command := e.canary("moat-browser-ask approve")
		id := e.pendingApproval(t, command)
		entry := fmt.Sprintf(`#approvals [data-approval-id=%q]`, id)
		if _, err := within(tab, 5*time.Second, chromedp.WaitVisible(chromedp.CSS(entry+` button[data-action="once"]`))); err != nil {
			t.Fatalf("the pending approval %s did not appear: %v", id, err)
		}
		// The nav's count of pending approvals says so, in words or digits.
		count := `(() => { const n = parseInt((document.getElementById("approval-count") || {}).textContent.replace(/\D+/g, ""), 10); return n > 0; })()`
		if _, err := within(tab, 5*time.Second, chromedp.Poll[chromedp.Void](count, chromedp.WithPollingInterval(100*time.Millisecond))); err != nil {
			text, _ := chromedp.Run(tab, chromedp.Evaluate[string](`(document.getElementById("approval-count") || {}).textContent`))
			t.Errorf("#approval-count with a call pending: %q; want a count of at least 1", text)
		}
		for _, action := range []string{"session", "always", "deny"} {
			if _, err := within(tab, time.Second, chromedp.WaitReady(chromedp.CSS(fmt.Sprintf(`%s button[data-action=%q]`, entry, action)))); err != nil {
				t.Errorf("approval %s has no %s button", id, action)
			}
		}
		if err := chromedp.Do(tab, chromedp.Click(chromedp.CSS(entry+` button[data-action="once"]`))); err != nil {
			t.Fatal(err)
		}
		// The queue leaves the browser's hands when the answer is stored.
		deadline := time.Now().Add(5 * time.Second)
		for state := e.approvalState(t, id); state != "once"; state = e.approvalState(t, id) {
			if time.Now().After(deadline) {
				t.Fatalf("approval %s after the click: %q; want once", id, state)
			}
			time.Sleep(50 * time.Millisecond)
		}
		if _, err := within(tab, 5*time.Second, chromedp.WaitNotPresent(chromedp.CSS(entry+` button[data-action="once"]`))); err != nil {
			t.Errorf("the answered approval still offers its buttons: %v", err)
		}
		if decision, reason := e.codexBash(t, command); decision == "deny" {
			t.Errorf("the retry of the approved call was refused: %s", reason)
		}
		if decision, _ := e.codexBash(t, command); decision != "deny" {
			t.Errorf("a second retry went ahead on a once approval: %q", decision)
		}
	})

	t.Run("try a call", func(t *testing.T) {
		openView(t, tab, "#/policy", "form#try")
		// The options' values are the page's: pick Claude Code and its Bash tool (or the
		// shell class) by value or by text.
		fill := fmt.Sprintf(`(() => {
			const f = document.querySelector("form#try");
			const pick = (name, ...want) => {
				const sel = f.querySelector("select[name=" + name + "]");
				const o = [...sel.options].find(o => want.some(w => o.value.toLowerCase() === w || o.text.toLowerCase().includes(w)));
				if (!o) return name + ": no option among " + [...sel.options].map(o => o.value).join(", ");
				sel.value = o.value;
				sel.dispatchEvent(new Event("change", {bubbles: true}));
				return "";
			};
			const bad = pick("agent", "claude-code", "claude") || pick("tool", "bash", "shell");
			if (bad) return bad;
			f.querySelector("textarea[name=input]").value = %q;
			f.querySelector("input[name=cwd]").value = %q;
			f.requestSubmit();
			return "";
		})()`, denyCommand, e.project)
		if bad, err := chromedp.Run(tab, chromedp.Evaluate[string](fill)); err != nil || bad != "" {
			t.Fatalf("filling form#try: %s %v", bad, err)
		}
		if _, err := within(tab, 5*time.Second, chromedp.Poll[chromedp.Void](`(() => { const d = document.querySelector("#try-result .decision"), p = document.querySelector("#try-result pre.trace"); return d && /\bdeny\b/.test(d.textContent) && p && p.textContent.includes("deny-browser-canary"); })()`, chromedp.WithPollingInterval(100*time.Millisecond))); err != nil {
			text, _ := chromedp.Run(tab, chromedp.Evaluate[string](`(document.getElementById("try-result") || {}).textContent || "(no #try-result)"`))
			t.Fatalf("trying %q: want a deny by deny-browser-canary with its trace; #try-result:\n%s", denyCommand, text)
		}
	})

	t.Run("charts", func(t *testing.T) {
		openView(t, tab, "#/charts", "#charts figure[data-chart]")
		// Each chart is readable without its picture: a title or alt text, and a table of
		// its numbers with header cells.
		bad, err := within(tab, 5*time.Second, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#charts figure[data-chart]")].flatMap(f => {
			const why = [];
			const svgTitle = f.querySelector("svg > title"), img = f.querySelector("img[alt]");
			if (!(svgTitle && svgTitle.textContent.trim()) && !(img && img.alt.trim())) why.push(f.dataset.chart + ": no svg title or img alt");
			if (!f.querySelector("table th")) why.push(f.dataset.chart + ": no table with header cells");
			return why;
		})`))
		if err != nil || len(bad) > 0 {
			t.Errorf("charts: %v %v", bad, err)
		}
	})

	t.Run("screenshots", func(t *testing.T) {
		// Calls of other kinds for the pages to show, and one held for approval.
		e.claudeTool(t, session, "Read", map[string]any{"file_path": filepath.Join(e.project, "README.md")})
		e.claudeTool(t, session, "Grep", map[string]any{"pattern": "TODO", "path": e.project})
		e.claudeBash(t, session, e.canary("moat-browser-deny screenshot"))
		e.pendingApproval(t, e.canary("moat-browser-ask screenshot"))
		views := []struct{ name, hash, ready string }{
			{"live", "#/live", "table#records tbody tr[data-seq]"},
			{"approvals", "#/approvals", "#approvals [data-approval-id]"},
			{"session", "#/sessions/claude-code/" + session, "ol#timeline li[data-seq]"},
			{"policy", "#/policy", "#policies [data-policy-source]"},
			{"charts", "#/charts", "#charts figure[data-chart]"},
		}
		var shot []string
		for _, v := range views {
			t.Run(v.name, func(t *testing.T) {
				openView(t, tab, v.hash, v.ready)
				saveScreenshot(t, tab, v.name)
				shot = append(shot, v.name)
			})
		}
		slices.Sort(shot)
		t.Logf("screenshots of %s", strings.Join(shot, ", "))
	})

	t.Run("fleet", func(t *testing.T) { browserFleet(t, tab, e, fleetDB) })
}

// attackPage is a page of another site that sends a POST to Target on load: by a form
// (a top-level navigation, as a link in a mail would) or by fetch (no-cors, with
// credentials, as a script on any page can).
var attackPage = template.Must(template.New("attack").Parse(`<!doctype html>
<html><head><title>another site</title></head><body>
{{if .Form}}<form id="f" method="POST" action="{{.Target}}"><input name="state" value="once"></form>
<script>document.getElementById("f").submit();</script>
{{else}}<script>fetch({{.Target}}, {method: "POST", mode: "no-cors", credentials: "include", headers: {"Content-Type": "text/plain"}, body: '{"state":"once"}'});</script>
{{end}}</body></html>
`))

// attack opens page in a new tab of tab's browser (which holds the dashboard's session
// cookie) and returns the status the dashboard answered the request to target with.
// The status is read from the response's raw headers: the browser withholds the
// response itself from another origin (the dashboard's Cross-Origin-Resource-Policy).
func attack(t *testing.T, tab context.Context, page, target string) int64 {
	t.Helper()
	atk, cancel := chromedp.NewContext(tab)
	defer cancel()
	var mu sync.Mutex
	urls := map[network.RequestID]string{}
	statuses := map[network.RequestID]int64{}
	status := int64(0)
	got := make(chan struct{})
	// The two events of a request come in either order.
	note := func() {
		for id, code := range statuses {
			if urls[id] == target && status == 0 {
				status = code
				close(got)
			}
		}
	}
	if err := chromedp.Listen(atk, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *network.EventRequestWillBeSent:
			urls[ev.RequestID] = ev.Request.URL
		case *network.EventResponseReceivedExtraInfo:
			statuses[ev.RequestID] = ev.StatusCode
		default:
			return
		}
		note()
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := within(atk, 10*time.Second, chromedp.Navigate(page)); err != nil {
		t.Fatalf("opening %s: %v", page, err)
	}
	select {
	case <-got:
	case <-time.After(5 * time.Second):
		t.Fatalf("%s: no answer from %s", page, target)
	}
	mu.Lock()
	defer mu.Unlock()
	return status
}
