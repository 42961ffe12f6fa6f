package dashboard

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Lifetimes and bounds of the dashboard's credentials and requests.
const (
	// LoginTTL is how long a login URL works; it works once.
	LoginTTL = 2 * time.Minute
	// SessionTTL is how long a browser stays logged in.
	SessionTTL = 12 * time.Hour
	// maxSessions bounds the logged-in browsers; the oldest is logged out past it.
	maxSessions = 32
	// maxLogins bounds the login URLs not yet used.
	maxLogins = 32
	// maxBody bounds a request's body.
	maxBody = 64 << 10
)

// Names of the session cookie and of the header carrying the CSRF token.
const (
	CookieName = "moat_session"
	CSRFHeader = "X-Moat-CSRF"
)

// contentSecurityPolicy lets the page load its own embedded scripts, styles and images and
// talk to its own origin, nothing else: no inline script, no frame, no form elsewhere.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// Options are what the dashboard shows and acts on. A nil source leaves its pages empty
// with an error saying so; it never makes the server fail.
type Options struct {
	// Records reads the audit database.
	Records Records
	// Approvals is the approval queue.
	Approvals Approvals
	// Sessions reads the agent sessions of the audit database.
	Sessions Sessions
	// Policies are the active policies and the decision service that tries calls.
	Policies Policies
	// Stats counts the decisions of the audit database for the charts.
	Stats Stats
	// Fleet reads the fleet's database for the fleet page; nil when there is none.
	Fleet Fleet
	// Changes tells live pages that records or approvals changed; nil means they poll.
	Changes *Hub
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Log reports the server's own failures; nil discards them.
	Log func(string)
	// Random reads the random bytes of tokens; nil means crypto/rand.
	Random io.Reader
}

// Server is the dashboard: an http.Handler for one loopback listener.
type Server struct {
	opts    Options
	handler http.Handler

	mu       sync.Mutex
	hosts    map[string]bool      // the Host values requests may carry
	origin   string               // the dashboard's origin, http://127.0.0.1:PORT
	logins   map[string]time.Time // hash of a login token → when it expires
	sessions map[string]*session  // hash of a session cookie → the session
}

// session is a logged-in browser.
type session struct {
	csrf    string
	created time.Time
	expires time.Time
}

// New returns the dashboard for opts. It serves nothing until Serve gives it its address.
func New(opts Options) *Server {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Log == nil {
		opts.Log = func(string) {}
	}
	if opts.Random == nil {
		opts.Random = rand.Reader
	}
	s := &Server{opts: opts, hosts: map[string]bool{}, logins: map[string]time.Time{}, sessions: map[string]*session{}}
	mux := http.NewServeMux()
	s.routes(mux)
	s.handler = s.guard(mux)
	return s
}

// routes registers every page and API handler. Handlers of the API are wrapped by
// s.api (a logged-in session) or s.change (and a same-origin request with the CSRF
// token).
func (s *Server) routes(mux *http.ServeMux) {
	mux.HandleFunc("GET /login", s.handleLogin)
	mux.HandleFunc("GET /{$}", s.handleIndex)
	mux.Handle("GET /assets/", assetHandler())
	mux.Handle("GET /api/session", s.api(s.handleSession))
	mux.Handle("POST /api/logout", s.change(s.handleLogout))
	// The policy page and the charts (issue 22, part POL22).
	mux.Handle("GET /api/policies", s.api(s.handlePolicies))
	mux.Handle("GET /api/policies/text", s.api(s.handlePolicyText))
	mux.Handle("GET /api/try/options", s.api(s.handleTryOptions))
	mux.Handle("POST /api/try", s.change(s.handleTry))
	mux.Handle("GET /api/charts", s.api(s.handleCharts))
	mux.Handle("GET /api/charts/{file}", s.api(s.handleChartSVG))
	mux.Handle("GET /api/records", s.api(s.handleRecords))
	mux.Handle("GET /api/records/stream", s.api(s.handleRecordStream))
	mux.Handle("GET /api/records/{seq}", s.api(s.handleRecord))
	s.approvalRoutes(mux)
	s.sessionRoutes(mux)
	s.fleetRoutes(mux)
}

