package secrets

import (
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"

	"github.com/moatdev/moat/internal/scan/textmatch"
)

// Pattern fragments shared by the rules.
const (
	// tokenEnd follows a token: a byte that cannot continue it, or the end of the text.
	tokenEnd = `(?:[^A-Za-z0-9_-]|$)`

	// tokenStart goes before a token whose prefix is distinctive (ghp_, AKIA, sk-ant-…):
	// a word boundary, or an underscore, which \b alone does not take for one: a token
	// inside an identifier (an MCP tool named mcp__srv__ghp_…) must be found as well.
	// It stays zero-width where it can, so that two tokens separated by one byte are
	// both found.
	tokenStart = `(?:\b|_)`

	// The parts of an assignment: the key name, the closing quote or bracket of a quoted
	// key, an operator, then the value, possibly on the next, indented line (YAML nesting
	// and block scalars, INI continuation lines) and possibly after a YAML tag. A bare
	// value ends at a blank, a separator or a quote (echo "TOKEN=v" > .env).
	keyName    = `[A-Za-z0-9_.$-]+`
	keyClose   = `(?:\\?["'\x60])?\]?`
	assignOp   = `[ \t]*(?::=|=>|\?=|=|:)[ \t]*`
	nextLine   = `(?:[|>][-+]?[ \t]*)?(?:\r?\n[ \t]+(?:[A-Za-z0-9_-]+:[ \t]*)?)?`
	yamlTag    = `(?:!![A-Za-z]+[ \t]+)?`
	quotedVal  = `"(?P<secret>(?:[^"\\\s]|\\[^"\s])+)"|'(?P<secret>[^'\s]+)'|\x60(?P<secret>[^\x60\s]+)\x60|\\"(?P<secret>[^"\\\s]+)\\"`
	bareVal    = `(?P<secret>[^\s"'\x60,;&(){}\[\]<>\\]+)(?:[\s,;&"'\x60]|$)`
	assignment = keyClose + assignOp + nextLine + yamlTag + `(?:` + quotedVal + `|` + bareVal + `)`
	flagValue  = `[ \t]+(?:` + quotedVal + `|` + bareVal + `)`
)

// assignedValue matches, at the start of a key name, a value assigned to that key: env
// files and shell (NAME=v, export NAME="v", --name=v, --name v), YAML (name: v), JSON
// ("name": "v"), INI, TOML and properties (name = v) and code (name = "v", name := "v",
// 'name' => 'v', name: 'v'). The rules that use it run it where a name containing one of
// their keywords starts, and judge the name in their Verify.
var assignedValue = &textmatch.Pattern{Expr: `^(?:--(?P<name>` + keyName + `)` + flagValue + `|(?P<name>` + keyName + `)` + assignment + `)`}

