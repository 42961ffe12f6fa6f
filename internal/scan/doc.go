// Package scan inspects the text of agent tool calls for secrets and other hazards, and redacts the secrets it finds.
package scan
