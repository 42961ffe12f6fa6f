package glob

import (
	"errors"
	"strings"
	"testing"
)

type pathCase struct {
	pattern string
	fold    bool
	path    string
	want    bool
}

var pathCases = []pathCase{
	// Literals, cleaning.
	{"/", false, "/", true},
	{"/", false, "/a", false},
	{"/etc/passwd", false, "/etc/passwd", true},
	{"/etc/passwd", false, "/etc/passwd2", false},
	{"/etc/passwd", false, "/etc", false},
	{"/a//b/", false, "/a/b", true},
	{"/a/./b/.", false, "/a/b", true},
	{"/a/x/../b", false, "/a/b", true},
	{"/../a", false, "/a", true},
	{"/a\\*b", false, "/a*b", true},
	{"/a\\*b", false, "/axb", false},
	{"/a/{b}", false, "/a/b", true},
	{"/Users/U/Doc", true, "/users/u/DOC", true},
	{"/Users/U/Doc", false, "/users/u/DOC", false},
	{"/tmp/\u212a", true, "/tmp/k", true}, // Kelvin sign folds to k
	{"/tmp/k", true, "/tmp/\u212a", true},
	{"/tmp/s", true, "/tmp/\u017f", true}, // long s folds to s
	{"/tmp/é", true, "/tmp/É", true},
	{"/tmp/é", false, "/tmp/É", false},
	// Single-segment wildcards.
	{"/home/u/*", false, "/home/u/.ssh", true},
	{"/home/u/*", false, "/home/u/.ssh/id", false},
	{"/home/u/*", false, "/home/u", false},
	{"/home/*/.ssh/id_*", false, "/home/u/.ssh/id_rsa", true},
	{"/home/*/.ssh/id_*", false, "/home/u/.ssh/id_rsa.pub", true},
	{"/home/*/.ssh/id_*", false, "/home/u/v/.ssh/id_rsa", false},
	{"/tmp/*.txt", false, "/tmp/a.txt", true},
	{"/tmp/*.txt", false, "/tmp/.txt", true},
	{"/tmp/*.txt", false, "/tmp/a.txt.bak", false},
	{"/tmp/*.TXT", true, "/tmp/a.txt", true},
	{"/tmp/*.tar.*", false, "/tmp/x.tar.gz", true},
	{"/tmp/*a*b*c", false, "/tmp/xaxbxc", true},
	{"/tmp/*a*b*c", false, "/tmp/xaxbxcx", false},
	{"/tmp/a*a*a*a*b", false, "/tmp/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false},
	{"/tmp/?", false, "/tmp/x", true},
	{"/tmp/?", false, "/tmp/é", true},
	{"/tmp/?", false, "/tmp/xy", false},
	{"/tmp/?", false, "/tmp/\xff", true},
	{"/tmp/???", false, "/tmp/日本語", true},
	{"/tmp/[abc]", false, "/tmp/b", true},
	{"/tmp/[abc]", false, "/tmp/d", false},
	{"/tmp/[a-c]x", false, "/tmp/cx", true},
	{"/tmp/[!a-c]x", false, "/tmp/cx", false},
	{"/tmp/[^a-c]x", false, "/tmp/dx", true},
	{"/tmp/[!a]", false, "/tmp/\xff", true},
	{"/tmp/[]a]", false, "/tmp/]", true},
	{"/tmp/[!]]", false, "/tmp/]", false},
	{"/tmp/[a-]", false, "/tmp/-", true},
	{"/tmp/[\\]]", false, "/tmp/]", true},
	{"/tmp/[A-Z]", true, "/tmp/q", true},
	{"/tmp/[!A-Z]", true, "/tmp/q", false},
	{"/tmp/[k]", true, "/tmp/\u212a", true},
	{"/tmp/[\u212a]", true, "/tmp/K", true},
	{"/tmp/[α-ω]", false, "/tmp/λ", true},
	{"/home/u/{.ssh,.gnupg}/*", false, "/home/u/.gnupg/x", true},
	{"/home/u/{.ssh,.gnupg}/*", false, "/home/u/.aws/x", false},
	{"/x/{a,}b", false, "/x/b", true},
	{"/x/{a,}b", false, "/x/ab", true},
	{"/x/{*.go,*.mod}", false, "/x/go.mod", true},
	{"/x/{a,b}{c,d}", false, "/x/bd", true},
	{"/x/{a,b}{c,d}", false, "/x/bb", false},
	{"/x/a,b}", false, "/x/a,b}", true},
	// "**".
	{"/**", false, "/", true},
	{"/**", false, "/anything/at/all", true},
	{"/a/**", false, "/a", true},
	{"/a/**", false, "/a/b/c", true},
	{"/a/**", false, "/ab", false},
	{"/a/**", false, "/", false},
	{"/A/**", true, "/a/B", true},
	{"/a/**/x", false, "/a/x", true},
	{"/a/**/x", false, "/a/b/c/x", true},
	{"/a/**/x", false, "/a/b/c/x/y", false},
	{"/a/**/**/x", false, "/a/x", true},
	{"/**/.git/**", false, "/src/p/.git/config", true},
	{"/**/.git/**", false, "/.git", true},
	{"/**/.git/**", false, "/src/git/x", false},
	{"/**/*.pem", false, "/a/b/c.pem", true},
	{"/**/*.pem", false, "/c.pem", true},
	{"/**/*.pem", false, "/a/b/c.pem/d", false},
	{"/a/**/b/**/c", false, "/a/b/c", true},
	{"/a/**/b/**/c", false, "/a/x/b/y/b/z/c", true},
	{"/a/**/b/**/c", false, "/a/x/c/b", false},
	{"/a/*/**", false, "/a", false},
	{"/a/*/**", false, "/a/b", true},
	// Paths that are not absolute never match.
	{"/**", false, "", false},
	{"/**", false, "a/b", false},
}

func TestPathMatch(t *testing.T) {
	for _, tc := range pathCases {
		p, err := CompilePath(tc.pattern, Options{FoldCase: tc.fold})
		if err != nil {
			t.Errorf("CompilePath(%q): %v", tc.pattern, err)
			continue
		}
		if got := p.Match(tc.path); got != tc.want {
			t.Errorf("CompilePath(%q, fold=%v).Match(%q) = %v, want %v", tc.pattern, tc.fold, tc.path, got, tc.want)
		}
		if p.String() != tc.pattern {
			t.Errorf("String() = %q, want %q", p.String(), tc.pattern)
		}
	}
}

type treeCase struct {
	pattern string
	dir     string
	tree    bool // MatchTree
	covers  bool // CoversTree
}

var treeCases = []treeCase{
	{"/home/u/.ssh/**", "/", true, false},
	{"/home/u/.ssh/**", "/home", true, false},
	{"/home/u/.ssh/**", "/home/u", true, false},
	{"/home/u/.ssh/**", "/home/u/.ssh", true, true},
	{"/home/u/.ssh/**", "/home/u/.ssh/keys", true, true},
	{"/home/u/.ssh/**", "/home/v", false, false},
	{"/home/u/.ssh/**", "/etc", false, false},
	{"/home/*/.ssh/id_*", "/home", true, false},
	{"/home/*/.ssh/id_*", "/home/u", true, false},
	{"/home/*/.ssh/id_*", "/home/u/.ssh/id_rsa", true, false},
	{"/home/*/.ssh/id_*", "/home/u/.ssh/id_rsa/x", false, false},
	{"/home/*/.ssh/id_*", "/home/u/.aws", false, false},
	{"/ws/**", "/ws", true, true},
	{"/ws/**", "/ws/build", true, true},
	{"/ws/**", "/wsx", false, false},
	{"/ws/*/**", "/ws", true, false},
	{"/ws/*/**", "/ws/build", true, true},
	{"/ws/*/**", "/ws/build/out", true, true},
	{"/**", "/", true, true},
	{"/**", "/a/b", true, true},
	{"/", "/", true, false},
	{"/", "/a", false, false},
	{"/a/**/x", "/a/b/c", true, false},
	{"/a/**/x", "/b", false, false},
	{"/a/**/node_modules/**", "/a/p/node_modules", true, true},
	{"/a/**/node_modules/**", "/a/p/node_modules/x/y", true, true},
	{"/a/**/node_modules/**", "/a/p/src", true, false},
	{"/a/**/*", "/a/b", true, false}, // covered in fact; CoversTree may say false
	{"/a/b", "/a/b", true, false},
	{"/a/b", "/a/b/c", false, false},
	{"/a/b", "a", false, false},
}

func TestTree(t *testing.T) {
	for _, tc := range treeCases {
		p, err := CompilePath(tc.pattern, Options{})
		if err != nil {
			t.Fatalf("CompilePath(%q): %v", tc.pattern, err)
		}
		if got := p.MatchTree(tc.dir); got != tc.tree {
			t.Errorf("%q.MatchTree(%q) = %v, want %v", tc.pattern, tc.dir, got, tc.tree)
		}
		if got := p.CoversTree(tc.dir); got != tc.covers {
			t.Errorf("%q.CoversTree(%q) = %v, want %v", tc.pattern, tc.dir, got, tc.covers)
		}
	}
}

type errCase struct {
	pattern string
	word    bool
	offset  int
	msg     string // substring of the message
}

var errCases = []errCase{
	{"", false, 0, "must be absolute"},
	{"a/b", false, 0, "must be absolute"},
	{"~/x", false, 0, "must be absolute"},
	{"/a/b**", false, 4, "'**' must be a whole path segment (use '*'"},
	{"/a/**b", false, 3, "'**' must be a whole path segment"},
	{"/a/***", false, 3, "'**' must be a whole path segment"},
	{"/a/{**,b}", false, 4, "'**' must be a whole path segment"},
	{"/a/[bc", false, 3, "unclosed '['"},
	{"/a/[]", false, 3, "unclosed '['"},
	{"/a/[!", false, 3, "unclosed '['"},
	{"/a/[\\", false, 3, "unclosed '['"},
	{"/a/{b,c", false, 3, "unclosed '{'"},
	{"/a/{b,c/d}", false, 7, "'/' cannot appear inside '{...}'"},
	{"/a/[b/c]", false, 5, "'/' cannot appear inside '[...]'"},
	{"/a/b\\", false, 4, "trailing '\\'"},
	{"/a\\/b", false, 2, "'/' cannot be escaped"},
	{"/a/{}", false, 3, "empty alternative list"},
	{"/a/{b,{c,d}}", false, 6, "nested '{'"},
	{"/a/[z-a]", false, 4, "invalid range \"z-a\""},
	{"/a/[[:alpha:]]", false, 4, "POSIX classes"},
	{"/a/*/../b", false, 5, "'..' cannot follow a segment with wildcards"},
	{"/a/**/../b", false, 6, "'..' cannot follow"},
	{"/a/\xff", false, 3, "invalid UTF-8"},
	{"/{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}", false, 41, "more than 256 alternatives"},
	{"/{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}" + strings.Repeat("x", 300), false, 1, "more than 65536 bytes"},
	{"x[", true, 1, "unclosed '['"},
	{"x{", true, 1, "unclosed '{'"},
	{"x\\", true, 1, "trailing '\\'"},
	{"{}", true, 0, "empty alternative list"},
}

func TestCompileErrors(t *testing.T) {
	for _, tc := range errCases {
		var err error
		if tc.word {
			_, err = CompileWord(tc.pattern)
		} else {
			_, err = CompilePath(tc.pattern, Options{})
		}
		var pe *PatternError
		if !errors.As(err, &pe) {
			t.Errorf("compile %q: error %v, want a *PatternError", tc.pattern, err)
			continue
		}
		if pe.Offset != tc.offset || !strings.Contains(pe.Msg, tc.msg) || pe.Pattern != tc.pattern {
			t.Errorf("compile %q: %v, want %q at offset %d", tc.pattern, err, tc.msg, tc.offset)
		}
	}
}

func TestPatternErrorText(t *testing.T) {
	_, err := CompilePath("/a/[bc", Options{})
	const want = `glob "/a/[bc": unclosed '[' at offset 3`
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

func TestLiteralPrefix(t *testing.T) {
	for _, tc := range []struct{ pattern, want string }{
		{"/home/u/*.txt", "/home/u"},
		{"/*/x", "/"},
		{"/**", "/"},
		{"/", "/"},
		{"/etc/passwd", "/etc/passwd"},
		{"/a//b/./c/../d/**", "/a/b/d"},
		{"/a/\\*b/c*", "/a/*b"},
		{"/a/{b}/c?", "/a/b"},
		{"/a/{b,c}/d", "/a"},
		{"relative/x", ""},
		{"/a/[", ""},
		{"/a/b/../c/*.o", "/a/c"},
		{"/../*", "/"},
		{"/a/*/..", ""},
		{"/a/*/./b", "/a"},
		{"/a/b**", ""},
		{"/a/b/", "/a/b"},
		{"/a/?/", "/a"},
		{"/a/\xff/*", ""},
	} {
		if got := LiteralPrefix(tc.pattern); got != tc.want {
			t.Errorf("LiteralPrefix(%q) = %q, want %q", tc.pattern, got, tc.want)
		}
		// The shortcut for plain patterns answers as the parser does, or leaves it to it.
		if got, ok := plainPrefix(tc.pattern); ok && got != parsedPrefix(tc.pattern) {
			t.Errorf("plainPrefix(%q) = %q, the parser says %q", tc.pattern, got, parsedPrefix(tc.pattern))
		}
	}
}

func TestHasMeta(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want bool
	}{
		{"/a/b", false},
		{"/a/*", true},
		{"a?", true},
		{"[x", true},
		{"{a", true},
		{"\\*\\?\\[\\{", false},
		{"\\\\*", true},
		{"a]b}c,", false},
		{"trailing\\", false},
	} {
		if got := HasMeta(tc.s); got != tc.want {
			t.Errorf("HasMeta(%q) = %v, want %v", tc.s, got, tc.want)
		}
	}
}

type wordCase struct {
	pattern, s string
	want       bool
}

var wordCases = []wordCase{
	{"git", "git", true},
	{"git", "gitx", false},
	{"", "", true},
	{"", "x", false},
	{"test:*", "test:unit", true},
	{"test:*", "test:", true},
	{"test:*", "lint", false},
	{"./build*", "./build/out", true},
	{"*/bin/rm", "/usr/bin/rm", true},
	{"**/rm", "/usr/bin/rm", true},
	{"?", "/", true},
	{"[!a]", "/", true},
	{"-[rf][rf]", "-rf", true},
	{"-{rf,fr}", "-fr", true},
	{"--force{,-with-lease}", "--force-with-lease", true},
	{"--force{,-with-lease}", "--force-with", false},
	{"a\\*", "a*", true},
	{"a\\*", "ab", false},
	{"*.{js,ts}", "x.ts", true},
	{"*a*a*a*a*a*b", strings.Repeat("a", 200), false},
}

func TestWordMatch(t *testing.T) {
	for _, tc := range wordCases {
		w, err := CompileWord(tc.pattern)
		if err != nil {
			t.Fatalf("CompileWord(%q): %v", tc.pattern, err)
		}
		if got := w.Match(tc.s); got != tc.want {
			t.Errorf("CompileWord(%q).Match(%q) = %v, want %v", tc.pattern, tc.s, got, tc.want)
		}
	}
}

func TestWordLiteral(t *testing.T) {
	for _, tc := range []struct {
		pattern, lit string
		ok           bool
	}{
		{"git", "git", true},
		{"", "", true},
		{"a\\*b", "a*b", true},
		{"{x}y", "xy", true},
		{"a*", "", false},
		{"{a,b}", "", false},
		{"[a]", "", false},
	} {
		w, err := CompileWord(tc.pattern)
		if err != nil {
			t.Fatalf("CompileWord(%q): %v", tc.pattern, err)
		}
		if lit, ok := w.Literal(); lit != tc.lit || ok != tc.ok {
			t.Errorf("CompileWord(%q).Literal() = %q, %v; want %q, %v", tc.pattern, lit, ok, tc.lit, tc.ok)
		}
	}
}

type wordsCase struct {
	pattern string // words separated by spaces
	words   string
	want    bool
}

var wordsCases = []wordsCase{
	{"git push **", "git push origin main", true},
	{"git push **", "git push", true},
	{"git push **", "git pull origin", false},
	{"git push **", "git", false},
	{"rm -rf ./build", "rm -rf ./build", true},
	{"rm -rf ./build", "rm -rf ./build x", false},
	{"rm -rf ./build", "rm -rf", false},
	{"npm run test:*", "npm run test:unit", true},
	{"** --force **", "git push --force origin", true},
	{"** --force **", "git push origin", false},
	{"** --force", "--force", true},
	{"git ** push ** main", "git -C x push origin main", true},
	{"git ** push ** main", "git push main", true},
	{"git ** push ** main", "git main push", false},
	{"** **", "", true},
	{"**", "a b c", true},
	{"a ** b", "a b b b", true},
	{"a ** b", "a b b c", false},
}

func TestWordsMatch(t *testing.T) {
	for _, tc := range wordsCases {
		ws, err := CompileWords(strings.Fields(tc.pattern))
		if err != nil {
			t.Fatalf("CompileWords(%q): %v", tc.pattern, err)
		}
		if got := ws.Match(strings.Fields(tc.words)); got != tc.want {
			t.Errorf("CompileWords(%q).Match(%q) = %v, want %v", tc.pattern, tc.words, got, tc.want)
		}
	}
}

func TestWordsErrors(t *testing.T) {
	if _, err := CompileWords(nil); err == nil {
		t.Error("CompileWords(nil): no error")
	}
	_, err := CompileWords([]string{"git", "x["})
	var pe *PatternError
	if !errors.As(err, &pe) || pe.Pattern != "x[" || pe.Offset != 1 {
		t.Errorf("CompileWords: %v, want a *PatternError for word 2", err)
	}
	if err == nil || !strings.HasPrefix(err.Error(), "word 2: ") {
		t.Errorf("CompileWords: %v, want it to name word 2", err)
	}
}

// TestWordsLong checks that "**" backtracking stays polynomial on long word lists.
func TestWordsLong(t *testing.T) {
	words := make([]string, 10000)
	for i := range words {
		words[i] = "x"
	}
	for _, tc := range []struct {
		pattern []string
		want    bool
	}{
		{[]string{"**", "a", "**", "b", "**", "c"}, false},
		{[]string{"**", "x", "**", "x", "**", "x", "**", "y"}, false},
		{[]string{"**", "x", "**", "x", "**", "x"}, true},
		{[]string{"x", "**", "x*", "**", "*", "**", "x"}, true},
	} {
		ws, err := CompileWords(tc.pattern)
		if err != nil {
			t.Fatal(err)
		}
		if got := ws.Match(words); got != tc.want {
			t.Errorf("%q on 10k words = %v, want %v", tc.pattern, got, tc.want)
		}
	}
}

func TestMatchAllocs(t *testing.T) {
	p, err := CompilePath("/home/*/.ssh/**/id_*", Options{FoldCase: true})
	if err != nil {
		t.Fatal(err)
	}
	ws, err := CompileWords([]string{"git", "push", "**", "--force*"})
	if err != nil {
		t.Fatal(err)
	}
	words := []string{"git", "push", "origin", "main", "--force-with-lease"}
	n := testing.AllocsPerRun(100, func() {
		p.Match("/home/u/.ssh/a/b/id_rsa")
		p.MatchTree("/home/u")
		p.CoversTree("/home/u")
		ws.Match(words)
	})
	if n != 0 {
		t.Errorf("matching allocates %v times per run, want 0", n)
	}
}

// TestLargePatterns checks that compiling stays linear in the pattern's length.
func TestLargePatterns(t *testing.T) {
	long := strings.Repeat("a\\*", 1<<16)
	p, err := CompilePath("/x/"+long+"/*", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !p.Match("/x/" + strings.Repeat("a*", 1<<16) + "/y") {
		t.Error("long literal segment does not match")
	}
	w, err := CompileWord(strings.Repeat("?*", 1<<16))
	if err != nil {
		t.Fatal(err)
	}
	if w.Match(strings.Repeat("x", 1<<15)) {
		t.Error("word needing 2^16 characters matches 2^15")
	}
}

func TestSearchFilter(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"*.go", "**/*.go"},
		{".env*", "**/.env*"},
		{"src/**/*.ts", "src/**/*.ts"},
		{"**/.env*", "**/.env*"},
		{"", ""},
		{"!*.md", ""},
		{"/etc/*", ""},
		{"../x/*", ""},
	} {
		if got := SearchFilter(tc.in); got != tc.want {
			t.Errorf("SearchFilter(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
