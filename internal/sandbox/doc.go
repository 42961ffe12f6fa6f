// Package sandbox works out what a launch enforces from a policy's sandbox section (Landlock rules, ports, scopes, resource limits, a filtered environment); its subpackage linux enforces the plan and generate writes the section as macOS and Tetragon profiles.
package sandbox
