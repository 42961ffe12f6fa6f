package shell

import (
	"strings"
)

// This file knows the commands that grant access to others or widen it: administrator
// policies and roles in a cloud account, cluster-admin bindings, buckets, snapshots and
// repositories made public, ports opened to the whole internet, collaborators and keys
// that may push. None of them destroys anything, and each can hand the account, the
// cluster or the data to someone else for good (T1098).

// Finding id of this file.
const findGrant = "privilege.grant"

// worldWords are the values that name everyone: public ACLs, the principals of all
// users, the address ranges of the whole internet.
var worldWords = []string{"public-read", "public-read-write", "authenticated-read", "allusers",
	"allauthenticatedusers", "0.0.0.0/0", "::/0", "group=all", "\"*\"", "principal=*"}

// kubeExposesOutside: kubectl expose … --type=LoadBalancer|NodePort.
func kubeExposesOutside(_ *analyzer, v *view) string {
	for _, t := range v.values("type") {
		if strings.EqualFold(t.lit, "LoadBalancer") || strings.EqualFold(t.lit, "NodePort") {
			return "kubectl expose --type=" + t.lit + " publishes the service outside the cluster"
		}
	}
	return ""
}

// kubeForwardsToAll: kubectl port-forward --address 0.0.0.0 (or another address than
// loopback) lets every machine that reaches this one into the pod.
func kubeForwardsToAll(_ *analyzer, v *view) string {
	for _, a := range v.values("address") {
		for _, addr := range strings.Split(a.lit, ",") {
			if addr = strings.TrimSpace(addr); addr != "" && addr != "localhost" && addr != "127.0.0.1" && addr != "::1" {
				return "kubectl port-forward --address " + a.lit + " opens the pod to other machines"
			}
		}
	}
	return ""
}

