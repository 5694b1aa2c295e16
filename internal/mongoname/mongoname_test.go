package mongoname

import (
	"strings"
	"testing"
)

// TestNames: MongoDB's naming rules, each row one rule; the errors never
// hold the name.
func TestNames(t *testing.T) {
	for _, tt := range []struct {
		db, coll string
		ok       bool
	}{
		{"poolsweep", "usertable", true},
		{strings.Repeat("d", 63), "c", true},  // the longest name MongoDB takes
		{strings.Repeat("d", 64), "c", false}, // a byte more
		{"café", "usertable", true},           // not ASCII, but printable
		{"a/b", "c", false}, {"a\\b", "c", false}, {"a.b", "c", false}, {"a b", "c", false},
		{`a"b`, "c", false}, {"a$b", "c", false}, {"a*b", "c", false}, {"a<b", "c", false},
		{"a>b", "c", false}, {"a:b", "c", false}, {"a|b", "c", false}, {"a?b", "c", false},
		{"a\x00b", "c", false}, {"a\x1bb", "c", false}, {"a\xffb", "c", false}, // NUL, an escape, not UTF-8
		{"", "c", false},
		{"admin", "system.users", true}, // MongoDB's own: refusing them is a caller's policy
		{"db", "", false}, {"db", "a$b", false}, {"db", "a\x00b", false}, {"db", "a\xffb", false},
		{"db", ".x", false},                     // a namespace "db..x"
		{"db", "a.b", true},                     // dots are allowed in a collection's name
		{"db", "a\ufffdb", true},                // U+FFFD itself is printable UTF-8
		{"db", strings.Repeat("c", 252), true},  // db.coll is 255 bytes
		{"db", strings.Repeat("c", 253), false}, // 256
		{"db", strings.Repeat("c", 200_000), false},
	} {
		err := Database(tt.db)
		if err == nil {
			err = Collection(tt.db, tt.coll)
		}
		if (err == nil) != tt.ok {
			t.Errorf("%q.%q: %v, want ok=%v", tt.db, tt.coll, err, tt.ok)
		}
		if err != nil && len(tt.db) > 2 && strings.Contains(err.Error(), tt.db) || err != nil && len(tt.coll) > 2 && strings.Contains(err.Error(), tt.coll) {
			t.Errorf("%q.%q: the error quotes the name: %v", tt.db, tt.coll, err)
		}
	}
}
