package agent

// off are the values that leave a switch variable off, as the programs read them
// (Claude Code's CLAUDE_CODE_* switches: "1", "true", "yes" and "on" turn them on).
var off = []string{"", "0", "false", "no", "off"}

// HomeEnv are the variables every agent program finds its user configuration by: set to
// another directory, the program reads another (empty) configuration, without moat's hooks.
var HomeEnv = []Env{
	{Name: "HOME", Default: "~", Why: "every agent reads its user settings from the home directory"},
	{Name: "USERPROFILE", Default: "~", Why: "the home directory on Windows"},
	{Name: "XDG_CONFIG_HOME", Default: "~/.config", Why: "VS Code, Claude Desktop and other Electron programs read their settings from it"},
}

// registry is the table All returns. Paths come from each agent's documentation and, for
// the programs moat's tests run (Claude Code 2.1.328, Gemini CLI 0.61.0, Codex 0.169.0),
// from their --help and bundles, as the comments say.
var registry = []Agent{
	{
		Name: "claude-code", Title: "Claude Code", Guard: Hooked, Dir: ".claude",
		Places: []Place{
			{Role: Hooks, Root: Home, Path: ".claude/settings.json", Why: "user hooks"},
			{Role: Hooks, Root: Project, Path: ".claude/settings.json", Why: "project hooks"},
			{Role: Settings, Root: Home, Path: ".claude/settings.local.json", Why: "user hooks"},
			{Role: Settings, Root: Project, Path: ".claude/settings.local.json", Why: "local project hooks"},
			{Role: Settings, Root: System, Path: "/etc/claude-code", Tree: true, OS: "linux", Why: "managed settings"},
			{Role: Settings, Root: System, Path: "/Library/Application Support/ClaudeCode", Tree: true, OS: "darwin", Why: "managed settings (macOS)"},
			{Role: MCP, Root: Home, Path: ".claude.json", Why: "MCP servers"},
			{Role: MCP, Root: Project, Path: ".mcp.json", Why: "project MCP servers"},
		},
		Instructions: []Pattern{
			{"**/CLAUDE.md", "Claude Code project and user memory"},
			{"**/CLAUDE.local.md", "Claude Code private project memory"},
			{"**/.claude/commands/**", "Claude Code slash commands"},
			{"**/.claude/agents/**", "Claude Code subagent definitions"},
		},
		Credentials: []Pattern{
			{"~/.claude/.credentials.json", "Claude Code's login (OAuth tokens)"},
		},
		Data: []string{".claude", ".claude.json", ".cache/claude", ".cache/claude-cli-nodejs", ".local/state/claude", ".local/share/claude"},
		CLI: CLI{
			Programs: []string{"claude"},
			Packages: []string{"@anthropic-ai/claude-code"},
			// claude --help (2.1.328).
			Options: []Option{
				{Names: []string{"bare"}, Why: `"Minimal mode: skip hooks (those defined in settings and by installed plugins…)"`},
				{Names: []string{"safe-mode"}, Why: `"Start with all customizations (… hooks, MCP servers …) disabled"`},
				{Names: []string{"restricted"}, Why: `"ignores user, project and local settings files"`},
				{Names: []string{"settings"}, Why: `"Settings file or JSON string to load more settings from": it can switch every hook off (disableAllHooks) or add hooks that run commands moat never sees`},
				{Names: []string{"setting-sources"}, Keep: []string{"user", "project"}, Why: `"Comma-separated list of setting sources to load (user, project, local)": a list without user or project drops the hooks moat set up there`},
				{Names: []string{"mcp-config"}, Why: `"Load MCP servers from JSON files or strings": servers moat has not wrapped, whose commands run when the session starts`},
				{Names: []string{"plugin-dir", "plugin-url"}, Why: "plugins for this session only carry hooks and MCP servers that run commands moat never sees"},
			},
			// The switches the options above set, and what the program reads them as
			// (strings of the 2.1.328 binary).
			Env: []Env{
				{Name: "CLAUDE_CONFIG_DIR", Default: "~/.claude", Why: "moves ~/.claude and ~/.claude.json, and the hooks and MCP servers in them"},
				{Name: "CLAUDE_CODE_SIMPLE", Off: off, Why: "what --bare sets: hooks are skipped"},
				{Name: "CLAUDE_CODE_SAFE_MODE", Off: off, Why: "what --safe-mode sets: hooks and MCP servers are disabled"},
				{Name: "CLAUDE_CODE_RESTRICTED", Off: off, Why: "what --restricted sets: user and project settings are ignored"},
				{Name: "CLAUDE_CODE_PERSONAL_HOOKS_OFF", Off: []string{"", "none", "0", "false", "no", "off"}, Why: "switches the user's own hooks off"},
				{Name: "CLAUDE_CODE_RESTRICT_PERSONAL_CONFIG", Off: off, Why: "limits what the user's own settings (and their hooks) may do"},
				{Name: "CLAUDE_CODE_MANAGED_SETTINGS_PATH", Why: "replaces the managed settings, which can switch every hook off"},
				{Name: "CLAUDE_CODE_REMOTE_SETTINGS_PATH", Why: "replaces the remote managed settings, which can switch every hook off"},
			},
			Writers: []Writer{
				{Words: []string{"mcp", "add|add-json|add-from-claude-desktop|remove"}, Role: MCP, Why: "claude mcp add and remove rewrite ~/.claude.json or .mcp.json"},
			},
		},
	},
	{
		Name: "cursor", Title: "Cursor", Guard: Hooked, Dir: ".cursor",
		Places: []Place{
			{Role: Hooks, Root: Home, Path: ".cursor/hooks.json", Why: "user hooks"},
			{Role: Hooks, Root: Project, Path: ".cursor/hooks.json", Why: "project hooks"},
			{Role: Settings, Root: System, Path: "/etc/cursor/hooks.json", OS: "linux", Why: "enterprise hooks"},
			{Role: Settings, Root: System, Path: "/Library/Application Support/Cursor/hooks.json", OS: "darwin", Why: "enterprise hooks (macOS)"},
			{Role: MCP, Root: Home, Path: ".cursor/mcp.json", Why: "MCP servers"},
			{Role: MCP, Root: Project, Path: ".cursor/mcp.json", Why: "project MCP servers"},
		},
		Instructions: []Pattern{
			{"**/.cursorrules", "Cursor rules (legacy file)"},
			{"**/.cursor/rules/**", "Cursor project rules"},
		},
		// The editor and its CLI agent read ~/.cursor from the home directory.
		CLI: CLI{Programs: []string{"cursor", "cursor-agent"}},
	},
	{
		Name: "windsurf", Title: "Windsurf", Guard: Hooked, Dir: ".codeium/windsurf",
		Places: []Place{
			{Role: Hooks, Root: Home, Path: ".codeium/windsurf/hooks.json", Why: "user hooks"},
			{Role: Hooks, Root: Project, Path: ".windsurf/hooks.json", Why: "workspace hooks"},
			{Role: Settings, Root: Home, Path: ".codeium/hooks.json", Why: "JetBrains plugin hooks"},
			{Role: Settings, Root: System, Path: "/etc/windsurf/hooks.json", OS: "linux", Why: "system hooks"},
			{Role: Settings, Root: System, Path: "/Library/Application Support/Windsurf/hooks.json", OS: "darwin", Why: "system hooks (macOS)"},
			{Role: MCP, Root: Home, Path: ".codeium/windsurf/mcp_config.json", Why: "MCP servers"},
		},
		Instructions: []Pattern{
			{"**/.windsurfrules", "Windsurf rules (legacy file)"},
			{"**/.windsurf/rules/**", "Windsurf workspace rules"},
		},
		CLI: CLI{Programs: []string{"windsurf"}},
	},
	{
		Name: "gemini-cli", Title: "Gemini CLI", Guard: Hooked, Dir: ".gemini",
		Places: []Place{
			{Role: Hooks, Root: Home, Path: ".gemini/settings.json", Why: "user hooks and MCP servers"},
			{Role: Hooks, Root: Project, Path: ".gemini/settings.json", Why: "project hooks and MCP servers"},
			{Role: MCP, Root: Home, Path: ".gemini/settings.json", Why: "user hooks and MCP servers"},
			{Role: MCP, Root: Project, Path: ".gemini/settings.json", Why: "project hooks and MCP servers"},
			// Storage.getSystemConfigDir: settings.json (which overrides the user's) and
			// system-defaults.json.
			// Folders trusted here load their .gemini/settings.json, with its hooks and MCP
			// servers; "/" trusts every folder.
			{Role: Settings, Root: Home, Path: ".gemini/trustedFolders.json", Why: "trusted folders, whose project settings, hooks and MCP servers load"},
			{Role: Settings, Root: System, Path: "/etc/gemini-cli", Tree: true, OS: "linux", Why: "system settings, which override the user's"},
			{Role: Settings, Root: System, Path: "/Library/Application Support/GeminiCli", Tree: true, OS: "darwin", Why: "system settings, which override the user's (macOS)"},
		},
		Instructions: []Pattern{
			{"**/GEMINI.md", "Gemini CLI context files"},
		},
		Credentials: []Pattern{
			{"~/.gemini/oauth_creds.json", "Gemini CLI's Google login"},
			{"~/.gemini/mcp-oauth-tokens.json", "Gemini CLI's tokens for MCP servers"},
		},
		Data: []string{".gemini"},
		CLI: CLI{
			Programs: []string{"gemini"},
			Packages: []string{"@google/gemini-cli"},
			// gemini --help (0.61.0) has no option that skips hooks; its bundle reads these.
			Env: []Env{
				{Name: "GEMINI_CLI_HOME", Default: "~", Why: "replaces the home directory ~/.gemini is found in"},
				{Name: "GEMINI_CLI_SYSTEM_SETTINGS_PATH", Why: "names the system settings, which override the user's (hooksConfig.enabled: false switches every hook off)"},
				{Name: "GEMINI_CLI_SYSTEM_DEFAULTS_PATH", Why: "names the system defaults, which add settings moat never sees"},
				{Name: "GEMINI_CLI_TRUST_WORKSPACE", Off: []string{"", "true"}, Why: `"false" makes the workspace untrusted: its .gemini/settings.json, and the hooks in it, are ignored`},
				{Name: "GEMINI_RESTRICTED_MODE", Off: []string{"", "false"}, Why: `"true" makes the workspace untrusted: its .gemini/settings.json, and the hooks in it, are ignored`},
			},
			Writers: []Writer{
				{Words: []string{"mcp", "add|remove|enable|disable"}, Role: MCP, Why: "gemini mcp add, remove, enable and disable rewrite .gemini/settings.json"},
				{Words: []string{"hooks|hook", "migrate"}, Role: Hooks, Why: "gemini hooks migrate rewrites the hooks of .gemini/settings.json"},
			},
		},
	},
	{
		Name: "codex", Title: "Codex", Guard: Hooked, Dir: ".codex",
		Places: []Place{
			{Role: Hooks, Root: Home, Path: ".codex/hooks.json", Why: "user hooks"},
			{Role: Hooks, Root: Project, Path: ".codex/hooks.json", Why: "project hooks"},
			{Role: HookTrust, Root: Home, Path: ".codex/config.toml", Why: "configuration, trusted hooks and MCP servers"},
			{Role: MCP, Root: Home, Path: ".codex/config.toml", Why: "configuration, trusted hooks and MCP servers"},
			{Role: MCP, Root: Project, Path: ".codex/config.toml", Why: "project configuration"},
			{Role: Settings, Root: Home, Path: ".codex/requirements.toml", Why: "managed hooks"},
			// --profile NAME layers $CODEX_HOME/NAME.config.toml on the user's configuration.
			{Role: Settings, Root: Home, Path: ".codex/*.config.toml", Why: "profiles, layered on config.toml by --profile"},
			{Role: Settings, Root: System, Path: "/etc/codex", Tree: true, Why: "managed configuration and requirements"},
			// Execution policy rules (prefix_rule): commands Codex runs without asking.
			// The files, not the tree: Codex creates and removes lock directories in
			// ~/.codex, which a protected tree below it would forbid in the sandbox.
			{Role: Settings, Root: Home, Path: ".codex/rules/*", Why: "execution policy rules, which let commands run without asking"},
		},
		Instructions: []Pattern{
			{"**/AGENTS.md", "Codex and other agents' project instructions"},
			{"**/AGENTS.override.md", "Codex instructions that override AGENTS.md"},
		},
		Credentials: []Pattern{
			{"~/.codex/auth.json", "Codex's login (an OpenAI API key or ChatGPT tokens)"},
		},
		Data: []string{".codex"},
		CLI: CLI{
			Programs: []string{"codex"},
			Packages: []string{"@openai/codex"},
			// codex --help (0.169.0); `codex features list` names the hooks feature "hooks".
			Options: []Option{
				{Names: []string{"c", "config"}, Values: []string{"features", "features.hooks", "hooks", "hooks.*", "mcp_servers", "mcp_servers.*", "notify"},
					Why: `"Override a configuration value": features.hooks=false switches hooks off, hooks.* replaces them, and mcp_servers.* and notify run commands moat never sees`},
				{Names: []string{"disable"}, Values: []string{"hooks"}, Why: `"Disable a feature": --disable hooks switches every hook off`},
				{Names: []string{"dangerously-bypass-hook-trust"}, Why: `"Run enabled hooks without requiring persisted hook trust": hooks the user never reviewed run`},
				{Names: []string{"p", "profile"}, Values: []string{"*/*", `*\*`, "*..*"}, Why: "a profile named by a path is a configuration file outside ~/.codex"},
			},
			Env: []Env{
				{Name: "CODEX_HOME", Default: "~/.codex", Why: "moves ~/.codex, and the hooks and MCP servers in it"},
			},
			Writers: []Writer{
				{Words: []string{"mcp", "add|remove"}, Role: MCP, Why: "codex mcp add and remove rewrite ~/.codex/config.toml"},
				{Words: []string{"features", "enable|disable"}, Role: HookTrust, Why: "codex features enable and disable rewrite ~/.codex/config.toml (disable hooks switches every hook off)"},
			},
		},
	},
	{
		Name: "claude-desktop", Title: "Claude Desktop",
		Places: []Place{
			{Role: MCP, Root: Home, Path: "Library/Application Support/Claude/claude_desktop_config.json", OS: "darwin", Why: "MCP servers (macOS)"},
			{Role: MCP, Root: Home, Path: "AppData/Roaming/Claude/claude_desktop_config.json", OS: "windows", Why: "MCP servers (Windows)"},
			{Role: MCP, Root: Home, Path: ".config/Claude/claude_desktop_config.json", Why: "MCP servers"},
		},
	},
	{
		Name: "vscode", Title: "VS Code",
		Places: []Place{
			{Role: MCP, Root: Home, Path: "Library/Application Support/Code/User/mcp.json", OS: "darwin", Why: "user MCP servers (macOS)"},
			{Role: MCP, Root: Home, Path: "AppData/Roaming/Code/User/mcp.json", OS: "windows", Why: "user MCP servers (Windows)"},
			{Role: MCP, Root: Home, Path: ".config/Code/User/mcp.json", Why: "user MCP servers"},
			{Role: MCP, Root: Project, Path: ".vscode/mcp.json", Why: "workspace MCP servers"},
			// Each profile has its own mcp.json, which `moat mcp wrap` does not rewrite.
			{Role: Settings, Root: Home, Path: "Library/Application Support/Code/User/profiles/*/mcp.json", OS: "darwin", Why: "profiles' MCP servers (macOS)"},
			{Role: Settings, Root: Home, Path: "AppData/Roaming/Code/User/profiles/*/mcp.json", OS: "windows", Why: "profiles' MCP servers (Windows)"},
			{Role: Settings, Root: Home, Path: ".config/Code/User/profiles/*/mcp.json", Why: "profiles' MCP servers"},
		},
		// GitHub Copilot, VS Code's agent, reads them.
		Instructions: []Pattern{
			{"**/.github/copilot-instructions.md", "GitHub Copilot repository instructions"},
			{"**/.github/instructions/**", "GitHub Copilot path-specific instructions"},
		},
		Credentials: []Pattern{
			{"~/.config/github-copilot/{hosts,apps}.json", "GitHub Copilot's GitHub tokens"},
		},
		// code --help: --user-data-dir moves the User directory and its mcp.json;
		// --add-mcp writes a server into the user's mcp.json.
		CLI: CLI{
			Programs: []string{"code", "code-insiders"},
			Options: []Option{
				{Names: []string{"user-data-dir"}, Why: "starts VS Code with another User directory, whose MCP servers moat has not wrapped"},
			},
			Env: []Env{
				{Name: "VSCODE_PORTABLE", Why: "moves VS Code's data directory, and the MCP servers in it"},
			},
			Writers: []Writer{
				{Words: []string{"--add-mcp"}, Role: MCP, Why: "code --add-mcp writes a server into the user's mcp.json"},
			},
		},
	},
	// The agents below have no hooks moat answers; moat guards them through moat-shell,
	// `moat run` or the sandbox, whose profiles are named after them.
	{
		// aider-chat (pip, pipx or uv); it writes its history and caches into the
		// repository (.aider*), which is the workspace.
		Name: "aider", Title: "aider", Guard: Launched,
		Data: []string{".aider"},
	},
	{
		Name: "cline", Title: "Cline", Guard: Launched,
		Places: []Place{
			{Role: Settings, Root: Home, Path: ".cline/data/settings/cline_mcp_settings.json", Why: "MCP servers"},
			{Role: Settings, Root: Home, Path: ".cline/hooks", Tree: true, Why: "hooks"},
		},
		Instructions: []Pattern{
			{"**/.clinerules", "Cline rules"},
		},
		Data: []string{".cline"},
	},
	{
		Name: "continue", Title: "Continue", Guard: Launched,
		Places: []Place{
			{Role: Settings, Root: Home, Path: ".continue/config.yaml", Why: "configuration and MCP servers"},
			{Role: Settings, Root: Home, Path: ".continue/config.json", Why: "configuration (legacy file)"},
		},
		Data: []string{".continue"},
	},
	{
		// Cursor's command-line agent keeps its own configuration beside the editor's in
		// ~/.cursor, whose hook and MCP files are the Cursor row's places; its program
		// is listed there too, as the editor and the CLI read the same files.
		Name: "cursor-agent", Title: "Cursor Agent CLI", Guard: Launched,
		Data: []string{".cursor", ".config/cursor", ".local/share/cursor-agent"},
	},
	{
		Name: "openclaw", Title: "OpenClaw", Guard: Launched,
		Places: []Place{
			{Role: Settings, Root: Home, Path: ".openclaw/openclaw.json", Why: "configuration"},
		},
		Data: []string{".openclaw"},
	},
	{
		// SWE-agent (pip sweagent) writes its trajectories under the working directory.
		Name: "swe-agent", Title: "SWE-agent", Guard: Launched,
		Data: []string{".cache/swe-agent", ".cache/swerex"},
	},
}