// grantRules are the commands that grant or widen access, by program.
func grantRules() map[string][]rule {
	aws := []rule{
		{sub: []string{"iam", "attach-user-policy|attach-role-policy|attach-group-policy|put-user-policy|put-role-policy|put-group-policy|add-user-to-group|update-assume-role-policy|create-login-profile|update-login-profile|create-policy-version|set-default-policy-version|delete-user-permissions-boundary|delete-role-permissions-boundary"}, finding: findGrant},
		{sub: []string{"s3api", "put-bucket-policy|delete-public-access-block|put-bucket-cors"}, finding: findGrant},
		{sub: []string{"s3api", "put-bucket-acl|put-object-acl|put-public-access-block"}, when: namesEveryone, finding: findGrant},
		{sub: []string{"ec2", "authorize-security-group-ingress|modify-snapshot-attribute|modify-image-attribute"}, when: namesEveryone, finding: findGrant},
		{sub: []string{"rds", "modify-db-snapshot-attribute|modify-db-cluster-snapshot-attribute"}, when: namesEveryone, finding: findGrant},
		// A database given an address the internet reaches.
		{sub: []string{"rds", "modify-db-instance|create-db-instance|modify-db-cluster|create-db-cluster|restore-db-instance-from-db-snapshot|restore-db-cluster-from-snapshot"}, anyOf: []string{"publicly-accessible"}, finding: findGrant},
		{sub: []string{"lambda|sns|sqs", "add-permission"}, finding: findGrant},
		{sub: []string{"ecr|ecr-public", "set-repository-policy"}, finding: findGrant},
		{sub: []string{"secretsmanager", "put-resource-policy"}, finding: findGrant},
		{sub: []string{"kms", "put-key-policy|create-grant"}, finding: findGrant},
	}
	kube := []rule{
		{sub: []string{"create", "clusterrolebinding|rolebinding"}, finding: findGrant},
		// A service exposed outside the cluster: a cloud load balancer's address, or a
		// port on every node (a database behind it answers the internet).
		{sub: []string{"expose"}, when: kubeExposesOutside, finding: findGrant},
		{sub: []string{"create", "service", "loadbalancer|nodeport"}, finding: findGrant},
		{sub: []string{"port-forward"}, when: kubeForwardsToAll, finding: findGrant},
		// A privileged pod, or one in the node's namespaces with its root mounted.
		{sub: []string{"run"}, anyOf: []string{"privileged"}, finding: findContainerEscape},
		{sub: []string{"run"}, when: kubeOverridesHost, finding: findContainerEscape},
		{sub: []string{"debug"}, operand: "node/*", finding: findContainerEscape},
		// Manifests applied straight from a URL: whatever the server sends then runs in
		// the cluster.
		{sub: []string{"apply|create|replace"}, when: manifestURL, finding: findDirectURL},
	}
	return map[string][]rule{
		"aws":     aws,
		"gcloud":  {{when: gcloudGrants, finding: findGrant}},
		"gsutil":  {{sub: []string{"iam", "ch|set"}, finding: findGrant}, {sub: []string{"acl|defacl", "ch|set"}, when: namesEveryone, finding: findGrant}},
		"kubectl": kube,
		"oc":      kube,
		"az": {
			{sub: []string{"role", "assignment", "create"}, finding: findGrant},
			{sub: []string{"ad", "sp", "create-for-rbac"}, finding: findGrant},
			{sub: []string{"ad", "app", "permission", "grant|admin-consent"}, finding: findGrant},
			{sub: []string{"keyvault", "set-policy"}, finding: findGrant},
			{sub: []string{"storage", "container", "set-permission|create"}, when: azPublicAccess, finding: findGrant},
			{sub: []string{"storage", "account", "update|create"}, when: azPublicAccess, finding: findGrant},
			{sub: []string{"network", "nsg", "rule", "create|update"}, when: namesEveryone, finding: findGrant},
		},
		"gh": {
			{sub: []string{"repo", "edit|create"}, when: ghPublic, finding: findGrant},
			{sub: []string{"repo", "deploy-key", "add"}, anyOf: []string{"allow-write", "w"}, finding: findGrant},
			{sub: []string{"ssh-key|gpg-key", "add"}, finding: findGrant},
			// An administrator's merge skips the reviews and checks branch protection asks for.
			{sub: []string{"pr", "merge"}, anyOf: []string{"admin"}, finding: findGrant},
			{sub: []string{"api"}, when: grantsByRequest(ghAPIRequest), finding: findGrant},
		},
		"glab": {{sub: []string{"api"}, when: grantsByRequest(ghAPIRequest), finding: findGrant}},
		// A package's owners publish its next version, which its users install.
		"npm":   {{sub: []string{"owner|author", "add"}, finding: findGrant}, {sub: []string{"access", "grant"}, finding: findGrant}},
		"pnpm":  {{sub: []string{"owner", "add"}, finding: findGrant}},
		"cargo": {{sub: []string{"owner"}, anyOf: []string{"add", "a"}, finding: findGrant}},
		"gem":   {{sub: []string{"owner"}, anyOf: []string{"add", "a"}, finding: findGrant}},
		"curl":  {{when: grantsByRequest(curlRequest), finding: findGrant}},
		// Tunnels publish a port of this machine to whoever has their address, past the
		// firewall and the NAT that kept it private (ssh -R is a raw socket, knowledge.go).
		"ngrok":       {{sub: []string{"http|tcp|tls|start|tunnel"}, finding: findGrant}},
		"cloudflared": {{sub: []string{"tunnel"}, anyOf: []string{"url"}, finding: findGrant}, {sub: []string{"tunnel", "run"}, finding: findGrant}},
		// tailscale funnel publishes on the internet (serve stays within the tailnet); --ssh
		// lets the tailnet's machines log in to this one.
		"tailscale": {{sub: []string{"funnel"}, when: funnelOn, finding: findGrant}, {sub: []string{"up|set"}, anyOf: []string{"ssh"}, finding: findGrant}},
		// VS Code's tunnel gives a remote editor, and its terminal, this machine.
		"code": {{sub: []string{"tunnel"}, when: codeTunnelOpens, finding: findGrant}},
		// A notebook server listening beyond loopback with its token and password empty
		// runs any code for whoever reaches the port.
		"jupyter":          {{sub: []string{"lab|notebook|server|nbclassic"}, when: notebookOpen, finding: findGrant}},
		"jupyter-lab":      {{when: notebookOpen, finding: findGrant}},
		"jupyter-notebook": {{when: notebookOpen, finding: findGrant}},
		"lt":               {{finding: findGrant}}, // localtunnel
		"bore":             {{sub: []string{"local"}, finding: findGrant}},
		"devtunnel":        {{sub: []string{"host"}, finding: findGrant}},
		"zrok":             {{sub: []string{"share"}, finding: findGrant}},
	}
}

