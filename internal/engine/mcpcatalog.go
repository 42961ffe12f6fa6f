package engine

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/findings"
	"github.com/moatdev/moat/internal/hosted"
	"github.com/moatdev/moat/internal/netdest"
)

// The destructive tools of MCP servers. Servers name their tools for what they do, in
// words (delete_repository, deleteBucket, API-delete-a-block, pods_delete, kubectl_delete
// with a resourceType argument, use_aws with operation_name delete-bucket), so the
// catalogue is of words, not of one server's tool names: a verb that destroys and the
// kind of thing destroyed, read from the tool's name or from the arguments that name an
// operation or a resource kind. Tools whose harm is in an argument (a reset that is
// hard, a push that is forced, a delete-many with an empty filter) are listed with the
// argument. Each gives the finding the same action gets on the command line (kubectl
// delete ns, git reset --hard, DROP TABLE), so the policy decides both alike.

// mcpDestroyVerbs are the words that destroy what they name.
var mcpDestroyVerbs = []string{
	"delete", "del", "remove", "rm", "rmdir", "destroy", "drop", "purge", "truncate", "wipe", "erase",
	"terminate", "uninstall", "flush", "prune", "nuke", "clear", "reset", "rb", "deregister",
	"unregister", "teardown", "decommission", "trash", "deletion",
	// Taken out of use: an archived repository or channel, a drained node, a suspended or
	// paused project or service (the shell's destructiveVerbs archive a repository too).
	"archive", "drain", "suspend", "pause",
}

// mcpStops end the object of a verb: remove_label_from_issue removes a label, not an
// issue. Other words between a verb and its object are skipped: delete_a_block,
// delete_all_documents, delete_github_repository.
var mcpStops = []string{"from", "in", "of", "on", "for", "to", "at", "with", "into", "and", "or"}

// mcpKind is a kind of thing a destroying tool can take away.
type mcpKind struct {
	finding string
	what    string
	words   []string // in the singular
	// remote marks things that are files: a tool that deletes one on this machine is
	// decided by its paths (mcpAccesses), one that deletes it in a hosted repository,
	// bucket or drive by this catalogue.
	remote bool
}

// mcpDestroyed are the kinds of things destroying tools take away, with the finding
// that destroying one is. A git branch is not among them: deleting a merged one is
// routine (git branch -d); forced deletion and hosted branches are in mcpArgTools.
var mcpDestroyed = []mcpKind{
	{"destructive.db.drop", "a database, table, schema or collection", []string{
		"database", "db", "table", "collection", "schema", "keyspace", "dataset", "index", "tablespace",
	}, false},
	{"destructive.infra.delete", "cloud, cluster or hosted infrastructure", []string{
		"bucket", "cluster", "namespace", "ns", "pod", "deployment", "deploy", "statefulset", "daemonset",
		"replicaset", "job", "cronjob", "node", "nodepool", "instance", "vm", "droplet", "volume", "pvc",
		"disk", "snapshot", "backup", "secret", "vault", "key", "keypair", "certificate", "cert", "stack",
		"function", "lambda", "worker", "app", "application", "environment", "zone", "dns", "domain",
		"service", "repository", "repo", "organization", "org", "registry", "image", "container", "queue",
		"topic", "project", "release", "chart", "helm", "site", "workspace", "kv", "object", "blob",
		"terraform", "infrastructure", "infra", "ruleset", "rule", "pipeline", "group", "trail", "detector",
		"monitor", "alarm", "policy", "role", "package", "tag", "variable", "workflow", "firewall",
		"network", "subnet", "vpc", "gateway", "route", "product", "loggroup",
	}, false},
	{"destructive.data.delete", "records the service keeps", []string{
		"issue", "comment", "message", "page", "block", "document", "doc", "entity", "observation",
		"relation", "memory", "note", "record", "row", "item", "wiki", "gist", "post", "thread",
		"channel", "card", "task", "ticket", "event", "attachment", "email", "draft", "contact",
		"webhook", "discussion", "review", "artifact", "user", "account", "customer", "conversation",
		"history", "data", "entry", "recording", "calendar", "list", "board", "sheet", "log", "logs", "run",
	}, false},
	{"destructive.data.delete", "files of a hosted repository, bucket or drive", []string{
		"file", "directory", "folder", "dir", "path", "content",
	}, true},
}

// mcpKindKeys are the argument names (squashed: lower case, no separators) that say
// which kind of resource a generic tool acts on (kubectl_delete's resourceType,
// resources_delete's kind).
var mcpKindKeys = []string{"kind", "resourcetype", "resource", "type", "objecttype", "entitytype", "resourcekind", "targettype"}