// secretRules is the built-in rule table, most specific first. Token formats are those
// documented by their issuers (and catalogued by gitleaks); the patterns are our own.
// The table is static data: a pattern is compiled when a text first gives its rule
// something to search, so that loading the package compiles nothing.
var secretRules = []Rule{
	{
		ID:          "secret.private-key",
		Description: "a private key block: PEM (RSA, EC, DSA, PKCS#8, encrypted), OpenSSH or PGP",
		Pattern: &textmatch.Pattern{Expr: `-----BEGIN[ A-Z0-9]{0,32}PRIVATE KEY(?: BLOCK)?-----(?s:.*?)-----END[ A-Z0-9]{0,32}PRIVATE KEY(?: BLOCK)?-----` +
			`|-----BEGIN[ A-Z0-9]{0,32}PRIVATE KEY(?: BLOCK)?-----[A-Za-z0-9+/=\s\\:,.-]*[A-Za-z0-9+/=]`},
		Keywords: []string{"private key-----", "private key block-----"},
		Before:   48, After: 64 << 10, Lines: -1,
		Hit:    afterBegin,
		Verify: privateKeyBody,
	},
	{
		ID:          "secret.aws-access-key-id",
		Description: "an AWS access key id (AKIA…, ASIA…)",
		Pattern:     &textmatch.Pattern{Expr: tokenStart + `(?P<secret>(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})(?:[^A-Za-z0-9]|$)`},
		Keywords:    []string{"akia", "asia", "abia", "acca", "a3t"},
		Before:      1, After: 24,
		MinEntropy: 3,
	},
	{
		ID:          "secret.aws-secret-access-key",
		Description: "an AWS secret access key: 40 base64 characters assigned to an AWS secret key name",
		Pattern: &textmatch.Pattern{Expr: `^(?P<name>[A-Za-z0-9_.-]*(?i:secret[_.-]?access[_.-]?key|aws[_.-]?secret)[A-Za-z0-9_.-]*)` +
			keyClose + `[ \t]*(?::=|=>|=|:|[ \t])[ \t]*\\?["'\x60]?(?P<secret>[A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)`},
		Keywords: []string{"secret_access_key", "secretaccesskey", "secret-access-key", "aws_secret", "awssecret", "aws-secret"},
		Before:   64, After: 128, AtName: true,
		MinEntropy: 4,
	},
	{
		ID:          "secret.github-token",
		Description: "a GitHub token: personal (classic or fine-grained), OAuth, user-to-server, server-to-server or refresh",
		Pattern:     &textmatch.Pattern{Expr: tokenStart + `(?P<secret>gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9]{20,}_[A-Za-z0-9]{40,})(?:[^A-Za-z0-9_]|$)`},
		Keywords:    []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"},
		Before:      1, After: 300,
		MinEntropy: 3,
	},
	{
		ID:          "secret.gitlab-token",
		Description: "a GitLab token: personal, project or group access, deploy, runner, CI job, trigger, feed, OAuth or agent",
		Pattern: &textmatch.Pattern{Expr: tokenStart + `(?P<secret>gl(?:pat|oas|dt|rt|rtr|cbt|ptt|ft|imt|agent|soat|ffct|wt)-[A-Za-z0-9_-]{20,}(?:\.[0-9a-z]{2}\.?[0-9a-z]{7})?` +
			`|GR1348941[A-Za-z0-9_-]{20})` + tokenEnd},
		Keywords: []string{"glpat-", "gloas-", "gldt-", "glrt-", "glrtr-", "glcbt-", "glptt-", "glft-", "glimt-", "glagent-", "glsoat-", "glffct-", "glwt-", "gr1348941"},
		Before:   1, After: 400,
		MinEntropy: 3,
	},
	{
		ID:          "secret.slack-token",
		Description: "a Slack bot, user, app, configuration or refresh token (xoxb-, xoxp-, xapp-, …)",
		Pattern:     &textmatch.Pattern{Expr: tokenStart + `(?P<secret>xox(?:e\.xox)?[abposre]-[0-9A-Za-z]+(?:-[0-9A-Za-z]+)+|xapp-[0-9]-[A-Z0-9]+-[0-9]+-[A-Za-z0-9]+)(?:[^A-Za-z0-9-]|$)`},
		Keywords:    []string{"xox", "xapp-"},
		Before:      1, After: 300,
		MinLength: 24, MinEntropy: 3,
	},
	{
		ID:          "secret.slack-webhook",
		Description: "the secret path of a Slack incoming webhook or workflow trigger URL",
		Pattern:     &textmatch.Pattern{Expr: `hooks\.slack\.com/(?P<secret>(?:services|workflows|triggers)/[A-Za-z0-9_/+-]{20,})`},
		Keywords:    []string{"hooks.slack.com"},
		After:       300,
		MinEntropy:  3,
	},
	{
		ID:          "secret.stripe-key",
		Description: "a Stripe live secret or restricted key, or a webhook signing secret",
		Pattern:     &textmatch.Pattern{Expr: tokenStart + `(?P<secret>[sr]k_live_[A-Za-z0-9]{20,}|whsec_[A-Za-z0-9+/=]{32,})(?:[^A-Za-z0-9]|$)`},
		Keywords:    []string{"sk_live_", "rk_live_", "whsec_"},
		Before:      1, After: 300,
		MinEntropy: 3,
	},
	{
		// Test-mode keys cannot move money, but they read and write the account's test
		// data and share its settings: reported, under their own id and graded low, so a
		// policy can tell them apart from live keys.
		ID:          "secret.stripe-test-key",
		Description: "a Stripe test-mode secret or restricted key",
		Pattern:     &textmatch.Pattern{Expr: tokenStart + `(?P<secret>[sr]k_test_[A-Za-z0-9]{20,})(?:[^A-Za-z0-9]|$)`},
		Keywords:    []string{"sk_test_", "rk_test_"},
		Before:      1, After: 300,
		MinEntropy: 3,
	},
	{
		ID:          "secret.anthropic-api-key",
		Description: "an Anthropic API, admin or OAuth key (sk-ant-…)",
		Pattern:     &textmatch.Pattern{Expr: tokenStart + `(?P<secret>sk-ant-[a-z]{2,10}[0-9]{2}-[A-Za-z0-9_-]{32,})` + tokenEnd},
		Keywords:    []string{"sk-ant-"},
		Before:      1, After: 300,
		MinEntropy: 3,
	},
	{
		ID:          "secret.openai-api-key",
		Description: "an OpenAI API key: project, service account, admin or legacy user key (sk-…)",
		Pattern: &textmatch.Pattern{Expr: tokenStart + `(?P<secret>sk-(?:(?:proj|svcacct|admin|None)-)?[A-Za-z0-9_-]{16,}T3BlbkFJ[A-Za-z0-9_-]{16,}` +
			`|sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}|sk-[A-Za-z0-9]{48})` + tokenEnd},
		Keywords: []string{"sk-"},
		Before:   1, After: 300,
		MinEntropy: 3,
	},
	{
		ID:          "secret.google-api-key",
		Description: "a Google API key (AIza…), as used by Maps, Firebase and Gemini",
		Pattern:     &textmatch.Pattern{Expr: tokenStart + `(?P<secret>AIza[0-9A-Za-z_-]{35})` + tokenEnd},
		Keywords:    []string{"aiza"},
		Before:      1, After: 48,
		MinEntropy: 3,
	},
	{
		ID:          "secret.npm-token",
		Description: "an npm access token (npm_…)",
		Pattern:     &textmatch.Pattern{Expr: tokenStart + `(?P<secret>npm_[A-Za-z0-9]{36})(?:[^A-Za-z0-9]|$)`},
		Keywords:    []string{"npm_"},
		Before:      1, After: 48,
		MinEntropy: 3,
	},
	{
		ID:          "secret.pypi-token",
		Description: "a PyPI or TestPyPI API token (pypi-AgE…)",
		Pattern:     &textmatch.Pattern{Expr: tokenStart + `(?P<secret>pypi-AgE[A-Za-z0-9_-]{50,})` + tokenEnd},
		Keywords:    []string{"pypi-age"},
		Before:      1, After: 512,
		MinEntropy: 3,
	},
	{
		ID:          "secret.huggingface-token",
		Description: "a Hugging Face access token (hf_…)",
		Pattern:     &textmatch.Pattern{Expr: tokenStart + `(?P<secret>hf_[A-Za-z]{34})(?:[^A-Za-z0-9_]|$)`},
		Keywords:    []string{"hf_"},
		Before:      1, After: 48,
		MinEntropy: 3.5,
	},
	{
		ID:          "secret.groq-api-key",
		Description: "a Groq API key (gsk_…)",
		Pattern:     &textmatch.Pattern{Expr: tokenStart + `(?P<secret>gsk_[A-Za-z0-9]{52})(?:[^A-Za-z0-9]|$)`},
		Keywords:    []string{"gsk_"},
		Before:      1, After: 64,
		MinEntropy: 3,
	},
	{
		ID:          "secret.sendgrid-api-key",
		Description: "a SendGrid API key (SG.…)",
		Pattern:     &textmatch.Pattern{Expr: tokenStart + `(?P<secret>SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43})` + tokenEnd},
		Keywords:    []string{"sg."},
		Before:      1, After: 80,
		MinEntropy: 3,
	},
	{
		ID:          "secret.digitalocean-token",
		Description: "a DigitalOcean personal access, OAuth or refresh token (dop_v1_…)",
		Pattern:     &textmatch.Pattern{Expr: tokenStart + `(?P<secret>do[opr]_v1_[a-f0-9]{64})(?:[^A-Za-z0-9]|$)`},
		Keywords:    []string{"dop_v1_", "doo_v1_", "dor_v1_"},
		Before:      1, After: 80,
		MinEntropy: 3,
	},
	{
		ID:          "secret.shopify-token",
		Description: "a Shopify access token or shared secret (shpat_…, shpss_…)",
		Pattern:     &textmatch.Pattern{Expr: tokenStart + `(?P<secret>shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32})(?:[^A-Za-z0-9]|$)`},
		Keywords:    []string{"shpat_", "shpca_", "shppa_", "shpss_"},
		Before:      1, After: 48,
		MinEntropy: 3,
	},
	{
		ID:          "secret.vault-token",
		Description: "a HashiCorp Vault service or batch token (hvs.…, hvb.…)",
		Pattern:     &textmatch.Pattern{Expr: tokenStart + `(?P<secret>hv[sb]\.[A-Za-z0-9_-]{24,})` + tokenEnd},
		Keywords:    []string{"hvs.", "hvb."},
		Before:      1, After: 400,
		MinEntropy: 3.5,
	},
	{
		ID:          "secret.databricks-token",
		Description: "a Databricks personal access token (dapi…)",
		Pattern:     &textmatch.Pattern{Expr: tokenStart + `(?P<secret>dapi[a-f0-9]{32}(?:-\d)?)(?:[^A-Za-z0-9]|$)`},
		Keywords:    []string{"dapi"},
		Before:      1, After: 48,
		MinEntropy: 3,
	},
	{
		ID:          "secret.doppler-token",
		Description: "a Doppler personal, service, CLI, service account, SCIM or audit token (dp.pt.…, dp.st.ENV.…)",
		Pattern:     &textmatch.Pattern{Expr: tokenStart + `(?P<secret>dp\.(?:pt|ct|sa|scim|audit|st(?:\.[a-z0-9_-]{2,35})?)\.[A-Za-z0-9]{40,44})(?:[^A-Za-z0-9]|$)`},
		Keywords:    []string{"dp.pt.", "dp.st.", "dp.ct.", "dp.sa.", "dp.scim.", "dp.audit."},
		Before:      1, After: 96,
		MinEntropy: 3,
	},
	{
		ID:          "secret.terraform-cloud-token",
		Description: "a Terraform Cloud or Enterprise API token (….atlasv1.…)",
		Pattern:     &textmatch.Pattern{Expr: `(?P<secret>[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70})(?:[^A-Za-z0-9_=-]|$)`},
		Keywords:    []string{".atlasv1."},
		Before:      16, After: 80,
		MinEntropy: 3,
	},
	{
		// Prefixed tokens of hosted developer services, each prefix its own: Linear,
		// Supabase, Pulumi, Netlify, Sentry's organisation and user tokens, Grafana's
		// service account and Cloud tokens, Postman, Atlassian.
		ID:          "secret.service-token",
		Description: "an API token of a hosted service, by its prefix (lin_api_, sbp_, pul-, nfp_, sntrys_, sntryu_, glsa_, glc_, PMAK-, ATATT3)",
		Pattern: &textmatch.Pattern{Expr: tokenStart + `(?P<secret>lin_api_[A-Za-z0-9]{40}|sbp_[a-f0-9]{40}|pul-[a-f0-9]{40}|nfp_[A-Za-z0-9]{36}` +
			`|sntrys_[A-Za-z0-9+/=_-]{40,}|sntryu_[a-f0-9]{64}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,400}={0,2}` +
			`|PMAK-[a-f0-9]{24}-[a-f0-9]{34}|ATATT3[A-Za-z0-9_=-]{150,})(?:[^A-Za-z0-9_=+/-]|$)`},
		Keywords: []string{"lin_api_", "sbp_", "pul-", "nfp_", "sntrys_", "sntryu_", "glsa_", "glc_", "pmak-", "atatt3"},
		Before:   1, After: 512,
		MinEntropy: 3.2,
	},
	{
		ID:          "secret.telegram-bot-token",
		Description: "a Telegram bot token (BOT_ID:AA…)",
		// In the API's URLs it follows "bot": https://api.telegram.org/botTOKEN/getMe.
		Pattern:  &textmatch.Pattern{Expr: `(?:^|[^0-9A-Za-z:]|bot)(?P<secret>[0-9]{8,10}:AA[0-9A-Za-z_-]{33})(?:[^0-9A-Za-z_-]|$)`},
		Keywords: []string{":aa"},
		Before:   16, After: 40,
		MinEntropy: 3,
	},
	{
		ID:          "secret.discord-bot-token",
		Description: "a Discord bot token (the bot's id in base64, a timestamp, an HMAC)",
		Pattern:     &textmatch.Pattern{Expr: `(?:^|[^A-Za-z0-9_.-])(?P<secret>[MNO][A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38})(?:[^A-Za-z0-9_.-]|$)`},
		Keywords:    []string{"discord", "bot ", "token"},
		Before:      120, After: 120,
		MinEntropy: 3.5,
	},
	{
		ID:          "secret.age-secret-key",
		Description: "an age encryption secret key (AGE-SECRET-KEY-1…)",
		Pattern:     &textmatch.Pattern{Expr: `AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}`},
		Keywords:    []string{"age-secret-key-1"},
		After:       80,
		MinEntropy:  3,
	},
	{
		ID:          "secret.jwt",
		Description: "a JSON Web Token: three base64url segments whose header is a JSON object naming an algorithm",
		Pattern:     &textmatch.Pattern{Expr: tokenStart + `(?P<secret>eyJ[A-Za-z0-9_-]{8,}={0,2}\.[A-Za-z0-9_-]{8,}={0,2}\.[A-Za-z0-9_-]{16,}={0,2})`},
		Keywords:    []string{"eyj"},
		Before:      1, After: 16 << 10,
		MinEntropy: 3,
		Verify:     jwtHeader,
	},
	{
		ID:          "secret.url-password",
		Description: "the password in a URL's user information: database, broker and other connection strings (postgres://user:password@host)",
		// The password runs to the last @ before the host: people write #, ?, / and @ in
		// passwords without encoding them, and a password cut at one of them would leave
		// its rest in the record.
		Pattern:  &textmatch.Pattern{Expr: `\b[A-Za-z][A-Za-z0-9+.-]*://(?P<name>[^\s:@/?#"'\x60<>\\]*):(?P<secret>[^\s"'\x60<>\\]+)@[A-Za-z0-9\[_]`},
		Keywords: []string{"://"},
		Before:   32, After: 400,
		MinLength: 3,
		Hit:       userinfoFollows,
		Verify:    urlPassword,
	},
	{
		ID:          "secret.netrc-password",
		Description: "the password of a .netrc entry (machine host login user password secret)",
		Pattern:     &textmatch.Pattern{Expr: `\bmachine[ \t]+\S+\s+(?:(?:login|account)[ \t]+\S+\s+)*password[ \t]+(?P<secret>\S+)`},
		Keywords:    []string{"machine"},
		After:       512, Lines: 4,
		MinLength: 4,
		Verify:    netrcPassword,
	},
	{
		ID:          "secret.cli-user-password",
		Description: "a user:password pair given to a command-line client (curl -u, --user, --proxy-user)",
		Pattern:     &textmatch.Pattern{Expr: `^(?:-u|--user|--proxy-user)(?:[ \t]+|=)["']?(?P<name>[^\s:"']+):(?P<secret>[^\s"']+)`},
		Keywords:    []string{"-u", "--user", "--proxy-user"},
		After:       512, AtName: true,
		MinLength: 3,
		Hit:       flagStandsAlone,
		Verify:    cliPassword,
	},
	{
		ID:          "secret.authorization-header",
		Description: "the credentials of an HTTP Authorization header (Bearer, Basic or token)",
		Pattern: &textmatch.Pattern{Expr: `^(?:(?i:proxy-)?(?i:authorization)\\?["'\x60]?[ \t]*[:=][ \t]*\\?["'\x60]?[ \t]*(?i:bearer|token|basic)[ \t]+(?P<secret>[A-Za-z0-9._~+/-]+=*)` +
			`|(?i:bearer)[ \t]+(?P<secret>[A-Za-z0-9._~+/-]{16,}=*))`},
		Keywords: []string{"authorization", "bearer"},
		Before:   16, After: 16 << 10, AtName: true,
		MinLength: 8, MinEntropy: 3,
		Verify: headerCredential,
	},
	{
		ID:          "secret.ini-multiline",
		Description: "a secret, token or password given as the indented lines of a multi-line INI value (key =, then one value per line)",
		Pattern:     &textmatch.Pattern{Expr: `^(?P<name>[A-Za-z_][A-Za-z0-9_.-]{0,63})[ \t]*[=:][ \t]*\r?\n[ \t]+(?P<secret>[^ \t\r\n#;][^\r\n]*(?:\r?\n[ \t]+[^ \t\r\n#;][^\r\n]*){0,19})`},
		Keywords:    []string{"secret", "token", "credential", "password", "passwd", "apikey", "api_key", "api-key"},
		Before:      64, After: 2048, Lines: 21, AtName: true,
		MinLength: 8, MinEntropy: 2.5,
		Hit:    iniKeyWithoutValue,
		Verify: iniContinuationSecret,
	},
	{
		ID:          "secret.password-assignment",
		Description: "a password assigned in configuration, code or a command line (password=…, DB_PASS: …, --password …)",
		Pattern:     assignedValue,
		Keywords:    []string{"pass", "pwd"},
		Before:      64, After: 512, Lines: 1, AtName: true,
		MinLength: 6, MinEntropy: 2,
		Hit:    assignmentFollows,
		Verify: passwordValue,
	},
	{
		ID:          "secret.session-cookie",
		Description: "a session cookie: the value of a Cookie header, or a random value in a cookie pair of a session name (sessionid=…, PHPSESSID=…, as curl -b and URLs send them), which logs in whoever sends it",
		// The pair is a cookie's syntax, name=value with neither blanks nor quotes: a
		// session id assigned in code or test data (session_id = "…") is not being sent.
		Pattern: &textmatch.Pattern{Expr: `^(?:(?i:set-)?(?i:cookie)\\?["'\x60]?[ \t]*[:=][ \t]*\\?["'\x60]?[ \t]*(?:[^\s=;"'\x60]+=)?(?P<secret>[^\s;,"'\x60\\]+)` +
			`|(?P<name>` + keyName + `)=(?P<secret>[^\s;,"'\x60\\&#]+))`},
		Keywords: []string{"cookie", "sess"},
		Before:   64, After: 4 << 10, Lines: 1, AtName: true,
		MinLength: 16, MinEntropy: 3,
		Verify: sessionValue,
	},
	{
		ID:          "secret.generic-secret",
		Description: "a random-looking value assigned to a secret, token, credential, auth or API key name",
		Pattern:     assignedValue,
		Keywords: []string{"secret", "token", "credential", "auth",
			"api_key", "apikey", "api-key", "api.key", "access_key", "accesskey", "access-key",
			"private_key", "privatekey", "private-key", "signing_key", "signingkey", "signing-key",
			"encryption_key", "encryptionkey", "encryption-key", "master_key", "masterkey", "master-key",
			"app_key", "appkey", "app-key", "consumer_key", "consumerkey", "consumer-key"},
		Before: 64, After: 512, Lines: 1, AtName: true,
		MinLength: 8, MinEntropy: 3,
		Hit:    assignmentFollows,
		Verify: genericSecretValue,
	},
	{
		ID:          "secret.generic-key",
		Description: "a long random-looking value assigned to a name ending in key (key, LICENSE_KEY, hmacKey)",
		Pattern:     assignedValue,
		Keywords:    []string{"key"},
		Before:      64, After: 512, Lines: 1, AtName: true,
		MinLength: 20, MinEntropy: 3.7,
		Hit:    assignmentFollows,
		Verify: genericKeyValue,
	},
	{
		ID:          "secret.env-high-entropy",
		Description: "a long high-entropy value assigned in an env file or shell script (NAME=value) under any name",
		Pattern: &textmatch.Pattern{Expr: `^(?:export[ \t]+)?(?P<name>[A-Za-z_][A-Za-z0-9_]*)=` +
			`(?:"(?P<secret>[A-Za-z0-9+/=_.~-]{20,})"|'(?P<secret>[A-Za-z0-9+/=_.~-]{20,})'|(?P<secret>[A-Za-z0-9+/=_.~-]{20,}))[ \t]*(?:#.*)?\r?$`},
		LinesWhere: envAssignmentLine,
		MinLength:  20, MinEntropy: 4.2,
		Verify: envValue,
	},
}

