package netdest

import (
	"net/netip"
	"sync"
)

// The cloud metadata services. Each answers plain HTTP requests from any process on the
// machine (or in the pod) with instance details and, under a well-known path, the
// temporary credentials of the machine's cloud identity: a fetch of one is a theft of
// those credentials (ATT&CK T1552.005), and an agent never needs one for its work.

// metadataAddrText lists their addresses. The tables are text, parsed on first use, so
// that loading the package does no work.
var metadataAddrText = []struct{ prefix, service string }{
	// Every cloud puts its instance services on IPv4 link-local addresses, which no
	// development server listens on: AWS (IMDS .169.254, ECS task credentials
	// 169.254.170.2, EKS Pod Identity 169.254.170.23), GCP, Azure (IMDS), Oracle,
	// DigitalOcean, Hetzner, OpenStack, IBM VPC.
	{"169.254.169.254/32", "the instance metadata service of AWS, GCP, Azure, Oracle, DigitalOcean, Hetzner and OpenStack (169.254.169.254)"},
	{"169.254.170.2/32", "the AWS ECS task credentials endpoint (169.254.170.2)"},
	{"169.254.170.23/32", "the AWS EKS Pod Identity credentials endpoint (169.254.170.23)"},
	{"169.254.0.0/16", "a link-local address, where cloud metadata and credential services live"},
	{"100.100.100.200/32", "the Alibaba Cloud instance metadata service (100.100.100.200)"},
	{"168.63.129.16/32", "the Azure WireServer (168.63.129.16), which serves extension settings and certificates"},
	{"192.0.0.192/32", "the Oracle Cloud Classic instance metadata service (192.0.0.192)"},
	{"fd00:ec2::254/128", "the AWS EC2 instance metadata service over IPv6 (fd00:ec2::254)"},
	{"fd00:ec2::23/128", "the AWS EKS Pod Identity credentials endpoint over IPv6 (fd00:ec2::23)"},
	{"fd20:ce::254/128", "the GCP metadata server over IPv6 (fd20:ce::254)"},
}

type metadataPrefix struct {
	prefix  netip.Prefix
	service string
}

// metadataAddrs returns the parsed addresses of metadataAddrText, most specific first.
var metadataAddrs = sync.OnceValue(func() []metadataPrefix {
	out := make([]metadataPrefix, len(metadataAddrText))
	for i, m := range metadataAddrText {
		out[i] = metadataPrefix{netip.MustParsePrefix(m.prefix), m.service}
	}
	return out
})

// metadataNames are the host names of metadata services; subdomains marks a name whose
// subdomains are the service too.
var metadataNames = []struct {
	name       string
	subdomains bool
	service    string
}{
	{"metadata.google.internal", true, "the GCP metadata server"},
	{"metadata.goog", true, "the GCP metadata server"},
	{"metadata", false, "the GCP metadata server (by its short name)"},
	{"metadata.tencentyun.com", false, "the Tencent Cloud instance metadata service"},
	{"metadata.platformequinix.com", false, "the Equinix Metal metadata service"},
	{"metadata.packet.net", false, "the Equinix Metal (Packet) metadata service"},
	{"api.metadata.cloud.ibm.com", false, "the IBM Cloud VPC metadata service"},
}