// ServeHTTP serves one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// Serve serves the dashboard on ln, which must listen on a loopback address, until ctx
// ends; it then shuts down, giving the requests under way a moment to end.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	if err := s.Bind(ln.Addr()); err != nil {
		return err
	}
	hs := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    32 << 10,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		hs.Shutdown(shut)
	}()
	err := hs.Serve(ln)
	<-done
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// Bind makes addr, a loopback TCP address, the one requests must name. Serve calls it;
// calling it before lets logins be made before the server accepts.
func (s *Server) Bind(addr net.Addr) error {
	ta, ok := addr.(*net.TCPAddr)
	if !ok || !ta.IP.IsLoopback() {
		return fmt.Errorf("dashboard: %s is not a loopback TCP address", addr)
	}
	port := strconv.Itoa(ta.Port)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.origin = "http://" + net.JoinHostPort(ta.IP.String(), port)
	s.hosts = map[string]bool{net.JoinHostPort(ta.IP.String(), port): true, net.JoinHostPort("localhost", port): true}
	return nil
}

// Origin is the dashboard's origin (http://127.0.0.1:PORT), "" before Serve.
func (s *Server) Origin() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.origin
}

// NewLogin returns a URL that logs one browser in, once, within LoginTTL.
func (s *Server) NewLogin() (string, time.Time, error) {
	token, err := s.token()
	if err != nil {
		return "", time.Time{}, err
	}
	now := s.opts.Now()
	expires := now.Add(LoginTTL)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.origin == "" {
		return "", time.Time{}, errors.New("dashboard: not serving yet")
	}
	for h, exp := range s.logins {
		if !now.Before(exp) {
			delete(s.logins, h)
		}
	}
	if len(s.logins) >= maxLogins {
		return "", time.Time{}, fmt.Errorf("dashboard: %d login URLs are waiting to be used; try again in %s", len(s.logins), LoginTTL)
	}
	s.logins[hashToken(token)] = expires
	return s.origin + "/login?token=" + token, expires, nil
}

// token is a new random token, URL-safe.
func (s *Server) token() (string, error) {
	b := make([]byte, 32)
	if _, err := io.ReadFull(s.opts.Random, b); err != nil {
		return "", fmt.Errorf("dashboard: reading random bytes: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// hashToken is what the server keeps of a token: a leak of its memory gives no login.
func hashToken(t string) string {
	sum := sha256.Sum256([]byte(t))
	return string(sum[:])
}

// guard checks what every request must satisfy and sets the headers every answer
// carries.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		h.Set("Cache-Control", "no-store")
		s.mu.Lock()
		known := s.hosts[r.Host]
		s.mu.Unlock()
		if !known {
			// A page of another site reaching this port through a name it controls
			// (DNS rebinding) names its own host.
			http.Error(w, "unknown host", http.StatusMisdirectedRequest)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxBody)
		next.ServeHTTP(w, r)
	})
}

// handleLogin exchanges a login token for a session cookie, and sends the browser to the
// dashboard without the token in its address bar or history.
func (s *Server) handleLogin(w http.ResponseWriter, r *http.Request) {
	token := r.URL.Query().Get("token")
	now := s.opts.Now()
	s.mu.Lock()
	h := hashToken(token)
	exp, ok := s.logins[h]
	delete(s.logins, h)
	s.mu.Unlock()
	if token == "" || !ok || !now.Before(exp) {
		s.refuse(w, r, http.StatusUnauthorized, "This login link is unknown, used or expired. Run moat ui for a new one.")
		return
	}
	cookie, err := s.token()
	if err != nil {
		s.fail(w, r, err)
		return
	}
	csrf, err := s.token()
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.mu.Lock()
	s.dropSessionsLocked(now)
	s.sessions[hashToken(cookie)] = &session{csrf: csrf, created: now, expires: now.Add(SessionTTL)}
	s.mu.Unlock()
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: cookie, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode, MaxAge: int(SessionTTL / time.Second)})
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// dropSessionsLocked removes the expired sessions, and the oldest while there are too many.
func (s *Server) dropSessionsLocked(now time.Time) {
	for h, ss := range s.sessions {
		if !now.Before(ss.expires) {
			delete(s.sessions, h)
		}
	}
	for len(s.sessions) >= maxSessions {
		var oldest string
		for h, ss := range s.sessions {
			if oldest == "" || ss.created.Before(s.sessions[oldest].created) {
				oldest = h
			}
		}
		delete(s.sessions, oldest)
	}
}

