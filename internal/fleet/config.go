// Package fleet reads the fleet configuration: where a machine ships its audit
// (PostgreSQL), exports its telemetry (an OpenTelemetry collector), and fetches its signed
// policy bundle (HTTPS or PostgreSQL). The daemon acts on it; without the file nothing
// leaves the machine.
package fleet

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/moatdev/moat/internal/dirs"
	"github.com/moatdev/moat/internal/regfile"
)

// FileName is the name of the fleet configuration, in the managed directory or in the
// user's configuration directory.
const FileName = "fleet.yaml"

// maxConfigBytes bounds what moat reads as a fleet configuration.
const maxConfigBytes = 1 << 20

// maxMachineName bounds a machine's name: a host name is at most 253 bytes.
const maxMachineName = 255

// Defaults of the settings a configuration may leave out.
const (
	DefaultBatch          = 500
	DefaultPolicyInterval = 5 * time.Minute
	DefaultExportInterval = 10 * time.Second
	minInterval           = time.Second
)

// Config is one fleet configuration. Paths in it are absolute: relative ones in the file
// are resolved against the file's directory.
type Config struct {
	// Path is the file it was read from.
	Path string
	// Managed says it came from the managed directory, which an administrator writes.
	Managed bool
	// Machine names this machine in shipped records and telemetry; the host name when
	// the file leaves it out.
	Machine string
	Audit   *Audit  // nil: the audit stays on this machine
	OTLP    *OTLP   // nil: no telemetry export
	Policy  *Policy // nil: no policy bundle is fetched
}

// Audit configures shipping every audit record to PostgreSQL.
type Audit struct {
	// Postgres is the connection string (a postgres:// URL or key=value pairs), as pgx
	// reads it; a password belongs in PasswordFile or PGPASSFILE, not here.
	Postgres string
	// PasswordFile, when set, holds the password (its first line).
	PasswordFile string
	// Batch bounds the records sent in one transaction.
	Batch int
}

// OTLP configures the export of decisions as OTLP logs and of decision latency as OTLP
// metrics, over OTLP/HTTP.
type OTLP struct {
	// Endpoint is the collector's base URL (http://127.0.0.1:4318); /v1/logs and
	// /v1/metrics are appended. Plain http is accepted on loopback addresses only.
	Endpoint string
	// Headers are sent with every export (an API key for a hosted collector).
	Headers map[string]string
	// CAFile, when set, is the PEM bundle that verifies the collector's certificate.
	CAFile string
	// Interval is how often metrics are exported.
	Interval time.Duration
}

// Policy configures fetching the signed policy bundle that becomes the managed layer.
type Policy struct {
	// URL is an https:// address of the bundle (http:// on loopback only); exactly one
	// of URL and Postgres is set.
	URL string
	// Postgres is a connection string; the bundle is the newest row of the table
	// moat_policy_bundles (see package fleet's SQL in the README).
	Postgres string
	// PasswordFile, when set, holds the database password (its first line).
	PasswordFile string
	// Key is the pinned public key (a .moat-pub file) the bundle must be signed with.
	Key string
	// CAFile, when set, is the PEM bundle that verifies the server's certificate.
	CAFile string
	// Interval is how often the bundle is fetched.
	Interval time.Duration
}

// Locate returns the fleet configuration file that applies to d: the managed
// directory's when it has one (a user's own file is then ignored: the administrator's
// decides where the audit goes), else the user's, else "".
func Locate(d dirs.Dirs) (path string, managed bool, err error) {
	if d.Managed != "" {
		p := filepath.Join(d.Managed, FileName)
		switch _, err := os.Lstat(p); {
		case err == nil:
			return p, true, nil
		case !errors.Is(err, fs.ErrNotExist):
			return "", false, fmt.Errorf("fleet configuration: %w", err)
		}
	}
	p := filepath.Join(d.Config, FileName)
	switch _, err := os.Lstat(p); {
	case err == nil:
		return p, false, nil
	case errors.Is(err, fs.ErrNotExist):
		return "", false, nil
	default:
		return "", false, fmt.Errorf("fleet configuration: %w", err)
	}
}

// Load reads the fleet configuration that applies to d, or returns nil when there is
// none. A file that exists but cannot be read or parsed is an error, never "no fleet":
// a machine meant to ship its audit must not go quiet because of a typo.
func Load(d dirs.Dirs) (*Config, error) {
	path, managed, err := Locate(d)
	if err != nil || path == "" {
		return nil, err
	}
	data, err := regfile.Read(path, maxConfigBytes)
	if err != nil {
		return nil, fmt.Errorf("fleet configuration: %w", err)
	}
	c, err := Parse(path, data)
	if err != nil {
		return nil, err
	}
	c.Managed = managed
	return c, nil
}

// file is the document as written.
type file struct {
	Machine string `yaml:"machine"`
	Audit   *struct {
		Postgres     string `yaml:"postgres"`
		PasswordFile string `yaml:"password_file"`
		Batch        int    `yaml:"batch"`
	} `yaml:"audit"`
	OTLP *struct {
		Endpoint string            `yaml:"endpoint"`
		Headers  map[string]string `yaml:"headers"`
		CAFile   string            `yaml:"ca_file"`
		Interval string            `yaml:"interval"`
	} `yaml:"otlp"`
	Policy *struct {
		URL          string `yaml:"url"`
		Postgres     string `yaml:"postgres"`
		PasswordFile string `yaml:"password_file"`
		Key          string `yaml:"key"`
		CAFile       string `yaml:"ca_file"`
		Interval     string `yaml:"interval"`
	} `yaml:"policy"`
}

