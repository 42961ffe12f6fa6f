package sqlscan

import (
	"slices"
	"testing"
)

var mongoTests = []struct {
	js   string
	want []Finding
}{
	{"db.dropDatabase()", []Finding{{drop, "db.dropDatabase()"}}},
	{"db.getSiblingDB('prod').dropDatabase();", []Finding{{drop, "db.getSiblingDB('prod').dropDatabase()"}}},
	{"db.users.drop()", []Finding{{drop, "db.users.drop()"}}},
	{`db.getCollection("users").drop()`, []Finding{{drop, `db.getCollection("users").drop()`}}},
	{`db["users"].drop()`, []Finding{{drop, `db["users"].drop()`}}},
	{"db.users?.drop()", []Finding{{drop, "db.users?.drop()"}}},
	{"db . users . drop ( )", []Finding{{drop, "db . users . drop ( )"}}},
	{"db.dropUser('alice'); db.dropAllUsers()", []Finding{{drop, "db.dropUser('alice')"}, {drop, "db.dropAllUsers()"}}},
	{"db.users.dropIndexes()", []Finding{{drop, "db.users.dropIndexes()"}}},
	{"db.users.deleteMany({})", []Finding{{unbounded, "db.users.deleteMany({})"}}},
	{"db.users.deleteMany( { } , {w: 1})", []Finding{{unbounded, "db.users.deleteMany( { } , {w: 1})"}}},
	{"db.users.remove({})", []Finding{{unbounded, "db.users.remove({})"}}},
	{"db.users.updateMany({}, {$set: {admin: true}})", []Finding{{unbounded, "db.users.updateMany({}, {$set: {admin: true}})"}}},
	{"db.runCommand({drop: 'users'})", []Finding{{drop, "db.runCommand({drop: 'users'})"}}},
	{`db.adminCommand({"dropDatabase": 1})`, []Finding{{drop, `db.adminCommand({"dropDatabase": 1})`}}},
	{"x = `${db.dropDatabase()}`", []Finding{{drop, "db.dropDatabase()"}}},
	{"x = /'/; db.dropDatabase(); y = '/'", []Finding{{drop, "db.dropDatabase()"}}},
	{"use prod\ndb.orders.drop()\n", []Finding{{drop, "db.orders.drop()"}}},
	{`db.getSiblingDB("x")?.["y"].deleteMany({}, {})`, []Finding{{unbounded, `db.getSiblingDB("x")?.["y"].deleteMany({}, {})`}}},
	{"db.getCollectionNames().forEach(c => db.getCollection(c).drop())", []Finding{{drop, "db.getCollection(c).drop()"}}},

	{"db.users.find({})", nil},
	{"db.users.deleteMany({name: 'x'})", nil},
	{"db.users.deleteOne({})", nil},
	{"db.users.remove({_id: 1})", nil},
	{"db.users.updateMany({active: false}, {$set: {archived: true}})", nil},
	{"db.users.countDocuments({})", nil},
	{"print('db.dropDatabase()')", nil},
	{`print("db.users.drop()")`, nil},
	{"// db.dropDatabase()\ndb.stats()", nil},
	{"/* db.users.drop() */", nil},
	{"x = `db.dropDatabase()`", nil},
	{"db.users.find({drop: true})", nil},
	{"a = b / 2; c = d / 3; db.users.find()", nil},
	{"show dbs", nil},
	{"", nil},
}

func TestMongo(t *testing.T) {
	for _, tt := range mongoTests {
		if got := Mongo(tt.js); !slices.Equal(got, tt.want) {
			t.Errorf("Mongo(%q) = %q; want %q", tt.js, got, tt.want)
		}
	}
}
