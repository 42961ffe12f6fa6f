package policy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/moatdev/moat/internal/regfile"
)

// DropInNamePattern is what a drop-in pack may be called: a name `extends` and `packs`
// can list (no path separator, no .yaml ending) and a shell can type without quoting.
// The drop-in directories (dirs.Dirs.PackDirs) hold one NAME.yaml per pack, in the same
// format as moat's embedded packs.
const DropInNamePattern = `^[a-z0-9][a-z0-9_-]*$`

var dropInName = regexp.MustCompile(DropInNamePattern)

// DropIn is a pack file found in a drop-in directory.
type DropIn struct {
	Name string
	Path string
	// Ignored says why the file is not used as a pack, or is "": an embedded pack or a
	// file in an earlier directory has the same name, or the file's name cannot be a
	// pack's.
	Ignored string
}

// DropIns lists the pack files in dirs (searched in that order, as LoadOptions.PackDirs
// are), each with the reason it is ignored, if it is: nothing in a drop-in directory is
// passed over without a word. A directory that does not exist holds nothing.
func DropIns(dirs []string) ([]DropIn, error) {
	var out []DropIn
	owner := map[string]string{}
	for _, n := range PackNames() {
		owner[n] = "moat's embedded pack"
	}
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("reading the packs in %s: %w", dir, err)
		}
		for _, e := range entries {
			base, ok := strings.CutSuffix(e.Name(), ".yaml")
			if !ok || strings.HasPrefix(e.Name(), ".") {
				continue
			}
			d := DropIn{Name: base, Path: filepath.Join(dir, e.Name())}
			switch prev, taken := owner[base]; {
			case !dropInName.MatchString(base):
				d.Ignored = "a pack's name is lower-case letters, digits, - and _"
			case taken:
				d.Ignored = "hidden by " + prev + " of the same name"
			default:
				owner[base] = d.Path
			}
			out = append(out, d)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// findPack locates the pack name: moat's embedded pack of that name, or else the first
// dirs entry holding NAME.yaml. It returns the pack's source name, its text, and its
// file ("" for an embedded pack).
func findPack(name string, dirs []string) (source string, data []byte, path string, err error) {
	if data, err := packFS.ReadFile("packs/" + name + ".yaml"); err == nil {
		return EmbeddedPrefix + "pack/" + name, data, "", nil
	}
	if dropInName.MatchString(name) {
		for _, dir := range dirs {
			p := filepath.Join(dir, name+".yaml")
			data, err := regfile.Read(p, MaxIncludedBytes)
			switch {
			case err == nil:
				return p, data, p, nil
			case !errors.Is(err, fs.ErrNotExist):
				return "", nil, "", fmt.Errorf("pack %q: %w", name, err)
			}
		}
	}
	known := PackNames()
	if ds, err := DropIns(dirs); err == nil {
		for _, d := range ds {
			if d.Ignored == "" {
				known = append(known, d.Name)
			}
		}
	}
	slices.Sort(known)
	where := ""
	if len(dirs) > 0 {
		where = "; a team's own packs go in " + strings.Join(dirs, " or ")
	}
	return "", nil, "", fmt.Errorf("unknown pack %q%s (known: %s%s)", name, suggest(name, known), strings.Join(known, ", "), where)
}
