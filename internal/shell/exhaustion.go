package shell

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/moatdev/moat/internal/call"
)

// This file finds commands that exhaust the machine's resources without starting
// processes (fork bombs are analyzer.go's): output without end written to a file, which
// fills the disk; a stream without end read to its end, or spun through /dev/null, which
// burns a processor until someone kills it; a command run for each line of a stream
// without end; an endless loop whose body never waits, sleeps or leaves.
//
// A stream is endless when it comes from yes, seq inf, or a device that never ends
// (/dev/zero, /dev/urandom), and stays endless through the programs that pass their input
// on (tr, base64, gzip), until one reads a bounded part of it: head -c 16, dd count=1.

// findExhaustion is the finding of this file.
const findExhaustion = "destructive.resource-exhaustion"

// largeBytes is the size from which reading a part of an endless stream (head -c 200G) is
// no bound at all: it fills a disk as surely.
const largeBytes = 1 << 30

// endlessDevice reports whether reading p never reaches an end of file.
func endlessDevice(p string) bool {
	switch p {
	case "/dev/zero", "/dev/urandom", "/dev/random", "/dev/full":
		return true
	}
	return false
}

// endlessEffects marks what the command produces without end, and whether it reads a
// bounded part of its input; streamEffects calls it once the command's accesses are known.
func (a *analyzer) endlessEffects(m *cmdMeta, v *view) {
	switch v.name {
	case "yes":
		m.out.t |= tEndless
		return
	case "seq":
		if len(v.raw) > 0 && endlessCount(v.raw[len(v.raw)-1]) {
			m.out.t |= tEndless
		}
		return
	case "dd":
		// dd if=/dev/zero without count= copies without end; of= is its own output.
		m.bounds = ddBounded(v)
		if !m.bounds && ddReadsEndless(v) {
			m.out.t |= tEndless
		}
		return
	}
	m.bounds = boundedReader(v)
	if m.bounds {
		return
	}
	for _, x := range v.raw {
		if !x.dynamic && endlessDevice(x.lit) {
			// cat /dev/zero, sort /dev/urandom, base64 /dev/urandom: read to an end that
			// never comes.
			m.out.t |= tEndless
			return
		}
	}
}

// endlessCount: seq's last operand inf, infinity, or a count of a billion or more.
func endlessCount(x arg) bool {
	if x.dynamic {
		return false
	}
	s := strings.ToLower(x.lit)
	if s == "inf" || s == "infinity" || s == "+inf" {
		return true
	}
	n, err := strconv.ParseFloat(s, 64)
	return err == nil && n >= 1e9
}

// boundedReader reports whether the command reads only a part of its input, small enough
// to be no flood: head with a count under largeBytes (or none: ten lines), od -N, xxd -l,
// hexdump -n, cmp -n.
func boundedReader(v *view) bool {
	switch v.name {
	case "head":
		for _, o := range v.opts {
			if (o.name == "c" || o.name == "bytes" || o.name == "n" || o.name == "lines") && o.hasValue {
				return !o.val.dynamic && byteCount(o.val.lit) < largeBytes
			}
		}
		for _, x := range v.args {
			// head -100, the old spelling of -n 100.
			if !x.dynamic && len(x.lit) > 1 && x.lit[0] == '-' && isDigits(x.lit[1:]) {
				return byteCount(x.lit[1:]) < largeBytes
			}
		}
		return true
	case "od", "hexdump":
		return v.flag("N", "n", "read-bytes", "length")
	case "xxd":
		return v.flag("l", "len")
	case "cmp":
		return v.flag("n", "bytes")
	}
	return false
}

// byteCount reads a count with an optional size suffix (16, 4K, 100G, 1MB, 2GiB); one it
// cannot read counts as large.
func byteCount(s string) float64 {
	s = strings.TrimPrefix(strings.ToUpper(strings.TrimSpace(s)), "-")
	s = strings.TrimSuffix(strings.TrimSuffix(s, "B"), "I")
	mult := 1.0
	if s != "" {
		switch s[len(s)-1] {
		case 'K':
			mult = 1 << 10
		case 'M':
			mult = 1 << 20
		case 'G':
			mult = 1 << 30
		case 'T':
			mult = 1 << 40
		case 'P', 'E':
			mult = 1 << 50
		}
		if mult > 1 {
			s = s[:len(s)-1]
		}
	}
	n, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return largeBytes
	}
	return n * mult
}

// ddBounded: dd copies at most count= blocks (or count= bytes with iflag=count_bytes),
// under largeBytes in all.
func ddBounded(v *view) bool {
	bs, count := 512.0, -1.0
	for _, x := range v.raw {
		if x.dynamic {
			continue
		}
		key, val, _ := strings.Cut(x.lit, "=")
		switch key {
		case "bs", "ibs":
			bs = byteCount(val)
		case "count":
			count = byteCount(val)
		case "iflag":
			if strings.Contains(val, "count_bytes") {
				bs = 1
			}
		}
	}
	return count >= 0 && count*bs < largeBytes
}

