package workload

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"
)

// poolsweep's own documents are those it writes: the load's user0 …
// user<records-1> and the workload's inserts after them, every one with
// the _id "user<n>" (Key). Any other _id is another client's. The range
// "user0" ≤ _id < "user:" (':' follows '9') holds every such key, and it
// is the one filter every server poolsweep talks to counts: the
// simulator takes only range operators on _id, not $regex, $type or $not.
// Another client's "user<digit>…" keys (YCSB's own are "user<n>") fall
// inside it and pass for poolsweep's: the range tells apart the
// documents that any other tool or application writes, ObjectId and
// numeric _ids included (a range on strings matches strings only).
const (
	ownKeyFrom  = "user0"
	ownKeyUntil = "user:"
)

// ownFilter matches poolsweep's own documents, by their _id.
func ownFilter() bson.D {
	return bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: ownKeyFrom}, {Key: "$lt", Value: ownKeyUntil}}}}
}

// ForeignError says that a collection poolsweep created also holds
// documents it did not write. It is ErrNotOurs (errors.Is): poolsweep
// drops, reloads and measures only its own data, unless the user said
// --drop-foreign (PrepareOptions.DropForeign).
type ForeignError struct {
	NS      string // database.collection
	Foreign int64  // documents poolsweep did not write
	Total   int64  // documents in the collection
}

func (e *ForeignError) Error() string {
	return fmt.Sprintf("%s holds %d %s poolsweep did not write (of %d): poolsweep never drops, reloads or measures data that is not its own; "+
		"remove them, use another --database, or pass --drop-foreign to drop them with the collection and load it anew",
		e.NS, e.Foreign, plural(e.Foreign, "document", "documents"), e.Total)
}

// Is makes a ForeignError an ErrNotOurs.
func (e *ForeignError) Is(target error) bool { return target == ErrNotOurs }

func plural(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// counts returns the documents in coll, and those of them that are
// poolsweep's (ownFilter), with the count command (cheap on a large
// collection: the total from its metadata, the own ones from the _id
// index), both from the primary, so that the two describe one state.
func counts(ctx context.Context, db *mongo.Database, coll string) (total, own int64, err error) {
	count := func(query bson.D) (int64, error) { return Count(ctx, db, coll, query) }
	if total, err = count(nil); err != nil {
		return 0, 0, err
	}
	if total == 0 {
		return 0, 0, nil
	}
	own, err = count(ownFilter())
	return total, min(own, total), err
}

// emptyNotOurs is what Prepare does with a collection that holds no
// documents and has no poolsweep_meta record. poolsweep writes that
// record before its first insert creates the collection, so an empty
// collection without it was made by someone else (with its own indexes,
// validator or options), and loading into it would later have --drop
// drop it: it is refused unless --drop-foreign. No collection at all is
// the usual first run: load.
func emptyNotOurs(ctx context.Context, db *mongo.Database, w Workload, o PrepareOptions) (LoadResult, collectionState, error) {
	ns := w.Database + "." + w.Collection
	names, err := db.ListCollectionNames(ctx, bson.D{{Key: "name", Value: w.Collection}})
	if err != nil {
		return LoadResult{}, 0, fmt.Errorf("list the collections of %s: %w", w.Database, err)
	}
	if len(names) == 0 {
		return LoadResult{}, stateEmpty, nil
	}
	if !o.DropForeign {
		return LoadResult{}, 0, emptyForeignError{ns: ns, meta: w.Database + "." + MetaCollection}
	}
	return LoadResult{Note: "reloading (--drop-foreign: an empty collection poolsweep did not create dropped)"}, stateOurs, nil
}

// emptyForeignError is an empty collection that poolsweep did not
// create: ErrNotOurs, in its own words.
type emptyForeignError struct{ ns, meta string }

func (e emptyForeignError) Error() string {
	return fmt.Sprintf("%s exists, empty, but poolsweep did not create it (it has no record in %s): loading into it would later have --drop drop it with its indexes and options; pick another --database, or pass --drop-foreign to drop it and load anew", e.ns, e.meta)
}

func (e emptyForeignError) Is(target error) bool { return target == ErrNotOurs }

// Count is the number of documents of db.coll that query matches (all of
// them for a nil query), by the count command on the primary: the
// simulator has no aggregate, which the driver's CountDocuments uses.
func Count(ctx context.Context, db *mongo.Database, coll string, query bson.D) (int64, error) {
	cmd := bson.D{{Key: "count", Value: coll}}
	if query != nil {
		cmd = append(cmd, bson.E{Key: "query", Value: query})
	}
	var r struct {
		N int64 `bson:"n"`
	}
	err := db.RunCommand(ctx, cmd, options.RunCmd().SetReadPreference(readpref.Primary())).Decode(&r)
	return r.N, err
}
