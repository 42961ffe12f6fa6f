package pathset

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/glob"
)

const home = "/home/u"

// examples gives, for every entry of every static set, a path the entry is there for. A
// new entry without an example fails TestEveryEntryHasAnExample.
var examples = map[string]string{
	// $system
	"/etc/**": "/etc/passwd", "/usr/**": "/usr/bin/ls", "/bin/**": "/bin/sh", "/sbin/**": "/sbin/init",
	"/lib/**": "/lib/libc.so.6", "/lib32/**": "/lib32/ld.so", "/lib64/**": "/lib64/ld-linux-x86-64.so.2",
	"/libx32/**": "/libx32/ld.so", "/boot/**": "/boot/vmlinuz", "/dev/**": "/dev/sda", "/proc/**": "/proc/1/environ",
	"/sys/**": "/sys/kernel", "/var/log/**": "/var/log/auth.log", "/var/lib/**": "/var/lib/dpkg/status",
	"/root/**": "/root/.bashrc", "/System/**": "/System/Library/CoreServices", "/Library/**": "/Library/LaunchDaemons/x.plist",
	"/private/etc/**": "/private/etc/hosts", "/private/var/db/**": "/private/var/db/sudo",
	"/dev/null": "/dev/null", "/dev/zero": "/dev/zero", "/dev/stdin": "/dev/stdin", "/dev/stdout": "/dev/stdout",
	"/dev/stderr": "/dev/stderr", "/dev/tty": "/dev/tty", "/dev/fd/**": "/dev/fd/3", "/dev/random": "/dev/random",
	"/dev/urandom": "/dev/urandom",
	// $secrets
	"~/.ssh/**": "~/.ssh/id_ed25519", "/etc/ssh/ssh_host_*_key": "/etc/ssh/ssh_host_rsa_key",
	"/home/*/.ssh/id_*": "/home/bob/.ssh/id_rsa", "/Users/*/.ssh/id_*": "/Users/alice/.ssh/id_ed25519", "/root/.ssh/id_*": "/root/.ssh/id_ecdsa",
	"/home/*/.ssh/*.pub": "/home/bob/.ssh/id_rsa.pub", "/Users/*/.ssh/*.pub": "/Users/alice/.ssh/id_ed25519.pub", "/root/.ssh/*.pub": "/root/.ssh/id_ecdsa.pub",
	"/?:/Users/*/.ssh/*.pub": "/C:/Users/me/.ssh/id_ed25519.pub",
	"~/.aws/credentials":     "~/.aws/credentials", "~/.aws/sso/cache/**": "~/.aws/sso/cache/abc.json",
	"~/.aws/cli/cache/**": "~/.aws/cli/cache/x.json", "~/.config/gcloud/**": "~/.config/gcloud/application_default_credentials.json",
	"~/.azure/**": "~/.azure/msal_token_cache.json", "~/.kube/config": "~/.kube/config",
	"~/.docker/config.json": "~/.docker/config.json", "**/.env": "/srv/app/.env", "**/.env.*": "/srv/app/.env.production",
	"~/.netrc": "~/.netrc", "~/.git-credentials": "~/.git-credentials", "~/.config/git/credentials": "~/.config/git/credentials",
	"~/.config/gh/hosts.yml": "~/.config/gh/hosts.yml", "**/.npmrc": "/srv/app/.npmrc", "~/.pypirc": "~/.pypirc",
	"~/.gem/credentials": "~/.gem/credentials", "~/.cargo/credentials": "~/.cargo/credentials",
	"~/.cargo/credentials.toml": "~/.cargo/credentials.toml", "~/.terraform.d/credentials.tfrc.json": "~/.terraform.d/credentials.tfrc.json",
	"~/.vault-token": "~/.vault-token", "~/.pgpass": "~/.pgpass", "~/.my.cnf": "~/.my.cnf", "~/.gnupg/**": "~/.gnupg/private-keys-v1.d/x.key",
	"~/.password-store/**": "~/.password-store/bank.gpg", "~/.local/share/keyrings/**": "~/.local/share/keyrings/login.keyring",
	"~/Library/Keychains/**": "~/Library/Keychains/login.keychain-db",

	"~/.local/share/kwalletd/**": "~/.local/share/kwalletd/kdewallet.kwl",

	"~/.local/share/containers/auth.json": "~/.local/share/containers/auth.json",
	"/run/user/*/containers/auth.json":    "/run/user/1000/containers/auth.json",
	"~/.config/helm/registry/config.json": "~/.config/helm/registry/config.json",

	"~/.config/hub": "~/.config/hub",

	"~/.kube/*.{yaml,yml,conf,config}":                               "~/.kube/prod.yaml",
	"/{home,Users}/*/{.git-credentials,.netrc,.pgpass,.vault-token}": "/home/bob/.netrc",
	"/{home,Users}/*/.aws/credentials":                               "/home/bob/.aws/credentials",
	"/{home,Users}/*/.kube/config":                                   "/Users/alice/.kube/config",
	"/{home,Users}/*/.docker/config.json":                            "/home/bob/.docker/config.json",
	"/{home,Users}/*/.config/gh/hosts.yml":                           "/home/bob/.config/gh/hosts.yml",
	"/root/{.git-credentials,.netrc,.pgpass,.vault-token}":           "/root/.git-credentials",
	"/root/.aws/credentials":                                         "/root/.aws/credentials",
	"/root/.kube/config":                                             "/root/.kube/config",
	"/root/.docker/config.json":                                      "/root/.docker/config.json",
	"/root/.config/gh/hosts.yml":                                     "/root/.config/gh/hosts.yml",
	"~/{.bitcoin,.litecoin,.dogecoin}/wallet.dat":                    "~/.bitcoin/wallet.dat",
	"~/{.bitcoin,.litecoin,.dogecoin}/wallets/**":                    "~/.bitcoin/wallets/main/wallet.dat",
	"~/.ethereum/keystore/**":                                        "~/.ethereum/keystore/UTC--2026-01-01--abc",
	"~/.electrum/wallets/**":                                         "~/.electrum/wallets/default_wallet",
	"~/.config/solana/id.json":                                       "~/.config/solana/id.json",
	"/etc/wireguard/**":                                              "/etc/wireguard/wg0.conf",
	"/etc/NetworkManager/system-connections/**":                      "/etc/NetworkManager/system-connections/Home.nmconnection",
	"**/{id_rsa,id_dsa,id_ecdsa,id_ed25519}":                         "/srv/app/deploy/id_ed25519",
	"**/.git-credentials":                                            "/srv/app/.git-credentials",
	"**/{*.tfstate,*.tfstate.backup}":                                "/srv/app/infra/terraform.tfstate",
	"**/config/master.key":                                           "/srv/app/config/master.key",
	"**/config/credentials/*.key":                                    "/srv/app/config/credentials/production.key",
	"**/.dev.vars":                                                   "/srv/app/.dev.vars",
	"**/{*.p12,*.pfx,*.jks,*.keystore}":                              "/srv/app/android/release.keystore",
	"~/.oci/**":                                                      "~/.oci/oci_api_key.pem",
	"~/.config/sops/age/keys.txt":                                    "~/.config/sops/age/keys.txt",
	"~/.cache/huggingface/token":                                     "~/.cache/huggingface/token",
	"~/.huggingface/token":                                           "~/.huggingface/token",
	"~/.kaggle/kaggle.json":                                          "~/.kaggle/kaggle.json",
	"~/.config/ngrok/ngrok.yml":                                      "~/.config/ngrok/ngrok.yml",
	"~/.ngrok2/ngrok.yml":                                            "~/.ngrok2/ngrok.yml",
	"~/.supabase/access-token":                                       "~/.supabase/access-token",
	"~/.config/stripe/config.toml":                                   "~/.config/stripe/config.toml",
	"~/.snowflake/{connections,config}.toml":                         "~/.snowflake/connections.toml",
	"~/.dbt/profiles.yml":                                            "~/.dbt/profiles.yml",
	"~/.netlify/config.json":                                         "~/.netlify/config.json",
	"~/.local/share/com.vercel.cli/auth.json":                        "~/.local/share/com.vercel.cli/auth.json",
	"~/.config/linode-cli":                                           "~/.config/linode-cli",
	"~/.wrangler/config/*.toml":                                      "~/.wrangler/config/default.toml",
	"~/.config/.wrangler/config/*.toml":                              "~/.config/.wrangler/config/default.toml",
	"~/.config/op/**":                                                "~/.config/op/config",
	"~/.config/{Slack,discord,discordcanary,discordptb,Signal,Element,teams-for-linux,WhatsApp,whatsapp-desktop}/**": "~/.config/discord/Local Storage/leveldb/000003.log",
	"~/.config/Microsoft/Microsoft Teams/**":                                                            "~/.config/Microsoft/Microsoft Teams/Cookies",
	"~/Library/Application Support/{Slack,discord,discordcanary,discordptb,Signal,Element,WhatsApp}/**": "~/Library/Application Support/Slack/Cookies",
	"~/Library/Application Support/Microsoft/Teams/**":                                                  "~/Library/Application Support/Microsoft/Teams/Cookies",
	"~/.local/share/TelegramDesktop/tdata/**":                                                           "~/.local/share/TelegramDesktop/tdata/key_datas",
	"~/Library/Application Support/Telegram Desktop/tdata/**":                                           "~/Library/Application Support/Telegram Desktop/tdata/key_datas",
	"/etc/kubernetes/*.conf":                                                                            "/etc/kubernetes/admin.conf",
	"/etc/rancher/k3s/k3s.yaml":                                                                         "/etc/rancher/k3s/k3s.yaml",
	"**/*.ovpn":                                                                                         "/srv/app/vpn/office.ovpn",
	"**/.htpasswd":                                                                                      "/srv/app/.htpasswd",
	"**/wp-config.php":                                                                                  "/srv/app/wp-config.php",
	"**/serviceAccountKey*.json":                                                                        "/w/app/serviceAccountKey.json",
	"**/{client_secret,client_secrets}*.json":                                                           "/w/app/client_secret_123.apps.googleusercontent.com.json",
	"**/{credentials,token}.json":                                                                       "/w/app/credentials.json",
	"**/{server,private,privkey,tls,ssl}.key":                                                           "/w/app/certs/server.key",
	"**/{privkey,private-key,private_key,*-key,*_key}.pem":                                              "/w/app/certs/client-key.pem",
	"**/{secrets,secret}.{yaml,yml,json,toml}":                                                          "/w/app/config/secrets.yaml",
	"**/{*.tfvars,*.tfvars.json}":                                                                       "/w/infra/prod.tfvars",
	"**/{kubeconfig,*.kubeconfig}":                                                                      "/w/infra/prod.kubeconfig",
	"**/*.env":                                                                                          "/w/app/prod.env",
	"**/.env.*.{example,sample,template}":                                                               "/w/app/.env.local.example",
	"**/.env.{ts,mts,cts,js,mjs,cjs,d.ts,schema}":                                                       "/w/app/src/.env.ts",
	"**/{service-account,service_account}*.json":                                                        "/srv/app/service-account-prod.json",
	"**/*firebase-adminsdk*.json":                                                                       "/srv/app/acme-firebase-adminsdk-x1y2.json",
	"~/.config/pypoetry/auth.toml":                                                                      "~/.config/pypoetry/auth.toml",
	"~/.vercel/auth.json":                                                                               "~/.vercel/auth.json",
	"~/Library/Application Support/com.vercel.cli/auth.json":                                            "~/Library/Application Support/com.vercel.cli/auth.json",
	"~/.cloudflared/*.{pem,json}":                                                                       "~/.cloudflared/cert.pem",
	"~/.age/**":                                                                                         "~/.age/key.txt",
	"~/.minikube/**/*.key":                                                                              "~/.minikube/profiles/minikube/client.key",
	"~/.talos/config":                                                                                   "~/.talos/config",
	"~/.ibmcloud/config.json":                                                                           "~/.ibmcloud/config.json",
	"~/.snowsql/config":                                                                                 "~/.snowsql/config",
	"~/.expo/state.json":                                                                                "~/.expo/state.json",
	"~/.travis/config.yml":                                                                              "~/.travis/config.yml",
	"~/.jfrog/jfrog-cli.conf*":                                                                          "~/.jfrog/jfrog-cli.conf.v6",
	"~/.sentryclirc":                                                                                    "~/.sentryclirc",
	"~/.config/helm/repositories.yaml":                                                                  "~/.config/helm/repositories.yaml",
	"~/.android/adbkey":                                                                                 "~/.android/adbkey",
	"~/.nuget/NuGet/NuGet.Config":                                                                       "~/.nuget/NuGet/NuGet.Config",
	"~/.config/filezilla/**":                                                                            "~/.config/filezilla/recentservers.xml",
	"~/.purple/accounts.xml":                                                                            "~/.purple/accounts.xml",
	"~/.config/hexchat/servlist.conf":                                                                   "~/.config/hexchat/servlist.conf",
	"~/.config/Exodus/exodus.wallet/**":                                                                 "~/.config/Exodus/exodus.wallet/seed.seco",
	"~/Library/Application Support/Exodus/exodus.wallet/**":                                             "~/Library/Application Support/Exodus/exodus.wallet/seed.seco",
	"~/Monero/wallets/**":                                                                               "~/Monero/wallets/main.keys",
	"~/.*_history":                                                                                      "~/.sqlite_history",
	"~/.viminfo":                                                                                        "~/.viminfo",
	"~/.rediscli_history":                                                                               "~/.rediscli_history",

	"/run/secrets/**":                    "/run/secrets/db_password",
	"/var/run/secrets/**":                "/var/run/secrets/kubernetes.io/serviceaccount/token",
	"/etc/ssl/private/**":                "/etc/ssl/private/ssl-cert-snakeoil.key",
	"/etc/letsencrypt/{live,archive}/**": "/etc/letsencrypt/live/example.com/privkey.pem",
	"~/.bash_history":                    "~/.bash_history", "~/.zsh_history": "~/.zsh_history", "~/.history": "~/.history",
	"~/.local/share/fish/fish_history": "~/.local/share/fish/fish_history", "~/.python_history": "~/.python_history",
	"~/.node_repl_history": "~/.node_repl_history", "~/.psql_history": "~/.psql_history", "~/.mysql_history": "~/.mysql_history",
	"/etc/shadow": "/etc/shadow", "/etc/gshadow": "/etc/gshadow", "/etc/shadow-": "/etc/shadow-", "/etc/gshadow-": "/etc/gshadow-", "/etc/sudoers": "/etc/sudoers", "/etc/sudoers.d/**": "/etc/sudoers.d/90-cloud",
	"~/.ssh/*.pub": "~/.ssh/id_ed25519.pub", "~/.ssh/known_hosts": "~/.ssh/known_hosts", "~/.ssh/known_hosts.old": "~/.ssh/known_hosts.old", "~/.ssh/config": "~/.ssh/config",
	"**/.env.example": "/srv/app/.env.example", "**/.env.sample": "/srv/app/.env.sample", "**/.env.template": "/srv/app/.env.template",
	"**/.env.dist": "/srv/app/.env.dist",

	"~/{.kde,.kde4}/share/apps/kwallet/**": "~/.kde4/share/apps/kwallet/kdewallet.kwl",
	"~/**/*.kdbx":                          "~/Documents/passwords.kdbx",
	"~/{.yarnrc.yml,.terraformrc,.databrickscfg,.mylogin.cnf,.s3cfg,.boto}":                                                                "~/.s3cfg",
	"~/{.m2,.gradle,.composer,.circleci,.fly}/{settings.xml,settings-security.xml,gradle.properties,auth.json,cli.yml,config.yml}":         "~/.m2/settings.xml",
	"~/.config/{rclone,containers,composer,glab-cli,doctl,configstore}/{rclone.conf,auth.json,config.yml,config.yaml,firebase-tools.json}": "~/.config/rclone/rclone.conf",

	"~/.config/{google-chrome*,chromium,BraveSoftware,microsoft-edge*,vivaldi*,opera*,yandex-browser*,thorium}/**": "~/.config/google-chrome/Default/Login Data",
	"~/{.mozilla,.librewolf,.waterfox,.thunderbird}/**":                                                            "~/.mozilla/firefox/abc.default/logins.json",
	"~/snap/{chromium,brave,opera,firefox,thunderbird}/**":                                                         "~/snap/chromium/common/chromium/Default/Cookies",
	"~/.var/app/{com.google.Chrome*,org.chromium.Chromium,com.brave.Browser,com.microsoft.Edge,com.vivaldi.Vivaldi,com.opera.Opera,org.mozilla.firefox,org.mozilla.Thunderbird,io.gitlab.librewolf-community}/**": "~/.var/app/com.google.Chrome/config/google-chrome/Default/Cookies",
	"~/Library/Application Support/{Google,Chromium,BraveSoftware,Microsoft Edge*,Vivaldi,com.operasoftware.Opera*,Yandex,Arc,Firefox,LibreWolf,Waterfox}/**":                                                     "~/Library/Application Support/Google/Chrome/Default/Login Data",
	"~/Library/{Cookies,Safari,Thunderbird}/**":                                                           "~/Library/Cookies/Cookies.binarycookies",
	"~/Library/Containers/com.apple.Safari/**":                                                            "~/Library/Containers/com.apple.Safari/Data/Library/Cookies/Cookies.binarycookies",
	"~/Library/{Messages,Mail}/**":                                                                        "~/Library/Messages/chat.db",
	"~/Library/Application Support/AddressBook/**":                                                        "~/Library/Application Support/AddressBook/AddressBook-v22.abcddb",
	"~/Library/Group Containers/group.com.apple.notes/**":                                                 "~/Library/Group Containers/group.com.apple.notes/NoteStore.sqlite",
	"/?:/Users/*/{.ssh,.aws,.azure,.kube,.gnupg,.docker}/**":                                              "/C:/Users/me/.aws/credentials",
	"/?:/Users/*/.config/{gcloud,gh}/**":                                                                  "/C:/Users/me/.config/gh/hosts.yml",
	"/?:/Users/*/{.git-credentials,.netrc,.npmrc,.pypirc}":                                                "/C:/Users/me/.git-credentials",
	"/?:/Users/*/AppData/{Local,Roaming}/{Google,BraveSoftware,Mozilla,Opera Software,Vivaldi,Yandex}/**": "/C:/Users/me/AppData/Local/Google/Chrome/User Data/Default/Login Data",
	"/?:/Users/*/AppData/{Local,Roaming}/Microsoft/{Edge,Credentials,Protect,Vault}/**":                   "/C:/Users/me/AppData/Roaming/Microsoft/Protect/S-1-5-21/key",
	// $agent-credentials
	"~/.claude/.credentials.json": "~/.claude/.credentials.json", "~/.codex/auth.json": "~/.codex/auth.json",
	"~/.gemini/oauth_creds.json": "~/.gemini/oauth_creds.json", "~/.gemini/mcp-oauth-tokens.json": "~/.gemini/mcp-oauth-tokens.json",
	"~/.config/github-copilot/{hosts,apps}.json": "~/.config/github-copilot/apps.json",
	// $agent-instructions
	"**/CLAUDE.md": "~/.claude/CLAUDE.md", "**/CLAUDE.local.md": "/srv/app/CLAUDE.local.md",
	"**/.claude/commands/**": "/srv/app/.claude/commands/review.md", "**/.claude/agents/**": "~/.claude/agents/tester.md",
	"**/AGENTS.md": "/srv/app/AGENTS.md", "**/AGENTS.override.md": "~/.codex/AGENTS.override.md", "**/GEMINI.md": "~/.gemini/GEMINI.md",
	"**/.cursorrules": "/srv/app/.cursorrules", "**/.cursor/rules/**": "/srv/app/.cursor/rules/go.mdc",
	"**/.windsurfrules": "/srv/app/.windsurfrules", "**/.windsurf/rules/**": "/srv/app/.windsurf/rules/style.md",
	"**/.github/copilot-instructions.md": "/srv/app/.github/copilot-instructions.md",
	"**/.github/instructions/**":         "/srv/app/.github/instructions/go.instructions.md", "**/.clinerules": "/srv/app/.clinerules",
}

