package netdest

import (
	"slices"
	"testing"
)

func TestCanonical(t *testing.T) {
	for in, want := range map[string]string{
		"169.254.169.254":       "169.254.169.254",
		"2852039166":            "169.254.169.254",
		"0xA9FEA9FE":            "169.254.169.254",
		"0xa9.0xfe.0xa9.0xfe":   "169.254.169.254",
		"0251.0376.0251.0376":   "169.254.169.254",
		"0251.254.43518":        "169.254.169.254",
		"169.16689662":          "169.254.169.254",
		"169.254.169.254.":      "169.254.169.254",
		"%31%36%39.254.169.254": "169.254.169.254",
		"１６９．２５４．１６９．２５４":           "169.254.169.254",
		"169。254。169。254":           "169.254.169.254",
		"[::ffff:169.254.169.254]":  "::ffff:169.254.169.254",
		"FD00:EC2::254":             "fd00:ec2::254",
		"fe80::1%25eth0":            "fe80::1",
		"Metadata.Google.Internal.": "metadata.google.internal",
		"example.com":               "example.com",
		"256.1.1.1":                 "256.1.1.1", // not an address: a name
		"1.2.3.4.5":                 "1.2.3.4.5",
		"0x":                        "0.0.0.0",
		"localhost":                 "localhost",
	} {
		if got := Canonical(in); got != want {
			t.Errorf("Canonical(%q) = %q, want %q", in, got, want)
		}
	}
}

// metadataHosts are spellings of metadata services, each of which a URL reader or a
// resolver takes to the service.
var metadataHosts = []string{
	"169.254.169.254", "2852039166", "0xA9FEA9FE", "0xa9fea9fe", "0251.0376.0251.0376",
	"0xa9.254.0251.0xfe", "169.254.43518", "169.16689662", "0251.0xfe.43518",
	"169.254.169.254.", "%31%36%39%2e%32%35%34%2e%31%36%39%2e%32%35%34", "１６９．２５４．１６９．２５４",
	"169。254。169。254", "[::ffff:169.254.169.254]", "::ffff:a9fe:a9fe", "0:0:0:0:0:ffff:a9fe:a9fe",
	"::169.254.169.254", "64:ff9b::a9fe:a9fe", "2002:a9fe:a9fe::1", "2001:0:4136:e378:8000:63bf:5601:5601",
	"fd00:ec2::254", "[fd00:ec2::254]", "FD00:0EC2:0000:0000:0000:0000:0000:0254", "fd00:ec2::23", "fd20:ce::254",
	"169.254.170.2", "169.254.170.23", "169.254.1.1", "100.100.100.200", "168.63.129.16", "192.0.0.192",
	"metadata.google.internal", "METADATA.GOOGLE.INTERNAL.", "computemetadata.metadata.google.internal", "metadata.goog", "metadata",
	"instance-data", "instance-data.ec2.internal", "metadata.tencentyun.com", "api.metadata.cloud.ibm.com",
	"169.254.169.254.nip.io", "app-169-254-169-254.sslip.io", "a9fea9fe.nip.io", "7f000001.a9fea9fe.rbndr.us",
	"169-254-169-254.example.com", "169.254.169.254.example",
}

// otherHosts are hosts that are not metadata services: the user's own servers among them.
var otherHosts = []string{
	"localhost", "127.0.0.1", "[::1]", "0.0.0.0", "10.0.0.5", "192.168.1.20", "172.17.0.1",
	"100.64.0.1", "100.100.100.100", "example.com", "metadata.example.com", "my-metadata",
	"github.com", "api.github.com", "fe80::1", "fd00:ec3::254",
	"2001:db8::1", "deadbeef.example.com", "1.2.3.4.nip.io", "", "[", "%zz",
}

func TestMetadataService(t *testing.T) {
	for _, h := range metadataHosts {
		if s, ok := MetadataService(h); !ok || s == "" {
			t.Errorf("MetadataService(%q) = %q, %v; want a service", h, s, ok)
		}
	}
	for _, h := range otherHosts {
		if s, ok := MetadataService(h); ok {
			t.Errorf("MetadataService(%q) = %q; want none", h, s)
		}
	}
}

