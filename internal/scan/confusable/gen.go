//go:build ignore

// Gen writes table.go, the confusables table of package confusable, from confusables.json
// of the Debian package python3-confusable-homoglyphs, which holds Unicode's confusables.txt
// (UTS #39) as a JSON object. See doc.go for why and how to run it.
//
// Usage:
//
//	go run gen.go -src /path/to/confusables.json [-o table.go]
//
// confusables.txt maps every confusable character to a prototype (a "skeleton" string);
// confusables.json stores each mapping in both directions: the prototype lists the
// characters that map to it, and each of those lists the prototype. The characters
// connected this way form a group that looks alike. A group is kept when it contains a
// printable ASCII character (0x21-0x7E), and every non-ASCII rune of it then maps to that
// character. A group with several of them (l, 1, I and | are one group; so are O and 0,
// and ' and `) maps to one chosen by a fixed rule: a lower-case letter first, then an
// upper-case letter, then a digit, then punctuation, and the lowest byte among equals.
// So ｌ, Ι (Greek capital iota) and І (Cyrillic) all map to 'l'.
//
// Prototypes of several characters still give a group its ASCII character when a single
// ASCII character is in it: the lookalikes of m have the prototype "rn" and map to 'm',
// the curly double quotes have the prototype of two apostrophes and map to '"'.
//
// confusables.txt lists every mathematical alphanumeric and letterlike symbol but only 39
// of the 94 fullwidth forms of ASCII (ｃ but not ｕ), so that the skeleton of ｃｕｒｌ would
// be cｕｒl. gen adds the others from their compatibility decompositions (NFKC, from
// golang.org/x/text, whose tables are of the same Unicode version), each mapped like the
// ASCII character it decomposes to: ０ to 'O' like 0. Other compatibility forms (²,
// ⓐ, ᵃ) look different enough to leave to moat's report of compatibility forms.
package main

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"go/format"
	"log"
	"os"
	"slices"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// The JSON does not record its versions; -unicode and -debian name them in the header of
// table.go. doc.go tells how the Unicode version was established.
var (
	src       = flag.String("src", "", "confusables.json of the Debian package python3-confusable-homoglyphs")
	out       = flag.String("o", "table.go", "file to write")
	unicodeV  = flag.String("unicode", "15.0.0", "Unicode version of the confusables.txt the JSON was made from")
	debianVer = flag.String("debian", "3.2.0-2", "version of the Debian package python3-confusable-homoglyphs")
)

// link is one element of a list in confusables.json: a string confusable with the key.
type link struct {
	C string `json:"c"` // the string
	N string `json:"n"` // the names of its characters, separated by ", "
}

type entry struct {
	r     rune
	ascii byte
	name  string
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("gen: ")
	flag.Parse()
	if *src == "" || flag.NArg() > 0 {
		log.Fatal("usage: go run gen.go -src confusables.json [-o table.go]")
	}
	data, err := os.ReadFile(*src)
	if err != nil {
		log.Fatal(err)
	}
	var groups map[string][]link
	if err := json.Unmarshal(data, &groups); err != nil {
		log.Fatalf("%s: %v", *src, err)
	}
	if norm.Version != *unicodeV {
		log.Printf("warning: NFKC tables are of Unicode %s, the confusables of %s", norm.Version, *unicodeV)
	}
	entries, err := build(groups)
	if err != nil {
		log.Fatalf("%s: %v", *src, err)
	}
	code, err := render(entries, fmt.Sprintf("%x", sha256.Sum256(data)))
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, code, 0o644); err != nil {
		log.Fatal(err)
	}
	log.Printf("wrote %s: %d entries", *out, len(entries))
}

// clean removes the left-to-right and right-to-left marks that the upstream generator
// copied from the comments of confusables.txt, where they surround right-to-left
// characters: without them, U+0661 ARABIC-INDIC DIGIT ONE is a rune that imitates l.
func clean(s string) string {
	return strings.NewReplacer("\u200e", "", "\u200f", "").Replace(s)
}

