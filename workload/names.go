package workload

import (
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/workload/shapes"
)

// MaxRecords bounds --records (and a property file's recordcount).
const MaxRecords = 100_000_000

// MongoDB's rules for names (docs: "Naming Restrictions"): a database name
// is under 64 bytes and holds none of /\. "$*<>:|? (the set that works on
// every platform) nor NUL; a collection name holds no $ nor NUL, does not
// start with "system.", and with its database (db.coll) fits in 255
// bytes. poolsweep also refuses what a terminal cannot show.
const (
	maxDatabaseBytes  = 63
	maxNamespaceBytes = 255
	badDatabaseChars  = "/\\. \"$*<>:|?"
)

// CheckDatabaseName refuses a database name MongoDB would refuse, or one
// poolsweep must not write to (the system databases).
func CheckDatabaseName(name string) error {
	switch {
	case name == "":
		return errors.New("an empty name")
	case len(name) > maxDatabaseBytes:
		return fmt.Errorf("a name of %d bytes; MongoDB's limit is %d", len(name), maxDatabaseBytes)
	case strings.ContainsAny(name, badDatabaseChars):
		return fmt.Errorf("%s holds one of %s, which MongoDB does not allow in a database name", textfmt.Token(name), strings.Join(strings.Split(badDatabaseChars, ""), " "))
	case strings.ContainsFunc(name, notPrintable):
		return fmt.Errorf("%s holds a character that is not printable", textfmt.Token(name))
	case shapes.SystemDatabase(name):
		return fmt.Errorf("%s is a system database; poolsweep writes only to its own", textfmt.Token(name))
	}
	return nil
}

// CheckCollectionName refuses a collection name MongoDB would refuse in
// database db.
func CheckCollectionName(db, name string) error {
	switch {
	case name == "":
		return errors.New("an empty name")
	case len(db)+1+len(name) > maxNamespaceBytes:
		return fmt.Errorf("%s.%s is %d bytes; MongoDB's limit is %d", db, name, len(db)+1+len(name), maxNamespaceBytes)
	case strings.ContainsAny(name, "$"):
		return fmt.Errorf("%q holds a $, which MongoDB does not allow in a collection name", name)
	case shapes.SystemCollection(name):
		return fmt.Errorf("%q is a system collection", name)
	case strings.ContainsFunc(name, notPrintable):
		return fmt.Errorf("%q holds a character that is not printable", name)
	}
	return nil
}

func notPrintable(r rune) bool { return r == 0 || !unicode.IsPrint(r) }
