package workload

import (
	"context"
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/poolsweep/poolsweep/internal/textfmt"
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

// owned is a collection of poolsweep's database that poolsweep builds,
// reuses and drops: a load's (usertable) or a replay's copy. Both are
// judged by one rule, inspectOwned, and differ only in their record's
// kind and in how their own documents are told apart.
type owned struct {
	db   *mongo.Database
	coll string
	// kind is its poolsweep_meta record's: "" for a load's (whose records
	// have none), metaKindReplay for a replay copy's.
	kind string
	// own matches poolsweep's own documents in it: ownFilter for a load's,
	// copyOwnFilter for a copy's.
	own bson.D
}

func (c owned) ns() string { return c.db.Name() + "." + c.coll }

// nsName is the namespace as an error shows it: a replay copy's name
// comes from a workload file and may be of any length, so a long one is
// its token (textfmt.Short), never the whole.
func (c owned) nsName() string { return textfmt.Short(c.ns()) }

// inspectOwned reads c's poolsweep_meta record and counts c's documents,
// poolsweep's own and the others, and says what a build must do; it
// writes nothing. It refuses (ErrNotOurs) a record of another tool or
// kind, documents without a record, an empty collection without one, and
// documents poolsweep did not write among its own (a ForeignError); the
// last two unless o.DropForeign, which drops them with the collection.
// Otherwise the collection is empty (stateEmpty: build), poolsweep's to
// drop and build anew (stateOurs), or poolsweep's alone and, unless
// o.Drop, reusable when reuse says its record and total of documents fit
// (stateReusable, with reuse's LoadResult).
func inspectOwned(ctx context.Context, c owned, o PrepareOptions, reuse func(record bson.Raw, total int64) (LoadResult, bool)) (LoadResult, collectionState, error) {
	ns := c.nsName()
	record, err := c.db.Collection(MetaCollection).FindOne(ctx, bson.D{{Key: "_id", Value: c.coll}}).Raw()
	ours := err == nil
	if err != nil && !errors.Is(err, mongo.ErrNoDocuments) {
		return LoadResult{}, 0, fmt.Errorf("read %s.%s: %w", c.db.Name(), MetaCollection, err)
	}
	if ours {
		tool, _ := record.Lookup("tool").StringValueOK()
		kind, _ := record.Lookup("kind").StringValueOK()
		if tool != metaTool || kind != c.kind {
			// Someone else's record under poolsweep's name, or one of
			// poolsweep's of another kind: a build would write over it.
			return LoadResult{}, 0, fmt.Errorf("%s.%s: the record of %s %w (it is not poolsweep's record of %s); pick another --database",
				c.db.Name(), MetaCollection, textfmt.Short(c.coll), ErrNotOurs, kindWords(c.kind))
		}
	}
	total, own, err := counts(ctx, c.db, c.coll, c.own)
	if err != nil {
		return LoadResult{}, 0, fmt.Errorf("count %s: %w", ns, err)
	}
	foreign := total - own
	switch {
	case !ours && total > 0:
		return LoadResult{}, 0, fmt.Errorf("%s %w (%d documents); pick another --database", ns, ErrNotOurs, total)
	case !ours:
		return emptyNotOurs(ctx, c, o)
	case foreign > 0 && !o.DropForeign:
		return LoadResult{}, 0, &ForeignError{NS: ns, Foreign: foreign, Total: total}
	case foreign > 0:
		return LoadResult{Note: fmt.Sprintf("reloading (--drop-foreign: %d %s poolsweep did not write dropped with it)", foreign, plural(foreign, "document", "documents"))}, stateOurs, nil
	case !o.Drop:
		if lr, ok := reuse(record, total); ok {
			return lr, stateReusable, nil
		}
	}
	return LoadResult{}, stateOurs, nil
}

func kindWords(kind string) string {
	if kind == metaKindReplay {
		return "a replay copy"
	}
	return "a loaded collection"
}

// counts returns the documents in coll, and those of them that are
// poolsweep's (own), with the count command (cheap on a large collection:
// the total from its metadata, the own ones from an index where own's
// field has one), both from the primary, so that the two describe one
// state.
func counts(ctx context.Context, db *mongo.Database, coll string, own bson.D) (total, owned int64, err error) {
	count := func(query bson.D) (int64, error) { return Count(ctx, db, coll, query) }
	if total, err = count(nil); err != nil {
		return 0, 0, err
	}
	if total == 0 {
		return 0, 0, nil
	}
	owned, err = count(own)
	return total, min(owned, total), err
}

// emptyNotOurs is what a build does with a collection that holds no
// documents and has no poolsweep_meta record. poolsweep writes that
// record before its first insert creates the collection, so an empty
// collection without it was made by someone else (with its own indexes,
// validator or options), and building in it would later have --drop
// drop it: it is refused unless --drop-foreign. No collection at all is
// the usual first run: build.
func emptyNotOurs(ctx context.Context, c owned, o PrepareOptions) (LoadResult, collectionState, error) {
	names, err := c.db.ListCollectionNames(ctx, bson.D{{Key: "name", Value: c.coll}})
	if err != nil {
		return LoadResult{}, 0, fmt.Errorf("list the collections of %s: %w", c.db.Name(), err)
	}
	if len(names) == 0 {
		return LoadResult{}, stateEmpty, nil
	}
	if !o.DropForeign {
		return LoadResult{}, 0, emptyForeignError{ns: c.nsName(), meta: c.db.Name() + "." + MetaCollection}
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
