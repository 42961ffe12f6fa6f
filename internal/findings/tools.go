package findings

import "github.com/moatdev/moat/internal/call"

// The engine's own checks of a call (internal/engine: urls.go, mcpcatalog.go) are the one
// analyser declared here rather than beside its code: policies validate finding ids
// against this catalogue, and the engine, which imports the policy package, cannot be
// imported by it.

// ToolKinds are the findings the engine reports about what a web fetch or an MCP tool
// call does, read from its URL and its arguments: where a URL leads, and what a tool of
// a well-known MCP server destroys. (The SQL an MCP tool runs and the text it sends carry
// the findings of the SQL, secret and injection scanners.)
var ToolKinds = call.FindingKinds{
	{ID: "network.cloud-metadata", Category: "credentials", Severity: call.Critical, Taxonomy: "T1552.005", Summary: "requests a cloud metadata service (169.254.169.254 in any spelling, metadata.google.internal, fd00:ec2::254, 100.100.100.200…), which hands out the machine's cloud credentials"},
	{ID: "network.url-scheme", Category: "network", Severity: call.High, Taxonomy: "T1005", Summary: "fetches a URL whose scheme is not http or https (file:, ftp:, gopher:, dict:, data:…): local files or other protocols reached through a web tool"},
	{ID: "network.url-unreadable", Category: "analysis", Severity: call.Medium, Taxonomy: "T1027", Summary: "fetches a URL in which moat finds no host, so where it leads is unknown"},
	{ID: "destructive.data.delete", Category: "destructive", Severity: call.High, Taxonomy: "T1485", Summary: "deletes records a service keeps (issues, pages, messages, memory entities, files of a hosted repository) through an MCP tool"},
}
