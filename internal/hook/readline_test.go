package hook

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestReadLine(t *testing.T) {
	const limit = 8
	input := "short\n" + "exactly8\n" + "ninechars\n" + strings.Repeat("x", 100) + "\n" + "crlf\r\n" + "\n" + "last"
	want := []struct {
		line    string
		tooLong bool
	}{{"short", false}, {"exactly8", false}, {"", true}, {"", true}, {"crlf", false}, {"", false}, {"last", false}}
	// A small buffer forces lines to span several reads.
	r := bufio.NewReaderSize(strings.NewReader(input), 16)
	for i, w := range want {
		line, tooLong, err := ReadLine(r, limit)
		if err != nil && !errors.Is(err, io.EOF) {
			t.Fatal(err)
		}
		if string(line) != w.line || tooLong != w.tooLong {
			t.Errorf("line %d: got %q tooLong=%v, want %q %v", i, line, tooLong, w.line, w.tooLong)
		}
		if i == len(want)-1 && !errors.Is(err, io.EOF) {
			t.Errorf("last line: err = %v, want EOF", err)
		}
	}
}
