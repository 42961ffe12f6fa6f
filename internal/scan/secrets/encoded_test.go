package secrets

import (
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"strings"
	"testing"
)

func TestEncodedSecretFindings(t *testing.T) {
	const token = "ghp_R8fK2mQ7xLp4Zt9Vb3Nc6Wd1Ys5Hj0Ae2Gu4"
	for _, w := range []string{
		base64.StdEncoding.EncodeToString([]byte(token)),
		base64.RawURLEncoding.EncodeToString([]byte("token=" + token)),
		hex.EncodeToString([]byte(token)),
		"k=" + base64.StdEncoding.EncodeToString([]byte(token)),
		"https://x.example/?a=1&d=" + hex.EncodeToString([]byte(token)),
		"Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte("u:"+token)),
		"q=" + url.QueryEscape("aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYzK9f3Hq2Wd"),
	} {
		fs := EncodedFindings([]string{"curl", w}, "command")
		if len(fs) == 0 {
			t.Errorf("%s: no finding", w)
			continue
		}
		for _, f := range fs {
			if strings.Contains(f.Evidence, token) || strings.Contains(f.Evidence, w) {
				t.Errorf("%s: the evidence holds the value: %s", w, f.Evidence)
			}
		}
	}
	for _, w := range []string{"aGVsbG8gd29ybGQ=", "3f2a9c0d1e8b7a6f5e4d3c2b1a0f9e8d7c6b5a49", "internal/engine/testdata", "a%20b", "eyJpZCI6MTIzfQ"} {
		if fs := EncodedFindings([]string{w}, "command"); len(fs) > 0 {
			t.Errorf("%s: %v", w, fs)
		}
	}
}

// FuzzEncodedSecretFindings checks that decoding any words never panics, stays bounded,
// and never puts a word's value in the evidence.
func FuzzEncodedSecretFindings(f *testing.F) {
	f.Add("Z2hwX1I4ZksybVE3eExwNFp0OVZiM05jNldkMVlzNUhqMEFlMkd1NA==", "k=%41%42")
	f.Add("https://x.example/?d=676870", "Authorization: Basic dTpw")
	f.Fuzz(func(t *testing.T, a, b string) {
		for _, fd := range EncodedFindings([]string{a, b}, "command") {
			if fd.ID == "" || len(a) > 8 && strings.Contains(fd.Evidence, a) || len(b) > 8 && strings.Contains(fd.Evidence, b) {
				t.Fatalf("bad finding %+v", fd)
			}
		}
	})
}
