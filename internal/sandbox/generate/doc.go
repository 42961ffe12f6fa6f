// Package generate writes a policy's sandbox section as the profile of another enforcer: a macOS sandbox (SBPL) profile or a Tetragon TracingPolicy.
package generate
