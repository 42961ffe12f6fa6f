package oneliner

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

// The corpus: testdata/cases.txt. A case is one or more "lang: code" lines (joined with
// newlines) and the facts the Result must hold, exactly: every shell line, delete, read,
// write and finding id, and whether the code sends data.
type testCase struct {
	lang  Lang
	code  string
	want  []string
	where int
}

func loadCases(t *testing.T) []testCase {
	t.Helper()
	data, err := os.ReadFile("testdata/cases.txt")
	if err != nil {
		t.Fatal(err)
	}
	var cases []testCase
	var cur *testCase
	for i, line := range strings.Split(string(data), "\n") {
		switch {
		case strings.HasPrefix(line, "#"):
		case line == "":
			cur = nil
		case cur == nil || cur.want == nil && isCodeLine(line):
			lang, code, _ := strings.Cut(line, ": ")
			if cur == nil {
				cases = append(cases, testCase{lang: Lang(lang), code: code, where: i + 1})
				cur = &cases[len(cases)-1]
			} else {
				cur.code += "\n" + code
			}
		default:
			cur.want = append(cur.want, line)
		}
	}
	return cases
}

func isCodeLine(line string) bool {
	lang, _, ok := strings.Cut(line, ": ")
	_, known := patterns()[Lang(lang)]
	return ok && (known || Lang(lang) == PowerShell)
}

func facts(r Result) []string {
	var out []string
	for _, s := range r.Shell {
		out = append(out, "shell "+s)
	}
	for _, d := range r.Deletes {
		f := "delete " + d.Path
		if d.Entries != "" {
			f += "/" + d.Entries
		}
		if d.Recursive {
			f += " recursive"
		}
		out = append(out, f)
	}
	for _, p := range r.Reads {
		out = append(out, "read "+p)
	}
	for _, p := range r.Trees {
		out = append(out, "tree "+p)
	}
	for _, p := range r.Writes {
		out = append(out, "write "+p)
	}
	for _, f := range r.Findings {
		out = append(out, "finding "+f.ID)
	}
	if r.Sends {
		out = append(out, "sends")
	}
	if len(r.Opaque) > 0 {
		out = append(out, "opaque")
	}
	if len(out) == 0 {
		out = []string{"none"}
	}
	slices.Sort(out)
	return out
}

func TestCorpus(t *testing.T) {
	cases := loadCases(t)
	if len(cases) < 60 {
		t.Fatalf("only %d cases", len(cases))
	}
	benign := 0
	for _, c := range cases {
		want := slices.Clone(c.want)
		slices.Sort(want)
		if slices.Equal(want, []string{"none"}) {
			benign++
		}
		got := facts(Inspect(c.lang, c.code))
		if !slices.Equal(got, want) {
			t.Errorf("cases.txt:%d %s: %q\n got: %s\nwant: %s", c.where, c.lang, c.code, strings.Join(got, " | "), strings.Join(want, " | "))
		}
	}
	if benign < 20 {
		t.Errorf("only %d benign cases", benign)
	}
}

func TestLookup(t *testing.T) {
	tests := []struct {
		prog string
		lang Lang
		ok   bool
	}{
		{"python3.12", Python, true}, {"python", Python, true}, {"pypy3", Python, true},
		{"perl5.36", Perl, true}, {"ruby", Ruby, true}, {"nodejs", Node, true}, {"bun", Node, true},
		{"php8.2", PHP, true}, {"gawk", Awk, true}, {"luajit", Lua, true}, {"osascript", AppleScript, true},
		{"pwsh", PowerShell, true}, {"powershell.exe", PowerShell, true},
		{"pythonista", "", false}, {"go", "", false}, {"sh", "", false},
	}
	for _, tt := range tests {
		in, ok := Lookup(tt.prog)
		if ok != tt.ok || in.Lang != tt.lang {
			t.Errorf("Lookup(%q) = %v %v, want %v %v", tt.prog, in.Lang, ok, tt.lang, tt.ok)
		}
	}
}

// hostile are inputs shaped to make a pattern layer slow or confused.
func hostile() []string {
	return []string{
		strings.Repeat("(", 1<<15) + strings.Repeat(")", 1<<15),
		strings.Repeat(`"\`, 1<<15),
		strings.Repeat("exec(", 1<<13),
		strings.Repeat("os.system(", 1<<12),
		strings.Repeat("'", 1<<16),
		strings.Repeat("`", 1<<16),
		strings.Repeat("fork while 1;", 1<<12),
		strings.Repeat("eval(base64.b64decode('", 1<<12),
	}
}

func TestHostileInputs(t *testing.T) {
	for _, lang := range []Lang{Python, Perl, Ruby, Node, PHP, Awk, Lua, AppleScript, PowerShell} {
		for _, code := range hostile() {
			_ = Inspect(lang, code) // must return; timing is measured by BenchmarkInspect
		}
	}
}

func FuzzInspect(f *testing.F) {
	for _, c := range loadCasesForFuzz() {
		f.Add(string(c.lang), c.code)
	}
	f.Fuzz(func(t *testing.T, lang, code string) {
		if len(code) > 64<<10 {
			return
		}
		r := Inspect(Lang(lang), code)
		for _, fd := range r.Findings {
			if fd.ID == "" || len(fd.Evidence) > 80 {
				t.Fatalf("bad finding %+v", fd)
			}
		}
		// A program's units hold all of its code, and each is inspected.
		var all strings.Builder
		for _, u := range Units(Lang(lang), code) {
			InspectProgram(Lang(lang), u)
			all.WriteString(u)
		}
		if got := all.String(); !strings.Contains(got, strings.TrimSpace(code[len(code)-min(len(code), 16):])) {
			t.Fatalf("the units lose the end of the code")
		}
	})
}

func loadCasesForFuzz() []testCase {
	t := &testing.T{}
	defer func() { _ = recover() }()
	return loadCases(t)
}

func BenchmarkInspect(b *testing.B) {
	for i, code := range hostile() {
		b.Run(fmt.Sprintf("hostile-%d", i), func(b *testing.B) {
			for range b.N {
				Inspect(Python, code)
				Inspect(Node, code)
			}
		})
	}
	b.Run("typical", func(b *testing.B) {
		for range b.N {
			Inspect(Python, "import os, json; print(json.dumps(dict(a=os.getcwd())))")
		}
	})
}

// Every case whose code a pattern matches mentions a keyword of its language: the
// prefilter never hides what the patterns would find.
func TestKeywordsCoverPatterns(t *testing.T) {
	for _, c := range loadCases(t) {
		if c.lang == PowerShell {
			continue // read word by word, with no prefilter
		}
		if exhausts(c.lang, c.code) != "" || destroysStore(c.lang, c.code) != "" {
			continue // found before the prefilter, in any language
		}
		if !mentionsAny(c.code, keywords()[c.lang]) && !slices.Equal(c.want, []string{"none"}) {
			t.Errorf("cases.txt:%d: %q mentions no keyword of %s", c.where, c.code, c.lang)
		}
	}
	for lang := range patterns() {
		if len(keywords()[lang]) == 0 {
			t.Errorf("%s has no keywords", lang)
		}
	}
}
