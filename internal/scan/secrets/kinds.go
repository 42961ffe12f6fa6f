package secrets

import "github.com/moatdev/moat/internal/call"

// Kinds are the findings of the secret detectors: one per credential format. A
// secret in a call's arguments is evidence of unsecured credentials (ATT&CK T1552), and a
// private key of its sub-technique T1552.004.
var Kinds = call.FindingKinds{
	{ID: "secret.age-secret-key", Category: "credentials", Severity: call.High, Taxonomy: "T1552.004", Summary: "an age encryption secret key"},
	{ID: "secret.anthropic-api-key", Category: "credentials", Severity: call.High, Taxonomy: "T1552", Summary: "an Anthropic API key"},
	{ID: "secret.authorization-header", Category: "credentials", Severity: call.Medium, Taxonomy: "T1552", Summary: "the credentials of an HTTP Authorization header (Bearer, Basic or token)"},
	{ID: "secret.aws-access-key-id", Category: "credentials", Severity: call.Medium, Taxonomy: "T1552", Summary: "an AWS access key id, the public half of an AWS access key"},
	{ID: "secret.aws-secret-access-key", Category: "credentials", Severity: call.Critical, Taxonomy: "T1552", Summary: "an AWS secret access key"},
	{ID: "secret.cli-user-password", Category: "credentials", Severity: call.High, Taxonomy: "T1552", Summary: "a user:password pair on a command line (curl -u)"},
	{ID: "secret.digitalocean-token", Category: "credentials", Severity: call.High, Taxonomy: "T1552", Summary: "a DigitalOcean API token"},
	{ID: "secret.env-high-entropy", Category: "credentials", Severity: call.Medium, Taxonomy: "T1552", Summary: "a high-entropy value assigned in an env file or shell script"},
	{ID: "secret.generic-key", Category: "credentials", Severity: call.Medium, Taxonomy: "T1552", Summary: "a random-looking value assigned to a name ending in key"},
	{ID: "secret.generic-secret", Category: "credentials", Severity: call.Medium, Taxonomy: "T1552", Summary: "a random-looking value assigned to a secret, token, credential or API key name"},
	{ID: "secret.github-token", Category: "credentials", Severity: call.High, Taxonomy: "T1552", Summary: "a GitHub access, OAuth, app or refresh token"},
	{ID: "secret.gitlab-token", Category: "credentials", Severity: call.High, Taxonomy: "T1552", Summary: "a GitLab access, deploy, runner or CI token"},
	{ID: "secret.google-api-key", Category: "credentials", Severity: call.High, Taxonomy: "T1552", Summary: "a Google API key"},
	{ID: "secret.groq-api-key", Category: "credentials", Severity: call.High, Taxonomy: "T1552", Summary: "a Groq API key"},
	{ID: "secret.huggingface-token", Category: "credentials", Severity: call.High, Taxonomy: "T1552", Summary: "a Hugging Face access token"},
	{ID: "secret.ini-multiline", Category: "credentials", Severity: call.Medium, Taxonomy: "T1552.001", Summary: "a secret or password given as the indented lines of a multi-line INI value"},
	{ID: "secret.jwt", Category: "credentials", Severity: call.Medium, Taxonomy: "T1552", Summary: "a JSON Web Token, often a bearer credential"},
	{ID: "secret.netrc-password", Category: "credentials", Severity: call.High, Taxonomy: "T1552.001", Summary: "a password in a .netrc file"},
	{ID: "secret.npm-token", Category: "credentials", Severity: call.High, Taxonomy: "T1552", Summary: "an npm access token"},
	{ID: "secret.openai-api-key", Category: "credentials", Severity: call.High, Taxonomy: "T1552", Summary: "an OpenAI API key"},
	{ID: "secret.password-assignment", Category: "credentials", Severity: call.High, Taxonomy: "T1552", Summary: "a password written in configuration, code or a command line"},
	{ID: "secret.private-key", Category: "credentials", Severity: call.Critical, Taxonomy: "T1552.004", Summary: "a private key block (PEM, OpenSSH or PGP)"},
	{ID: "secret.pypi-token", Category: "credentials", Severity: call.High, Taxonomy: "T1552", Summary: "a PyPI API token"},
	{ID: "secret.sendgrid-api-key", Category: "credentials", Severity: call.High, Taxonomy: "T1552", Summary: "a SendGrid API key"},
	{ID: "secret.session-cookie", Category: "credentials", Severity: call.High, Taxonomy: "T1552", Summary: "a session cookie (a Cookie header's value, or a random value assigned to a session name), which logs in whoever sends it"},
	{ID: "secret.shopify-token", Category: "credentials", Severity: call.High, Taxonomy: "T1552", Summary: "a Shopify access token or shared secret"},
	{ID: "secret.slack-token", Category: "credentials", Severity: call.High, Taxonomy: "T1552", Summary: "a Slack bot, user or app token"},
	{ID: "secret.slack-webhook", Category: "credentials", Severity: call.Medium, Taxonomy: "T1552", Summary: "a Slack incoming webhook URL, which lets anyone post to the channel"},
	{ID: "secret.stripe-key", Category: "credentials", Severity: call.Critical, Taxonomy: "T1552", Summary: "a Stripe live secret or restricted key, or a webhook signing secret"},
	{ID: "secret.stripe-test-key", Category: "credentials", Severity: call.Low, Taxonomy: "T1552", Summary: "a Stripe test-mode key: no live money, but the account's test data"},
	{ID: "secret.url-password", Category: "credentials", Severity: call.High, Taxonomy: "T1552", Summary: "a password in a URL: a database, broker or other connection string"},
	{ID: "secret.vault-token", Category: "credentials", Severity: call.Critical, Taxonomy: "T1552", Summary: "a HashiCorp Vault token"},
	{ID: "secret.databricks-token", Category: "credentials", Severity: call.High, Taxonomy: "T1552", Summary: "a Databricks access token"},
	{ID: "secret.doppler-token", Category: "credentials", Severity: call.Critical, Taxonomy: "T1552", Summary: "a Doppler token, which reads the secrets it manages"},
	{ID: "secret.terraform-cloud-token", Category: "credentials", Severity: call.Critical, Taxonomy: "T1552", Summary: "a Terraform Cloud API token"},
	{ID: "secret.service-token", Category: "credentials", Severity: call.High, Taxonomy: "T1552", Summary: "an API token of a hosted developer service"},
	{ID: "secret.telegram-bot-token", Category: "credentials", Severity: call.High, Taxonomy: "T1552", Summary: "a Telegram bot token"},
	{ID: "secret.discord-bot-token", Category: "credentials", Severity: call.High, Taxonomy: "T1552", Summary: "a Discord bot token"},
}
