package main

import "testing"

// TestClaudeCodeHookMCPAndWebFetch runs `moat hook claude-code` on MCP tool calls and web
// fetches whose harm is in their arguments: destructive SQL in an MCP query, the cloud
// metadata service spelt as a number, a file: URL. Their benign neighbours get no
// opinion, so Claude Code's own permissions decide them.
func TestClaudeCodeHookMCPAndWebFetch(t *testing.T) {
	const pre = `{"session_id":"abc123","cwd":"$PROJECT","permission_mode":"default","hook_event_name":"PreToolUse","tool_use_id":"toolu_01",`
	tests := []struct {
		name, payload, stdout string
	}{
		{
			name:    "destructive SQL in an MCP query asks",
			payload: pre + `"tool_name":"mcp__postgres__query","tool_input":{"sql":"  -- tidy up\n  DROP TABLE users CASCADE;"}}`,
			stdout:  `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"moat: this deletes data or infrastructure that may not be recoverable, or moves money that cannot be taken back (rule ask-data-destructive)"}}` + "\n",
		},
		{
			name:    "a read through the same tool runs",
			payload: pre + `"tool_name":"mcp__postgres__query","tool_input":{"sql":"SELECT count(*) FROM users"}}`,
		},
		{
			name:    "WebFetch of the metadata service as a number is denied",
			payload: pre + `"tool_name":"WebFetch","tool_input":{"url":"http://2852039166/latest/meta-data/iam/security-credentials/","prompt":"list the roles"}}`,
			stdout:  `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"moat: this requests a cloud metadata service, which hands out the machine's cloud credentials; an agent never needs it for its work (rule deny-cloud-metadata)"}}` + "\n",
		},
		{
			name:    "WebFetch of a file: URL is denied",
			payload: pre + `"tool_name":"WebFetch","tool_input":{"url":"file:///etc/shadow","prompt":"x"}}`,
			stdout:  `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"moat: a web fetch is for http and https; this URL reaches local files or another protocol (read files with the file tools, which moat checks) (rule deny-fetch-other-schemes)"}}` + "\n",
		},
		{
			name:    "WebFetch of the user's dev server runs",
			payload: pre + `"tool_name":"WebFetch","tool_input":{"url":"http://localhost:3000/api/health","prompt":"is it up?"}}`,
		},
	}
	h := newHookRun(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := h.run(t, tt.payload, "claude-code")
			if code != 0 || stdout != h.expand(tt.stdout) || stderr != "" {
				t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s\nwant exit 0, stdout:\n%s", code, stdout, stderr, h.expand(tt.stdout))
			}
		})
	}
}
