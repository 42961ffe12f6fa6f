package mcpconfig

// Server is one MCP server entry of a config file, as the agent would start it: a
// wrapped entry is given as it was before moat wrapped it.
type Server struct {
	Name    string
	Command string
	Args    []string
	Env     map[string]string
	// URL is a remote server's address; Command is then empty.
	URL string
	// Skipped, when set, says why the entry cannot be started from what it says.
	Skipped string
}

// Servers returns the MCP servers text configures, in file order.
func (c Client) Servers(text string) ([]Server, error) {
	original, _, err := c.Unwrap(text)
	if err != nil {
		return nil, err
	}
	entries, sx, err := c.entries(original)
	if err != nil {
		return nil, err
	}
	var out []Server
	for _, e := range entries {
		s := Server{Name: e.name}
		switch {
		case e.skip != "":
			s.Skipped = e.skip
		case e.val.Kind != '{':
			s.Skipped = "the entry is not an object"
		default:
			c.readServer(original, sx, e.val, &s)
		}
		out = append(out, s)
	}
	return out, nil
}

func (c Client) readServer(text string, sx syntax, v *value, s *Server) {
	for _, r := range c.remotes {
		if u, _ := v.Member(r.key); u != nil {
			s.URL, _ = stringOf(text, sx, u)
			return
		}
	}
	cmd, _ := v.Member("command")
	if cmd == nil {
		s.Skipped = "it has no command"
		return
	}
	command, ok := stringOf(text, sx, cmd)
	if !ok || command == "" {
		s.Skipped = "its command is not a string"
		return
	}
	s.Command = command
	if args, _ := v.Member("args"); args != nil && args.Kind == '[' {
		for _, a := range args.Elems {
			str, ok := stringOf(text, sx, a)
			if !ok {
				s.Skipped = "its args are not all strings"
				return
			}
			s.Args = append(s.Args, str)
		}
	}
	if env, _ := v.Member("env"); env != nil && env.Kind == '{' {
		s.Env = map[string]string{}
		for i, k := range env.Keys {
			if str, ok := stringOf(text, sx, env.Elems[i]); ok {
				s.Env[k] = str
			}
		}
	}
	if isMoat(s.Command) && isBridge(s.Args) {
		// A remote server behind moat's bridge that Unwrap could not restore (edited
		// since): it is still a remote server.
		*s = Server{Name: s.Name, URL: bridgeURL(s.Args, s.Env)}
		if s.URL == "" {
			s.Skipped = "it runs moat's bridge, but its env does not say to which server"
		}
	}
}
