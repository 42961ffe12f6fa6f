package dashboard

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/audit/auditdb"
	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/scan"
)

// hostileCommand is a denied command whose text would be markup if it were not escaped.
const hostileCommand = `echo "</text><script>alert('x')</script>" & rm -rf ~`

// chartsServer serves charts over a real audit database holding known decisions, at a
// fixed time: now is 12:30, so the 24h range is 13:00 yesterday to 13:00 today.
func chartsServer(t *testing.T) (string, *http.Client, time.Time) {
	t.Helper()
	now := time.Date(2026, 5, 6, 12, 30, 0, 0, time.UTC)
	db, err := auditdb.Open(context.Background(), auditdb.Options{Path: filepath.Join(t.TempDir(), auditdb.FileName), Redactor: scan.Redactor{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	rec := func(ago time.Duration, agent, rule string, v call.Verdict, cmd string) audit.Record {
		return audit.Record{Time: now.Add(-ago), Agent: agent, Session: "s", Class: "shell", Tool: "Bash",
			Args: map[string]any{"command": cmd}, Cwd: "/w", Decision: v, Rule: rule, Policy: "p"}
	}
	rs := []audit.Record{
		rec(25*time.Hour, "codex", "old", call.Deny, "too old"), // before the 24h range
		rec(5*time.Hour, "claude-code", "rm-home", call.Deny, hostileCommand),
		rec(5*time.Hour, "claude-code", "rm-home", call.Deny, hostileCommand),
		rec(90*time.Minute, "cursor", "push", call.Ask, "git push --force"),
		rec(20*time.Minute, "cursor", "", call.Allow, "ls"),
		rec(10*time.Minute, "claude-code", "audit-curl", call.Audit, "curl example.org"),
	}
	if err := db.AppendBatch(context.Background(), rs); err != nil {
		t.Fatal(err)
	}
	s := New(Options{Stats: db, Now: func() time.Time { return now }})
	origin := served(t, s)
	c := browser(t)
	login(t, s, c)
	return origin, c, now
}

func TestChartsNumbers(t *testing.T) {
	origin, c, now := chartsServer(t)
	code, body := request(t, c, origin, "", "GET", "/api/charts?range=24h", nil)
	var ans chartsAnswer
	if err := json.Unmarshal(body, &ans); err != nil || code != http.StatusOK {
		t.Fatalf("%d %s %v", code, body, err)
	}
	st := ans.Stats
	if want := (auditdb.VerdictCounts{Allow: 1, Audit: 1, Ask: 1, Deny: 2}); st.Total != want {
		t.Errorf("total %+v, want %+v", st.Total, want)
	}
	if len(st.Buckets) != 24 || !st.Until.Equal(now.Truncate(time.Hour).Add(time.Hour)) {
		t.Fatalf("%d buckets until %s", len(st.Buckets), st.Until)
	}
	// 07:30 is in the bucket from 07:00, the 19th of 24 from 13:00; 11:00 in the 23rd;
	// 12:10 and 12:20 in the last.
	for i, want := range map[int]auditdb.VerdictCounts{18: {Deny: 2}, 22: {Ask: 1}, 23: {Allow: 1, Audit: 1}, 0: {}} {
		if st.Buckets[i].Counts != want {
			t.Errorf("bucket %d (%s): %+v, want %+v", i, st.Buckets[i].Start, st.Buckets[i].Counts, want)
		}
	}
	if len(st.Denied) != 1 || st.Denied[0].Key != hostileCommand || st.Denied[0].Counts.Deny != 2 {
		t.Errorf("denied %+v", st.Denied)
	}
	if len(st.Rules) != 4 || st.Rules[0].Key != "rm-home" {
		t.Errorf("rules %+v", st.Rules)
	}
	if len(st.Agents) != 2 || st.Agents[0].Key != "claude-code" || st.Agents[0].Counts.Total() != 3 {
		t.Errorf("agents %+v", st.Agents)
	}
	var names []string
	for _, ch := range ans.Charts {
		names = append(names, ch.Name)
		if ch.Alt == "" || ch.Title == "" {
			t.Errorf("chart %s has no title or alt text", ch.Name)
		}
	}
	if got := strings.Join(names, " "); got != "verdicts rules denied agents" {
		t.Errorf("charts %s", got)
	}
	if !strings.Contains(ans.Charts[0].Alt, "1 allow, 1 audit, 1 ask, 2 deny") {
		t.Errorf("alt of the verdicts: %q", ans.Charts[0].Alt)
	}

	// The 7-day range counts the day before too.
	code, body = request(t, c, origin, "", "GET", "/api/charts?range=7d", nil)
	if err := json.Unmarshal(body, &ans); err != nil || code != http.StatusOK || ans.Stats.Total.Deny != 3 || len(ans.Stats.Buckets) != 28 {
		t.Errorf("7d: %d, %+v in %d buckets (%v)", code, ans.Stats.Total, len(ans.Stats.Buckets), err)
	}
}

func TestChartsRanges(t *testing.T) {
	origin, c, _ := chartsServer(t)
	for _, tc := range []struct {
		query string
		code  int
		n     int // buckets
	}{
		{"", http.StatusOK, 24},
		{"range=30d", http.StatusOK, 30},
		{"since=2026-05-01T00:00:00Z&until=2026-05-03T00:00:00Z", http.StatusOK, 48},
		{"since=2026-04-01T00:00:00Z&until=2026-05-03T00:00:00Z", http.StatusOK, 32},
		{"range=1y", http.StatusBadRequest, 0},
		{"since=yesterday", http.StatusBadRequest, 0},
		{"since=2026-05-03T00:00:00Z&until=2026-05-01T00:00:00Z", http.StatusBadRequest, 0},
		{"since=2020-01-01T00:00:00Z", http.StatusBadRequest, 0},
		{"since=2026-05-01T00:00:00Z&range=7d", http.StatusBadRequest, 0},
	} {
		code, body := request(t, c, origin, "", "GET", "/api/charts?"+tc.query, nil)
		var ans chartsAnswer
		json.Unmarshal(body, &ans)
		if code != tc.code || len(ans.Stats.Buckets) != tc.n {
			t.Errorf("%q: %d with %d buckets, want %d with %d: %s", tc.query, code, len(ans.Stats.Buckets), tc.code, tc.n, body)
		}
	}
}

// Each chart is a well-formed SVG document whose texts are the records' escaped.
func TestChartSVG(t *testing.T) {
	origin, c, _ := chartsServer(t)
	for _, name := range []string{"verdicts", "rules", "denied", "agents"} {
		t.Run(name, func(t *testing.T) {
			res, err := c.Get(origin + "/api/charts/" + name + ".svg?range=24h")
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			data, _ := io.ReadAll(res.Body)
			if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "image/svg+xml" {
				t.Fatalf("%s %s: %s", res.Status, res.Header.Get("Content-Type"), data)
			}
			texts, err := svgTexts(data)
			if err != nil {
				t.Fatalf("not well-formed XML: %v\n%s", err, data)
			}
			if !strings.HasPrefix(texts[0], "title:") {
				t.Errorf("the first element is no <title>: %q", texts[0])
			}
			all := strings.Join(texts, "\n")
			for _, word := range []string{"allow", "audit", "ask", "deny"} {
				if !strings.Contains(all, word) {
					t.Errorf("no %q in the legend", word)
				}
			}
			if bytes.Contains(data, []byte("<script")) {
				t.Errorf("the SVG holds a script element")
			}
			if name == "denied" && !strings.Contains(all, hostileCommand) {
				t.Errorf("the denied command is not among the texts:\n%s", all)
			}
		})
	}
	for _, bad := range []string{"nope.svg", "verdicts", "verdicts.png"} {
		if res, err := c.Get(origin + "/api/charts/" + bad); err != nil || res.StatusCode != http.StatusNotFound {
			t.Errorf("%s: %v %v", bad, res.Status, err)
		} else {
			res.Body.Close()
		}
	}
}

// svgTexts parses an SVG document strictly and returns its title, desc and text
// elements' content, each as "ELEMENT: TEXT", in order.
func svgTexts(data []byte) ([]string, error) {
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = true
	var out []string
	var stack []string
	root := true
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if root && (tok.Name.Local != "svg" || tok.Name.Space != "http://www.w3.org/2000/svg") {
				return nil, errors.New("the root is no svg element")
			}
			root = false
			stack = append(stack, tok.Name.Local)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				switch el := stack[len(stack)-1]; el {
				case "title", "desc", "text":
					out = append(out, el+": "+string(tok))
				}
			}
		}
	}
}

func TestChartsWithoutDatabase(t *testing.T) {
	s := New(Options{})
	origin := served(t, s)
	c := browser(t)
	login(t, s, c)
	if code, body := request(t, c, origin, "", "GET", "/api/charts", nil); code != http.StatusServiceUnavailable || !bytes.Contains(body, []byte(`"error"`)) {
		t.Errorf("%d %s", code, body)
	}
}

func TestEsc(t *testing.T) {
	for in, want := range map[string]string{
		`<script>alert("x")</script>`: `&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;`,
		`a & 'b'`:                     `a &amp; &#39;b&#39;`,
		"line\nbreak":                 "line&#xA;break",
	} {
		if got := esc(in); got != want {
			t.Errorf("esc(%q) = %q, want %q", in, got, want)
		}
	}
}
