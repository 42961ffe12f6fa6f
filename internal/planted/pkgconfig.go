package planted

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/moatdev/moat/internal/textedit"
)

// Package managers' configuration files say where packages come from, how downloads are
// checked, and which programs the tool runs (cargo's rustc wrapper, a target's runner, a
// credential provider). Each setting is judged as the command that would write it or do
// the same for one install (pip config set, pip install --index-url, cargo install
// --index, npm install --registry), and each program as a command line, so that a file
// that only sets a timeout or a cache directory is no more than that.

// pipConfCode: a pip.conf's settings, each as `pip config set SECTION.KEY VALUE`; a
// value continued on indented lines (extra-index-url's list) gives one per line.
func pipConfCode(text string, x *extraction) {
	for l := range iniValueLines(text) {
		key := l.section + "." + l.key
		x.shell(key, "pip config set "+shellQuote(key)+" "+shellQuote(l.text))
	}
}

// uvSettingOption maps a uv setting (uv.toml, or [tool.uv] in pyproject.toml) that says
// where packages come from to pip install's option of the same meaning; python-install-
// mirror and pypy-install-mirror say where uv downloads Python itself from.
func uvSettingOption(key string) string {
	switch key {
	case "index-url", "extra-index-url", "find-links":
		return "--" + key
	case "allow-insecure-host":
		return "--trusted-host"
	case "python-install-mirror", "pypy-install-mirror":
		return "--extra-index-url"
	}
	return ""
}

// uvSetting adds what one of uv's settings, at key (relative to uv's table), makes uv
// install from: another index ([[index]] url, index-url…), a page of packages, a host
// whose certificate is not checked.
func uvSetting(text string, x *extraction, key []string, dotted string, val *textedit.Value) {
	if len(key) == 2 && key[0] == "pip" {
		key = key[1:] // [pip] takes the same settings for uv pip
	}
	opt := ""
	switch {
	case len(key) == 2 && key[0] == "index" && key[1] == "url":
		opt = "--extra-index-url"
	case len(key) == 1:
		opt = uvSettingOption(key[0])
	}
	if opt == "" {
		return
	}
	for _, v := range tomlStrings(text, val) {
		x.shell(dotted+" (uv installs from it)", "pip install "+opt+" "+shellQuote(v))
	}
}

// tomlStrings returns a TOML string value, or the strings of an array of them.
func tomlStrings(text string, v *textedit.Value) []string {
	if s, ok := tomlString(text, v); ok {
		return []string{s}
	}
	if v == nil || v.Kind != '[' {
		return nil
	}
	var out []string
	for _, e := range v.Elems {
		if s, ok := tomlString(text, e); ok {
			out = append(out, s)
		}
	}
	return out
}

// uvTomlCode: a uv.toml's settings (uvSetting).
func uvTomlCode(text string, x *extraction) {
	x.tomlValues(text, func(full []string, dotted string, val *textedit.Value) {
		uvSetting(text, x, full, dotted, val)
	})
}

// cargoProgramKey reports whether a Cargo setting's value is a program cargo runs: the
// compiler's wrappers, the compiler and rustdoc themselves, the browser of cargo doc
// --open.
func cargoProgramKey(dotted string) bool {
	switch dotted {
	case "build.rustc-wrapper", "build.rustc-workspace-wrapper", "build.rustc", "build.rustdoc", "doc.browser":
		return true
	}
	return false
}