// afterBegin reports whether a private-key keyword ends a BEGIN line rather than an END one.
func afterBegin(s string, start, _ int) bool {
	lo := max(0, start-48)
	return strings.Contains(s[lo:start], "BEGIN")
}

// privateKeyBody reports whether a private-key block holds a key body rather than a
// stand-in: enough base64 of some variety between its BEGIN and END lines.
func privateKeyBody(c Candidate) bool {
	body := c.Value
	if i := strings.Index(body, "KEY-----"); i >= 0 {
		body = body[i+len("KEY-----"):]
	} else if i := strings.Index(body, "BLOCK-----"); i >= 0 {
		body = body[i+len("BLOCK-----"):]
	}
	if i := strings.Index(body, "-----END"); i >= 0 {
		body = body[:i]
	}
	var b64 strings.Builder
	for i := 0; i < len(body); i++ {
		if c := body[i]; isLetter(c) || isDigit(c) || c == '+' || c == '/' {
			b64.WriteByte(c)
		}
	}
	return b64.Len() >= 32 && entropy(b64.String()) >= 3
}

// jwtHeader reports whether the first segment of a JWT decodes to a JSON object with an
// "alg" member, as every JOSE header has.
func jwtHeader(c Candidate) bool {
	head, _, _ := strings.Cut(c.Value, ".")
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(head, "="))
	if err != nil {
		return false
	}
	var h map[string]any
	if json.Unmarshal(raw, &h) != nil {
		return false
	}
	alg, ok := h["alg"].(string)
	return ok && alg != ""
}

