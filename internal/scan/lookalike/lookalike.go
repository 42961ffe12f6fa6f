// Package lookalike tells names that imitate popular ones: package names one or two
// letters from a much-installed package (reqeusts for requests), repository owners and
// code hosts (facebok, githib.com), or the same name in look-alike letters of another
// script. The popular names are data, embedded from names/*.txt.
package lookalike

import (
	"bufio"
	"embed"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/moatdev/moat/internal/scan/confusable"
)

// Kind is a namespace of names: a package ecosystem, repository owners or code hosts.
type Kind uint8

const (
	// None is no namespace: the zero value, for the package managers moat has no list of
	// popular names for.
	None      Kind = iota
	PyPI           // Python packages (pip, uv, poetry, pipx)
	NPM            // JavaScript packages (npm, pnpm, yarn, bun)
	Crates         // Rust crates (cargo)
	RubyGems       // Ruby gems (gem, bundle)
	Go             // Go module paths (go get, go install)
	Owner          // users and organisations that own repositories
	Host           // code hosts and registries
	Packagist      // PHP packages' vendors (composer): a vendor's namespace is its own
	NuGet          // .NET packages (dotnet add package, nuget install)
	Pub            // Dart and Flutter packages (dart pub add, flutter pub add)
	numKinds
)

var files = [...]string{
	PyPI: "pypi.txt", NPM: "npm.txt", Crates: "crates.txt", RubyGems: "rubygems.txt",
	Go: "go.txt", Owner: "owners.txt", Host: "hosts.txt", Packagist: "packagist.txt",
	NuGet: "nuget.txt", Pub: "pub.txt",
}

func (k Kind) String() string {
	if k != None && k < numKinds {
		return strings.TrimSuffix(files[k], ".txt")
	}
	return "unknown"
}

//go:embed names/*.txt
var namesFS embed.FS

// minLen is the shortest name compared: among names of two or three letters, one edit
// leads from one real name to another too often to mean anything.
const minLen = 4

// list is one kind's popular names, normalised, as a set and by length.
type list struct {
	set   map[string]bool
	byLen map[int][]string
	// folded maps each name's ASCII look-alike form (foldASCII) to the name.
	folded map[string]string
}

// lists parses the embedded files once, on first use.
var lists = sync.OnceValue(func() *[numKinds]list {
	out := new([numKinds]list)
	for k := PyPI; k < numKinds; k++ {
		l := list{set: map[string]bool{}, byLen: map[int][]string{}, folded: map[string]string{}}
		data, err := namesFS.ReadFile("names/" + files[k])
		if err != nil {
			// The files are embedded at build time; TestListsParse guards their presence.
			out[k] = l
			continue
		}
		sc := bufio.NewScanner(strings.NewReader(string(data)))
		for sc.Scan() {
			line, _, _ := strings.Cut(sc.Text(), "#")
			for _, f := range strings.Fields(line) {
				n := Normalize(k, f)
				if !l.set[n] {
					l.set[n] = true
					l.byLen[len(n)] = append(l.byLen[len(n)], n)
					l.folded[foldASCII(n)] = n
				}
			}
		}
		out[k] = l
	}
	return out
})

// Normalize returns the form under which an ecosystem takes two names for one: PyPI
// compares runs of '-', '_' and '.' as one '-' (PEP 503), crates.io takes '_' for '-',
// and every kind ignores case.
func Normalize(k Kind, name string) string {
	name = strings.ToLower(name)
	switch k {
	case PyPI:
		var b strings.Builder
		sep := false
		for _, r := range name {
			if r == '-' || r == '_' || r == '.' {
				sep = true
				continue
			}
			if sep && b.Len() > 0 {
				b.WriteByte('-')
			}
			sep = false
			b.WriteRune(r)
		}
		return b.String()
	case Crates:
		return strings.ReplaceAll(name, "_", "-")
	case Host:
		return strings.TrimSuffix(name, ".")
	}
	return name
}

// Popular reports whether name is one of the kind's popular names.
func Popular(k Kind, name string) bool {
	if k == None || k >= numKinds {
		return false
	}
	return lists()[k].set[Normalize(k, name)]
}

// Match is a name that imitates a popular one.
type Match struct {
	Popular  string // the popular name imitated, normalised
	Distance int    // edits from it (0 when only the letters' script differs)
	// Confusable means the name is written in letters of another script that read as
	// the popular name's (rеquests with a Cyrillic е).
	Confusable bool
}

// Imitates reports whether name imitates a popular name of the kind without being one:
// its look-alike letters (of another script, or digits and pairs such as 0 and rn) read
// as a popular name, or it is one edit (an insertion,
// deletion, substitution or swap of neighbours) from one, two for names of nine
// letters or more.
func Imitates(k Kind, name string) (Match, bool) {
	if k == None || k >= numKinds || name == "" {
		return Match{}, false
	}
	l := &lists()[k]
	n := Normalize(k, name)
	if l.set[n] {
		return Match{}, false
	}
	if !isASCII(n) {
		skel := Normalize(k, confusable.Skeleton(name))
		if skel != n && isASCII(skel) {
			if l.set[skel] {
				return Match{Popular: skel, Confusable: true}, true
			}
			if m, ok := nearest(l, skel); ok {
				m.Confusable = true
				return m, true
			}
		}
		return Match{}, false
	}
	if p, ok := l.folded[foldASCII(n)]; ok {
		return Match{Popular: p, Confusable: true}, true // faceb00k, rnicrosoft
	}
	return nearest(l, n)
}

// asciiLookalikes are the ASCII spellings that read as another letter or pair of letters.
var asciiLookalikes = sync.OnceValue(func() *strings.Replacer {
	return strings.NewReplacer("rn", "m", "vv", "w", "0", "o", "1", "l", "3", "e", "5", "s", "4", "a", "7", "t", "|", "l")
})

// foldASCII maps the ASCII look-alikes of a name to one form: faceb00k and facebook fold
// alike, as do rnicrosoft and microsoft, and paypa1 and paypal.
func foldASCII(s string) string { return asciiLookalikes().Replace(s) }

func nearest(l *list, n string) (Match, bool) {
	if len(n) < minLen {
		return Match{}, false
	}
	limit := 1
	if len(n) >= 9 {
		limit = 2
	}
	best := Match{Distance: limit + 1}
	for d := -limit; d <= limit; d++ {
		for _, p := range l.byLen[len(n)+d] {
			if len(p) < minLen {
				continue
			}
			if dist := distance(n, p, best.Distance-1); dist < best.Distance {
				best = Match{Popular: p, Distance: dist}
			}
		}
	}
	return best, best.Distance <= limit
}

// distance is the optimal string alignment distance between a and b (Levenshtein with
// swaps of neighbours counting one), or limit+1 once it must exceed limit. Names are short,
// so the three rows it keeps are small.
func distance(a, b string, limit int) int {
	if d := len(a) - len(b); d > limit || -d > limit {
		return limit + 1
	}
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
			rowMin = min(rowMin, v)
		}
		if rowMin > limit {
			return limit + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
