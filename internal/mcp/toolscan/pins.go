package toolscan

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/moatdev/moat/internal/atomicfile"
	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/strictjson"
)

// Pins are the definitions of one server's tools as they were first seen or last
// accepted (trust on first use): a tool that later lists another description or schema
// is a change that waits for the user's acceptance, the defence against a server that
// turns a tool malicious after it was approved.
//
// Pins live in one JSON file per server, <dir>/<server>.json (mode 0600), holding
// hashes only. Several proxies for the same server may share the file: Save rereads it
// and merges under the file's lock (see Save), and every write replaces the whole file
// atomically, so a reader sees the old file or the new one, never a mix. A Pins value is not safe for
// concurrent use; a long-running proxy that wants to see another process's
// acceptance opens the file again.
type Pins struct {
	path, server string
	tools        map[string]*pinEntry
	base         map[string]Pin // the pins as last read from or written to the file
	dirty        map[string]bool
}

// pinEntry is one tool in the file: its pin, and the definition last seen when that
// differs, waiting to be accepted.
type pinEntry struct {
	Pin
	Pending *Pin `json:"pending,omitempty"`
}

// pinFile is the file's layout.
type pinFile struct {
	Version int                  `json:"version"`
	Server  string               `json:"server"`
	Tools   map[string]*pinEntry `json:"tools"`
}

const pinVersion = 1

// Change is a tool whose listed definition differs from its pin.
type Change struct {
	Tool    string
	OldHash string // Pin.SHA256 of the pinned definition
	NewHash string // Pin.SHA256 of the definition listed now
	// Description and InputSchema report which part changed; a change of name alone
	// cannot happen, since tools are pinned by name.
	Description, InputSchema bool
}

// Finding returns the change as a finding of kind mcp.tool-changed for server.
func (c Change) Finding(server string) call.Finding {
	var parts []string
	if c.Description {
		parts = append(parts, "description")
	}
	if c.InputSchema {
		parts = append(parts, "input schema")
	}
	what := strings.Join(parts, " and ")
	if what == "" {
		what = "definition"
	}
	return call.NewFinding(FindChanged, fmt.Sprintf("tool %q: %s changed since it was pinned (sha256 %s… now %s…); accept with moat mcp pin --accept",
		server+"/"+c.Tool, what, shortHash(c.OldHash), shortHash(c.NewHash)))
}

// maxServerName bounds the server names Open accepts; the file name is bounded anyway.
const maxServerName = 1024

// Open returns the pins of server kept in dir. A server without a pin file yet has no
// pins: its tools are pinned as Check first sees them. A file that cannot be read or
// parsed, or that names another server, is an error and never an empty set of pins,
// which would let a changed tool through as new.
func Open(dir, server string) (*Pins, error) {
	if dir == "" {
		return nil, errors.New("mcp pins: no directory")
	}
	name, err := PinFileName(server)
	if err != nil {
		return nil, err
	}
	p := &Pins{path: filepath.Join(dir, name), server: server, dirty: map[string]bool{}}
	f, err := readPins(p.path, server)
	if err != nil {
		return nil, err
	}
	p.adopt(f)
	return p, nil
}

// adopt makes f's tools the current state and the base of the next merge.
func (p *Pins) adopt(f *pinFile) {
	p.tools = f.Tools
	p.base = make(map[string]Pin, len(f.Tools))
	for name, e := range f.Tools {
		p.base[name] = e.Pin
	}
}