// userinfoFollows reports whether the URL whose "://" is s[start:end] has an '@' before
// its path: only then can it carry a password.
func userinfoFollows(s string, _, end int) bool {
	for i := end; i < len(s) && i < end+400; i++ {
		switch s[i] {
		case '@':
			return true
		case ' ', '\t', '\n', '\r', '"', '\'', '`', '<', '>':
			return false
		}
	}
	return false
}

// urlPassword rejects a URL password that repeats the user name (postgres:postgres@), and
// a port followed by a path that holds an @ (https://host:8080/a@b), which is no password.
func urlPassword(c Candidate) bool {
	if c.Value == c.Name {
		return false
	}
	port, _, hasPath := strings.Cut(c.Value, "/")
	if hasPath && port != "" && isNumber(port) {
		return false
	}
	// A word for a password of a database on this machine or on a Compose network
	// (postgres://app:testpass@localhost, …@db:5432) is a test fixture's; a random one
	// there may be a tunnel's to a real one.
	return !localHost(strings.TrimPrefix(c.After, "@")) || randomLooking(c.Value, 3.5)
}

// localHost reports whether the authority a URL's text starts with names this machine, or
// a host by a name without dots: a service of a Compose or container network.
func localHost(s string) bool {
	host := s
	if i := strings.IndexAny(host, ":/?#"); i >= 0 && !strings.HasPrefix(host, "[") {
		host = host[:i]
	} else if strings.HasPrefix(host, "[") {
		if j := strings.IndexByte(host, ']'); j >= 0 {
			host = host[1:j]
		}
	}
	host = strings.ToLower(host)
	if host != "" && !strings.ContainsAny(host, ".:") {
		return true // db, postgres, redis: a service's name on its network
	}
	return host == "localhost" || host == "::1" || host == "0.0.0.0" || strings.HasPrefix(host, "127.") || strings.HasSuffix(host, ".localhost")
}

