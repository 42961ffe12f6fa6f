package textmatch

import (
	"slices"
	"testing"
)

func TestIdentWords(t *testing.T) {
	for _, tc := range []struct {
		name string
		want []string
	}{
		{"DB_PASSWORD", []string{"db", "password"}},
		{"dbPassword_HASH", []string{"db", "password", "hash"}},
		{"APIKey", []string{"api", "key"}},
		{"HTTPDelete", []string{"http", "delete"}},
		{"doDelete", []string{"do", "delete"}},
		{"bulk_destroy", []string{"bulk", "destroy"}},
		{"remove-member", []string{"remove", "member"}},
		{"deleteAll.json", []string{"delete", "all", "json"}},
		{`doDelete"`, []string{"do", "delete"}},
		{"spring.datasource.password", []string{"spring", "datasource", "password"}},
		{"--access-token", []string{"access", "token"}},
		{"v2Key", []string{"v2", "key"}},
		{"ünïcode", []string{"n", "code"}},
		{"", nil},
	} {
		if got := IdentWords(tc.name); !slices.Equal(got, tc.want) {
			t.Errorf("IdentWords(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}