// notIn lists paths that must stay out of each set: the look-alikes.
var notIn = map[string][]string{
	"$system": {"/home/u/etc/passwd", "/tmp/x", "/dev/null", "/dev/fd/1"},
	"$secrets": {"~/.ssh/id_rsa.pub", "~/.ssh/known_hosts", "/srv/app/.env.example", "/srv/app/env", "/srv/app/.envrc", "~/.aws/config", "/etc/hosts",
		"~/.config/chrome-flags.conf", "~/.config/Code/User/settings.json", "/srv/app/.yarnrc.yml", "/srv/app/src/cookies.ts", "~/.m2/repository/x.jar", "/etc/ssl/certs/ca-certificates.crt"},
	"$agent-config": {"~/.claude/CLAUDE.md", "/srv/app/.claude/commands/x.md", "~/.gemini/GEMINI.md", "/srv/app/.vscode/settings.json",
		"/srv/app/.vscode/tasks.json", "~/.config/Code/User/settings.json", "/srv/app/mcp.json", "~/.codex/sessions/x.jsonl", "~/.codex/config.toml.bak"},
	"$agent-credentials":  {"~/.claude/settings.json", "~/.codex/config.toml", "~/.gemini/settings.json", "/srv/app/.claude/.credentials.json"},
	"$agent-instructions": {"/srv/app/README.md", "/srv/app/docs/CLAUDE.md.txt", "/srv/app/.github/workflows/ci.yml", "/srv/app/agents.go"},
}