// netrcPassword decides on the password of a .netrc entry.
func netrcPassword(c Candidate) bool {
	return !looksLikeCode(c.Value)
}

// flagStandsAlone reports whether the flag s[start:end] is a whole word of a command line:
// after a blank or at the start of a line, and followed by a blank or '='.
func flagStandsAlone(s string, start, end int) bool {
	if start > 0 && s[start-1] != ' ' && s[start-1] != '\t' && s[start-1] != '\n' {
		return false
	}
	return end < len(s) && (s[end] == ' ' || s[end] == '\t' || s[end] == '=')
}

// cliPassword decides on the password of a user:password flag: not the user name
// repeated, and not a number (docker -u 1000:1000 gives a uid and a gid).
func cliPassword(c Candidate) bool {
	return c.Value != c.Name && !isNumber(c.Value) && !looksLikeCode(c.Value)
}

// headerCredential decides on the credentials of an Authorization header.
func headerCredential(c Candidate) bool {
	return !looksLikeCode(c.Value) && randomLooking(c.Value, 3.5)
}

// randomLooking reports whether v looks generated rather than like words or a name: it
// mixes letters with digits or symbols, or, made of letters and separators alone, it
// reaches minWordsEntropy.
func randomLooking(v string, minWordsEntropy float64) bool {
	lower, upper, digit, _ := charClasses(v)
	switch {
	case !lower && !upper:
		return false // a number
	case digit || !wordsOnly(v):
		return true
	}
	return entropy(v) >= minWordsEntropy
}

