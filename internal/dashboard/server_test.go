package dashboard

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"
)

// served starts s on a loopback port for the test and returns its origin.
func served(t *testing.T, s *Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	if err := s.Bind(ln.Addr()); err != nil {
		t.Fatal(err)
	}
	go func() { done <- s.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return s.Origin()
}

// browser is an HTTP client that keeps cookies and does not follow redirects.
func browser(t *testing.T) *http.Client {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Jar: jar, Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// login logs c in to s and returns the session's CSRF token.
func login(t *testing.T, s *Server, c *http.Client) string {
	t.Helper()
	u, _, err := s.NewLogin()
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/" {
		t.Fatalf("login: %s, Location %q", res.Status, res.Header.Get("Location"))
	}
	res, err = c.Get(s.Origin() + "/api/session")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var info sessionInfo
	if err := json.NewDecoder(res.Body).Decode(&info); err != nil || info.CSRF == "" {
		t.Fatalf("session: %s, %v %+v", res.Status, err, info)
	}
	return info.CSRF
}

func TestLoginSetsAStrictHttpOnlyCookieOnce(t *testing.T) {
	s := New(Options{})
	served(t, s)
	u, expires, err := s.NewLogin()
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Until(expires); d <= 0 || d > LoginTTL {
		t.Errorf("login expires in %s", d)
	}
	c := browser(t)
	res, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	cookie := res.Header.Get("Set-Cookie")
	for _, want := range []string{CookieName + "=", "HttpOnly", "SameSite=Strict", "Path=/"} {
		if !strings.Contains(cookie, want) {
			t.Errorf("Set-Cookie %q lacks %q", cookie, want)
		}
	}
	// The token works once: a second browser using the same URL is refused.
	res, err = browser(t).Get(u)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized || res.Header.Get("Set-Cookie") != "" {
		t.Errorf("reused login: %s, Set-Cookie %q", res.Status, res.Header.Get("Set-Cookie"))
	}
	res, err = c.Get(s.Origin() + "/")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Errorf("index after login: %s", res.Status)
	}
}

func TestLoginExpires(t *testing.T) {
	now := time.Now()
	s := New(Options{Now: func() time.Time { return now }})
	served(t, s)
	u, _, err := s.NewLogin()
	if err != nil {
		t.Fatal(err)
	}
	now = now.Add(LoginTTL)
	res, err := browser(t).Get(u)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized {
		t.Errorf("expired login: %s", res.Status)
	}
}

func TestRefusedWithoutSession(t *testing.T) {
	s := New(Options{})
	origin := served(t, s)
	c := browser(t)
	for _, tc := range []struct{ method, path, token string }{
		{"GET", "/", ""},
		{"GET", "/api/session", ""},
		{"POST", "/api/logout", ""},
		{"GET", "/login?token=", ""},
		{"GET", "/login?token=made-up", ""},
	} {
		req, _ := http.NewRequest(tc.method, origin+tc.path, nil)
		res, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s %s: %s, want 401", tc.method, tc.path, res.Status)
		}
	}
	// The assets hold no data and are served to the refusal page.
	res, err := c.Get(origin + "/assets/app.css")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Errorf("asset: %s", res.Status)
	}
}

func TestStateChangesNeedCSRFAndSameOrigin(t *testing.T) {
	s := New(Options{})
	origin := served(t, s)
	c := browser(t)
	csrf := login(t, s, c)
	for _, tc := range []struct {
		name    string
		headers map[string]string
		want    int
	}{
		{"no token", map[string]string{"Origin": origin}, http.StatusForbidden},
		{"wrong token", map[string]string{"Origin": origin, CSRFHeader: csrf + "x"}, http.StatusForbidden},
		{"cross-site origin", map[string]string{"Origin": "http://evil.example", CSRFHeader: csrf}, http.StatusForbidden},
		{"cross-site fetch", map[string]string{"Sec-Fetch-Site": "cross-site", CSRFHeader: csrf}, http.StatusForbidden},
		{"same-site but other origin", map[string]string{"Sec-Fetch-Site": "same-site", CSRFHeader: csrf}, http.StatusForbidden},
		{"same origin", map[string]string{"Origin": origin, "Sec-Fetch-Site": "same-origin", CSRFHeader: csrf}, http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest("POST", origin+"/api/logout", nil)
			for k, v := range tc.headers {
				req.Header.Set(k, v)
			}
			res, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != tc.want {
				t.Errorf("%s, want %d", res.Status, tc.want)
			}
		})
	}
}

func TestUnknownHostRefused(t *testing.T) {
	s := New(Options{})
	origin := served(t, s)
	c := browser(t)
	login(t, s, c)
	o, _ := url.Parse(origin)
	for host, want := range map[string]int{
		"rebound.example:" + o.Port(): http.StatusMisdirectedRequest,
		"127.0.0.1:1":                 http.StatusMisdirectedRequest,
		o.Host:                        http.StatusOK,
		"localhost:" + o.Port():       http.StatusOK,
	} {
		req, _ := http.NewRequest("GET", origin+"/assets/app.css", nil)
		req.Host = host
		res, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != want {
			t.Errorf("Host %s: %s, want %d", host, res.Status, want)
		}
	}
}

func TestSecurityHeaders(t *testing.T) {
	s := New(Options{})
	origin := served(t, s)
	c := browser(t)
	login(t, s, c)
	res, err := c.Get(origin + "/")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	for name, want := range map[string]string{
		"Content-Security-Policy": "script-src 'self'",
		"X-Frame-Options":         "DENY",
		"Referrer-Policy":         "no-referrer",
		"X-Content-Type-Options":  "nosniff",
	} {
		if got := res.Header.Get(name); !strings.Contains(got, want) {
			t.Errorf("%s: %q, want it to hold %q", name, got, want)
		}
	}
	if csp := res.Header.Get("Content-Security-Policy"); strings.Contains(csp, "unsafe") || strings.Contains(csp, "http") {
		t.Errorf("Content-Security-Policy lets in more than the dashboard: %q", csp)
	}
}

func TestBindRefusesNonLoopback(t *testing.T) {
	s := New(Options{})
	if err := s.Bind(&net.TCPAddr{IP: net.IPv4(192, 0, 2, 1), Port: 80}); err == nil {
		t.Error("Bind accepted a non-loopback address")
	}
	if _, _, err := s.NewLogin(); err == nil {
		t.Error("NewLogin before Bind gave a URL")
	}
}

func TestAssetsHaveNoExternalReferences(t *testing.T) {
	entries, err := assetFS.ReadDir("assets")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := assetFS.ReadFile("assets/" + e.Name())
		if err != nil {
			t.Fatal(err)
		}
		for _, bad := range []string{"http://", "https://", "//cdn", "innerHTML", "eval("} {
			if strings.Contains(string(data), bad) {
				t.Errorf("%s holds %q: the dashboard loads nothing from elsewhere and builds no markup from text", e.Name(), bad)
			}
		}
	}
}
