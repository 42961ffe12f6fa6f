package toolscan

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/scan/smuggling"
)

// signalCase is one line of testdata/signals.txt.
type signalCase struct {
	line   int
	want   bool
	scope  scope
	text   string
	signal string
}

func loadSignalCases(t testing.TB) []signalCase {
	t.Helper()
	f, err := os.Open("testdata/signals.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []signalCase
	section := ""
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "## "):
			section = strings.TrimPrefix(line, "## ")
		case strings.HasPrefix(line, "+ "), strings.HasPrefix(line, "- "):
			c := signalCase{line: n, want: line[0] == '+', signal: section, scope: scope{tool: "the_tool", own: map[string]bool{}, others: map[string]bool{}}}
			body := line[2:]
			if strings.HasPrefix(body, "[") {
				end := strings.Index(body, "] ")
				if end < 0 {
					t.Fatalf("signals.txt:%d: unclosed [", n)
				}
				for _, kv := range strings.Fields(body[1:end]) {
					k, v, _ := strings.Cut(kv, "=")
					switch k {
					case "tool":
						c.scope.tool = v
					case "param":
						c.scope.param = v
					case "own", "others":
						for _, name := range strings.Split(v, ",") {
							if k == "own" {
								c.scope.own[name] = true
							} else {
								c.scope.others[name] = true
							}
						}
					default:
						t.Fatalf("signals.txt:%d: unknown key %q", n, k)
					}
				}
				body = body[end+2:]
			}
			text, err := strconv.Unquote(`"` + strings.ReplaceAll(body, `"`, `\"`) + `"`)
			if err != nil {
				t.Fatalf("signals.txt:%d: %v", n, err)
			}
			c.text = text
			cases = append(cases, c)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

// TestSignalCases runs every case of testdata/signals.txt against its signal, and
// requires each signal of the table to have positive and negative cases.
func TestSignalCases(t *testing.T) {
	cases := loadSignalCases(t)
	pos, neg := map[string]int{}, map[string]int{}
	known := map[string]bool{}
	for _, sg := range signals() {
		known[sg.Name] = true
	}
	for _, c := range cases {
		if !known[c.signal] {
			t.Errorf("signals.txt:%d: no signal %q", c.line, c.signal)
			continue
		}
		if c.want {
			pos[c.signal]++
		} else {
			neg[c.signal]++
		}
		got := false
		for _, m := range matchSignals(&c.scope, smuggling.Fold(c.text), !wordy(c.text), false) {
			got = got || m.sig.Name == c.signal
		}
		if got != c.want {
			t.Errorf("signals.txt:%d: %s: match = %v, want %v: %q", c.line, c.signal, got, c.want, c.text)
		}
	}
	for name := range known {
		if pos[name] == 0 || neg[name] == 0 {
			t.Errorf("signal %q has %d positive and %d negative cases; want both", name, pos[name], neg[name])
		}
	}
}

// TestSignalTable keeps the table well formed: unique names, a known kind, a weight
// within (0, 1], and either a pattern, a function or the decoding flag.
func TestSignalTable(t *testing.T) {
	names := map[string]bool{}
	kinds := map[string]bool{FindPoisoning: true, FindShadowing: true, FindHidden: true, FindChanged: true}
	for _, sg := range signals() {
		if names[sg.Name] {
			t.Errorf("duplicate signal %q", sg.Name)
		}
		names[sg.Name] = true
		if !kinds[sg.Kind] {
			t.Errorf("%s: kind %q is not one of this package's finding ids", sg.Name, sg.Kind)
		}
		if sg.Weight <= 0 || sg.Weight > 1 {
			t.Errorf("%s: weight %v", sg.Name, sg.Weight)
		}
		n := 0
		for _, has := range []bool{sg.Pattern != "", sg.Find != nil, sg.Decode} {
			if has {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s: needs exactly one of Pattern, Find, Decode", sg.Name)
		}
		for _, k := range sg.Keywords {
			if k != strings.ToLower(k) {
				t.Errorf("%s: keyword %q is not lower-case", sg.Name, k)
			}
		}
	}
}

// TestWindowsAgreeWithWholeText checks that each signal whose pattern runs only around
// its keywords finds what it finds in the whole text, on the cases and the corpora:
// windows too narrow would lose matches silently.
func TestWindowsAgreeWithWholeText(t *testing.T) {
	var texts []struct {
		sc *scope
		s  string
	}
	for _, c := range loadSignalCases(t) {
		texts = append(texts, struct {
			sc *scope
			s  string
		}{&c.scope, smuggling.Fold(c.text)})
	}
	for _, dir := range []string{"benign", "poisoned"} {
		for _, c := range loadCorpus(t, dir) {
			sc := &scope{own: map[string]bool{}, others: map[string]bool{}}
			for _, tl := range c.tools {
				tl.walk(func(w *where, s string, key bool) {
					texts = append(texts, struct {
						sc *scope
						s  string
					}{sc, smuggling.Fold(s)})
				})
			}
		}
	}
	tab := compiled()
	for i, sg := range tab.list {
		if sg.re == nil || sg.Before+sg.After == 0 {
			continue
		}
		for _, x := range texts {
			lower := strings.ToLower(x.s)
			if len(lower) != len(x.s) {
				continue
			}
			var at []span
			tab.index.find(lower, func(word, start int) {
				for _, r := range tab.refs[word] {
					if r.signal == i && !r.also {
						at = append(at, span{start, start + len(tab.index.words[word])})
					}
				}
			})
			if at == nil {
				continue
			}
			whole, okWhole := firstVerified(x.sc, sg, x.s, []span{{0, len(x.s)}})
			win, okWin := firstVerified(x.sc, sg, x.s, mergeWindows(x.s, at, sg.Before, sg.After))
			if okWhole != okWin || okWhole && whole != win {
				t.Errorf("%s: whole text %v %v, windows %v %v: %q", sg.Name, okWhole, whole, okWin, win, x.s)
			}
		}
	}
}
