package workload

import (
	"strings"
	"testing"
)

// TestNames: MongoDB's naming rules for the database and collection
// poolsweep writes, each row one rule.
func TestNames(t *testing.T) {
	for _, tt := range []struct {
		db, coll string
		ok       bool
	}{
		{"poolsweep", "usertable", true},
		{strings.Repeat("d", 63), "c", true},    // the longest name MongoDB takes
		{strings.Repeat("d", 64), "c", false},   // a byte more
		{strings.Repeat("d", 5000), "c", false}, // the audit's 5,000 characters
		{"café", "usertable", true},             // not ASCII, but printable
		{"a/b", "c", false}, {"a\\b", "c", false}, {"a.b", "c", false}, {"a b", "c", false},
		{`a"b`, "c", false}, {"a$b", "c", false}, {"a*b", "c", false}, {"a<b", "c", false},
		{"a>b", "c", false}, {"a:b", "c", false}, {"a|b", "c", false}, {"a?b", "c", false},
		{"a\x00b", "c", false}, {"a\x1bb", "c", false}, // NUL, an escape
		{"admin", "c", false}, {"local", "c", false}, {"config", "c", false}, // system databases
		{"", "c", false},
		{"db", "", false}, {"db", "a$b", false}, {"db", "system.users", false}, {"db", "a\x00b", false},
		{"db", strings.Repeat("c", 252), true},  // db.coll is 255 bytes
		{"db", strings.Repeat("c", 253), false}, // 256
	} {
		err := CheckDatabaseName(tt.db)
		if err == nil {
			err = CheckCollectionName(tt.db, tt.coll)
		}
		if (err == nil) != tt.ok {
			t.Errorf("%q.%q: %v, want ok=%v", tt.db, tt.coll, err, tt.ok)
		}
	}
}