func member(t *testing.T, set Resolved, p string) bool {
	t.Helper()
	in := false
	for _, pat := range set.Include {
		g, err := glob.CompilePath(pat, glob.Options{})
		if err != nil {
			t.Fatalf("%s: %v", pat, err)
		}
		in = in || g.Match(p)
	}
	for _, pat := range set.Exclude {
		g, err := glob.CompilePath(pat, glob.Options{})
		if err != nil {
			t.Fatalf("%s: %v", pat, err)
		}
		if g.Match(p) {
			return false
		}
	}
	return in
}

func TestEveryEntryHasAnExample(t *testing.T) {
	h := Host{Home: home}
	for _, s := range Static() {
		set, err := Resolve(s.Name, h)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range s.Include {
			ex, ok := examples[e.Pattern]
			if s.Name == AgentConfig {
				ex, ok = derivedExample(e.Pattern), true
			}
			if !ok {
				t.Errorf("%s: entry %s has no example", s.Name, e.Pattern)
				continue
			}
			if e.Why == "" {
				t.Errorf("%s: entry %s does not say why it is there", s.Name, e.Pattern)
			}
			if p := Expand(ex, home); !member(t, set, p) {
				t.Errorf("%s: %s (for entry %s) is not in the set", s.Name, p, e.Pattern)
			}
		}
		for _, e := range s.Exclude {
			ex, ok := examples[e.Pattern]
			if !ok {
				t.Errorf("%s: exclusion %s has no example", s.Name, e.Pattern)
				continue
			}
			if p := Expand(ex, home); member(t, set, p) {
				t.Errorf("%s: %s (excluded by %s) is in the set", s.Name, p, e.Pattern)
			}
		}
		for _, p := range notIn[s.Name] {
			if member(t, set, Expand(p, home)) {
				t.Errorf("%s wrongly holds %s", s.Name, p)
			}
		}
	}
}

