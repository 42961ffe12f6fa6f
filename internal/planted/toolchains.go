package planted

import (
	"iter"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/moatdev/moat/internal/textedit"
)

// Toolchain files say where a build tool gets itself, its compiler or its prebuilt
// packages: the Gradle and Maven wrappers download a distribution and run it for every
// build, rustup runs the compiler a directory holds, nix fetches built packages from its
// substituters and runs its hooks, Stack downloads GHC and builds packages from where
// stack.yaml says. Where a command makes the same change, the setting is judged as that
// command (rustup toolchain link); where none does, a source other than the tool's own is
// code moat has not read: opaque, which the policy asks about.

// gradleWrapperCode: ./gradlew downloads the distribution distributionUrl names (once,
// into ~/.gradle/wrapper/dists) and runs its bin/gradle for every build. Gradle's own
// servers over https are the ordinary source; another host, plain http or an archive on
// disk is a Gradle moat has not read.
func gradleWrapperCode(text string, x *extraction) {
	for key, val := range propertiesValues(text) {
		if key == "distributionUrl" && !officialDownload(val, []string{"services.gradle.org", "downloads.gradle.org"}, "/") {
			x.opaque(key, "./gradlew downloads and runs the Gradle distribution at "+val+", not one of Gradle's own servers")
		}
	}
}

// mavenWrapperCode: ./mvnw downloads the Maven distribution distributionUrl names and
// runs it, and the older wrapper first downloads its own jar from wrapperUrl. Maven
// Central over https is the ordinary source, and only below Apache Maven's own group:
// anyone may publish a "distribution" to Central under a group of theirs.
func mavenWrapperCode(text string, x *extraction) {
	central := []string{"repo.maven.apache.org", "repo1.maven.org"}
	for key, val := range propertiesValues(text) {
		switch key {
		case "distributionUrl":
			if !officialDownload(val, central, "/maven2/org/apache/maven/") {
				x.opaque(key, "./mvnw downloads and runs the Maven distribution at "+val+", not Apache Maven's from Maven Central")
			}
		case "wrapperUrl":
			if !officialDownload(val, central, "/maven2/org/apache/maven/wrapper/", "/maven2/io/takari/") {
				x.opaque(key, "./mvnw downloads and runs the wrapper jar at "+val+", not the Maven wrapper's from Maven Central")
			}
		}
	}
}

// officialDownload reports whether raw is an https URL of one of hosts, on the default
// port and without credentials, whose path (cleaned, so that ../ cannot leave it) is
// below one of prefixes.
func officialDownload(raw string, hosts []string, prefixes ...string) bool {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Scheme != "https" || u.User != nil || u.Port() != "" || !slices.Contains(hosts, strings.ToLower(u.Hostname())) {
		return false
	}
	p := path.Clean("/" + u.Path)
	for _, pre := range prefixes {
		if strings.HasPrefix(p+"/", pre) {
			return true
		}
	}
	return false
}