// wordsOnly reports whether v is made of letters and the separators of names and slugs.
func wordsOnly(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; !isLetter(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

// assignmentFollows reports whether the key name containing the keyword s[start:end] is
// followed by an assignment operator, or is a --flag followed by a value.
func assignmentFollows(s string, start, end int) bool {
	i := end
	for n := 0; i < len(s) && n < 64 && isNameByte(s[i]); n++ {
		i++
	}
	for n := 0; i < len(s) && n < 3 && strings.IndexByte("\"'`\\]", s[i]) >= 0; n++ {
		i++
	}
	j := i
	for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
		j++
	}
	if j < len(s) && (s[j] == ':' || s[j] == '=' || s[j] == '?') {
		return true
	}
	if j == i || j == len(s) {
		return false
	}
	// --flag value: find where the name starts.
	k := start
	for n := 0; k > 0 && n < 64 && isNameByte(s[k-1]) && s[k-1] != '-'; n++ {
		k--
	}
	return k >= 2 && s[k-2:k] == "--"
}

// literalValue reports whether an assigned value can be a literal secret rather than code,
// an identifier, or a value that merely names its key: a bare identifier followed by a
// comma or parenthesis is a reference (Password: pw,), one without digits is a name unless
// it is as varied as random text, and "db_password_prod" under db_password repeats its key.
func literalValue(c Candidate) bool {
	v := c.Value
	if looksLikeCode(v) || mentionsSecretWord(v) {
		return false
	}
	if !c.Quoted && isIdentifier(v) {
		_, _, digit, _ := charClasses(v)
		if c.Next == ',' || c.Next == ')' || !digit && entropy(v) < 4.2 {
			return false
		}
	}
	lower := strings.ToLower(v)
	for _, p := range textmatch.IdentWords(c.Name) {
		if len(p) >= 4 && strings.Contains(lower, p) {
			return false
		}
	}
	return true
}

// holdsPairs reports whether v has an '=' other than base64 padding: a=b/c=d, a list of
// settings rather than a token. (Passwords may hold one; tokens do not.)
func holdsPairs(v string) bool {
	i := strings.IndexByte(v, '=')
	return i >= 0 && strings.Trim(v[i:], "=") != ""
}

// isIdentifier reports whether v has the shape of a variable or constant name.
func isIdentifier(v string) bool {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !isLetter(c) && c != '_' && c != '$' && (i == 0 || !isDigit(c)) {
			return false
		}
	}
	return v != ""
}

