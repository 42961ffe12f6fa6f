// Command manpages writes moat's man pages, one per command (moat.1, moat-check.1, …),
// into a directory:
//
//	go run ./scripts/manpages DIR
//
// The pages are dated by SOURCE_DATE_EPOCH when it is set, so that a release build
// writes the same pages every time.
package main

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/spf13/cobra/doc"

	"github.com/moatdev/moat/internal/cli"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: go run ./scripts/manpages DIR")
		os.Exit(64)
	}
	if err := write(os.Args[1], os.Getenv("SOURCE_DATE_EPOCH")); err != nil {
		fmt.Fprintf(os.Stderr, "manpages: %v\n", err)
		os.Exit(1)
	}
}

// write writes every command's page into dir, dated by epoch (seconds; "" is now).
func write(dir, epoch string) error {
	date := time.Now()
	if epoch != "" {
		secs, err := strconv.ParseInt(epoch, 10, 64)
		if err != nil {
			return fmt.Errorf("SOURCE_DATE_EPOCH %q: %w", epoch, err)
		}
		date = time.Unix(secs, 0).UTC()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	root := cli.CommandTree()
	root.DisableAutoGenTag = true
	header := &doc.GenManHeader{Title: "MOAT", Section: "1", Source: "moat", Manual: "moat manual", Date: &date}
	return doc.GenManTree(root, header, dir)
}