// readPins reads a pin file; a missing file is an empty one.
func readPins(path, server string) (*pinFile, error) {
	empty := &pinFile{Version: pinVersion, Server: server, Tools: map[string]*pinEntry{}}
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return empty, nil
	}
	if err != nil {
		return nil, fmt.Errorf("mcp pins: %w", err)
	}
	if !fi.Mode().IsRegular() {
		// The writer refuses to replace a link, so reading through one would show pins
		// that Save can never update.
		return nil, fmt.Errorf("mcp pins: %s is not a regular file", path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("mcp pins: %w", err)
	}
	if err := strictjson.Check(data, strictjson.Limits{}); err != nil {
		return nil, fmt.Errorf("mcp pins: %s: %w", path, err)
	}
	var f pinFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("mcp pins: %s: %w", path, err)
	}
	switch {
	case f.Version != pinVersion:
		return nil, fmt.Errorf("mcp pins: %s: version %d, want %d", path, f.Version, pinVersion)
	case f.Server != server:
		return nil, fmt.Errorf("mcp pins: %s holds the pins of server %q, not %q", path, f.Server, server)
	}
	if f.Tools == nil {
		f.Tools = map[string]*pinEntry{}
	}
	for name, e := range f.Tools {
		if e == nil || !validHash(e.SHA256) || !validHash(e.Description) || !validHash(e.InputSchema) ||
			e.Pending != nil && (!validHash(e.Pending.SHA256) || !validHash(e.Pending.Description) || !validHash(e.Pending.InputSchema)) {
			return nil, fmt.Errorf("mcp pins: %s: tool %q: malformed pin", path, name)
		}
	}
	return &f, nil
}

func validHash(h string) bool {
	if len(h) != 2*sha256.Size {
		return false
	}
	_, err := hex.DecodeString(h)
	return err == nil && strings.ToLower(h) == h
}

// Check compares the listed tools with their pins. A tool seen for the first time is
// pinned and returned in added; a tool whose definition differs from its pin is
// returned in changed and stays pending until accepted, so that every later listing
// reports it again. A tool that lists its pinned definition again clears what was
// pending. Pinned tools missing from the listing are kept: tools/list is paginated,
// and a page says nothing of the tools on other pages. Changes take effect in the
// file only when Save is called.
func (p *Pins) Check(tools []Tool) (changed []Change, added []string) {
	for _, t := range tools {
		now := PinOf(t)
		e, ok := p.tools[t.Name]
		if !ok {
			p.tools[t.Name] = &pinEntry{Pin: now}
			p.dirty[t.Name] = true
			added = append(added, t.Name)
			continue
		}
		if now == e.Pin {
			if e.Pending != nil {
				e.Pending = nil
				p.dirty[t.Name] = true
			}
			continue
		}
		if e.Pending == nil || *e.Pending != now {
			e.Pending = &now
			p.dirty[t.Name] = true
		}
		changed = append(changed, Change{Tool: t.Name, OldHash: e.SHA256, NewHash: now.SHA256,
			Description: e.Description != now.Description, InputSchema: e.InputSchema != now.InputSchema})
	}
	return changed, added
}

// Pending returns the changes that wait for acceptance, sorted by tool name, as the
// last Check in any process that saved saw them.
func (p *Pins) Pending() []Change {
	var out []Change
	for name, e := range p.tools {
		if e.Pending != nil {
			out = append(out, Change{Tool: name, OldHash: e.SHA256, NewHash: e.Pending.SHA256,
				Description: e.Description != e.Pending.Description, InputSchema: e.InputSchema != e.Pending.InputSchema})
		}
	}
	slices.SortFunc(out, func(a, b Change) int { return strings.Compare(a.Tool, b.Tool) })
	return out
}