// mentionsSecretWord reports whether a value names a secret instead of being one:
// "password123", "my-secret", "PASSWORD_ENV".
func mentionsSecretWord(v string) bool {
	lower := strings.ToLower(v)
	for _, w := range []string{"password", "passwd", "secret", "token"} {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

// passwordNameParts are the words that name a password when they stand alone in a key.
var passwordNameParts = textmatch.WordSet{"pass", "pwd"}

// passwordValue decides on a value assigned to a name containing pass or pwd.
func passwordValue(c Candidate) bool {
	lower := strings.ToLower(c.Name)
	if !strings.Contains(lower, "password") && !strings.Contains(lower, "passwd") && !strings.Contains(lower, "passphrase") {
		// "pass" and "pwd" count only as one word of a longer name: DB_PASS and dbPwd, but
		// not bypass, compass, a test log's "PASS:" or the shell's PWD.
		parts := textmatch.IdentWords(c.Name)
		found := false
		for _, p := range parts {
			found = found || passwordNameParts.Has(p)
		}
		if !found || len(parts) < 2 || lower == "oldpwd" {
			return false
		}
	}
	if notSecretName(c.Name, nil) || !literalValue(c) {
		return false
	}
	return randomLooking(c.Value, 3.5)
}

// secretNameWords are the words that make a key name one of a secret, looked for in the
// name in lower case with its separators removed ("Client-Secret" → "clientsecret").
var secretNameWords = []string{
	"secret", "token", "credential", "apikey", "accesskey", "privatekey", "signingkey",
	"encryptionkey", "masterkey", "appkey", "consumerkey",
}

// isSecretName reports whether a key name names a secret: it holds one of
// secretNameWords, or the word auth on its own (auth, _auth, Auth-Header; not author).
func isSecretName(name string) bool {
	parts := textmatch.IdentWords(name)
	joined := strings.Join(parts, "")
	for _, w := range secretNameWords {
		if strings.Contains(joined, w) {
			return true
		}
	}
	return slices.Contains(parts, "auth")
}

// sessionNameParts are the words of a name that make it a session cookie's.
var sessionNameParts = textmatch.WordSet{"jsessionid", "phpsessid", "sess", "sessid", "session", "sessionid", "sessiontoken", "sid"}

// sessionValue decides on a session cookie: the value of a Cookie header (no name), or a
// value assigned to a name with a session word, that looks generated rather than like
// words, a path or a setting.
func sessionValue(c Candidate) bool {
	if c.Name != "" {
		session := false
		for _, p := range textmatch.IdentWords(c.Name) {
			switch {
			case sessionNameParts.Has(p):
				session = true
			case p == "id" || p == "token" || p == "cookie":
			case notSecretNameParts.Has(p) || sessionSettingParts.Has(p):
				return false // session_timeout, SESSION_DRIVER, session.cookie_path
			case p == "secret" || p == "key" || p == "salt" || p == "password":
				return false // SESSION_SECRET signs sessions: the generic rules' to report
			}
		}
		if !session || !literalValue(c) {
			return false
		}
	}
	return !looksLikeCode(c.Value) && randomLooking(c.Value, 4)
}

// sessionSettingParts are words that make a session name one of a setting about
// sessions, not of a session.
var sessionSettingParts = textmatch.WordSet{
	"affinity", "age", "days", "domain", "driver", "duration", "httponly", "lifetime", "samesite",
	"secure", "storage", "strategy", "timeout",
}

// genericSecretValue decides on a value assigned to a secret, token, credential or API key name.
func genericSecretValue(c Candidate) bool {
	if !isSecretName(c.Name) || notSecretName(c.Name, nil) || !literalValue(c) || holdsPairs(c.Value) {
		return false
	}
	// Words need more length than generated values to count: "i-am-the-worst" does not.
	return randomLooking(c.Value, 3.5) && (len(c.Value) >= 16 || !wordsOnly(c.Value))
}

// keyNameStops are words that, in a name ending in "key", make it a lookup key rather than
// a cryptographic or API one.
var keyNameStops = textmatch.WordSet{
	"cache", "column", "dedup", "dedupe", "foreign", "group", "hot", "i18n", "idempotency",
	"index", "lookup", "map", "object", "partition", "primary", "query", "react", "routing",
	"row", "s3", "sharding", "shortcut", "sort", "translation", "verification", "verifier",
	"verify",
}

// genericKeyValue decides on a value assigned to a name ending in the word key.
func genericKeyValue(c Candidate) bool {
	v := c.Value
	parts := textmatch.IdentWords(c.Name)
	if len(parts) == 0 || parts[len(parts)-1] != "key" {
		return false // keyboard, monkey, key_id
	}
	if notSecretName(c.Name, keyNameStops) || !literalValue(c) || holdsPairs(v) || isUUID(v) || isHex(v) || labelLike(v) {
		return false
	}
	lower, upper, digit, _ := charClasses(v)
	return (lower || upper) && digit
}

// labelLike reports whether a value is a label made of short parts, several of them
// words (a CI cache key: Ubuntu__Focal_AndroidNDK_r22b_arm64-v8a.v2): at least three parts
// between separators, none longer than 12 bytes, two of them words of three letters or
// more. A key's random text has long runs between separators, if it has separators.
func labelLike(v string) bool {
	parts := strings.FieldsFunc(v, func(r rune) bool { return r == '_' || r == '-' || r == '.' })
	if len(parts) < 3 {
		return false
	}
	words := 0
	for _, p := range parts {
		if len(p) > 12 {
			return false
		}
		if len(p) >= 3 && wordsOnly(p) {
			words++
		}
	}
	return words >= 2
}

// envAssignmentLine reports whether a line assigns a long value to a variable in the
// NAME=value form of env files and shell scripts, quickly, before any pattern runs.
func envAssignmentLine(line string) bool {
	line = strings.TrimPrefix(line, "export ")
	if len(line) < 22 || !(isLetter(line[0]) || line[0] == '_') {
		return false
	}
	for i := 1; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '=':
			return len(line)-i > 20
		case !isLetter(c) && !isDigit(c) && c != '_':
			return false
		}
	}
	return false
}

