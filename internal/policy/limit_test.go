package policy

import (
	"errors"
	"strings"
	"testing"
	"time"
)

var parseLimitCases = []struct {
	in   string
	want Limit
}{
	{"20 per 1m", Limit{20, time.Minute, PerSession}},
	{"20 per 1m per session", Limit{20, time.Minute, PerSession}},
	{"10 per 1h per agent", Limit{10, time.Hour, PerAgent}},
	{"5 per 90s per class", Limit{5, 90 * time.Second, PerClass}},
	{"1 per 1h30m per tool", Limit{1, 90 * time.Minute, PerTool}},
	{"100 per day", Limit{100, 24 * time.Hour, PerSession}},
	{"3 per second", Limit{3, time.Second, PerSession}},
	{"30 per 5 minutes per agent", Limit{30, 5 * time.Minute, PerAgent}},
	{"2 per 1 hour", Limit{2, time.Hour, PerSession}},
	{"  7   per  2 days  ", Limit{7, 48 * time.Hour, PerSession}},
	{"10000 per 31 days per tool", Limit{MaxLimitCount, MaxLimitWindow, PerTool}},
}

var parseLimitErrors = []struct{ in, want string }{
	{"", "write limits as `N per DURATION"},
	{"20", "write limits as"},
	{"20 in 1m", "write limits as"},
	{"twenty per 1m", `the count "twenty" is not a whole number`},
	{"0 per 1m", "the count must be from 1 to 10000, not 0"},
	{"-3 per 1m", "the count must be from 1 to 10000, not -3"},
	{"10001 per 1m", "the count must be from 1 to 10000, not 10001"},
	{"5 per", "write limits as"},
	{"5 per 0s", "the window must be positive, not 0s"},
	{"5 per -1m", "the window must be positive, not -1m"},
	{"5 per 0 minutes", "the window must be positive, not 0 minutes"},
	{"5 per 500ms", "the window must be from 1 second to 31 days, not 500ms"},
	{"5 per 32 days", "the window must be from 1 second to 31 days, not 32 days"},
	{"5 per 745h", "the window must be from 1 second to 31 days"},
	{"5 per 99999999999 days", "the window must be from 1 second to 31 days"},
	{"5 per fortnight", `the window "fortnight" is neither a duration`},
	{"5 per 1m per sesion", `unknown scope "sesion" (did you mean "session"?)`},
	{"5 per 1m per user", `unknown scope "user"`},
	{"5 per 1m session", `unexpected "session" after the window`},
	{"5 per 1m per session per agent", "unexpected"},
}

func TestParseLimit(t *testing.T) {
	for _, tt := range parseLimitCases {
		got, err := ParseLimit(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseLimit(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
			continue
		}
		// The written form reads back as the same limit.
		again, err := ParseLimit(got.String())
		if err != nil || again != got {
			t.Errorf("ParseLimit(%q) = %+v, %v; want %+v back", got.String(), again, err, got)
		}
	}
	for _, tt := range parseLimitErrors {
		_, err := ParseLimit(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseLimit(%q) error = %v; want one containing %q", tt.in, err, tt.want)
		}
	}
}

func TestLimitString(t *testing.T) {
	for _, tt := range []struct {
		l    Limit
		want string
	}{
		{Limit{20, time.Minute, PerSession}, "20 per minute per session"},
		{Limit{5, 90 * time.Second, PerTool}, "5 per 1m30s per tool"},
		{Limit{5, 2 * time.Hour, PerAgent}, "5 per 2h per agent"},
		{Limit{5, 10 * time.Minute, PerClass}, "5 per 10m per class"},
		{Limit{5, 48 * time.Hour, PerClass}, "5 per 2 days per class"},
	} {
		if got := tt.l.String(); got != tt.want {
			t.Errorf("%+v.String() = %q; want %q", tt.l, got, tt.want)
		}
	}
}

func TestLoadLimit(t *testing.T) {
	src := `version: 1
rules:
  - id: fetch-rate
    tool: web.fetch
    limit: 20 per 1m
    decision: ask
  - id: anything-rate
    limit: 100 per hour per agent
    decision: deny
  - id: shell
    tool: shell
    decision: audit
`
	p, err := Load("p.yaml", []byte(src), testHost())
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if l := p.Rules[0].Limit; l == nil || *l != (Limit{20, time.Minute, PerSession}) {
		t.Errorf("fetch-rate limit = %+v", l)
	}
	// A rule whose only condition is a limit does not match every call, so rules may
	// follow it.
	if l := p.Rules[1].Limit; l == nil || *l != (Limit{100, time.Hour, PerAgent}) {
		t.Errorf("anything-rate limit = %+v", l)
	}
	if p.Rules[2].Limit != nil {
		t.Errorf("shell has a limit: %+v", p.Rules[2].Limit)
	}
	conds := p.Rules[0].Conditions()
	if last := conds[len(conds)-1]; last != (Condition{"limit", "20 per minute per session"}) {
		t.Errorf("conditions end with %+v; want the limit", last)
	}
}

func TestLoadLimitErrors(t *testing.T) {
	for _, tt := range []struct{ name, src, want string }{
		{"on allow", "version: 1\nrules:\n  - {id: a, tool: web.fetch, limit: 5 per 1m, decision: allow}\n",
			`p.yaml:3:37: rule "a": a limit cannot go on an allow rule: calls over the limit get the rule's decision`},
		{"bad count", "version: 1\nrules:\n  - id: a\n    tool: shell\n    limit: 0 per 1m\n    decision: deny\n",
			"p.yaml:5:12: limit \"0 per 1m\": the count must be from 1 to 10000, not 0"},
		{"zero window", "version: 1\nrules:\n  - id: a\n    limit: 5 per 0s\n    decision: deny\n",
			"p.yaml:4:12: limit \"5 per 0s\": the window must be positive"},
		{"window too long", "version: 1\nrules:\n  - id: a\n    limit: 5 per 400 days\n    decision: deny\n",
			"p.yaml:4:12: limit \"5 per 400 days\": the window must be from 1 second to 31 days"},
		{"unknown scope", "version: 1\nrules:\n  - id: a\n    limit: 5 per 1m per tol\n    decision: deny\n",
			`p.yaml:4:12: limit "5 per 1m per tol": unknown scope "tol" (did you mean "tool"?)`},
		{"not a string", "version: 1\nrules:\n  - id: a\n    limit: 5\n    decision: deny\n",
			"p.yaml:4:12: limit must be a string, not the number 5"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load("p.yaml", []byte(tt.src), testHost())
			var list ErrorList
			if !errors.As(err, &list) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Load error = %v; want one containing %q", err, tt.want)
			}
		})
	}
}

func FuzzParseLimit(f *testing.F) {
	for _, tt := range parseLimitCases {
		f.Add(tt.in)
	}
	for _, tt := range parseLimitErrors {
		f.Add(tt.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := ParseLimit(s)
		if err != nil {
			return
		}
		if l.Count < 1 || l.Count > MaxLimitCount || l.Window < MinLimitWindow || l.Window > MaxLimitWindow {
			t.Fatalf("ParseLimit(%q) = %+v, outside the bounds", s, l)
		}
		if again, err := ParseLimit(l.String()); err != nil || again != l {
			t.Fatalf("ParseLimit(%q) = %+v; its text %q reads back as %+v, %v", s, l, l.String(), again, err)
		}
	})
}