// Accept re-pins the named tools to their pending definitions. It changes nothing and
// returns an error when one of them has no pending change, so that a mistyped name is
// not taken for an accepted one.
func (p *Pins) Accept(names ...string) error {
	var missing []string
	for _, name := range names {
		if e, ok := p.tools[name]; !ok || e.Pending == nil {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("mcp pins: server %q: no pending change for %s", p.server, strings.Join(quoteAll(missing), ", "))
	}
	for _, name := range names {
		e := p.tools[name]
		e.Pin, e.Pending = *e.Pending, nil
		p.dirty[name] = true
	}
	return nil
}

// AcceptAll re-pins every tool with a pending change and returns their names, sorted.
func (p *Pins) AcceptAll() []string {
	var names []string
	for _, c := range p.Pending() {
		names = append(names, c.Tool)
	}
	if err := p.Accept(names...); err != nil {
		return nil // cannot happen: every name has a pending change
	}
	return names
}

// Save writes the pins to their file, creating the directory (mode 0700) if needed. It
// does nothing when nothing changed since Open or the last Save.
//
// The file is reread first and merged, tool by tool, so that one proxy does not undo
// what another process recorded meanwhile: a tool that only this Pins changed is written
// as it is here; a tool whose pin another process moved since this one read it (an
// acceptance by moat mcp pin) keeps that pin, and what this Pins last saw becomes
// pending if it differs; an acceptance made here wins over one made there (the last
// writer wins). Writers hold the file's lock (atomicfile.Lock) from the reread to the
// rename, so none of them, in this process or another, slips in between and has its
// changes dropped.
func (p *Pins) Save() error {
	if len(p.dirty) == 0 {
		return nil
	}
	unlock, err := atomicfile.Lock(p.path)
	if err != nil {
		return fmt.Errorf("mcp pins: %w", err)
	}
	defer unlock()
	disk, err := readPins(p.path, p.server)
	if err != nil {
		return err
	}
	for name := range p.dirty {
		mine := p.tools[name]
		theirs, onDisk := disk.Tools[name]
		base, known := p.base[name]
		switch {
		case !onDisk, known && theirs.Pin == base, known && mine.Pin != base:
			disk.Tools[name] = mine
		default:
			// The pin moved under us; it stands, and what we saw last waits beside it.
			latest := mine.Pin
			if mine.Pending != nil {
				latest = *mine.Pending
			}
			e := &pinEntry{Pin: theirs.Pin}
			if latest != theirs.Pin {
				e.Pending = &latest
			}
			disk.Tools[name] = e
		}
	}
	data, err := json.MarshalIndent(disk, "", "  ")
	if err != nil {
		return fmt.Errorf("mcp pins: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(p.path), 0o700); err != nil {
		return fmt.Errorf("mcp pins: %w", err)
	}
	if err := atomicfile.WriteFile(p.path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("mcp pins: %w", err)
	}
	p.adopt(disk)
	clear(p.dirty)
	return nil
}

// PinFileName returns the name of the pin file of server within the pins directory.
// A server name is chosen by whoever wrote the agent's MCP configuration and may hold
// anything: names of lower-case letters, digits, '-' and '_' (up to 64 bytes) are used
// as they are; any other name becomes a readable prefix and a hash of the whole name,
// so that no name can leave the directory ("../x", "a/b"), collide with another on a
// case-insensitive file system ("GitHub" and "github") or with a device name on
// Windows ("con"), or exceed the file system's limits.
func PinFileName(server string) (string, error) {
	switch {
	case server == "":
		return "", errors.New("mcp pins: empty server name")
	case len(server) > maxServerName:
		return "", fmt.Errorf("mcp pins: server name of %d bytes, more than %d", len(server), maxServerName)
	}
	if plainName(server) {
		return server + ".json", nil
	}
	var prefix []byte
	for i := 0; i < len(server) && len(prefix) < 32; i++ {
		c := server[i]
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '-', c == '_':
			prefix = append(prefix, c)
		case 'A' <= c && c <= 'Z':
			prefix = append(prefix, c+'a'-'A')
		default:
			prefix = append(prefix, '_')
		}
	}
	h := sha256.Sum256([]byte(server))
	return strings.Trim(string(prefix), "_-") + "~" + hex.EncodeToString(h[:8]) + ".json", nil
}

// plainName reports whether a server name can be its file's name as it is.
func plainName(s string) bool {
	if len(s) > 64 || !('a' <= s[0] && s[0] <= 'z' || '0' <= s[0] && s[0] <= '9') {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	// Windows reserves these names whatever the extension.
	base := s
	switch {
	case base == "con", base == "prn", base == "aux", base == "nul":
		return false
	case len(base) == 4 && (strings.HasPrefix(base, "com") || strings.HasPrefix(base, "lpt")) && '0' <= base[3] && base[3] <= '9':
		return false
	}
	return true
}

func quoteAll(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}
