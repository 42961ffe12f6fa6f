package engine

import (
	"regexp"
	"sync"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/findings"
)

// A browser server's evaluate tool (puppeteer_evaluate, browser_evaluate, execute_script)
// runs JavaScript in the page, not on the machine: it touches no file and starts no
// process, so it is not read as node code. What it can take is the page's: the session
// cookies and tokens of whoever the browser is logged in as. Reading them hands them to
// the agent (credentials.read); sending them to an address is exfiltration. Script that
// reads neither is the page's business.

// mcpPageVerbs, in a tool's name, and mcpPageWords, in its server's or tool's, say that
// the tool runs script in a browser page.
var (
	mcpPageVerbs = []string{"evaluate", "eval", "execute", "exec", "run", "inject"}
	mcpPageWords = []string{"browser", "puppeteer", "playwright", "page", "chrome", "chromium", "selenium", "webdriver", "cdp", "tab"}
	// mcpPageScriptKeys are the argument names (squashed) of the script.
	mcpPageScriptKeys = []string{"script", "function", "expression", "code", "js", "javascript", "source"}
)

// pageSecrets matches what a page script reads that holds a login.
var pageSecrets = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\bdocument\s*\.\s*cookie\b|\b(?:local|session)Storage\b|\bindexedDB\b|\bcookieStore\b|type\s*=\s*["']?password\b|\bcredentials\s*\.\s*get\b`)
})

// pageSends matches what a page script uses to send data to an address of its choosing.
var pageSends = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\bfetch\s*\(|\bXMLHttpRequest\b|\bsendBeacon\s*\(|\bnew\s+WebSocket\b|\bnew\s+Image\b|\.src\s*=|\blocation(?:\.href)?\s*=|\bwindow\s*\.\s*open\s*\(|\bEventSource\b`)
})

// pageTool reports whether an MCP call runs script in a browser page.
func pageTool(c *call.Call) bool {
	return c.MCP != nil && hasWord(nameWords(c.MCP.Tool), mcpPageVerbs) && hasWord(mcpContext(c), mcpPageWords)
}

// pageScriptFindings returns the findings of the script a browser tool runs in the page.
func pageScriptFindings(c *call.Call) []call.Finding {
	if !pageTool(c) {
		return nil
	}
	var out []call.Finding
	for _, k := range sortedKeys(c.Args) {
		script, isString := c.Args[k].(string)
		if !isString || !containsWord(mcpPageScriptKeys, squash(k)) {
			continue
		}
		secret := pageSecrets().FindString(script)
		if secret == "" {
			continue
		}
		where := c.MCP.String() + " " + k
		if pageSends().MatchString(script) && sendsAway(script) {
			out = append(out, findings.New("exfiltration.network", where+": the page script reads "+secret+" and sends it to an address"))
			continue
		}
		out = append(out, findings.New("credentials.read", where+": the page script reads "+secret+", the page's login, for the agent"))
	}
	return out
}

// sendsAway reports whether the script addresses a request itself: an absolute URL,
// written out or built at run time ('https://' + host). A request to the page's own
// paths ('/api') carries the cookie to where it already goes.
func sendsAway(script string) bool { return scriptURL().MatchString(script) }

// scriptURL matches the start of an absolute URL in a script.
var scriptURL = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\b(?:https?|wss?)://`)
})