// envNameStops are words that, in an env variable's name, mark a value that is random but
// not secret.
var envNameStops = textmatch.WordSet{
	"build", "commit", "image", "release", "rev", "revision", "tag",
}

// envValue decides on a value assigned under an arbitrary env variable name: only values
// that mix upper case, lower case and digits count, which leaves out hex digests, words
// and most identifiers.
func envValue(c Candidate) bool {
	if notSecretName(c.Name, envNameStops) || looksLikeCode(c.Value) {
		return false
	}
	lower, upper, digit, _ := charClasses(c.Value)
	return lower && upper && digit
}

// iniKeyWithoutValue reports whether the key name containing s[start:end] is followed by
// an assignment with nothing after it on its line: the start of a multi-line INI value.
func iniKeyWithoutValue(s string, start, end int) bool {
	i := end
	for n := 0; i < len(s) && n < 64 && isNameByte(s[i]); n++ {
		i++
	}
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	if i >= len(s) || s[i] != '=' && s[i] != ':' {
		return false
	}
	i++
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r') {
		i++
	}
	return i < len(s) && s[i] == '\n'
}

// iniContinuationSecret decides on the indented lines that follow a secret-named key
// with no value of its own. They are the key's values only if none of them is itself an
// assignment or a list item (which would make them a nested YAML map or list), and they
// hold a secret if one of them looks generated.
func iniContinuationSecret(c Candidate) bool {
	if !isSecretName(c.Name) && !strings.Contains(strings.ToLower(c.Name), "pass") || notSecretName(c.Name, nil) {
		return false
	}
	random := false
	for _, line := range strings.Split(strings.TrimSpace(c.Value), "\n") {
		line = strings.TrimSpace(line)
		if strings.Contains(line, ": ") || strings.HasSuffix(line, ":") || strings.Contains(line, "=") || strings.HasPrefix(line, "- ") || strings.HasPrefix(line, "[") {
			return false
		}
		if len(line) >= 8 && !strings.Contains(line, " ") && randomLooking(line, 3.5) && !isPlaceholder(line) {
			random = true
		}
	}
	return random
}
