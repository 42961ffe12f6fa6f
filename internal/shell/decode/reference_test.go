package decode

import (
	"bytes"
	"flag"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"
	"unicode/utf8"
)

// The reference test compares the decoders with the programs they model, on inputs built
// at random from pieces that exercise their syntax. It needs bash 5, GNU coreutils, xxd
// and util-linux rev, so it runs only when asked: go test -run Reference -reference.
var reference = flag.Bool("reference", false, "compare with bash, GNU coreutils, xxd and rev on this machine")

const referenceCases = 3000

// runProgram runs a program with the C.UTF-8 locale and returns its standard output and whether
// it succeeded.
func runProgram(t *testing.T, stdin string, name string, args ...string) (string, bool) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = []string{"LC_ALL=C.UTF-8", "PATH=/usr/bin:/bin"}
	cmd.Stdin = strings.NewReader(stdin)
	var out bytes.Buffer
	cmd.Stdout = &out
	err := cmd.Run()
	if _, isExit := err.(*exec.ExitError); err != nil && !isExit {
		t.Fatal(err)
	}
	return out.String(), err == nil
}

// pick builds a string of up to n pieces chosen from pieces.
func pick(r *rand.Rand, pieces []string, n int) string {
	var b strings.Builder
	for range r.IntN(n + 1) {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

func requireReference(t *testing.T) {
	if !*reference {
		t.Skip("run with -reference to compare with the real programs")
	}
}

var (
	formatPieces = []string{"%", "%%", "s", "b", "c", "d", "i", "o", "u", "x", "X", "q", "f", "-", "+", " ", "0", "#", "'", "5", "12", ".", "*", "l", "h", "\\", "\\\\", "n", "t", "e", "E", "a", "v", "\"", "?", "1", "7", "8", "x4", "u00e9", "U0001F600", "U7fffffff", "UFFFFFFFF", "c", "é", "z", "\n", "$"}
	argPieces    = []string{"a", "é", "-", "+", " ", "0", "0x", "1f", "7", "8", "9", "99999999999999999999", "'", "\"", "\\", "\\\\", "n", "c", "0101", "101", "x41", "u00e9", "U0001F600", "e", "E", "q", "\t", "\xff"}
)

func TestReferencePrintf(t *testing.T) {
	requireReference(t)
	r := rand.New(rand.NewPCG(1, 2))
	for range referenceCases {
		format := pick(r, formatPieces, 8)
		args := make([]string, r.IntN(4))
		for i := range args {
			args[i] = pick(r, argPieces, 4)
		}
		got, ok := Printf(format, args)
		want, _ := runProgram(t, "", "bash", append([]string{"-c", `printf -- "$@"`, "bash", format}, args...)...)
		if ok && got != want || !ok && !strings.HasPrefix(want, got) {
			t.Errorf("Printf(%q, %q) = %q, %v; bash prints %q", format, args, got, ok, want)
		}
	}
}

func TestReferenceEcho(t *testing.T) {
	requireReference(t)
	r := rand.New(rand.NewPCG(3, 4))
	pieces := append([]string{"-n", "-e", "-E", "-ne", "-neE", "-x", "--", "-"}, argPieces...)
	for range referenceCases {
		args := make([]string, r.IntN(5))
		for i := range args {
			if i < 2 && r.IntN(2) == 0 {
				args[i] = []string{"-n", "-e", "-E", "-en", "-nEe", "-", "--", "-x", "-e-"}[r.IntN(9)]
				continue
			}
			args[i] = pick(r, pieces, 5)
		}
		got := Echo(args)
		want, _ := runProgram(t, "", "bash", append([]string{"-c", `echo "$@"`, "bash"}, args...)...)
		if got != want {
			t.Errorf("Echo(%q) = %q; bash prints %q", args, got, want)
		}
	}
}

func TestReferenceTr(t *testing.T) {
	requireReference(t)
	r := rand.New(rand.NewPCG(5, 6))
	setPieces := []string{"a", "b", "z", "A", "Z", "-", "[", "]", ":", "=", "*", "\\", "\\\\", "\\n", "\\1", "\\141", "\\400", "\\-", "a-z", "A-Z", "z-a", "0-9", "[:upper:]", "[:lower:]", "[:digit:]", "[:alpha:]", "[:space:]", "[:punct:]", "[:foo:]", "[=a=]", "[a*]", "[a*3]", "é", "\\q"}
	input := "The quick brown fox, 0123456789 [:-=*] \\ é\n\tABCxyz"
	for range referenceCases {
		set1, set2 := pick(r, setPieces, 4), pick(r, setPieces, 4)
		got, ok := Tr(set1, set2, input)
		want, wantOK := runProgram(t, input, "tr", "--", set1, set2)
		if ok != wantOK && !(wantOK && unsupportedSet(set1+set2)) || ok && got != want {
			t.Errorf("Tr(%q, %q) = %q, %v; tr prints %q, %v", set1, set2, got, ok, want, wantOK)
		}
		got, ok = TrDelete(set1, input)
		want, wantOK = runProgram(t, input, "tr", "-d", "--", set1)
		if ok != wantOK && !(wantOK && unsupportedSet(set1)) || ok && got != want {
			t.Errorf("TrDelete(%q) = %q, %v; tr -d prints %q, %v", set1, got, ok, want, wantOK)
		}
	}
}

// unsupportedSet reports whether a set may hold a construct Tr declines though tr takes it.
func unsupportedSet(s string) bool {
	return strings.Contains(s, "[=") || strings.Contains(s, "*")
}

func TestReferenceBase(t *testing.T) {
	requireReference(t)
	r := rand.New(rand.NewPCG(7, 8))
	for range referenceCases {
		data := make([]byte, r.IntN(40))
		for i := range data {
			data[i] = byte(r.IntN(256))
		}
		enc, _ := runProgram(t, string(data), "base64", "-w", "20")
		enc = mutate(r, enc, "A+/=\n-_!")
		got, ok := Base64(enc)
		want, wantOK := runProgram(t, enc, "base64", "-d")
		if wantOK && (!ok || got != want) || !wantOK && !strings.HasPrefix(got, want) {
			t.Errorf("Base64(%q) = %q, %v; base64 -d prints %q, %v", enc, got, ok, want, wantOK)
		}
		enc, _ = runProgram(t, string(data), "base32", "-w", "20")
		enc = mutate(r, enc, "A27=\n!a")
		got, ok = Base32(enc)
		want, wantOK = runProgram(t, enc, "base32", "-d")
		if wantOK && (!ok || got != want) || !wantOK && !strings.HasPrefix(got, want) {
			t.Errorf("Base32(%q) = %q, %v; base32 -d prints %q, %v", enc, got, ok, want, wantOK)
		}
		enc, _ = runProgram(t, string(data), "xxd", "-p")
		enc = mutate(r, enc, "0aF \n\t")
		got, ok = Hex(enc)
		want, _ = runProgram(t, enc, "xxd", "-r", "-p")
		if ok && got != want || !ok && !strings.HasPrefix(want, got) {
			t.Errorf("Hex(%q) = %q, %v; xxd -r -p prints %q", enc, got, ok, want)
		}
	}
}

// mutate sometimes changes, deletes or inserts one byte of s, from extra.
func mutate(r *rand.Rand, s, extra string) string {
	if s == "" || r.IntN(3) == 0 {
		return s
	}
	i := r.IntN(len(s))
	c := string(extra[r.IntN(len(extra))])
	switch r.IntN(3) {
	case 0:
		return s[:i] + c + s[i+1:]
	case 1:
		return s[:i] + s[i+1:]
	}
	return s[:i] + c + s[i:]
}

func TestReferenceRev(t *testing.T) {
	requireReference(t)
	r := rand.New(rand.NewPCG(9, 10))
	for range referenceCases / 10 {
		s := pick(r, []string{"a", "b", "é", "😀", "\n", "\r", " ", "\t"}, 20)
		if !utf8.ValidString(s) {
			continue
		}
		want, _ := runProgram(t, s, "rev")
		if got := Rev(s); got != want {
			t.Errorf("Rev(%q) = %q; rev prints %q", s, got, want)
		}
	}
}

// TestReferenceTables checks the expectations of the test tables against the programs.
func TestReferenceTables(t *testing.T) {
	requireReference(t)
	hasNUL := func(ss ...string) bool { return strings.Contains(strings.Join(ss, ""), "\x00") }
	for _, tt := range printfTests {
		if hasNUL(append(tt.args, tt.format)...) {
			continue
		}
		want, _ := runProgram(t, "", "bash", append([]string{"-c", `printf -- "$@"`, "bash", tt.format}, tt.args...)...)
		if tt.ok && tt.want != want || !tt.ok && !strings.HasPrefix(want, tt.want) {
			t.Errorf("printf %q %q: table says %q, %v; bash prints %q", tt.format, tt.args, tt.want, tt.ok, want)
		}
	}
	for _, tt := range echoTests {
		if hasNUL(tt.args...) {
			continue
		}
		want, _ := runProgram(t, "", "bash", append([]string{"-c", `echo "$@"`, "bash"}, tt.args...)...)
		if tt.want != want {
			t.Errorf("echo %q: table says %q; bash prints %q", tt.args, tt.want, want)
		}
	}
	for _, tt := range trTests {
		if hasNUL(tt.set1, tt.set2) || len(tt.in) > MaxOutput {
			continue
		}
		var want string
		var ok bool
		if tt.delete {
			want, ok = runProgram(t, tt.in, "tr", "-d", "--", tt.set1)
		} else {
			want, ok = runProgram(t, tt.in, "tr", "--", tt.set1, tt.set2)
		}
		if tt.ok && (!ok || tt.want != want) || !tt.ok && ok && !unsupportedSet(tt.set1+tt.set2) {
			t.Errorf("tr %q %q: table says %q, %v; tr prints %q, %v", tt.set1, tt.set2, tt.want, tt.ok, want, ok)
		}
	}
	for _, tt := range revTests {
		if !utf8.ValidString(tt.in) {
			continue
		}
		if want, _ := runProgram(t, tt.in, "rev"); tt.want != want {
			t.Errorf("rev %q: table says %q; rev prints %q", tt.in, tt.want, want)
		}
	}
	for _, c := range []struct {
		tests []decodeTest
		prog  []string
	}{
		{base64Tests, []string{"base64", "-d"}},
		{base32Tests, []string{"base32", "-d"}},
		{hexTests, []string{"xxd", "-r", "-p"}},
	} {
		for _, tt := range c.tests {
			want, ok := runProgram(t, tt.in, c.prog[0], c.prog[1:]...)
			// The decoders accept more than the programs (whitespace, unpadded input, both
			// base64 alphabets), so only check that what both decode agrees.
			if ok && tt.ok && tt.want != want {
				t.Errorf("%s %q: table says %q, %v; it prints %q, %v", c.prog, tt.in, tt.want, tt.ok, want, ok)
			}
		}
	}
}