// cargoConfigCode: a Cargo configuration (.cargo/config.toml, ~/.cargo/config.toml): the
// sources and registries crates come from, the programs cargo runs (a wrapper, a target's
// runner or linker, one named in rustflags, a credential provider, an alias's command),
// the environment it gives build scripts, its proxy and certificate authority (which
// are git's settings when cargo's are unset), and [patch] crates.
func cargoConfigCode(text string, x *extraction) {
	cargoDependencies(text, x)
	defined := map[string]bool{}        // sources this file says where they are
	replacements := map[string]string{} // source replaced → the source in its place
	x.tomlValues(text, func(full []string, dotted string, val *textedit.Value) {
		strs := tomlStrings(text, val)
		n := len(full)
		if n == 3 && full[0] == "source" {
			if full[2] == "replace-with" && len(strs) == 1 {
				replacements[dotted] = strs[0]
			} else {
				defined[full[1]] = true
			}
		}
		switch {
		case n == 3 && full[0] == "source" && (full[2] == "registry" || full[2] == "index"),
			n == 3 && full[0] == "registries" && full[2] == "index",
			n == 2 && full[0] == "registry" && full[1] == "index":
			for _, s := range strs {
				x.shell(dotted+" (crates come from it)", "cargo install --index "+shellQuote(s))
			}
		case n == 3 && full[0] == "source" && full[2] == "git":
			for _, s := range strs {
				x.shell(dotted+" (crates come from it)", "cargo install --git "+shellQuote(s))
			}
		case n == 3 && full[0] == "source" && (full[2] == "local-registry" || full[2] == "directory"):
			for _, s := range strs {
				x.shell(dotted+" (crates come from it)", "cargo install --path "+shellQuote(s))
			}
		case cargoProgramKey(dotted),
			n == 3 && full[0] == "target" && (full[2] == "runner" || full[2] == "linker"),
			full[n-1] == "credential-provider" || full[n-1] == "global-credential-providers":
			cargoProgram(dotted, strs, val.Kind == '[' && full[n-1] != "global-credential-providers", x)
		case full[n-1] == "rustflags" && (n == 2 && full[0] == "build" || n == 3 && full[0] == "target"):
			for _, p := range linkerFlags(strs) {
				x.shell(dotted+" (rustc runs it as the linker)", p)
			}
		case n == 2 && full[0] == "alias":
			cargoProgram(dotted, prefixed("cargo", strs, val.Kind == '['), false, x)
		case n >= 2 && full[0] == "env":
			// NAME = VALUE, NAME = { value = VALUE, … }, or [env.NAME] value = VALUE.
			if val.Kind == '{' {
				val, _ = val.Member("value")
			}
			if v, ok := tomlString(text, val); ok && (n == 2 || full[2] == "value") {
				x.shell(dotted+" (the environment of builds)", "export "+full[1]+"="+shellQuote(v))
			}
		case n == 2 && full[0] == "http" && full[1] == "proxy":
			for _, s := range strs {
				x.shell(dotted, "git config --global http.proxy "+shellQuote(s))
			}
		case n == 2 && full[0] == "http" && full[1] == "cainfo":
			for _, s := range strs {
				x.shell(dotted, "git config --global http.sslCAInfo "+shellQuote(s))
			}
		}
	})
	// A source replaced by one this file defines is judged by that definition (cargo
	// vendor's directory in the project); by one defined elsewhere, as another registry.
	for _, at := range slices.Sorted(maps.Keys(replacements)) {
		if to := replacements[at]; !defined[to] && to != "crates-io" {
			x.shell(at+" (crates come from it)", "cargo install --registry "+shellQuote(to))
		}
	}
}

// cargoProgram adds the command line of a Cargo setting naming a program: a string is a
// command line (words split at spaces), an array (words) is one command's words when
// words is set; cargo's own credential providers (cargo:token) are cargo.
func cargoProgram(where string, strs []string, words bool, x *extraction) {
	if words {
		strs = []string{quoteWords(strs)}
	}
	for _, s := range strs {
		if strings.HasPrefix(s, "cargo:") {
			continue
		}
		x.shell(where+" (cargo runs it)", s)
	}
}

// quoteWords returns words as one command line, each quoted as the shell needs.
func quoteWords(words []string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = shellQuote(w)
	}
	return strings.Join(quoted, " ")
}

// prefixed puts prog before a command's words: one command line of an array of words,
// or each string a command line of its own.
func prefixed(prog string, strs []string, words bool) []string {
	if words {
		return []string{prog + " " + quoteWords(strs)}
	}
	out := make([]string, len(strs))
	for i, s := range strs {
		out[i] = prog + " " + s
	}
	return out
}

// linkerFlags returns the linkers rustflags name: -C linker=PROG, -Clinker=PROG, or the
// value after a separate -C.
func linkerFlags(strs []string) []string {
	var words []string
	for _, s := range strs {
		words = append(words, strings.Fields(s)...)
	}
	var out []string
	for i, w := range words {
		opt, ok := strings.CutPrefix(w, "-C")
		if !ok {
			opt, ok = strings.CutPrefix(w, "--codegen")
		}
		if !ok {
			continue
		}
		if opt == "" && i+1 < len(words) {
			opt = words[i+1]
		}
		opt = strings.TrimPrefix(opt, "=")
		if p, ok := strings.CutPrefix(opt, "linker="); ok && p != "" {
			out = append(out, shellQuote(p))
		}
	}
	return out
}

// bunfigCode: a bunfig.toml's registries ([install] registry, [install.scopes]), as npm
// install --registry of each, and the scripts it preloads before every bun run or test,
// as bun running them.
func bunfigCode(text string, x *extraction) {
	x.tomlValues(text, func(full []string, dotted string, val *textedit.Value) {
		n := len(full)
		switch {
		case n >= 2 && full[0] == "install" && (full[1] == "registry" || full[1] == "scopes"):
			// registry = URL | { url = URL }; scopes.NAME = URL | { url = URL }.
			if val.Kind == '{' {
				val, _ = val.Member("url")
			} else if val.Kind != '"' || full[n-1] == "token" || full[n-1] == "username" || full[n-1] == "password" {
				return
			}
			for _, s := range tomlStrings(text, val) {
				x.shell(dotted+" (bun installs from it)", "npm install --registry "+shellQuote(s))
			}
		case full[n-1] == "preload":
			for _, s := range tomlStrings(text, val) {
				if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "/") || strings.HasPrefix(s, "~") {
					x.shell(fmt.Sprintf("%s (bun runs it first)", dotted), "bun "+shellQuote(s))
				}
			}
		}
	})
}