func TestParseURL(t *testing.T) {
	for _, tt := range []struct {
		raw    string
		scheme string
		hosts  []string
	}{
		{"https://example.com/a?b=c", "https", []string{"example.com"}},
		{"http://169.254.169.254/latest/meta-data/", "http", []string{"169.254.169.254"}},
		{"HTTP://Example.COM:8080/", "http", []string{"Example.COM"}},
		{"http://user:pw@169.254.169.254/", "http", []string{"169.254.169.254"}},
		{"http://example.com@169.254.169.254/", "http", []string{"169.254.169.254"}},
		{"http://[::ffff:a9fe:a9fe]/", "http", []string{"::ffff:a9fe:a9fe"}},
		// Browsers and Node read a backslash as a slash, which ends the authority; Go reads
		// it as part of the user information or refuses the URL.
		{`http://169.254.169.254\@example.com/`, "http", []string{"169.254.169.254"}},
		{`http:\\169.254.169.254\latest`, "http", []string{"169.254.169.254"}},
		{"http:///169.254.169.254/", "http", []string{"169.254.169.254"}},
		{"  http://169.254.169.254/ ", "http", []string{"169.254.169.254"}},
		{"http://169.254.\n169.254/", "http", []string{"169.254.169.254"}},
		// No scheme: the fetch tools put https:// in front.
		{"169.254.169.254/latest/meta-data", "", []string{"169.254.169.254"}},
		{"localhost:3000/api", "", []string{"localhost"}},
		{"file:///etc/shadow", "file", nil},
		{"file://host/etc/shadow", "file", []string{"host"}},
		{`file:\\169.254.169.254\x`, "file", []string{"169.254.169.254"}},
		{"gopher://127.0.0.1:6379/_FLUSHALL", "gopher", []string{"127.0.0.1"}},
		{"data:text/plain,hello", "data", nil},
		{"", "", nil},
	} {
		u := ParseURL(tt.raw)
		if u.Scheme != tt.scheme || !slices.Equal(u.Hosts, tt.hosts) {
			t.Errorf("ParseURL(%q) = %q %q, want %q %q", tt.raw, u.Scheme, u.Hosts, tt.scheme, tt.hosts)
		}
	}
}

func FuzzParseURL(f *testing.F) {
	for _, h := range append(slices.Clone(metadataHosts), otherHosts...) {
		f.Add("http://" + h + "/x")
	}
	f.Fuzz(func(t *testing.T, raw string) {
		for _, h := range ParseURL(raw).Hosts {
			MetadataService(h)
		}
	})
}

func TestFileURLPath(t *testing.T) {
	for in, want := range map[string]string{
		"file:///etc/shadow":             "/etc/shadow",
		"file://localhost/etc/passwd":    "/etc/passwd",
		"file:///home/u/.ssh/id%5Frsa":   "/home/u/.ssh/id_rsa",
		"file://otherhost/etc/shadow":    "",
		"https://example.com/etc/passwd": "",
	} {
		if got := FileURLPath(in); got != want {
			t.Errorf("FileURLPath(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLoopback(t *testing.T) {
	for h, want := range map[string]bool{
		"localhost": true, "LOCALHOST": true, "localhost.": true, "app.localhost": true,
		"127.0.0.1": true, "127.1.2.3": true, "::1": true, "[::1]": true, "0.0.0.0": true,
		"::": true, "::ffff:127.0.0.1": true, "ip6-localhost": true,
		"localhost.evil.example": false, "evil-localhost": false, "10.0.0.5": false,
		"128.0.0.1": false, "example.com": false, "": false, "[::2]": false,
	} {
		if got := Loopback(h); got != want {
			t.Errorf("Loopback(%q) = %v, want %v", h, got, want)
		}
	}
}
