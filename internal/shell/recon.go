package shell

import (
	"path"
	"strings"
)

// Reconnaissance of the machine itself: a search for set-user-ID programs or file
// capabilities (the first step of a privilege escalation), or for credential files by
// name across the disk or the home directory. Each only lists names, and is recorded
// (audited) rather than asked: what is done with what it finds is judged when it is done.

const findRecon = "reconnaissance.system-enum"

// findEnumerates is the rule body of find: -perm for set-user-ID or set-group-ID bits, or
// -name of a credential file below / or the home directory.
func findEnumerates(a *analyzer, v *view) string {
	var roots []string
	i := 0
	for ; i < len(v.args); i++ {
		x := v.args[i]
		if !x.dynamic && (strings.HasPrefix(x.lit, "-") || x.lit == "(" || x.lit == "!") {
			break
		}
		roots = append(roots, x.lit)
	}
	wide := false
	home, _ := a.st.get("HOME")
	for _, r := range roots {
		r = path.Clean(r)
		if r == "/" || r == "~" || home.known && r == home.s || strings.HasPrefix(r, "/") && systemPath(r) {
			wide = true
		}
	}
	expr := v.args[i:]
	for k := 0; k+1 < len(expr); k++ {
		opt, val := expr[k].lit, expr[k+1].lit
		switch opt {
		case "-perm":
			if setIDMode(val) {
				return "find -perm " + val + " lists set-user-ID or set-group-ID programs"
			}
		case "-name", "-iname":
			if wide && credentialName(strings.ToLower(val)) {
				return "find " + strings.Join(roots, " ") + " " + opt + " " + val + " searches for credential files"
			}
		}
	}
	return ""
}

// setIDMode reports whether a find -perm mode selects the set-user-ID or set-group-ID
// bit: -4000, /4000, +6000, -u=s, /g+s.
func setIDMode(m string) bool {
	m = strings.TrimLeft(m, "-/+")
	if strings.Contains(m, "u=s") || strings.Contains(m, "g=s") || strings.Contains(m, "u+s") || strings.Contains(m, "g+s") {
		return true
	}
	return len(m) == 4 && (m[0] == '2' || m[0] == '4' || m[0] == '6') && isDigits(m)
}

// credentialName reports whether a file name pattern searched for names credential files.
func credentialName(n string) bool {
	n = strings.Trim(n, `'"`)
	for _, p := range []string{"id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", ".pem", ".key", ".p12", ".pfx", ".kdbx", ".ovpn",
		".netrc", ".git-credentials", ".pgpass", "credentials", "wallet.dat", ".tfstate", ".env", "secrets", "kubeconfig"} {
		if strings.Contains(n, p) {
			return true
		}
	}
	return false
}
