package call

import (
	"path"
	"strings"
)

// WindowsPath returns the path moat judges a Windows absolute path as, a drive's (C:\x,
// C:/x) or a share's (\\server\share\x): written with slashes under /, apart from every
// Unix path and outside any project on this machine, where credential patterns
// (**/.ssh/id_rsa) still match it. ok is false for any other path.
func WindowsPath(p string) (string, bool) {
	drive := len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') && ('a' <= p[0]|0x20 && p[0]|0x20 <= 'z')
	if !drive && !strings.HasPrefix(p, `\\`) {
		return "", false
	}
	return path.Clean("/" + strings.ReplaceAll(strings.TrimLeft(p, `\`), `\`, "/")), true
}