// funnelOn: tailscale funnel PORT publishes the port; status, reset and an "off" turn it
// off or report.
func funnelOn(_ *analyzer, v *view) string {
	for _, w := range v.ops[1:] {
		switch w {
		case "status", "reset", "off":
			return ""
		}
	}
	if len(v.ops) < 2 {
		return ""
	}
	return "tailscale funnel " + v.ops[1]
}

// codeTunnelOpens: code tunnel (and its service install) opens the tunnel; its other
// subcommands manage or stop it.
func codeTunnelOpens(_ *analyzer, v *view) string {
	if len(v.ops) >= 2 {
		switch v.ops[1] {
		case "status", "kill", "restart", "rename", "unregister", "prune", "help", "user":
			return ""
		case "service":
			if len(v.ops) < 3 || v.ops[2] != "install" {
				return ""
			}
		}
	}
	return strings.Join(append([]string{v.name}, v.ops...), " ")
}

// namesEveryone: an argument names everyone (worldWords): a public ACL, all users, the
// whole internet. (Objects uploaded with a public ACL are a website's deploy, and are
// not asked about; a bucket's own ACL is.)
func namesEveryone(_ *analyzer, v *view) string {
	// Snapshots and images are shared with every account as the group "all".
	for _, name := range []string{"group-names", "values-to-add"} {
		for _, x := range optionValues(v, name) {
			if strings.EqualFold(x.lit, "all") {
				return v.name + " --" + name + " all"
			}
		}
	}
	for _, x := range v.args {
		l := strings.ToLower(x.lit)
		if l == "internet" || l == "*" {
			// Azure's service tag for the whole internet, or any address, as a whole value.
			return v.name + " " + strings.Join(v.ops[:min(2, len(v.ops))], " ") + " … " + x.lit
		}
		for _, w := range worldWords {
			if strings.Contains(l, w) {
				return v.name + " " + strings.Join(v.ops[:min(2, len(v.ops))], " ") + " … " + shorten(x.lit)
			}
		}
	}
	return ""
}

// gcloudGrants: any gcloud command that binds a role (add-iam-policy-binding,
// set-iam-policy), or opens a firewall or a database to everyone.
func gcloudGrants(a *analyzer, v *view) string {
	for _, o := range v.ops {
		if o == "add-iam-policy-binding" || o == "set-iam-policy" {
			return "gcloud … " + o
		}
	}
	if len(v.ops) >= 2 && (v.ops[0] == "compute" && v.ops[1] == "firewall-rules" || v.ops[0] == "sql" || v.ops[0] == "storage") {
		return namesEveryone(a, v)
	}
	return ""
}

// azPublicAccess: a storage container or account opened to anonymous reads.
func azPublicAccess(_ *analyzer, v *view) string {
	for _, x := range optionValues(v, "public-access") {
		if l := strings.ToLower(x.lit); l == "blob" || l == "container" {
			return "az storage --public-access " + l
		}
	}
	for _, x := range optionValues(v, "allow-blob-public-access") {
		if trueWord(strings.ToLower(x.lit)) {
			return "az storage --allow-blob-public-access " + x.lit
		}
	}
	return ""
}