// derivedExample is a path that an entry made from the agent registry is there for: its
// pattern with any directory standing for **, a name for *, a file for a tree.
func derivedExample(pattern string) string {
	p := strings.Replace(pattern, "**/", "/srv/app/", 1)
	if dir, ok := strings.CutSuffix(p, "/**"); ok {
		p = dir + "/managed-settings.json"
	}
	return strings.ReplaceAll(p, "*", "work")
}

func TestResolve(t *testing.T) {
	h := Host{Home: home, Temp: []string{"/tmp", "/var/tmp"}, Moat: []string{"/home/u/.config/moat/**"}}
	tests := []struct {
		name, want string
		wantErr    bool
	}{
		{"$home", "/home/u/**", false},
		{"$temp", "/tmp/**,/var/tmp/**", false},
		{"$moat", "/home/u/.config/moat/**", false},
		{"$workspace", "", true},
		{"$nope", "", true},
	}
	for _, tt := range tests {
		r, err := Resolve(tt.name, h)
		if (err != nil) != tt.wantErr || strings.Join(r.Include, ",") != tt.want {
			t.Errorf("%s: %v %v", tt.name, r.Include, err)
		}
	}
	for _, n := range Names {
		if !Known(n) {
			t.Errorf("%s not known", n)
		}
	}
	if Expand("~", home) != home || Expand("**/x", home) != "/**/x" || Expand("rel", home) != "rel" {
		t.Error("Expand")
	}
}

