// Package mongoname holds MongoDB's rules for database and collection
// names (the manual's "Naming Restrictions"), the one home for them: sweep
// --database, a workload file's shapes and the operations from-log keeps
// are held to the same rules, so that a name MongoDB would refuse is
// refused before anything connects. Its errors describe the name, never
// quote it: a name may come from a file.
package mongoname

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

const (
	// MaxDatabaseBytes is the longest database name MongoDB takes.
	MaxDatabaseBytes = 63
	// MaxNamespaceBytes is the longest db.collection MongoDB takes (4.4
	// and later).
	MaxNamespaceBytes = 255
	// BadDatabaseChars are the characters no database name may hold on
	// any platform (Windows' set, which includes Linux's / . " $).
	BadDatabaseChars = "/\\. \"$*<>:|?"
)

// Database says what is wrong with a database name MongoDB would
// refuse, or nil.
func Database(name string) error {
	switch {
	case name == "":
		return errors.New("an empty name")
	case len(name) > MaxDatabaseBytes:
		return fmt.Errorf("a name of %d bytes; MongoDB's limit is %d", len(name), MaxDatabaseBytes)
	case strings.ContainsAny(name, BadDatabaseChars):
		return errors.New(`a name holding a space or one of / \ . " $ * < > : | ?, which MongoDB does not allow in a database name`)
	case !printable(name):
		return errors.New("a name holding a character that is not printable (NUL, a control character, bytes that are not UTF-8)")
	}
	return nil
}

// Collection says what is wrong with a collection name MongoDB would
// refuse in database db (whose own name Database checks), or nil.
func Collection(db, name string) error {
	switch {
	case name == "":
		return errors.New("an empty name")
	case len(db)+1+len(name) > MaxNamespaceBytes:
		return fmt.Errorf("a namespace (database.collection) of %d bytes; MongoDB's limit is %d", len(db)+1+len(name), MaxNamespaceBytes)
	case name[0] == '.':
		return errors.New("a name beginning with a dot, which MongoDB does not allow in a collection name")
	case strings.Contains(name, "$"):
		return errors.New("a name holding a $, which MongoDB does not allow in a collection name")
	case !printable(name):
		return errors.New("a name holding a character that is not printable (NUL, a control character, bytes that are not UTF-8)")
	}
	return nil
}

// printable: valid UTF-8 without NUL or control characters, so that the
// name shows as itself on a terminal and in a YAML file.
func printable(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool { return !unicode.IsPrint(r) })
}

// SystemDatabase says whether db is one of the server's own databases
// (admin, local, config): what is in them is the server's, not an
// application's.
func SystemDatabase(db string) bool { return db == "admin" || db == "local" || db == "config" }

// SystemCollection says whether coll is one of a database's own
// collections (system.profile, system.js, system.users, a time-series
// collection's system.buckets.*).
func SystemCollection(coll string) bool { return strings.HasPrefix(coll, "system.") }
