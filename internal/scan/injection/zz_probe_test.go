package injection

import (
	"bufio"
	"fmt"
	"os"
	"testing"
)

func TestZZProbe(t *testing.T) {
	f, err := os.Open(os.Getenv("PROBE"))
	if err != nil {
		t.Skip()
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		fs := Find(line)
		tag := "MISS"
		if len(fs) > 0 {
			tag = fmt.Sprintf("HIT %v", fs[0])
		}
		fmt.Printf("%s\t%.100s\n", tag, line)
	}
}

func BenchmarkZZMan(b *testing.B) {
	data, err := os.ReadFile(os.Getenv("PROBE"))
	if err != nil {
		b.Skip()
	}
	s := string(data[:4<<20])
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		Find(s)
	}
}

func TestZZKw(t *testing.T) { fmt.Printf("%q\n", translatedOverrideKeywords()) }