// A host encodes as it did before it carried a memo of compiled patterns: a sandbox's
// carvings are keyed by the encoding, and the memo describes no host.
func TestHostEncodingWithoutGlobs(t *testing.T) {
	h := Host{Home: "/home/u", Temp: []string{"/tmp"}, Moat: []string{"/home/u/.config/moat/**"}}
	want, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	h.Globs = glob.NewMemo()
	if _, err := Resolve("$secrets", h); err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("host with a memo encodes as %s, want %s", got, want)
	}
}

// Resolving through a memo gives what resolving without one gives.
func TestResolveThroughMemo(t *testing.T) {
	plain := Host{Home: "/home/u", Temp: []string{"/tmp"}}
	memo := plain
	memo.Globs = glob.NewMemo()
	for _, name := range Names {
		if name == Workspace {
			continue
		}
		for range 2 { // compiled, then taken from the memo
			want, werr := Resolve(name, plain)
			got, gerr := Resolve(name, memo)
			if !reflect.DeepEqual(got, want) || (werr == nil) != (gerr == nil) {
				t.Errorf("%s: %+v, %v through the memo; %+v, %v without", name, got, gerr, want, werr)
			}
		}
	}
}

// A home directory inside a temporary directory (a CI runner's, a test's) is not scratch
// space: $temp leaves it out, with the directories between, whose deletion deletes it.
func TestTempLeavesHomeOut(t *testing.T) {
	for _, tc := range []struct {
		home, tmp string
		exclude   []string
	}{
		{"/home/u", "/tmp", nil},
		{"/tmp/ci/home", "/tmp", []string{"/tmp/ci/home/**", "/tmp/ci/home", "/tmp/ci"}},
		{"/tmp/home", "/tmp/", []string{"/tmp/home/**", "/tmp/home"}},
		{"/tmpfoo/home", "/tmp", nil},
		{"/", "/tmp", nil},
	} {
		r, err := Resolve("$temp", Host{Home: tc.home, Temp: []string{tc.tmp}})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(r.Exclude, tc.exclude) {
			t.Errorf("home %s, temp %s: exclude %q, want %q", tc.home, tc.tmp, r.Exclude, tc.exclude)
		}
	}
}
