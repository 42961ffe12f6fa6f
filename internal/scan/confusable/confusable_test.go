package confusable

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTable(t *testing.T) {
	// The array literal could hold entries gen.go did not write only by hand-editing.
	if len(table) != tableLen {
		t.Fatalf("table has %d entries, gen.go wrote %d", len(table), tableLen)
	}
	if len(table) < 1000 {
		t.Fatalf("table has only %d entries", len(table))
	}
	for i, e := range table {
		if e.r < utf8.RuneSelf || !utf8.ValidRune(e.r) {
			t.Errorf("entry %d: key U+%04X is ASCII or not a valid rune", i, e.r)
		}
		if e.ascii < 0x21 || e.ascii > 0x7e {
			t.Errorf("entry %d: U+%04X maps to %#x, not printable ASCII", i, e.r, e.ascii)
		}
		// Strictly increasing: sorted for the binary search, and no duplicates.
		if i > 0 && table[i-1].r >= e.r {
			t.Errorf("entry %d: U+%04X does not sort after U+%04X", i, e.r, table[i-1].r)
		}
	}
}

func TestASCII(t *testing.T) {
	known := []struct {
		r    rune
		want byte
	}{
		{'\u0430', 'a'},     // CYRILLIC SMALL LETTER A
		{'\u0435', 'e'},     // CYRILLIC SMALL LETTER IE
		{'\u043E', 'o'},     // CYRILLIC SMALL LETTER O
		{'\u0440', 'p'},     // CYRILLIC SMALL LETTER ER
		{'\u0441', 'c'},     // CYRILLIC SMALL LETTER ES
		{'\u0445', 'x'},     // CYRILLIC SMALL LETTER HA
		{'\u0455', 's'},     // CYRILLIC SMALL LETTER DZE
		{'\u0456', 'i'},     // CYRILLIC SMALL LETTER BYELORUSSIAN-UKRAINIAN I
		{'\u0458', 'j'},     // CYRILLIC SMALL LETTER JE
		{'\u0443', 'y'},     // CYRILLIC SMALL LETTER U
		{'\u0410', 'A'},     // CYRILLIC CAPITAL LETTER A
		{'\u0406', 'l'},     // CYRILLIC CAPITAL LETTER BYELORUSSIAN-UKRAINIAN I: l, 1, I and | map to l
		{'\u03BF', 'o'},     // GREEK SMALL LETTER OMICRON
		{'\u03B1', 'a'},     // GREEK SMALL LETTER ALPHA
		{'\u0391', 'A'},     // GREEK CAPITAL LETTER ALPHA
		{'\u039F', 'O'},     // GREEK CAPITAL LETTER OMICRON
		{'\u0585', 'o'},     // ARMENIAN SMALL LETTER OH
		{'\u0578', 'n'},     // ARMENIAN SMALL LETTER VO
		{'\u13DF', 'C'},     // CHEROKEE LETTER TLI
		{'\u0131', 'i'},     // LATIN SMALL LETTER DOTLESS I
		{'\u212F', 'e'},     // SCRIPT SMALL E
		{'\u2113', 'l'},     // SCRIPT SMALL L
		{'\u2160', 'l'},     // ROMAN NUMERAL ONE
		{'\U0001D41C', 'c'}, // MATHEMATICAL BOLD SMALL C
		{'\U0001D7CE', 'O'}, // MATHEMATICAL BOLD DIGIT ZERO: O and 0 map to O
		{'\uFF41', 'a'},     // FULLWIDTH LATIN SMALL LETTER A
		{'\uFF55', 'u'},     // FULLWIDTH LATIN SMALL LETTER U, added from NFKC
		{'\uFF4D', 'm'},     // FULLWIDTH LATIN SMALL LETTER M, added from NFKC
		{'\uFF0F', '/'},     // FULLWIDTH SOLIDUS, added from NFKC
		{'\u2215', '/'},     // DIVISION SLASH
		{'\u2044', '/'},     // FRACTION SLASH
		{'\u2010', '-'},     // HYPHEN
		{'\u2212', '-'},     // MINUS SIGN
		{'\u201C', '"'},     // LEFT DOUBLE QUOTATION MARK (prototype two apostrophes)
		{'\u2018', '\''},    // LEFT SINGLE QUOTATION MARK
		{'\u066A', '%'},     // ARABIC PERCENT SIGN (prototype º/₀)
		{'\u0661', 'l'},     // ARABIC-INDIC DIGIT ONE (a bidi mark surrounds it in the JSON)
		{'\u2024', '.'},     // ONE DOT LEADER
		{'\u0589', ':'},     // ARMENIAN FULL STOP
		{'\u01C3', '!'},     // LATIN LETTER RETROFLEX CLICK
	}
	for _, k := range known {
		if got, ok := ASCII(k.r); !ok || got != k.want {
			t.Errorf("ASCII(%q U+%04X) = %q, %v; want %q, true", k.r, k.r, got, ok, k.want)
		}
	}
	for _, r := range []rune{
		-1, 0, 'a', 'l', '1', '|', 0x7f, ' ',
		'\u00A0', '\u2003', // spaces: printable ASCII only
		'é', 'ü', 'ß', 'ñ', 'ø', // ordinary Latin letters
		'п', 'и', 'λ', 'あ', '中', '🙂',
		utf8.RuneError, utf8.MaxRune, utf8.MaxRune + 1,
	} {
		if got, ok := ASCII(r); ok {
			t.Errorf("ASCII(U+%04X) = %q, true; want false", r, got)
		}
	}
}