// mcpOperationKeys are the argument names (squashed) that say which operation a
// generic tool runs (use_aws's operation_name, kubectl_generic's command).
var mcpOperationKeys = []string{"operation", "operationname", "action", "command", "subcommand", "verb", "op"}

// mcpArgTest holds when one of the arguments named Keys (compared in lower case
// without separators) has one of Values: a string equal to one in lower case, or
// holding one as a word (--force in "--force -v"), a list holding one, true for "true",
// "{}" for an empty object or an absent argument.
type mcpArgTest struct {
	keys   []string
	values []string
}

// mcpArgTools are the tools whose harm is in their arguments.
var mcpArgTools = []struct {
	tool    []string // words one of which the tool's name has; nil for any tool
	also    []string // further words one of which the tool's name must have, when set
	context []string // words one of which the server's or tool's name has, when set
	args    []mcpArgTest
	finding string
	what    string
}{
	{[]string{"reset"}, nil, []string{"git"},
		[]mcpArgTest{{[]string{"mode", "type", "resettype", "kind", "hard"}, []string{"hard", "true"}}},
		"destructive.git.reset-hard", "a hard reset, which discards uncommitted work"},
	{[]string{"push", "ref", "refs", "reference"}, nil, []string{"git", "github", "gitlab", "gitea", "bitbucket", "forgejo", "repo", "repository"},
		[]mcpArgTest{{[]string{"force", "forcepush", "forced", "flags", "options", "args", "extraargs"}, []string{"true", "--force", "-f"}}},
		"destructive.git.force-push", "a forced push, which replaces commits on the remote"},
	{[]string{"clean"}, nil, []string{"git"},
		[]mcpArgTest{{[]string{"force", "mode"}, []string{"true", "force"}}},
		"destructive.git.clean", "a forced clean, which deletes untracked files"},
	{[]string{"branch", "branches"}, nil, []string{"git"},
		[]mcpArgTest{
			{[]string{"delete", "mode", "action", "operation"}, []string{"true", "delete", "remove", "-d"}},
			{[]string{"force"}, []string{"true"}},
		},
		"destructive.git.branch-delete", "a forced branch deletion, merged or not"},
	{[]string{"stash"}, nil, []string{"git"},
		[]mcpArgTest{{[]string{"mode", "action", "operation", "subcommand"}, []string{"drop", "clear"}}},
		"destructive.git.stash-drop", "dropping stashed changes"},
	{[]string{"checkout", "restore", "switch"}, nil, []string{"git"},
		[]mcpArgTest{{[]string{"force", "discardchanges"}, []string{"true"}}},
		"destructive.git.discard", "a forced checkout, which overwrites uncommitted changes"},
	{[]string{"delete", "remove", "update", "replace"}, []string{"many"}, nil,
		[]mcpArgTest{{[]string{"filter", "query", "where", "selector", "criteria", "match"}, []string{"{}"}}},
		"destructive.db.unbounded-write", "every document or row (an empty filter)"},
	{[]string{"update", "patch", "set", "edit"}, nil, nil,
		[]mcpArgTest{{[]string{"archived", "intrash", "trashed", "deleted", "isarchived", "isdeleted"}, []string{"true"}}},
		"destructive.data.delete", "moving a page or record to the trash"},
	{[]string{"delete", "remove", "reset"}, []string{"branch", "branches"}, []string{"neon", "supabase", "planetscale", "xata", "turso", "database", "db", "postgres", "mysql"},
		nil,
		"destructive.db.drop", "a database branch and its data"},
	{[]string{"delete", "remove"}, []string{"branch", "branches", "ref", "refs"}, []string{"github", "gitlab", "gitea", "bitbucket", "forgejo"},
		nil,
		"destructive.git.branch-delete", "a branch of the hosted repository, merged or not"},
	{[]string{"apply", "deploy", "up", "update", "import", "refresh"}, nil, []string{"terraform", "tofu", "opentofu", "terragrunt", "pulumi", "cdk", "cdktf"},
		[]mcpArgTest{{[]string{"autoapprove", "yes", "skippreview", "approve", "noconfirm", "force", "args", "flags", "options"}, []string{"true", "-auto-approve", "--auto-approve", "--yes", "-y", "--skip-preview"}}},
		"destructive.infra.delete", "a plan applied without the review the tool asks a person for, deletions included"},
	// Scaled to no replicas, a service is down as surely as deleted (kubectl scale
	// --replicas=0 on the command line).
	{[]string{"scale"}, nil, nil,
		[]mcpArgTest{{[]string{"replicas", "replicacount", "count", "desiredcount", "instances", "instancecount", "size", "quantity"}, []string{"0"}}},
		"destructive.infra.delete", "a service scaled to no replicas"},
	{[]string{"cancel"}, []string{"subscription", "subscriptions"}, mcpPaymentWords,
		nil,
		"destructive.payment", "a customer's subscription cancelled"},
	{[]string{"flush", "flushall", "flushdb"}, nil, mcpRedisWords,
		nil,
		"destructive.db.drop", "emptying the database"},
	{nil, nil, nil,
		[]mcpArgTest{{[]string{"method", "httpmethod", "verb"}, []string{"delete"}}},
		"destructive.http.delete", "an HTTP DELETE request"},
	// Money moved by a payment or crypto service's tool cannot be taken back: refunds,
	// payouts and withdrawals anywhere; transfers, charges, captures, payments and trades
	// where the server or tool is one of payments.
	{[]string{"refund", "refunds", "payout", "payouts", "withdraw", "withdrawal"}, nil, nil,
		nil,
		"destructive.payment", "money paid out"},
	{[]string{"transfer", "charge", "capture", "pay", "send", "trade", "swap", "buy", "sell", "bridge"}, nil, mcpPaymentWords,
		nil,
		"destructive.payment", "money moved"},
}

