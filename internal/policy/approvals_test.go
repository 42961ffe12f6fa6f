package policy

import (
	"strings"
	"testing"
	"time"
)

func TestApprovalsSection(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want Approvals
		err  []string
	}{
		{"absent", "version: 1\n", DefaultApprovals, nil},
		{"all", "version: 1\napprovals: {queue: always, expire: 8h, notify: false}\n", Approvals{Queue: QueueAlways, Expire: 8 * time.Hour}, nil},
		{"never", "version: 1\napprovals:\n  queue: never\n", Approvals{Queue: QueueNever, Expire: time.Hour, Notify: true}, nil},
		{"mistakes", "version: 1\napprovals:\n  queue: allways\n  expire: 10s\n  notify: \"no\"\n  ttl: 1h\n", Approvals{}, []string{
			`p.yaml:3:10: approvals.queue must be one of unattended, always, never, not "allways" (did you mean "always"?)`,
			`p.yaml:4:11: approvals.expire: 10s is not between 1m0s and 168h0m0s`,
			`p.yaml:5:11: approvals.notify must be true or false`,
			`p.yaml:6:3: unknown key "ttl" in approvals`,
		}},
		{"not a duration", "version: 1\napprovals: {expire: soon}\n", Approvals{}, []string{`p.yaml:2:21: approvals.expire: "soon" is not a duration such as 30m or 8h`}},
		{"not a mapping", "version: 1\napprovals: always\n", Approvals{}, []string{"p.yaml:2:12: approvals must be a mapping"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Load("p.yaml", []byte(tt.src), testHost())
			if tt.err == nil {
				if err != nil {
					t.Fatal(err)
				}
				if p.Approvals != tt.want {
					t.Errorf("approvals = %+v, want %+v", p.Approvals, tt.want)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.err {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not contain %q:\n%s", w, err)
				}
			}
		})
	}
}
