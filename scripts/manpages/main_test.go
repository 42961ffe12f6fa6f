package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWritesAPagePerCommand(t *testing.T) {
	dir := t.TempDir()
	if err := write(dir, "1764115200"); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"moat.1", "moat-check.1", "moat-hook.1", "moat-daemon-start.1", "moat-ui.1"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		page := string(data)
		for _, want := range []string{".SH NAME", ".SH SYNOPSIS", "Nov 2025"} {
			if !strings.Contains(page, want) {
				t.Errorf("%s lacks %q", name, want)
			}
		}
	}
	again := t.TempDir()
	if err := write(again, "1764115200"); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(filepath.Join(dir, "moat-check.1"))
	b, _ := os.ReadFile(filepath.Join(again, "moat-check.1"))
	if string(a) != string(b) {
		t.Error("the same SOURCE_DATE_EPOCH wrote different pages")
	}
	if err := write(t.TempDir(), "yesterday"); err == nil {
		t.Error("a bad SOURCE_DATE_EPOCH was accepted")
	}
}
