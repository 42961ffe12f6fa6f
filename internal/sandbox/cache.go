package sandbox

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/moatdev/moat/internal/pathset"
)

// CarveInput is everything a carving depends on besides the file system: what a Cache
// keys carvings by, and what a launch sends the daemon. The section holds every path
// entry of the policy and of the profiles, so a changed policy or profile is another key.
type CarveInput struct {
	Section    *Section     `json:"section"`
	Host       pathset.Host `json:"host"`
	Workspace  []string     `json:"workspace"`
	ABI        int          `json:"abi"`
	CreateDirs bool         `json:"create_dirs"`
	LogFiles   []string     `json:"log_files"`
}

// CarveInput returns what of o the carving depends on.
func (o Options) CarveInput() CarveInput {
	return CarveInput{Section: o.Section, Host: o.Host, Workspace: o.Workspace, ABI: o.ABI, CreateDirs: o.CreateDirs, LogFiles: o.LogFiles}
}

// Options returns the options of a carving of in (nothing of the environment, limits or
// network: Finish takes those from the launch's own options).
func (in CarveInput) Options() Options {
	return Options{Section: in.Section, Host: in.Host, Workspace: in.Workspace, ABI: in.ABI, CreateDirs: in.CreateDirs, LogFiles: in.LogFiles}
}

// Check refuses an input that cannot be carved: no section, or a path that is not
// absolute (the daemon's working directory and home are not the launch's).
func (in CarveInput) Check() error {
	if in.Section == nil {
		return errors.New("no sandbox section")
	}
	if in.ABI < 0 {
		return fmt.Errorf("invalid Landlock ABI %d", in.ABI)
	}
	paths := append([]string{in.Host.Home}, in.Host.Temp...)
	paths = append(paths, in.Workspace...)
	paths = append(paths, in.LogFiles...)
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			return fmt.Errorf("path %q is not absolute", p)
		}
	}
	return nil
}

// Carve works out the part of a plan that depends on the file system, as Build does.
func Carve(o Options) (*Carving, error) { return carve(o, probe{}) }

// DefaultCacheSize is how many carvings a Cache keeps by default.
const DefaultCacheSize = 32

// Cache keeps carvings with the answers of the file system they were made from, and
// gives a kept carving again only while every answer holds: the same paths exist, the
// same symbolic links lead to the same places, and the directories listed have the same
// identity and times (or, when those changed, the same entries). So a cached carving is
// always the one Carve would make now. It is safe for concurrent use.
type Cache struct {
	max int
	now func() time.Time

	mu      sync.Mutex
	entries []*cacheEntry // most recently used first
}

type cacheEntry struct {
	key     [sha256.Size]byte
	carving *Carving
	rec     *record
}

// NewCache returns a cache of at most size carvings (DefaultCacheSize when size ≤ 0).
// now is the clock (nil: time.Now).
func NewCache(size int, now func() time.Time) *Cache {
	if size <= 0 {
		size = DefaultCacheSize
	}
	if now == nil {
		now = time.Now
	}
	return &Cache{max: size, now: now}
}

// Carve returns the carving of in, kept or made now, and whether it was kept.
func (c *Cache) Carve(in CarveInput) (*Carving, bool, error) {
	if err := in.Check(); err != nil {
		return nil, false, err
	}
	key, err := in.key()
	if err != nil {
		return nil, false, err
	}
	if e := c.get(key); e != nil {
		if e.rec.holds() {
			return e.carving, true, nil
		}
		c.drop(e)
	}
	rec := newRecord(c.now)
	cv, err := carve(in.Options(), probe{rec: rec})
	if err != nil {
		return nil, false, err
	}
	if !rec.unusable {
		c.put(&cacheEntry{key: key, carving: cv, rec: rec})
	}
	return cv, false, nil
}

// Len returns the number of carvings kept.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

// key digests the input with the effective user, whose permissions decide which denied
// paths need carving (closedByDAC).
func (in CarveInput) key() ([sha256.Size]byte, error) {
	b, err := json.Marshal(struct {
		In  CarveInput `json:"in"`
		UID int        `json:"euid"`
	}{in, os.Geteuid()})
	if err != nil {
		return [sha256.Size]byte{}, fmt.Errorf("keying the carving: %w", err)
	}
	return sha256.Sum256(b), nil
}

func (c *Cache) get(key [sha256.Size]byte) *cacheEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, e := range c.entries {
		if e.key == key {
			copy(c.entries[1:i+1], c.entries[:i])
			c.entries[0] = e
			return e
		}
	}
	return nil
}

func (c *Cache) drop(e *cacheEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries = slices.DeleteFunc(c.entries, func(x *cacheEntry) bool { return x == e })
}

func (c *Cache) put(e *cacheEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries = slices.DeleteFunc(c.entries, func(x *cacheEntry) bool { return x.key == e.key })
	c.entries = slices.Insert(c.entries, 0, e)
	if len(c.entries) > c.max {
		c.entries = c.entries[:c.max]
	}
}

// Validate checks a carving received from elsewhere (the daemon) before a launch
// enforces it: made for this ABI, with the rights this ABI handles, and every rule on a
// clean absolute path with known rights. A carving that fails is not used.
func (cv *Carving) Validate(abi int) error {
	if cv == nil {
		return errors.New("no carving")
	}
	if cv.ABI != abi {
		return fmt.Errorf("carving for Landlock ABI %d, not %d", cv.ABI, abi)
	}
	if cv.Handled != handledAccess(abi) {
		return fmt.Errorf("carving handles rights %#x, ABI %d handles %#x", uint64(cv.Handled), abi, uint64(handledAccess(abi)))
	}
	const known = IoctlDev<<1 - 1
	for _, r := range cv.Rules {
		if r.Path == "" || !filepath.IsAbs(r.Path) || filepath.Clean(r.Path) != r.Path {
			return fmt.Errorf("rule on %q: not a clean absolute path", r.Path)
		}
		if r.Access == 0 || r.Access&^known != 0 {
			return fmt.Errorf("rule on %s: invalid rights %#x", r.Path, uint64(r.Access))
		}
	}
	return nil
}
