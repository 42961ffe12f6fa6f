// Package scan masks the secrets in text before moat records or shows it; its subpackages inspect the text of agent tool calls for secrets, prompt injection and Unicode smuggling.
package scan