// propertiesValues yields the keys and values of a Java properties file: # and ! start
// comment lines; a key ends at its first unescaped =, : or blank; a line ending in an odd
// number of backslashes goes on on the next, less that line's leading blanks; \t, \n,
// \uXXXX and \X (\: for :) stand for what they escape.
func propertiesValues(text string) iter.Seq2[string, string] {
	return func(yield func(string, string) bool) {
		lines := strings.Split(text, "\n")
		for i := 0; i < len(lines); i++ {
			l := strings.TrimLeft(strings.TrimSuffix(lines[i], "\r"), " \t\f")
			if l == "" || l[0] == '#' || l[0] == '!' {
				continue
			}
			if propertyContinues(l) {
				var b strings.Builder
				for propertyContinues(l) {
					b.WriteString(l[:len(l)-1])
					if i+1 >= len(lines) {
						l = ""
						break
					}
					i++
					l = strings.TrimLeft(strings.TrimSuffix(lines[i], "\r"), " \t\f")
				}
				b.WriteString(l)
				l = b.String()
			}
			j := 0
			for j < len(l) && !strings.ContainsRune("=: \t\f", rune(l[j])) {
				if l[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j, len(l))
			key, rest := l[:j], strings.TrimLeft(l[j:], " \t\f")
			if rest != "" && (rest[0] == '=' || rest[0] == ':') {
				rest = strings.TrimLeft(rest[1:], " \t\f")
			}
			if !yield(propertyUnescape(key), propertyUnescape(rest)) {
				return
			}
		}
	}
}

// propertyContinues reports whether a properties line ends in an odd number of
// backslashes: its value goes on on the next line.
func propertyContinues(l string) bool {
	n := len(l) - len(strings.TrimRight(l, `\`))
	return n%2 == 1
}

// propertyUnescape resolves the escapes of a properties key or value.
func propertyUnescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch c := s[i]; c {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			if r, err := strconv.ParseUint(s[i+1:min(len(s), i+5)], 16, 32); err == nil && i+5 <= len(s) {
				b.WriteRune(rune(r))
				i += 4
			} else {
				b.WriteByte(c)
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// settingLine matches a line of a key = value file (a properties file, nix.conf): a key
// of letters, digits, dots, dashes and underscores, then = or :.
var settingLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z0-9_.\-]+[ \t]*[=:]`)
})

// settingsPiece reports whether text is lines of settings, KEY = VALUE or KEY: VALUE,
// besides comments and blank lines (and lines a backslash continues): a version bumped
// in a wrapper's properties is data, not a command.
func settingsPiece(text string) bool {
	found, continued := false, false
	for line := range strings.Lines(text) {
		t := strings.TrimSpace(line)
		was := continued
		continued = propertyContinues(t)
		switch {
		case was, t == "", t[0] == '#' || t[0] == '!':
		case settingLine().MatchString(t):
			found = true
		default:
			return false
		}
	}
	return found
}

// rustToolchainCode: rust-toolchain.toml (or the older rust-toolchain) picks the
// toolchain cargo and rustc run in its directory: a channel (stable, 1.78,
// nightly-2024-05-01) with its components, targets and profile is rustup's own; path =
// DIR runs the compiler found in DIR, as `rustup toolchain link` of it makes later builds
// do, and is judged as that command: a directory of the project or of the system is no
// more than that, any other is code moat has not read. The older file may hold just a
// channel's name.
func rustToolchainCode(text string, x *extraction) {
	if t := strings.TrimSpace(text); !strings.ContainsAny(t, "=[\n") {
		if strings.ContainsAny(t, `/\~`) || strings.HasPrefix(t, ".") {
			// Not a channel's name but a directory's.
			x.shell("toolchain (rustup runs the compiler there)", "rustup toolchain link toolchain "+shellQuote(t))
		}
		return
	}
	x.tomlValues(text, func(full []string, dotted string, val *textedit.Value) {
		// An edit's fragment, path = "…" alone, is the [toolchain] table's: the file has no other.
		if dotted != "toolchain.path" && dotted != "path" {
			return
		}
		p, ok := tomlString(text, val)
		if !ok {
			x.opaque(dotted, "a toolchain directory moat cannot read")
			return
		}
		x.shell(dotted+" (rustup runs the compiler there)", "rustup toolchain link toolchain "+shellQuote(p))
	})
}

// nixCacheKey is the public key of cache.nixos.org, which nix trusts unless told otherwise.
const nixCacheKey = "cache.nixos.org-1:6NCHdD59X431o0gWypbMrAURkbJ16ZPMQFGspcDShjY="

// nixConfCode reads nix.conf: NAME = VALUE lines, # starting a comment anywhere, a list's
// items separated by blanks, extra-NAME adding to NAME's list. Substituters other than
// cache.nixos.org (or any over plain http) are another source of built packages, which
// nix installs and runs as if built here; keys other than its own, or require-sigs off,
// let packages signed by anyone in (nix has no command that says so: opaque, as a change
// of package source). The hooks are programs nix runs (the daemon runs them as root):
// each a command line of its program; plugin-files are native code nix loads.
func nixConfCode(text string, x *extraction) {
	for line := range strings.Lines(text) {
		line, _, _ = strings.Cut(line, "#")
		name, val, ok := strings.Cut(line, "=")
		if !ok {
			continue // include and !include name files judged when they are written
		}
		name, val = strings.TrimSpace(name), strings.TrimSpace(val)
		switch strings.TrimPrefix(name, "extra-") {
		case "substituters", "trusted-substituters":
			for _, s := range strings.Fields(val) {
				if !nixCache(s) {
					x.opaque(name, "nix installs built packages from "+s+", not from cache.nixos.org: another source of packages")
				}
			}
		case "trusted-public-keys":
			for _, k := range strings.Fields(val) {
				if k != nixCacheKey {
					signer, _, _ := strings.Cut(k, ":")
					x.opaque(name, "nix installs packages signed by "+signer+", a key other than cache.nixos.org's")
				}
			}
		case "require-sigs":
			if val == "false" {
				x.opaque(name, "nix installs unsigned packages from any substituter")
			}
		case "post-build-hook", "pre-build-hook", "diff-hook":
			x.shell(name+" (nix runs it)", shellQuote(val))
		case "build-hook":
			x.shell(name+" (nix runs it)", quoteWords(strings.Fields(val)))
		case "plugin-files":
			for _, f := range strings.Fields(val) {
				x.opaque(name, "nix loads "+f+" into itself, native code moat cannot read")
			}
		case "ssl-cert-file":
			if val != "" && !strings.HasPrefix(val, "/etc/") && !strings.HasPrefix(val, "/nix/store/") {
				x.opaque(name, "nix checks downloads against the certificates of "+val+", not the system's")
			}
		}
	}
}

// nixCache reports whether a substituter is cache.nixos.org over https.
func nixCache(s string) bool {
	u, err := url.Parse(s)
	return err == nil && u.Scheme == "https" && strings.EqualFold(u.Host, "cache.nixos.org") && (u.Path == "" || u.Path == "/")
}

// stackOfficial are the places Stack's own downloads come from: its setup information
// and snapshots (commercialhaskell's repositories, stackage.org), GHC's releases and
// Hackage.
var stackOfficial = []string{
	"raw.githubusercontent.com/commercialhaskell/", "github.com/commercialhaskell/", "www.stackage.org/",
	"stackage.org/", "downloads.haskell.org/", "hackage.haskell.org/",
}

// stackOfficialURL reports whether s is an https URL of one of stackOfficial.
func stackOfficialURL(s string) bool {
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "https" || u.User != nil {
		return false
	}
	at := strings.ToLower(u.Host) + path.Clean("/"+u.Path)
	for _, o := range stackOfficial {
		if strings.HasPrefix(at+"/", o) {
			return true
		}
	}
	return false
}

// stackYAMLCode reads stack.yaml for where Stack takes code from: GHC and its tools
// (setup-info, setup-info-locations), the package index (package-indices), the
// snapshot (resolver, snapshot), and packages outside it (extra-deps, packages). Stack's
// and Hackage's own places and the project's directories are ordinary; another server
// is another source of packages, a git repository or an archive's URL a package no
// registry has seen, a directory outside the project code moat has not read. No command
// of Stack's says any of these: each is opaque.
func stackYAMLCode(text string, x *extraction) {
	doc, ok := decodeYAML(text, x)
	if !ok {
		return
	}
	m, _ := doc.(map[string]any)
	for _, key := range []string{"setup-info-locations", "setup-info"} {
		walkStrings(m[key], key, func(s, where string) {
			local := !strings.Contains(s, "://")
			if !local && !stackOfficialURL(s) || local && (key == "setup-info-locations" || strings.HasSuffix(where, ".url")) && outsideProject(s) {
				x.opaque(where, "stack downloads and runs GHC or its tools as "+s+" says, not from Stack's own list")
			}
		})
	}
	if list, ok := m["package-indices"].([]any); ok {
		for _, e := range list {
			idx, _ := e.(map[string]any)
			for _, k := range []string{"download-prefix", "url"} {
				if s, ok := idx[k].(string); ok && !stackOfficialURL(s) {
					x.opaque("package-indices", "stack takes packages from "+s+", not from Hackage")
				}
			}
		}
	}
	for _, key := range []string{"resolver", "snapshot"} {
		s, ok := m[key].(string)
		switch {
		case !ok:
		case strings.Contains(s, "://") && !stackOfficialURL(s):
			x.opaque(key, "a snapshot from "+s+", which names the packages stack builds and where from")
		case !strings.Contains(s, "://") && strings.HasSuffix(s, ".yaml") && outsideProject(s):
			x.opaque(key, "a snapshot from "+s+", outside the project")
		}
	}
	for _, key := range []string{"extra-deps", "packages"} {
		list, _ := m[key].([]any)
		for _, e := range list {
			stackDependency(key, e, x)
		}
	}
}

// stackDependency judges one entry of extra-deps or packages: a Hackage package
// (name-1.2.3, with @sha256 or @rev) or a directory of the project is ordinary; a
// directory outside it, a URL, or a repository (git:, github:, url:, archive:, or the
// older location: of any of them) is built from code no registry has seen.
func stackDependency(key string, e any, x *extraction) {
	switch v := e.(type) {
	case string:
		switch {
		case strings.Contains(v, "://"):
			x.opaque(key, "stack builds a package from "+v+", code no registry has seen")
		case (strings.ContainsAny(v, "/~") || strings.HasPrefix(v, ".")) && outsideProject(v):
			x.opaque(key, "stack builds the package in "+v+", outside the project")
		}
	case map[string]any:
		if loc, ok := v["location"]; ok {
			stackDependency(key, loc, x)
			return
		}
		for _, k := range []string{"git", "github", "hg", "url", "archive"} {
			if s, ok := v[k].(string); ok {
				x.opaque(key, "stack builds a package from "+k+" "+s+", code no registry has seen")
				return
			}
		}
	}
}

// outsideProject reports whether a path a project's file names is outside the project:
// absolute, in the home directory, or above the file's directory.
func outsideProject(p string) bool {
	if strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~") || strings.HasPrefix(p, `\`) || len(p) > 1 && p[1] == ':' {
		return true
	}
	c := path.Clean(strings.ReplaceAll(p, `\`, "/"))
	return c == ".." || strings.HasPrefix(c, "../")
}

// rustToolchainPiece reports whether text is a piece of a toolchain file: TOML, or the
// older file's channel name alone.
func rustToolchainPiece(text string) bool {
	t := strings.TrimSpace(text)
	return tomlPiece(text) || t != "" && strings.Trim(t, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_") == ""
}
