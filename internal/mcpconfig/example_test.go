package mcpconfig_test

import (
	"fmt"

	"github.com/moatdev/moat/internal/mcpconfig"
	"github.com/rogpeppe/go-internal/diff"
)

func ExampleClient_Wrap() {
	cursor, _ := mcpconfig.ForClient("cursor")
	text := `{
  // my servers
  "mcpServers": {
    "fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]},
    "docs": {"url": "https://docs.example.com/mcp", "headers": {"Authorization": "Bearer ${env:DOCS_TOKEN}"}}
  }
}
`
	wrapped, changes, err := cursor.Wrap(text, "/usr/local/bin/moat", mcpconfig.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s", diff.Diff("mcp.json (now)", []byte(text), "mcp.json (after)", []byte(wrapped)))
	for _, c := range changes {
		fmt.Println(c)
	}
	restored, _, _ := cursor.Unwrap(wrapped)
	fmt.Println("restored exactly:", restored == text)
	// Output:
	// diff mcp.json (now) mcp.json (after)
	// --- mcp.json (now)
	// +++ mcp.json (after)
	// @@ -1,7 +1,7 @@
	//  {
	//    // my servers
	//    "mcpServers": {
	// -    "fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]},
	// -    "docs": {"url": "https://docs.example.com/mcp", "headers": {"Authorization": "Bearer ${env:DOCS_TOKEN}"}}
	// +    "fs": {"command": "/usr/local/bin/moat", "args": ["mcp", "proxy", "--name", "fs", "--", "npx", "-y", "@modelcontextprotocol/server-filesystem", "/tmp"]},
	// +    "docs": {"command": "/usr/local/bin/moat", "args": ["mcp", "proxy", "--name", "docs", "--stdio", "--upstream-env", "MOAT_MCP_UPSTREAM"], "env": {"MOAT_MCP_UPSTREAM": "{\"url\":\"https://docs.example.com/mcp\",\"headers\":{\"Authorization\":\"Bearer ${env:DOCS_TOKEN}\"}}", "MOAT_MCP_ORIGINAL": "{\"url\": \"https://docs.example.com/mcp\", \"headers\": {\"Authorization\": \"Bearer ${env:DOCS_TOKEN}\"}}"}}
	//    }
	//  }
	// mcpServers.fs (line 4): wrapped
	// mcpServers.docs (line 5): wrapped (HTTP, through moat's stdio bridge)
	// restored exactly: true
}
