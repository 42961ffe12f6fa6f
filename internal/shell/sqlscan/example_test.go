package sqlscan_test

import (
	"fmt"

	"github.com/moatdev/moat/internal/shell/sqlscan"
)

func ExampleSQL() {
	script := `
		-- DROP TABLE users;  (commented out)
		SELECT 'DROP TABLE users';
		DELETE FROM sessions WHERE expires < now();
		DELETE FROM audit_log;
		DROP TABLE IF EXISTS tmp_import;
	`
	for _, f := range sqlscan.SQL(script) {
		fmt.Printf("%s: %s\n", f.ID, f.Evidence)
	}
	// Output:
	// destructive.db.unbounded-write: DELETE FROM audit_log
	// destructive.db.drop: DROP TABLE IF EXISTS tmp_import
}

func ExampleRedis() {
	for _, argv := range [][]string{{"GET", "session:1"}, {"CONFIG", "SET", "dir", "/root/.ssh"}, {"flushall"}} {
		fmt.Println(argv, sqlscan.Redis(argv))
	}
	// Output:
	// [GET session:1] []
	// [CONFIG SET dir /root/.ssh] [{persistence.redis-config CONFIG SET dir /root/.ssh}]
	// [flushall] [{destructive.db.drop flushall}]
}

func ExampleMongo() {
	fmt.Println(sqlscan.Mongo(`db.users.find({}); db.sessions.deleteMany({}); print("db.dropDatabase()")`))
	// Output:
	// [{destructive.db.unbounded-write db.sessions.deleteMany({})}]
}
