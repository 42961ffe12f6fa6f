package lookalike

import "testing"

func TestListsParse(t *testing.T) {
	for k := PyPI; k < numKinds; k++ {
		if n := len(lists()[k].set); n < 20 {
			t.Errorf("%s: %d names; the file is missing or nearly empty", k, n)
		}
	}
}

func TestImitates(t *testing.T) {
	tests := []struct {
		kind    Kind
		name    string
		popular string // "" when the name imitates nothing
	}{
		{PyPI, "reqeusts", "requests"},
		{PyPI, "requestss", "requests"},
		{PyPI, "python-dateutils", "python-dateutil"},
		{PyPI, "beautifulsoup", "beautifulsoup4"},
		{PyPI, "rеquests", "requests"}, // Cyrillic е
		{PyPI, "requests", ""},
		{PyPI, "Requests", ""},
		{PyPI, "python_dateutil", ""}, // PEP 503: the same name
		{PyPI, "my-internal-tool", ""},
		{PyPI, "six", ""},
		{NPM, "lodahs", "lodash"},
		{NPM, "expresss", "express"},
		{NPM, "raect", "react"},
		{NPM, "lodash", ""},
		{NPM, "react-dom", ""},
		{NPM, "left-pad-utils", ""},
		{Crates, "serde_jsno", "serde-json"},
		{Crates, "serde_json", ""},
		{Crates, "tokoi", "tokio"},
		{RubyGems, "rals", "rails"},
		{RubyGems, "nokogiri", ""},
		{Go, "github.com/sirupsen/logruss", "github.com/sirupsen/logrus"},
		{Go, "github.com/sirupsen/logrus", ""},
		{Owner, "facebok", "facebook"},
		{Owner, "faceb00k", "facebook"},
		{Owner, "fаcebook", "facebook"}, // Cyrillic а
		{Owner, "facebook", ""},
		{Owner, "my-company", ""},
		{Host, "githib.com", "github.com"},
		{Host, "gitlab.co", "*"},
		{Owner, "rnicrosoft", "microsoft"},
		{Host, "github.com", ""},
		{Host, "github.io", ""},
		{Host, "git.example.com", ""},
	}
	for _, tt := range tests {
		m, ok := Imitates(tt.kind, tt.name)
		if ok != (tt.popular != "") || m.Popular != tt.popular && tt.popular != "*" {
			t.Errorf("Imitates(%s, %q) = %+v, %v; want %q", tt.kind, tt.name, m, ok, tt.popular)
		}
	}
}

// TestPopularNamesDoNotImitate: no popular name is flagged, whatever the spelling a list
// gives it, so the lists never contradict themselves.
func TestPopularNamesDoNotImitate(t *testing.T) {
	for k := PyPI; k < numKinds; k++ {
		for n := range lists()[k].set {
			if m, ok := Imitates(k, n); ok {
				t.Errorf("%s: popular %q imitates %q", k, n, m.Popular)
			}
		}
	}
}

func TestDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"requests", "reqeusts", 1}, {"lodash", "lodahs", 1}, {"rails", "rals", 1},
		{"abc", "abc", 0}, {"kitten", "sitting", 3}, {"ca", "abc", 3},
	} {
		if got := distance(tt.a, tt.b, 5); got != tt.want {
			t.Errorf("distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
	if got := distance("kitten", "sitting", 1); got != 2 {
		t.Errorf("bounded distance = %d, want limit+1 = 2", got)
	}
}
