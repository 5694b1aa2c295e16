package workload

import (
	"fmt"

	"github.com/poolsweep/poolsweep/internal/mongoname"
	"github.com/poolsweep/poolsweep/internal/textfmt"
)

// MaxRecords bounds --records (and a property file's recordcount).
const MaxRecords = 100_000_000

// CheckDatabaseName refuses a database name MongoDB would refuse
// (internal/mongoname, the rules' one home), or one poolsweep must not
// write to (the system databases).
func CheckDatabaseName(name string) error {
	if err := mongoname.Database(name); err != nil {
		return named(name, err)
	}
	if mongoname.SystemDatabase(name) {
		return fmt.Errorf("%s is a system database; poolsweep writes only to its own", textfmt.Token(name))
	}
	return nil
}

// CheckCollectionName refuses a collection name MongoDB would refuse in
// database db, or a system collection (poolsweep writes none).
func CheckCollectionName(db, name string) error {
	if err := mongoname.Collection(db, name); err != nil {
		return named(name, err)
	}
	if mongoname.SystemCollection(name) {
		return fmt.Errorf("%s is a system collection", textfmt.Token(name))
	}
	return nil
}

// named is err about name, the name shown as a token (a flag's value).
func named(name string, err error) error {
	if name == "" {
		return err
	}
	return fmt.Errorf("%s: %w", textfmt.Token(name), err)
}
