package oneliner

import (
	"regexp"
	"strings"
	"sync"
)

// File operations of the languages' libraries, as the file accesses they are: a rename is
// a write of its destination and a delete of its source, a copy a read of its source and
// a write of its destination, a link a write of the link's path. The code is folded first
// (fold.go), so a path built from literals, the home directory and joins is a literal
// here; a path that is not is written or deleted where moat cannot see, and the code is
// opaque.

type fileOp struct {
	re *regexp.Regexp // the call, ending where its arguments begin
	// Argument indexes: read, read whole as a directory tree, written, deleted.
	reads, trees, writes, deletes []int
	// archive says the call writes an archive named by argument 0 and a format name in
	// argument 1 (shutil.make_archive('/tmp/p', 'zip', '.') writes /tmp/p.zip).
	archive     bool
	recursive   bool
	recursiveIf *regexp.Regexp // recursive when the arguments match ({recursive: true})
	// mode is the index of an argument that says whether the file is opened for writing
	// (open(p, 'w')); the path is argument 0 (or modePath), read otherwise.
	mode, modePath int
	modeWrite      *regexp.Regexp
}

var writeModeChars = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*(?:mode\s*=\s*|flags\s*:\s*)?["'][^"']*[wax+]|O_(?:WRONLY|RDWR|CREAT|TRUNC|APPEND)`)
})

var perlWriteMode = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*["']\s*(?:\+?>|\+<)`)
})

func op(re string) fileOp { return fileOp{re: regexp.MustCompile(re), mode: -1} }

func (o fileOp) r(i ...int) fileOp { o.reads = i; return o }
func (o fileOp) t(i ...int) fileOp { o.trees = i; return o }
func (o fileOp) w(i ...int) fileOp { o.writes = i; return o }
func (o fileOp) d(i ...int) fileOp { o.deletes = i; return o }
func (o fileOp) rec() fileOp       { o.recursive = true; return o }
func (o fileOp) archiveOf() fileOp { o.archive = true; return o }
func (o fileOp) recIf(re string) fileOp {
	o.recursiveIf = regexp.MustCompile(re)
	return o
}
func (o fileOp) m(mode, path int, re *regexp.Regexp) fileOp {
	o.mode, o.modePath, o.modeWrite = mode, path, re
	return o
}

var fileOps = sync.OnceValue(func() map[Lang][]fileOp {
	wm := writeModeChars()
	return map[Lang][]fileOp{
		Python: {
			op(`\bPath\.(?:write_text|write_bytes|touch|chmod|symlink_to|hardlink_to|link_to)\s*\(`).w(0),
			op(`\bPath\.(?:unlink|rmdir)\s*\(`).d(0),
			op(`\bPath\.(?:rename|replace)\s*\(|\bos\.(?:rename|replace|renames)\s*\(|\bshutil\.move\s*\(`).d(0).w(1),
			op(`\bPath\.(?:read_text|read_bytes)\s*\(`).r(0),
			op(`\bPath\.open\s*\(|\bos\.open\s*\(`).m(1, 0, wm),
			op(`\bshutil\.(?:copy|copy2|copyfile|copymode|copystat|copyfileobj)\s*\(`).r(0).w(1),
			op(`\bshutil\.copytree\s*\(`).t(0).w(1),
			op(`\bshutil\.make_archive\s*\(`).t(2).archiveOf(),
			op(`\bos\.(?:symlink|link)\s*\(`).w(1),
			op(`\bos\.(?:truncate|chmod|chown|lchown|utime|mkfifo|mknod)\s*\(`).w(0),
			op(`\burlretrieve\s*\(`).w(1),
		},
		Node: {
			op(`\b(?:writeFileSync|writeFile|appendFileSync|appendFile|createWriteStream|truncateSync|truncate|chmodSync|chownSync|utimesSync)\s*\(|\bDeno\.(?:writeTextFile|writeFile|truncate|chmod)(?:Sync)?\s*\(|\bBun\.write\s*\(`).w(0),
			op(`\brenameSync\s*\(|\.rename\s*\(|\bDeno\.rename(?:Sync)?\s*\(`).d(0).w(1),
			op(`\bcopyFileSync\s*\(|\.copyFile\s*\(|\bDeno\.copyFile(?:Sync)?\s*\(`).r(0).w(1),
			op(`\bcpSync\s*\(|\.cp\s*\(`).t(0).w(1),
			op(`\b(?:symlinkSync|linkSync)\s*\(|\.(?:symlink|link)\s*\(|\bDeno\.(?:symlink|link)(?:Sync)?\s*\(`).w(1),
			op(`\bDeno\.remove(?:Sync)?\s*\(`).d(0).recIf(`recursive\s*:\s*true`),
			op(`\bopenSync\s*\(|\bfs\.open\s*\(|\.promises\.open\s*\(`).m(1, 0, wm),
		},
		Ruby: {
			op(`\b(?:File|IO)\.(?:write|binwrite)\b\s*\(?|\bPath\.(?:write|binwrite|make_symlink)\s*\(|\bFileUtils\.touch\b\s*\(?`).w(0),
			op(`\bFile\.rename\b\s*\(?|\bFileUtils\.(?:mv|move)\b\s*\(?|\bPath\.rename\s*\(`).d(0).w(1),
			op(`\bFileUtils\.(?:cp|copy|copy_file|install)\b\s*\(?|\bIO\.copy_stream\b\s*\(?`).r(0).w(1),
			op(`\bFileUtils\.(?:cp_r|copy_entry)\b\s*\(?`).t(0).w(1),
			op(`\bFile\.(?:symlink|link)\b\s*\(?|\bFileUtils\.(?:ln|ln_s|ln_sf|link|symlink)\b\s*\(?`).w(1),
			op(`\bPath\.(?:delete|unlink)\s*\(`).d(0),
			op(`\bPath\.rmtree\s*\(`).d(0).rec(),
		},
		Perl: {
			op(`\bopen\b\s*\(?`).m(1, 2, perlWriteMode()),
			op(`(?:^|[^\w$>:])rename\b\s*\(?|\bFile::Copy::move\b\s*\(?|(?:^|[^\w$>:])move\s*\(`).d(0).w(1),
			op(`\bFile::Copy::copy\b\s*\(?|(?:^|[^\w$>:])copy\s*\(`).r(0).w(1),
			op(`(?:^|[^\w$>:])(?:symlink|link)\b\s*\(?`).w(1),
		},
		PHP: {
			op(`\b(?:file_put_contents|touch)\s*\(`).w(0),
			op(`\brename\s*\(`).d(0).w(1),
			op(`\bcopy\s*\(`).r(0).w(1),
			op(`\b(?:symlink|link)\s*\(`).w(1),
		},
		Lua: {
			op(`\bos\.rename\s*\(`).d(0).w(1),
		},
	}
})

