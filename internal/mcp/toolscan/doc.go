// Package toolscan inspects the tools an MCP server lists for poisoning, and pins each tool's definition so that a later change is noticed.
package toolscan