// mcpPaymentWords name payment and crypto services, and the things they move.
var mcpPaymentWords = []string{"stripe", "paypal", "square", "braintree", "adyen", "mollie", "razorpay", "plaid", "wise",
	"coinbase", "agentkit", "wallet", "payment", "payments", "invoice", "charge", "crypto", "eth",
	"solana", "bitcoin", "btc", "usdc", "onchain", "web3", "evm", "bank", "money", "funds"}

// mcpDestructive returns the findings of an MCP call that destroys something, by the
// catalogue above. accesses are the local files the call names: a tool that deletes files
// on this machine is decided by their paths.
func mcpDestructive(c *call.Call, accesses []call.Access) []call.Finding {
	var fs []call.Finding
	tool := nameWords(c.MCP.Tool)
	ctx := mcpContext(c)
	for _, t := range mcpArgTools {
		if t.tool != nil && !hasWord(tool, t.tool) || t.also != nil && !hasWord(tool, t.also) ||
			t.context != nil && !hasWord(ctx, t.context) {
			continue
		}
		if !slices.ContainsFunc(t.args, func(a mcpArgTest) bool { return !a.holds(c.Args) }) {
			fs = append(fs, findings.New(t.finding, fmt.Sprintf("%s: %s", c.MCP.Tool, t.what)))
		}
	}
	if seg := mcpDeletingRequest(c, tool); seg != "" {
		fs = append(fs, findings.New("destructive.http.delete", fmt.Sprintf("%s: a request to …/%s, an endpoint named for deleting or taking out of use", c.MCP.Tool, seg)))
	}
	if verb, object, ok := destroys(c); ok {
		for _, d := range mcpDestroyed {
			if !containsWord(d.words, object) {
				continue
			}
			if d.remote && len(accesses) > 0 && !mcpRemote(c.Args) {
				break
			}
			fs = append(fs, findings.New(d.finding, fmt.Sprintf("%s: %s %s (%s)", c.MCP.Tool, verb, object, d.what)))
			break
		}
	}
	return fs
}

// destroys returns the destroying verb of a call and the kind of thing it destroys:
// from the tool's name (delete_repository, pods_delete), or from an argument naming the
// operation (operation_name: delete-bucket) and the tool's name (bucket_op), with the
// kind from an argument naming it (resourceType: namespace), or from the server's name
// (terraform's destroy), when the words say none.
func destroys(c *call.Call) (verb, object string, ok bool) {
	tool := nameWords(c.MCP.Tool)
	words := tool
	i := slices.IndexFunc(words, isDestroyVerb)
	if i < 0 {
		for _, k := range sortedKeys(c.Args) {
			// An operation is one word (delete, delete-bucket, DeleteBucket); a command
			// line in a command argument is the shell analysis's.
			s, isString := c.Args[k].(string)
			if !isString || len(s) > 64 || strings.ContainsAny(s, " \t\r\n") || !containsWord(mcpOperationKeys, squash(k)) {
				continue
			}
			words = nameWords(s)
			if i = slices.IndexFunc(words, isDestroyVerb); i >= 0 {
				break
			}
		}
		if i < 0 {
			return "", "", false
		}
	}
	verb = words[i]
	object = objectAfter(words[i+1:])
	if object == "" {
		object = objectBefore(words[:i])
	}
	if object == "" && len(words) != len(tool) {
		object = objectAfter(tool)
	}
	if object == "" {
		for _, k := range sortedKeys(c.Args) {
			if s, isString := c.Args[k].(string); isString && len(s) <= 64 && containsWord(mcpKindKeys, squash(k)) {
				// StatefulSet, CronJob: a kind's words run together, as kubectl writes it.
				if object = objectAfter(nameWords(s)); object == "" {
					object = destroyedKind(squash(s))
				}
				if object != "" {
					break
				}
			}
		}
	}
	if object == "" {
		// A server named for what it manages (terraform's destroy, memory's delete).
		object = objectBefore(nameWords(c.MCP.Server))
	}
	if object == "" {
		return "", "", false
	}
	return verb, object, true
}