// fileOpWords are, per language, words one of which every file operation's call
// contains, so that code with none is not scanned (TestFileOpWordsCoverOps checks them).
var fileOpWords = sync.OnceValue(func() map[Lang][]string {
	return map[Lang][]string{
		Python: {"Path.", "os.", "shutil.", "urlretrieve"},
		Node:   {"Sync", "rename", "copyFile", "cp", "symlink", "link", "Deno.", "Bun.", "open", "truncate", "chmod", "write", "append", "Stream"},
		Ruby:   {"File", "IO.", "Path."},
		Perl:   {"open", "rename", "move", "copy", "link"},
		PHP:    {"file_put_contents", "touch", "rename", "copy", "link"},
		Lua:    {"os.rename"},
	}
})

// fileAccesses adds what the file operations in folded code read, write and delete.
func fileAccesses(lang Lang, code string, r *Result) {
	if !mentionsAny(code, fileOpWords()[lang]) {
		return
	}
	for _, o := range fileOps()[lang] {
		for _, loc := range findAll(o.re, code) {
			args := splitTop(callText(code, loc[1]))
			if o.mode >= 0 {
				if o.mode >= len(args) || !o.modeWrite.MatchString(args[o.mode]) {
					continue // opened for reading: the patterns' reads see it
				}
				o.writes = []int{o.modePath}
			}
			for _, i := range o.reads {
				if i < len(args) {
					if p, ok := wholePath(args[i]); ok {
						r.Reads = append(r.Reads, p)
					}
				}
			}
			for _, i := range o.trees {
				if i < len(args) {
					if p, ok := wholePath(args[i]); ok {
						r.Trees = append(r.Trees, p)
					} else {
						r.Opaque = append(r.Opaque, "reads a directory computed at run time: "+shorten(code[loc[0]:min(len(code), loc[1]+len(args[i]))]))
					}
				}
			}
			if o.archive {
				archiveWrite(code, loc, args, r)
			}
			for _, i := range o.writes {
				if i >= len(args) {
					continue
				}
				if p, ok := wholePath(args[i]); ok {
					r.Writes = append(r.Writes, p)
				} else {
					r.Opaque = append(r.Opaque, "writes a path computed at run time: "+shorten(code[loc[0]:min(len(code), loc[1]+len(args[i]))]))
					r.computedWrites = append(r.computedWrites, leadingName(args[i]))
				}
			}
			for _, i := range o.deletes {
				if i >= len(args) {
					continue
				}
				if p, ok := wholePath(args[i]); ok {
					rec := o.recursive || o.recursiveIf != nil && o.recursiveIf.MatchString(callText(code, loc[1]))
					r.Deletes = append(r.Deletes, Delete{Path: p, Recursive: rec})
				} else {
					r.Opaque = append(r.Opaque, "deletes a path computed at run time: "+shorten(code[loc[0]:min(len(code), loc[1]+len(args[i]))]))
					r.computedDeletes = append(r.computedDeletes, leadingName(args[i]))
					r.deleteRec = r.deleteRec || o.recursive || o.recursiveIf != nil && o.recursiveIf.MatchString(callText(code, loc[1]))
				}
			}
		}
	}
}

// wholePath reads an argument that is one literal path (the home directory written ~).
func wholePath(arg string) (string, bool) {
	lit, n, ok := literalAt(arg)
	if !ok || strings.TrimSpace(arg[n:]) != "" || lit == "" {
		return "", false
	}
	return lit, true
}

// archiveExtension is the file name ending of a shutil.make_archive format; "" for one
// it does not know.
func archiveExtension(format string) string {
	switch format {
	case "zip", "tar":
		return "." + format
	case "gztar":
		return ".tar.gz"
	case "bztar":
		return ".tar.bz2"
	case "xztar":
		return ".tar.xz"
	}
	return ""
}

// archiveWrite records the archive make_archive(BASE, FORMAT, …) writes: BASE with the
// format's ending. A name or format computed at run time is opaque.
func archiveWrite(code string, loc []int, args []string, r *Result) {
	if len(args) >= 2 {
		base, okBase := wholePath(args[0])
		format, okFormat := wholePath(args[1])
		if ext := archiveExtension(format); okBase && okFormat && ext != "" {
			r.Writes = append(r.Writes, base+ext)
			return
		}
	}
	r.Opaque = append(r.Opaque, "writes an archive named at run time: "+shorten(code[loc[0]:min(len(code), loc[1]+40)]))
}