// ddReadsEndless: dd's if= names a device without end.
func ddReadsEndless(v *view) bool {
	for _, x := range v.raw {
		if val, ok := strings.CutPrefix(x.lit, "if="); ok && !x.dynamic && endlessDevice(val) {
			return true
		}
	}
	return false
}

// exhaustionSinks reports where an endless stream meets the command at i: its output,
// endless, goes to a file (the disk fills), to /dev/null (a processor spins for
// nothing), or nowhere but the line's output or a substitution (it floods the agent's
// output, or memory); xargs and parallel run a command for each of its lines, and the
// programs that read their input to its end (sort, wc, md5sum) never finish. A stream
// piped on is the next command's to judge: it may pass it on, bound it, or stop reading.
func (a *analyzer) exhaustionSinks(i int) {
	m := &a.meta[i]
	a.outOf(i)
	c := &a.cmds[i]
	endless := m.produced.t&tEndless != 0
	switch {
	case endless && m.stdoutRedirected && !m.stdoutNull:
		target := m.stdoutFile
		if target == "" {
			target = "a file"
		}
		if m.prog == "dd" {
			target = ddTarget(c, target)
		}
		if strings.HasPrefix(target, "/dev/") {
			return // a device: overwriting a disk is disk.wipe's, a terminal fills nothing
		}
		*c = withFinding(*c, findExhaustion, "writes output without end to "+target+", until the disk is full")
	case endless && m.stdoutNull:
		*c = withFinding(*c, findExhaustion, "reads input without end into /dev/null, spinning until it is killed")
	case (m.xargs || readsToEnd(m.prog)) && a.inOf(i).t&tEndless != 0:
		*c = withFinding(*c, findExhaustion, c.Name+" reads input without end, and never finishes")
	case endless && !m.stdoutRedirected && !a.consumed(i):
		*c = withFinding(*c, findExhaustion, c.Name+" prints output without end, until it is killed or memory runs out")
	}
}

// consumed reports whether a later command of the line reads the output of the command
// at i through a pipe.
func (a *analyzer) consumed(i int) bool {
	for j := i + 1; j < len(a.meta); j++ {
		if m := &a.meta[j]; m.piped && m.in.from.start <= i && i < m.in.from.end {
			return true
		}
	}
	return false
}

// passesEndless: the filters that copy their input to their output as they read it, so
// that an endless input makes an endless output. Any other program may stop reading (yes
// | apt-get install), and what it prints is its own.
func passesEndless(prog string) bool {
	switch prog {
	case "cat", "tee", "tr", "base64", "base32", "basenc", "gzip", "bzip2", "xz", "zstd", "lz4", "brotli",
		"sed", "awk", "gawk", "mawk", "grep", "cut", "rev", "fold", "od", "xxd", "hexdump", "nl", "strings",
		"paste", "expand", "unexpand", "iconv", "pv", "buffer", "dd", "head", "tail", "uniq", "sort", "shuf", "tac":
		return true
	}
	return false
}

// readsToEnd: programs that read their whole input before they finish or print.
func readsToEnd(prog string) bool {
	switch prog {
	case "sort", "wc", "md5sum", "sha1sum", "sha256sum", "sha512sum", "cksum", "b2sum", "tac", "parallel", "shuf":
		return true
	}
	return false
}

// ddTarget names what dd's of= writes, from its accesses.
func ddTarget(c *call.Command, fallback string) string {
	for _, acc := range c.Accesses {
		if acc.Kind == call.Write {
			return acc.Path
		}
	}
	return fallback
}

// spins reports whether an endless loop's body runs only commands that end at once and
// never waits, sleeps, reads or leaves the loop: it spins a processor, or grows a
// directory tree, a file or the open descriptors, until it is killed.
func spins(body []*syntax.Stmt) bool {
	if len(body) == 0 {
		return true
	}
	quick := true
	for _, s := range body {
		syntax.Walk(s, func(n syntax.Node) bool {
			if !quick {
				return false
			}
			switch n := n.(type) {
			case *syntax.CallExpr:
				if len(n.Args) == 0 {
					return true // assignments alone
				}
				name := n.Args[0].Lit()
				if !instantCommand(name) || name == "exec" && len(n.Args) > 1 {
					// exec PROGRAM replaces the shell, ending the loop.
					quick = false
				}
			case *syntax.WhileClause, *syntax.ForClause, *syntax.CmdSubst, *syntax.ProcSubst:
				quick = false // an inner loop or a substitution: not read here
			}
			return true
		})
	}
	return quick
}

// instantCommand: builtins and small programs that return at once, whatever they are
// given, so that a loop of them never pauses.
func instantCommand(name string) bool {
	switch name {
	case ":", "true", "false", "echo", "printf", "cd", "mkdir", "touch", "test", "[", "let",
		"export", "exec", "ln", "cp", "mktemp", "date", "expr":
		return true
	}
	return false
}