// sessionOf is the request's session, nil when it has none that is valid.
func (s *Server) sessionOf(r *http.Request) *session {
	c, err := r.Cookie(CookieName)
	if err != nil || c.Value == "" {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ss := s.sessions[hashToken(c.Value)]
	if ss == nil || !s.opts.Now().Before(ss.expires) {
		return nil
	}
	return ss
}

// handleIndex serves the page to a logged-in browser, and to others a page saying how
// to log in.
func (s *Server) handleIndex(w http.ResponseWriter, r *http.Request) {
	if s.sessionOf(r) == nil {
		s.refuse(w, r, http.StatusUnauthorized, "You are not logged in to this dashboard. Run moat ui to open it.")
		return
	}
	serveAsset(w, r, "index.html")
}

// api wraps a handler of the API: the request must come from a logged-in browser.
func (s *Server) api(h func(http.ResponseWriter, *http.Request, *session)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ss := s.sessionOf(r)
		if ss == nil {
			writeError(w, http.StatusUnauthorized, "not logged in: run moat ui")
			return
		}
		h(w, r, ss)
	})
}

// change wraps a handler that changes state: besides the session, the request must carry
// the session's CSRF token and come from the dashboard's own origin.
func (s *Server) change(h func(http.ResponseWriter, *http.Request, *session)) http.Handler {
	return s.api(func(w http.ResponseWriter, r *http.Request, ss *session) {
		if why := s.crossSite(r, ss); why != "" {
			writeError(w, http.StatusForbidden, why)
			return
		}
		h(w, r, ss)
	})
}

// crossSite says why r may not change state, "" when it may.
func (s *Server) crossSite(r *http.Request, ss *session) string {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" {
		return "cross-site request refused"
	}
	if o := r.Header.Get("Origin"); o != "" && o != s.Origin() {
		return "request from another origin refused"
	}
	got := r.Header.Get(CSRFHeader)
	if got == "" || subtle.ConstantTimeCompare([]byte(got), []byte(ss.csrf)) != 1 {
		return "missing or wrong " + CSRFHeader + " header"
	}
	return ""
}

// sessionInfo is what the page learns about its session.
type sessionInfo struct {
	CSRF    string    `json:"csrf"`
	Expires time.Time `json:"expires"`
}

func (s *Server) handleSession(w http.ResponseWriter, _ *http.Request, ss *session) {
	writeJSON(w, http.StatusOK, sessionInfo{CSRF: ss.csrf, Expires: ss.expires})
}

func (s *Server) handleLogout(w http.ResponseWriter, r *http.Request, _ *session) {
	if c, err := r.Cookie(CookieName); err == nil {
		s.mu.Lock()
		delete(s.sessions, hashToken(c.Value))
		s.mu.Unlock()
	}
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: "", Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode, MaxAge: -1})
	writeJSON(w, http.StatusOK, struct{}{})
}

// refuse answers a page request that may not be served with a page saying why.
func (s *Server) refuse(w http.ResponseWriter, _ *http.Request, code int, why string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	fmt.Fprintf(w, refusedPage, htmlEscape(why))
}

// fail answers a request the server could not serve, and logs why.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	s.opts.Log(fmt.Sprintf("dashboard: %s %s: %v", r.Method, r.URL.Path, err))
	writeError(w, http.StatusInternalServerError, err.Error())
}

// apiError is the body of every failed API request.
type apiError struct {
	Error string `json:"error"`
}

// writeJSON answers with v as JSON.
func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(true)
	enc.Encode(v)
}

// writeError answers with {"error": msg}.
func writeError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, apiError{Error: msg})
}

// decodeJSON reads the request's JSON body into v, refusing unknown fields and trailing
// data.
func decodeJSON(r *http.Request, v any) error {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("request body: %w", err)
	}
	if dec.More() {
		return errors.New("request body: more than one JSON value")
	}
	return nil
}
