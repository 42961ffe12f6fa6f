package engine

import (
	"fmt"
	"strings"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/hosted"
	"github.com/moatdev/moat/internal/netdest"
	"github.com/moatdev/moat/internal/shell"
)

// An MCP tool that grants access to others or widens it (adds a collaborator or a
// member, binds a role, shares a file, sets a bucket's ACL or policy, changes branch
// protection, makes a repository public) is privilege.grant, as the same change made by
// gh, aws, gcloud, az or kubectl is (internal/shell, grants.go). It is told by the words
// of its name (a verb that changes and a word for access) or by arguments that widen
// access whatever the tool is called: visibility public, private false, a principal of
// everyone, an administrator's role.

var (
	// mcpGrantVerbs grant by themselves: share_file, invite_user, grant_access.
	mcpGrantVerbs = []string{"grant", "invite", "share"}
	// mcpChangeVerbs change what follows them: add_collaborator, set_iam_policy.
	mcpChangeVerbs = []string{"add", "set", "attach", "bind", "assign", "put", "update", "create", "edit", "modify", "change", "patch", "enable", "remove", "delete"}
	// mcpAccessWords are what such a change changes.
	mcpAccessWords = []string{"collaborator", "collaborators", "member", "members", "membership", "memberships",
		"permission", "permissions", "iam", "role", "roles", "acl", "acls", "policy", "protection", "visibility",
		"access", "sharing", "owner", "owners", "admin", "admins", "deploy", "binding", "bindings", "rbac"}
	// mcpEveryone are argument values that name everyone.
	mcpEveryone = []string{"allusers", "allauthenticatedusers", "*", "everyone", "anyone", "public", "0.0.0.0/0", "::/0"}
	// mcpAdminRoles are argument values that name an administrator.
	mcpAdminRoles = []string{"admin", "administrator", "owner", "maintain", "maintainer", "cluster-admin",
		"roles/owner", "roles/editor", "administratoraccess", "contributor", "superuser", "root"}
)

// mcpGrants returns privilege.grant when the call grants or widens access.
func mcpGrants(c *call.Call) []call.Finding {
	words := nameWords(c.MCP.Tool)
	if hasWord(words, mcpChangeVerbs) || hasWord(words, mcpWriteVerbs) {
		if what := hosted.SecurityOff(c.Args); what != "" {
			return []call.Finding{shell.Kinds.New("evasion.security-off", fmt.Sprintf("%s: %s", c.MCP.String(), what))}
		}
		if to := forwardsMail(c.Args); to != "" {
			// A filter or setting that forwards mail sends every message it matches,
			// from now on, to that address.
			return []call.Finding{shell.Kinds.New("exfiltration.upload", fmt.Sprintf("%s: forwards mail to %s", c.MCP.String(), to))}
		}
		if hasWord(words, []string{"webhook", "webhooks", "hook", "hooks"}) {
			// A webhook sends the repository's or the account's events (pushes, their
			// code, issues) to its URL from now on.
			if u := webhookURL(c.Args); u != "" {
				return []call.Finding{shell.Kinds.New("exfiltration.upload", fmt.Sprintf("%s: sends events to %s from now on", c.MCP.String(), u))}
			}
		}
	}
	switch {
	case hasWord(words, mcpGrantVerbs):
		return grantFinding(c, "a tool that grants access")
	case hasWord(words, mcpChangeVerbs) && hasWord(words, mcpAccessWords):
		if why := widening(c.Args); why != "" {
			return grantFinding(c, why)
		}
		return grantFinding(c, "a tool that changes who may act")
	case hasWord(words, mcpChangeVerbs) || hasWord(words, mcpWriteVerbs):
		if why := widening(c.Args); why != "" {
			return grantFinding(c, why)
		}
	}
	return nil
}

func grantFinding(c *call.Call, why string) []call.Finding {
	return []call.Finding{shell.Kinds.New("privilege.grant", fmt.Sprintf("%s: %s", c.MCP.String(), why))}
}

// widening says which argument widens access ("" when none does): a visibility or ACL of
// everyone, private set false, public set true, a principal or member that is everyone,
// a role or permission of an administrator.
func widening(args map[string]any) string {
	for _, k := range sortedKeys(args) {
		key := squash(k)
		switch v := args[k].(type) {
		case bool:
			if key == "private" && !v || (key == "public" || key == "ispublic") && v {
				return fmt.Sprintf("%s %v", k, v)
			}
		case string:
			l := strings.ToLower(strings.TrimSpace(v))
			switch key {
			case "visibility", "acl", "cannedacl", "access", "accesslevel", "publicaccess":
				if strings.HasPrefix(l, "public") || l == "blob" || l == "container" {
					return k + " " + v
				}
			case "principal", "member", "members", "grantee", "assignee", "sourceranges", "cidr", "cidrip":
				if containsWord(mcpEveryone, l) || strings.HasPrefix(l, "allusers") || strings.HasPrefix(l, "allauthenticatedusers") {
					return k + " " + v
				}
			case "role", "roles", "permission", "permissions", "clusterrole", "policyarn", "accesslevelname":
				last := l[strings.LastIndexAny(l, "/:")+1:]
				if containsWord(mcpAdminRoles, l) || containsWord(mcpAdminRoles, last) {
					return k + " " + v
				}
			}
		}
	}
	return ""
}

// forwardsMail returns the address a mail setting or filter forwards to (a key of
// forwarding whose value is an address), or "".
func forwardsMail(args map[string]any) string {
	return hosted.FirstNested(args, func(k string, v any, _ map[string]any) string {
		s, ok := v.(string)
		if ok && strings.Contains(squash(k), "forward") && strings.Contains(s, "@") && !strings.ContainsAny(s, " \t\n") {
			return s
		}
		return ""
	})
}

// webhookURL returns the URL a webhook's arguments name (url, config.url, target_url…),
// unless it is this machine's, or "".
func webhookURL(args map[string]any) string {
	return hosted.FirstNested(args, func(k string, v any, _ map[string]any) string {
		s, ok := v.(string)
		if ok && strings.HasSuffix(squash(k), "url") && strings.Contains(s, "://") && leaves(netdest.ParseURL(s)) {
			return s
		}
		return ""
	})
}