func isDestroyVerb(w string) bool { return containsWord(mcpDestroyVerbs, w) }

// objectAfter returns the first word of words that names a kind of thing destroyed,
// skipping fillers and other words up to a preposition.
func objectAfter(words []string) string {
	for _, w := range words {
		if containsWord(mcpStops, w) {
			return ""
		}
		if k := destroyedKind(w); k != "" {
			return k
		}
	}
	return ""
}

// objectBefore returns the nearest word before a verb that names a kind of thing
// destroyed (pods_delete, s3_bucket_delete).
func objectBefore(words []string) string {
	for i := len(words) - 1; i >= 0; i-- {
		if k := destroyedKind(words[i]); k != "" {
			return k
		}
	}
	return ""
}

// destroyedKind returns w, in the singular, when it names a kind of thing in
// mcpDestroyed: repositories, indexes and pods are repository, index and pod.
func destroyedKind(w string) string {
	known := func(s string) bool {
		return slices.ContainsFunc(mcpDestroyed, func(k mcpKind) bool { return containsWord(k.words, s) })
	}
	for _, s := range []string{w, strings.TrimSuffix(w, "ies") + "y", strings.TrimSuffix(w, "s"), strings.TrimSuffix(w, "es")} {
		if s != "" && s != "y" && known(s) {
			return s
		}
	}
	return ""
}

// holds reports whether the test holds for args.
func (t mcpArgTest) holds(args map[string]any) bool {
	for _, k := range sortedKeys(args) {
		if containsWord(t.keys, squash(k)) && t.matches(args[k]) {
			return true
		}
	}
	if slices.Contains(t.values, "{}") {
		// An absent filter is every document.
		for _, k := range t.keys {
			if slices.ContainsFunc(sortedKeys(args), func(a string) bool { return squash(a) == k }) {
				return false
			}
		}
		return true
	}
	return false
}

func (t mcpArgTest) matches(v any) bool {
	switch v := v.(type) {
	case bool:
		return v && slices.Contains(t.values, "true")
	case float64:
		return containsWord(t.values, strconv.FormatFloat(v, 'f', -1, 64))
	case json.Number:
		return containsWord(t.values, v.String())
	case int:
		return containsWord(t.values, strconv.Itoa(v))
	case int64:
		return containsWord(t.values, strconv.FormatInt(v, 10))
	case string:
		s := strings.TrimSpace(v)
		if slices.Contains(t.values, "{}") && (s == "" || s == "{}") {
			return true
		}
		return slices.ContainsFunc(strings.Fields(strings.ToLower(s)), func(f string) bool { return containsWord(t.values, f) })
	case map[string]any:
		return len(v) == 0 && slices.Contains(t.values, "{}")
	case []any:
		return slices.ContainsFunc(v, t.matches)
	}
	return false
}

// squash returns an argument name in lower case without separators: force_push,
// forcePush and force-push are all forcepush.
func squash(k string) string { return hosted.Squash(k) }

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// mcpDeletingRequest returns the path segment that names the endpoint an HTTP tool's
// call sends a request that changes state to as deleting (a POST to …/doDelete), as
// curl's is judged (netdest.DeletingEndpoint). The method is an argument (method,
// httpMethod, verb) or the tool's name (http_post); a request that only reads is not.
func mcpDeletingRequest(c *call.Call, tool []string) string {
	method := ""
	for _, k := range sortedKeys(c.Args) {
		if s, ok := c.Args[k].(string); ok && containsWord([]string{"method", "httpmethod", "verb"}, squash(k)) {
			method = strings.ToUpper(strings.TrimSpace(s))
		}
	}
	if method == "" {
		for _, m := range []string{"post", "put", "patch"} {
			if containsWord(tool, m) {
				method = strings.ToUpper(m)
			}
		}
	}
	switch method {
	case "POST", "PUT", "PATCH":
	default:
		return ""
	}
	for _, k := range sortedKeys(c.Args) {
		if s, ok := c.Args[k].(string); ok && containsWord([]string{"url", "uri", "endpoint", "path", "href", "link"}, squash(k)) {
			if seg := netdest.DeletingEndpoint(s); seg != "" {
				return seg
			}
		}
	}
	return ""
}
