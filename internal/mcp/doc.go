// Package mcp is moat's MCP proxy: it relays JSON-RPC between an MCP client and an MCP
// server unchanged, and decides each tool call, resource read and prompt request with the
// policy before the server sees it.
package mcp
