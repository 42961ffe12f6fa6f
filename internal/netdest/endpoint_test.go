package netdest

import "testing"

func TestDeletingEndpoint(t *testing.T) {
	for _, tc := range []struct{ url, want string }{
		{"http://jenkins.local/job/deploy-prod/doDelete", "doDelete"},
		{"https://api.example.com/v1/projects/7/delete", "delete"},
		{"https://api.example.com/user/delete/42?force=1", "delete"},
		{"https://api.example.com/v2/bulk_destroy#top", "bulk_destroy"},
		{"api.example.com/teams/remove-member", "remove-member"},
		{"localhost/queue/purge", "purge"},
		{"repos/acme/api/drop", "drop"},
		{"$API/x/doDelete", "doDelete"},
		{"https://api.example.com/x%2Fdelete", "delete"},
		{"https://slack.com/api/conversations.archive", "conversations.archive"},
		{"https://api.render.com/v1/services/srv-cn8q2vbtg9os73a1b2c0/suspend", "suspend"},
		{"https://docs.example.com/archives/2024", ""},
		// No endpoint verb.
		{"https://api.example.com/v1/items", ""},
		{"https://api.example.com/v1/items/42/undelete", ""},
		{"https://delete.example.com/items", ""},
		{"delete.example.com", ""},
		{"https://delete.example.com", ""},
		{"https://api.example.com/cache/clear", ""},
		{"https://api.example.com/deleted/list", ""},
		// Only the last segment that is not an identifier names the endpoint.
		{"https://api.example.com/delete/items", ""},
		{"https://api.example.com/v1/users/42", ""},
		{"", ""},
		{"/", ""},
	} {
		if got := DeletingEndpoint(tc.url); got != tc.want {
			t.Errorf("DeletingEndpoint(%q) = %q, want %q", tc.url, got, tc.want)
		}
	}
}
