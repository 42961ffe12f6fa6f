package sqlscan

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
)

// adversarial returns inputs of about n bytes built to make a careless scanner slow:
// unterminated quotes and comments, comments nested deep, parentheses nested deep, many
// statements and clauses, dollar signs that almost start dollar quotes, strings run as
// SQL inside strings run as SQL.
func adversarial(n int) map[string]string {
	fill := func(s string) string { return strings.Repeat(s, n/len(s)+1)[:n] }
	return map[string]string{
		"unterminated-quote":   "SELECT '" + fill("DROP TABLE x; ''"),
		"unterminated-dollar":  "SELECT $a$" + fill("$a DROP TABLE x; $b$ "),
		"unterminated-comment": "/*" + fill("/* DROP TABLE x; "),
		"nested-comments":      fill("/*") + fill("*/"),
		"parentheses":          "DELETE FROM t WHERE x IN " + fill("(") + fill(")"),
		"clauses":              fill("DELETE FROM t UPDATE t SET x = 1 "),
		"statements":           fill("DROP TABLE x;"),
		"dollars":              fill("$a"),
		"backslashes":          fill(`\' \"`),
		"delimiter":            "DELIMITER aaaaaaaaaaaaaaab\n" + fill("a"),
		"do-blocks":            fill("DO $$ DO $a$ EXECUTE 'DROP TABLE x' $a$ $$;"),
		"migration":            fill("CREATE TABLE users (id bigserial PRIMARY KEY, email text NOT NULL UNIQUE);\nINSERT INTO users (email) VALUES ('a@example.com'), ('it''s@example.com');\nUPDATE users SET email = lower(email) WHERE id > 10;\n-- done\n"),
	}
}

func BenchmarkSQL(b *testing.B) {
	for _, size := range []int{16 << 10, 64 << 10} {
		inputs := adversarial(size)
		for _, name := range slices.Sorted(maps.Keys(inputs)) {
			script := inputs[name]
			b.Run(fmt.Sprintf("%s/%dKiB", name, size>>10), func(b *testing.B) {
				b.SetBytes(int64(len(script)))
				b.ReportAllocs()
				for b.Loop() {
					SQL(script)
				}
			})
		}
	}
}

func BenchmarkMongo(b *testing.B) {
	js := strings.Repeat("db.users.find({name: 'x'}).sort({a: 1}); x = `t ${db.a.count()}` / 2;\n", 1000)
	b.SetBytes(int64(len(js)))
	for b.Loop() {
		Mongo(js)
	}
}