// build returns the table entries of groups, sorted by rune.
func build(groups map[string][]link) ([]entry, error) {
	parent := map[string]string{}
	var find func(string) string
	find = func(s string) string {
		p, ok := parent[s]
		if !ok || p == s {
			parent[s] = s
			return s
		}
		root := find(p)
		parent[s] = root
		return root
	}
	// Names of single runes, for the comments of table.go.
	names := map[rune]string{}
	for key, links := range groups {
		k := clean(key)
		if k == "" {
			return nil, fmt.Errorf("key %q is empty without bidi marks", key)
		}
		for _, l := range links {
			c := clean(l.C)
			if c == "" {
				return nil, fmt.Errorf("key %q lists %q, empty without bidi marks", key, l.C)
			}
			parent[find(k)] = find(c)
			if r, size := utf8.DecodeRuneInString(c); size == len(c) && r != utf8.RuneError {
				names[r] = l.N
			}
		}
	}
	members := map[string][]string{}
	for s := range parent {
		root := find(s)
		members[root] = append(members[root], s)
	}
	var entries []entry
	mapped := map[rune]bool{}
	var stand [0x80]byte // the character that stands for each ASCII character's group
	for c := range stand {
		stand[c] = byte(c)
	}
	for _, group := range members {
		ascii, ok := pick(group)
		if !ok {
			continue
		}
		for _, s := range group {
			if len(s) == 1 {
				stand[s[0]] = ascii
			}
			r, size := utf8.DecodeRuneInString(s)
			if size != len(s) || r < utf8.RuneSelf || r == utf8.RuneError {
				continue // ASCII, or a string of several runes (a prototype)
			}
			entries = append(entries, entry{r: r, ascii: ascii, name: names[r]})
			mapped[r] = true
		}
	}
	// The fullwidth forms confusables.txt leaves out (see the package comment).
	for r := rune(0xFF00); r <= 0xFFEF; r++ {
		d := norm.NFKC.String(string(r))
		if mapped[r] || len(d) != 1 || d[0] < 0x21 || d[0] > 0x7e {
			continue
		}
		entries = append(entries, entry{r: r, ascii: stand[d[0]], name: fullwidthName(d[0])})
	}
	slices.SortFunc(entries, func(a, b entry) int { return cmp.Compare(a.r, b.r) })
	for i := 1; i < len(entries); i++ {
		// Union-find puts a rune in one group only; this guards the invariant the
		// binary search relies on.
		if entries[i].r == entries[i-1].r {
			return nil, fmt.Errorf("U+%04X is in two groups", entries[i].r)
		}
	}
	if len(entries) == 0 {
		return nil, fmt.Errorf("no confusables of printable ASCII characters")
	}
	return entries, nil
}

// fullwidthName returns the Unicode name of the fullwidth form of the ASCII character c,
// which the JSON lacks when confusables.txt does not list the form.
func fullwidthName(c byte) string {
	switch {
	case 'a' <= c && c <= 'z':
		return "FULLWIDTH LATIN SMALL LETTER " + string(c-'a'+'A')
	case 'A' <= c && c <= 'Z':
		return "FULLWIDTH LATIN CAPITAL LETTER " + string(c)
	case '0' <= c && c <= '9':
		digits := []string{"ZERO", "ONE", "TWO", "THREE", "FOUR", "FIVE", "SIX", "SEVEN", "EIGHT", "NINE"}
		return "FULLWIDTH DIGIT " + digits[c-'0']
	}
	return fmt.Sprintf("FULLWIDTH FORM OF %q (NFKC)", c)
}

// pick returns the printable ASCII character that stands for group, if it has any.
func pick(group []string) (byte, bool) {
	var best byte
	for _, s := range group {
		if len(s) != 1 || s[0] < 0x21 || s[0] > 0x7e {
			continue
		}
		if c := s[0]; best == 0 || rank(c) < rank(best) || rank(c) == rank(best) && c < best {
			best = c
		}
	}
	return best, best != 0
}

// rank orders the classes of printable ASCII characters for pick: a lower-case letter
// reads as what people type in command names and domains, then upper-case letters, digits
// and punctuation.
func rank(c byte) int {
	switch {
	case 'a' <= c && c <= 'z':
		return 0
	case 'A' <= c && c <= 'Z':
		return 1
	case '0' <= c && c <= '9':
		return 2
	default:
		return 3
	}
}

func render(entries []entry, sum string) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, `// Code generated by gen.go; DO NOT EDIT.

// Source: Unicode confusables.txt (UTS #39 security data), version %s, as
// confusables.json of the Debian package python3-confusable-homoglyphs %s
// (sha256 %s),
// with the fullwidth forms of ASCII it leaves out added from their NFKC forms
// (golang.org/x/text, Unicode %s).
// Copyright © 1991-2022 Unicode, Inc. Distributed under the Terms of Use in
// https://www.unicode.org/copyright.html (Unicode License for Data Files and Software).

package confusable

// tableLen is the number of entries gen.go wrote.
const tableLen = %d

// table maps non-ASCII runes to the printable ASCII character they imitate, sorted by rune.
var table = [...]entry{
`, *unicodeV, *debianVer, sum, norm.Version, len(entries))
	for _, e := range entries {
		name := e.name
		if name == "" {
			name = fmt.Sprintf("U+%04X", e.r)
		}
		fmt.Fprintf(&b, "\t{0x%04X, %q}, // %s\n", e.r, rune(e.ascii), name)
	}
	b.WriteString("}\n")
	return format.Source(b.Bytes())
}