// Parse reads a fleet configuration document; path names it in errors (path:line) and
// anchors its relative paths. Unknown keys are errors: a misspelt setting must not be
// silently ignored.
func Parse(path string, data []byte) (*Config, error) {
	var f file
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: %s", path, yamlMessage(err))
	}
	dir := filepath.Dir(path)
	c := &Config{Path: path, Machine: strings.TrimSpace(f.Machine)}
	fail := func(format string, args ...any) (*Config, error) {
		return nil, fmt.Errorf("%s: %s", path, fmt.Sprintf(format, args...))
	}
	if c.Machine == "" {
		host, err := os.Hostname()
		if err != nil {
			return nil, fmt.Errorf("%s: no machine name given and the host name is unknown: %w", path, err)
		}
		c.Machine = host
	}
	// The name is in every shipped record and indexed by the fleet's database, which
	// would refuse every record of a name too long for the index.
	switch {
	case len(c.Machine) > maxMachineName:
		return fail("machine: a name of %d bytes is too long (at most %d)", len(c.Machine), maxMachineName)
	case !utf8.ValidString(c.Machine) || strings.ContainsFunc(c.Machine, unicode.IsControl):
		return fail("machine: %q holds control characters or is not UTF-8 text", c.Machine)
	}
	if f.Audit != nil {
		a := &Audit{Postgres: f.Audit.Postgres, PasswordFile: abs(dir, f.Audit.PasswordFile), Batch: f.Audit.Batch}
		if a.Postgres == "" {
			return fail("audit: postgres is required (a postgres:// connection string)")
		}
		if strings.Contains(a.Postgres, "password=") || hasURLPassword(a.Postgres) {
			return fail("audit: postgres holds a password; put it in password_file or PGPASSFILE")
		}
		switch {
		case a.Batch == 0:
			a.Batch = DefaultBatch
		case a.Batch < 1 || a.Batch > 10_000:
			return fail("audit: batch %d is out of range (1 to 10000)", a.Batch)
		}
		c.Audit = a
	}
	if f.OTLP != nil {
		o := &OTLP{Endpoint: strings.TrimRight(f.OTLP.Endpoint, "/"), Headers: f.OTLP.Headers, CAFile: abs(dir, f.OTLP.CAFile)}
		if err := checkURL(o.Endpoint); err != nil {
			return fail("otlp: endpoint: %v", err)
		}
		iv, err := interval(f.OTLP.Interval, DefaultExportInterval)
		if err != nil {
			return fail("otlp: interval: %v", err)
		}
		o.Interval = iv
		c.OTLP = o
	}
	if f.Policy != nil {
		p := &Policy{URL: f.Policy.URL, Postgres: f.Policy.Postgres, PasswordFile: abs(dir, f.Policy.PasswordFile), Key: abs(dir, f.Policy.Key), CAFile: abs(dir, f.Policy.CAFile)}
		switch {
		case (p.URL == "") == (p.Postgres == ""):
			return fail("policy: set exactly one of url and postgres")
		case p.Key == "":
			return fail("policy: key is required: a bundle is only used when it is signed by the pinned key (a .moat-pub file)")
		}
		if p.URL != "" {
			if err := checkURL(p.URL); err != nil {
				return fail("policy: url: %v", err)
			}
		}
		if hasURLPassword(p.Postgres) || strings.Contains(p.Postgres, "password=") {
			return fail("policy: postgres holds a password; put it in password_file or PGPASSFILE")
		}
		iv, err := interval(f.Policy.Interval, DefaultPolicyInterval)
		if err != nil {
			return fail("policy: interval: %v", err)
		}
		p.Interval = iv
		c.Policy = p
	}
	return c, nil
}

// yamlMessage turns yaml's "yaml: line 3: …" into "3: …", so that the file's name and
// the line read as path:line.
func yamlMessage(err error) string {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	msg = strings.TrimPrefix(msg, "unmarshal errors:\n  ")
	return strings.TrimPrefix(msg, "line ")
}

func abs(dir, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

// checkURL accepts https anywhere and http on loopback only: telemetry and policies
// must not cross a network in clear text.
func checkURL(s string) error {
	if s == "" {
		return errors.New("is required")
	}
	u, err := url.Parse(s)
	if err != nil {
		return err
	}
	switch {
	case u.Host == "":
		return fmt.Errorf("%q has no host", s)
	case u.User != nil:
		return fmt.Errorf("%q holds credentials; use headers", s)
	case u.Scheme == "https":
		return nil
	case u.Scheme == "http" && isLoopback(u.Hostname()):
		return nil
	case u.Scheme == "http":
		return fmt.Errorf("%q is plain http to another machine; use https", s)
	default:
		return fmt.Errorf("%q: want an https:// address", s)
	}
}

func isLoopback(host string) bool {
	return host == "localhost" || host == "::1" || strings.HasPrefix(host, "127.")
}

func hasURLPassword(dsn string) bool {
	u, err := url.Parse(dsn)
	if err != nil || u.User == nil {
		return false
	}
	_, ok := u.User.Password()
	return ok
}

func interval(s string, def time.Duration) (time.Duration, error) {
	if s == "" {
		return def, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q: want a span such as 30s or 5m", s)
	}
	if d < minInterval {
		return 0, fmt.Errorf("%q is shorter than %s", s, minInterval)
	}
	return d, nil
}
