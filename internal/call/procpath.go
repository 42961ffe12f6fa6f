package call

import (
	"path"
	"slices"
	"strings"
)

// maxProcHops bounds how many /proc prefixes ThroughProc removes from one path.
const maxProcHops = 8

// ThroughProc returns the file that p, an absolute path, names when it goes through
// /proc, cleaned: /proc/self/root/etc/shadow and /proc/1/root/home/u/.aws/credentials are
// /etc/shadow and /home/u/.aws/credentials as the reading process sees them (another
// process's root may be a container's; its files are taken for the host's, the worst
// case), and /proc/self/cwd/x is x in cwd, the reading process's directory, when cwd is
// known. The links are followed before the path is cleaned, as the kernel does:
// /proc/self/cwd/../.ssh is the .ssh beside the working directory. Any other path is
// only cleaned.
func ThroughProc(p, cwd string) string {
	if !strings.Contains(p, "proc") {
		return path.Clean(p) // most paths: no split, no allocation beyond Clean's
	}
	for range maxProcHops {
		comps := strings.Split(p, "/")
		var head []string
		i := 0
		for ; i < len(comps) && len(head) < 3; i++ {
			if c := comps[i]; c != "" && c != "." {
				head = append(head, c)
			}
		}
		if slices.Contains(head, "..") {
			p = path.Clean(p) // /proc/self/../1/root: lexically, /proc/1/root
			continue
		}
		if len(head) < 3 || head[0] != "proc" {
			return path.Clean(p)
		}
		who, link, rest := head[1], head[2], strings.Join(comps[i:], "/")
		if who != "self" && who != "thread-self" && !allDigits(who) {
			return path.Clean(p)
		}
		switch {
		case link == "root":
			p = "/" + rest
		case link == "cwd" && cwd != "" && (who == "self" || who == "thread-self"):
			p = cwd + "/" + rest
		default:
			return path.Clean(p)
		}
	}
	return path.Clean(p)
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