// ghPublic: gh repo edit|create --visibility public, or --public.
func ghPublic(_ *analyzer, v *view) string {
	for _, x := range optionValues(v, "visibility") {
		if strings.EqualFold(x.lit, "public") {
			return "gh repo " + v.ops[1] + " --visibility public"
		}
	}
	if v.flag("public") {
		return "gh repo " + v.ops[1] + " --public"
	}
	return ""
}

// kubeOverridesHost: kubectl run --overrides JSON that makes the pod privileged or puts
// it in the node's namespaces or file system.
func kubeOverridesHost(_ *analyzer, v *view) string {
	for _, x := range optionValues(v, "overrides") {
		l := strings.ToLower(strings.Join(strings.Fields(x.lit), ""))
		for _, key := range []string{"privileged", "hostpid", "hostnetwork", "hostipc"} {
			if strings.Contains(l, `"`+key+`":true`) {
				return "kubectl run --overrides " + key
			}
		}
		if strings.Contains(l, `"hostpath":`) {
			return "kubectl run --overrides hostPath"
		}
	}
	return ""
}

// grantsByRequest: a request that changes state sent to an endpoint that manages who
// may act on a repository or an organisation (collaborators, members, invitations, keys,
// branch protection), or that makes a repository public.
func grantsByRequest(request func(*view) httpRequest) func(*analyzer, *view) string {
	return func(a *analyzer, v *view) string {
		r := request(v)
		switch r.method {
		case "GET", "HEAD", "OPTIONS", "DELETE":
			return ""
		case "":
			if !r.body {
				return ""
			}
		}
		for _, u := range r.urls {
			l := strings.ToLower(u.lit)
			for _, seg := range []string{"/collaborators/", "/invitations", "/members/", "/memberships/", "/keys", "/protection", "/permissions"} {
				if strings.Contains(l, seg) {
					return v.name + " " + strings.Trim(seg, "/") + ": " + shorten(u.lit)
				}
			}
		}
		for _, x := range v.args {
			l := strings.ToLower(strings.ReplaceAll(x.lit, " ", ""))
			if strings.Contains(l, "private=false") || strings.Contains(l, "visibility=public") || strings.Contains(l, `"private":false`) || strings.Contains(l, `"visibility":"public"`) {
				return v.name + " " + shorten(x.lit)
			}
		}
		return ""
	}
}

// manifestURL: kubectl apply|create|replace -f URL.
func manifestURL(_ *analyzer, v *view) string {
	for _, f := range optionValues(v, "f", "filename") {
		if strings.HasPrefix(f.lit, "http://") || strings.HasPrefix(f.lit, "https://") {
			return v.name + " " + v.ops[0] + " -f " + shorten(f.lit)
		}
	}
	return ""
}

// notebookOpen: a Jupyter server bound beyond loopback (--ip 0.0.0.0, --ip='*') with
// its token or password set empty (--NotebookApp.token=”, --ServerApp.token=,
// --IdentityProvider.token=).
func notebookOpen(_ *analyzer, v *view) string {
	ip := ""
	open := false
	for i, x := range v.args {
		if x.dynamic {
			continue
		}
		name, val, has := strings.Cut(x.lit, "=")
		if !has && i+1 < len(v.args) && !strings.HasPrefix(v.args[i+1].lit, "-") {
			val = v.args[i+1].lit
		}
		switch {
		case name == "--ip" || strings.HasSuffix(name, "App.ip"):
			ip = val
		case has && (strings.HasSuffix(name, ".token") || strings.HasSuffix(name, ".password")) && strings.Trim(val, `"'`) == "":
			open = true
		}
	}
	switch ip {
	case "", "localhost", "127.0.0.1", "::1":
		return ""
	}
	if !open {
		return ""
	}
	return v.name + " --ip " + ip + " with no token or password"
}