func TestSkeleton(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"curl", "curl"},
		{"сurl", "curl"},
		{"/etc/pаsswd", "/etc/passwd"},
		{"gіthub.com", "github.com"},
		{"ｃｕｒｌ", "curl"},
		{"ｒｍ －ｒｆ ／", "rm -rf /"},
		{"𝐜𝐮𝐫𝐥", "curl"},
		{"ℯcho", "echo"},
		{"привет", "пpивeт"},
		{"café", "café"},
		{"“quoted”", `"quoted"`},
		{"Ⅰ１|l", "ll|l"}, // ASCII | stays
		{"０O", "OO"},
		{"ａｂｃｄｅｆｇｈｉｊｋｌｍｎｏｐｑｒｓｔｕｖｗｘｙｚ", "abcdefghijklmnopqrstuvwxyz"},
		{"ＡＢＣＤＥＦＧＨＩＪＫＬＭＮＯＰＱＲＳＴＵＶＷＸＹＺ", "ABCDEFGHlJKLMNOPQRSTUVWXYZ"},
		{"０１２３４５６７８９", "Ol23456789"},
		{"\xffа\xfe", "\xffa\xfe"}, // invalid bytes stay
		{"a\u0301", "a\u0301"},     // combining marks stay
	}
	for _, tt := range tests {
		if got := Skeleton(tt.in); got != tt.want {
			t.Errorf("Skeleton(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// describe renders lookalikes as "с@0→c і@5→i".
func describe(ls []Lookalike) string {
	var parts []string
	for _, l := range ls {
		parts = append(parts, fmt.Sprintf("%c@%d→%c", l.Rune, l.Offset, l.ASCII))
	}
	return strings.Join(parts, " ")
}

func TestLookalikes(t *testing.T) {
	tests := []struct {
		word string
		want string // describe of the result; empty for none
	}{
		// Every non-ASCII rune imitates ASCII.
		{"сurl", "с@0→c"},
		{"pаsswd", "а@1→a"},
		{"gіthub", "і@1→i"},
		{"gіthub.com", "і@1→i"},
		{"раураl", "р@0→p а@2→a у@4→y р@6→p а@8→a"},
		{"ѕudo", "ѕ@0→s"},
		{"гm", "г@0→r"},
		{"rm", ""},
		{"gοogle", "ο@1→o"},
		{"PАYPAL", "А@1→A"},
		{"рор", "р@0→p о@2→o р@4→p"}, // all Cyrillic, reads as pop
		{"ΚΑΙ", "Κ@0→K Α@2→A Ι@4→l"}, // Greek capitals
		{"Ꮯurl", "Ꮯ@0→C"},            // Cherokee
		{"ᏚᎬᎢ", "Ꮪ@0→S Ꭼ@3→E Ꭲ@6→T"}, // all Cherokee
		{"ոpm", "ո@0→n"},             // Armenian vo
		{"gօօgle", "օ@1→o օ@3→o"},    // Armenian oh
		{"ℯcho", "ℯ@0→e"},
		{"𝐜𝐮𝐫𝐥", "𝐜@0→c 𝐮@4→u 𝐫@8→r 𝐥@12→l"},
		{"ｒｍ", "ｒ@0→r ｍ@3→m"},
		{"gıt", "ı@1→i"},          // Latin dotless i
		{"etc∕passwd", "∕@3→/"},   // division slash in what reads as a path
		{"…", ""},                 // ellipsis is not one ASCII character
		{"“rm”", "“@0→\" ”@5→\""}, // quote lookalikes
		// Mixed scripts in one run of letters, with a rune that imitates nothing.
		{"Zürісh", "і@4→i с@6→c"},
		{"münchеn", "е@6→e"},
		{"Zür𝐢ch", "𝐢@4→i"},
		{"сurl\xff", "с@0→c"},
		{"gіthub-привет", "і@1→i р@10→p е@16→e"}, // deceptive words report every lookalike

		// Pure ASCII.
		{"", ""},
		{"curl", ""},
		{"/etc/passwd", ""},
		{"github.com", ""},
		{"node_modules", ""},
		// Ordinary words of other scripts.
		{"привет", ""},
		{"Москва", ""},
		{"отчет", ""},
		{"мʼята", ""},
		{"αλφα", ""},
		{"ελληνικά", ""},
		{"ΑΒΓ", ""},
		{"こんにちは", ""},
		{"ノート", ""},
		{"東京", ""},
		{"中文", ""},
		{"한국어", ""},
		{"مرحبا", ""},
		{"שלום", ""},
		// Latin with Han, kana or Hangul is ordinary text.
		{"東京tokyo", ""},
		{"Readmeノート", ""},
		{"hello한국", ""},
		// Scripts mixed across punctuation, not within a run of letters.
		{"отчет-final", ""},
		{"отчет_final.txt", ""},
		// Accented Latin.
		{"café", ""},
		{"naïve", ""},
		{"Zürich", ""},
		{"señor", ""},
		{"Ærø", ""},
		{"Kaʻū", ""},
		{"cafe\u0301", ""},
		// German sharp s.
		{"ß", ""},
		{"Straße", ""},
		// Emoji and symbols.
		{"🙂", ""},
		{"file🙂", ""},
		{"👍🏽", ""},
		{"❤️", ""},
		{"€100", ""},
		// Invalid UTF-8.
		{"\xff\xfe", ""},
		{"с\xff", ""},
	}
	for _, tt := range tests {
		got := Lookalikes(tt.word)
		if d := describe(got); d != tt.want {
			t.Errorf("Lookalikes(%q) = %s, want %s", tt.word, orNone(d), orNone(tt.want))
		}
		if len(got) == 0 && got != nil {
			t.Errorf("Lookalikes(%q) = empty non-nil slice", tt.word)
		}
	}
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func TestAllocs(t *testing.T) {
	for _, word := range []string{"github.com", "привет", "café", "東京tokyo"} {
		if n := testing.AllocsPerRun(100, func() { Lookalikes(word) }); n != 0 {
			t.Errorf("Lookalikes(%q) allocates %v times", word, n)
		}
		if n := testing.AllocsPerRun(100, func() { Skeleton("/usr/local/bin") }); n != 0 {
			t.Errorf("Skeleton of ASCII allocates %v times", n)
		}
	}
}

// TestGenerated checks that table.go is what gen.go writes, when the JSON is at hand:
// set CONFUSABLES_JSON, or install the Debian package python3-confusable-homoglyphs.
func TestGenerated(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the generator")
	}
	src := os.Getenv("CONFUSABLES_JSON")
	if src == "" {
		src = "/usr/lib/python3/dist-packages/confusable_homoglyphs/confusables.json"
	}
	if _, err := os.Stat(src); err != nil {
		t.Skipf("no confusables.json: %v", err)
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	out := filepath.Join(t.TempDir(), "table.go")
	cmd := exec.Command(gobin, "run", "gen.go", "-src", src, "-o", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run gen.go: %v\n%s", err, b)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("table.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("table.go differs from what gen.go writes from %s: run go generate", src)
	}
}
