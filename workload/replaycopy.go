package workload

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/poolsweep/poolsweep/internal/textfmt"
)

// poolsweep's copies for a replay's writes. A write shape runs against a
// copy of the collection it names: a sample of its documents (Sample, by
// $sample, or the first ones where the server has no $sample) with its
// indexes, in poolsweep's database as replay.<db>.<coll> (copyName). The
// copy is poolsweep's by the same rule, and the same code, as its loaded
// data (inspectOwned): a record in poolsweep_meta (kind "replay") written
// before the collection is made, and poolsweep's own documents told from
// those another client wrote there. A copy's documents are the user's,
// copied, so their _ids cannot say whose they are: every document
// poolsweep writes to a copy carries copyOwnField (copied, inserted,
// replaced or upserted), and the replayed writes touch only documents
// that carry it. A collection of the copy's name without the record is
// refused (ErrNotOurs; when empty, --drop-foreign drops it), and so is a
// copy holding documents without the field (a ForeignError with their
// count; --drop-foreign drops them with it); nothing refused is written
// or dropped. A copy is reused by later runs and rebuilt with --drop.
// Reading the user's collection (its indexes and the sample) is all the
// replay does to it.

// copyOwnField marks poolsweep's documents in a replay copy. Another
// client's documents that carry it with the value true pass for
// poolsweep's, as another client's user<n> keys do in a load's.
const copyOwnField = "_poolsweep"

// copyOwnFilter matches poolsweep's own documents in a copy: an equality
// on one field, which every server poolsweep talks to takes (the
// simulator takes no $exists).
func copyOwnFilter() bson.D { return bson.D{{Key: copyOwnField, Value: true}} }

// metaKindReplay marks a poolsweep_meta record of a replay copy.
const metaKindReplay = "replay"

// maxCopyBytes bounds the documents one copy reads from the user's
// collection; maxPayloads and maxPayloadBytes the documents kept in memory
// as insert payloads.
const (
	maxCopyBytes    = 256 << 20
	maxPayloads     = 1000
	maxPayloadBytes = 16 << 20
)

// replayCopy is poolsweep's copy of one user collection.
type replayCopy struct {
	srcDB, srcColl string // the user's collection
	db, coll       string // poolsweep's copy
	// values are the copy's documents: the insert payloads, and the
	// values of the write shapes' placeholders (replayvalues.go).
	values valueSample
}

type replayMeta struct {
	ID        string    `bson:"_id"`
	Tool      string    `bson:"tool"`
	Kind      string    `bson:"kind"`
	Source    string    `bson:"source"`
	Sample    int       `bson:"sample"`
	Copied    int64     `bson:"copied"`
	Complete  bool      `bson:"complete"`
	CreatedAt time.Time `bson:"created_at"`
}

func (c *replayCopy) ns() string  { return c.db + "." + c.coll }
func (c *replayCopy) src() string { return c.srcDB + "." + c.srcColl }

// nsName and srcName are the copy's and the user's namespace as an error
// shows them: names come from a workload file and may be of any length or
// hold any character, so each is a token (textfmt.Token), never the whole.
func (c *replayCopy) nsName() string  { return textfmt.Token(c.ns()) }
func (c *replayCopy) srcName() string { return textfmt.Token(c.src()) }

// Prepare builds or reuses every copy, under the load lock as a load is,
// and reads the insert payloads; the LoadResult's note says what it did.
func (r *Replay) Prepare(ctx context.Context, client *mongo.Client, o PrepareOptions) (LoadResult, error) {
	var notes []string
	lr := LoadResult{}
	start := time.Now()
	for _, c := range r.copies {
		note, built, err := c.prepare(ctx, client, r.Sample, o)
		if err != nil {
			return LoadResult{}, err
		}
		lr.Loaded = lr.Loaded || built
		notes = append(notes, note)
	}
	for _, v := range r.samples {
		if err := v.read(ctx, client, valueSampleDocs); err != nil {
			return LoadResult{}, err
		}
	}
	lr.Reused = len(r.copies) > 0 && !lr.Loaded
	lr.Took = time.Since(start)
	if len(notes) == 0 {
		notes = append(notes, "replaying reads only: no copy to build")
	}
	lr.Note = strings.Join(notes, "; ")
	return lr, nil
}

// Check says, writing nothing, whether every copy may be built or reused
// (CheckData for a replay).
func (r *Replay) Check(ctx context.Context, client *mongo.Client, o PrepareOptions) error {
	for _, c := range r.copies {
		if _, _, err := c.inspect(ctx, client.Database(c.db), r.Sample, o); err != nil {
			return err
		}
	}
	return nil
}

// inspect says what to do with the copy (inspectOwned): reuse it
// (stateReusable: poolsweep's alone, complete, of this source and sample
// size, and not emptied by earlier runs' deletes), build it (stateEmpty),
// or drop and build it anew (stateOurs); or it refuses a collection that
// is not poolsweep's alone. It writes nothing.
func (c *replayCopy) inspect(ctx context.Context, db *mongo.Database, sample int, o PrepareOptions) (LoadResult, collectionState, error) {
	return inspectOwned(ctx, owned{db: db, coll: c.coll, kind: metaKindReplay, own: copyOwnFilter()}, o, func(record bson.Raw, total int64) (LoadResult, bool) {
		var m replayMeta
		if err := bson.Unmarshal(record, &m); err != nil || !m.Complete || m.Source != c.src() || m.Sample != sample || total == 0 {
			return LoadResult{}, false
		}
		return LoadResult{Reused: true, Documents: total}, true
	})
}

// prepare builds the copy (or reuses it) and reads its payloads.
func (c *replayCopy) prepare(ctx context.Context, client *mongo.Client, sample int, o PrepareOptions) (note string, built bool, err error) {
	db := client.Database(c.db)
	_, state, err := c.inspect(ctx, db, sample, o)
	if err != nil {
		return "", false, err
	}
	if state != stateReusable {
		wait := o.LockWait
		if wait <= 0 {
			wait = DefaultLockWait
		}
		lock, err := acquireLoadLock(ctx, db.Collection(MetaCollection), c.coll, o.RunID, wait, o.lock, o.Waiting)
		if err != nil {
			return "", false, fmt.Errorf("copy %s: %w", c.srcName(), err)
		}
		defer lock.release()
		// Another run may have built it while this one waited.
		var lr LoadResult
		if lr, state, err = c.inspect(lock.ctx, db, sample, o); err != nil {
			return "", false, err
		}
		if state != stateReusable {
			n, err := c.build(lock.ctx, client, sample, state == stateOurs, lock.held)
			if err != nil {
				return "", false, fmt.Errorf("copy %s to %s: %w", c.srcName(), c.nsName(), err)
			}
			note, built = fmt.Sprintf("copied %d documents of %s with its indexes to %s for the writes", n, c.src(), c.ns()), true
			if lr.Note != "" {
				note += " (" + lr.Note + ")"
			}
		}
	}
	if note == "" {
		note = fmt.Sprintf("reusing %s, poolsweep's copy of %s, for the writes", c.ns(), c.src())
	}
	return note, built, c.values.read(ctx, client, maxPayloads)
}

// build makes the copy: the record first (so that the collection is
// poolsweep's from its first moment), the old collection dropped when
// inspect said so (poolsweep's, or --drop-foreign), the user's indexes,
// the sample, each document marked poolsweep's; then the record says
// complete.
func (c *replayCopy) build(ctx context.Context, client *mongo.Client, sample int, drop bool, held func() error) (int64, error) {
	db := client.Database(c.db)
	meta := db.Collection(MetaCollection)
	m := replayMeta{ID: c.coll, Tool: metaTool, Kind: metaKindReplay, Source: c.src(), Sample: sample, CreatedAt: time.Now().UTC()}
	if _, err := meta.ReplaceOne(ctx, bson.D{{Key: "_id", Value: c.coll}}, m, options.Replace().SetUpsert(true)); err != nil {
		return 0, fmt.Errorf("record it in %s.%s: %w", c.db, MetaCollection, err)
	}
	if drop {
		if err := db.Collection(c.coll).Drop(ctx); err != nil {
			return 0, fmt.Errorf("drop the old copy (poolsweep's): %w", err)
		}
	}
	if err := db.CreateCollection(ctx, c.coll); err != nil {
		return 0, fmt.Errorf("create: %w", err)
	}
	src := client.Database(c.srcDB).Collection(c.srcColl)
	if err := copyIndexes(ctx, src, db, c.coll); err != nil {
		return 0, err
	}
	docs, err := sampleDocs(ctx, src, sample)
	if err != nil {
		return 0, err
	}
	dst := db.Collection(c.coll)
	for lo := 0; lo < len(docs); lo += 500 {
		if _, err := dst.InsertMany(ctx, docs[lo:min(lo+500, len(docs))], options.InsertMany().SetOrdered(false)); err != nil {
			return 0, fmt.Errorf("insert the sample: %w", err)
		}
	}
	if err := held(); err != nil {
		return 0, err
	}
	_, err = meta.UpdateOne(ctx, bson.D{{Key: "_id", Value: c.coll}}, bson.D{{Key: "$set", Value: bson.D{{Key: "complete", Value: true}, {Key: "copied", Value: int64(len(docs))}}}})
	if err != nil {
		return 0, fmt.Errorf("mark it complete: %w", err)
	}
	return int64(len(docs)), nil
}

// copyIndexes creates on the copy the user's indexes but _id's, with the
// options that change what a write costs (unique, sparse, partial,
// collation); a TTL is left out, so that the copy keeps its documents. A
// collection that does not exist has none.
func copyIndexes(ctx context.Context, src *mongo.Collection, db *mongo.Database, coll string) error {
	cur, err := src.Indexes().List(ctx)
	if err != nil {
		var ce mongo.CommandError
		if errors.As(err, &ce) && ce.Code == 26 { // NamespaceNotFound
			return nil
		}
		return fmt.Errorf("list the indexes of %s: %w", textfmt.Token(src.Name()), err)
	}
	var specs bson.A
	for cur.Next(ctx) {
		var spec bson.D
		for _, key := range []string{"key", "name", "unique", "sparse", "partialFilterExpression", "collation"} {
			if v, err := cur.Current.LookupErr(key); err == nil {
				spec = append(spec, bson.E{Key: key, Value: v})
			}
		}
		if name, _ := cur.Current.Lookup("name").StringValueOK(); name != "_id_" && len(spec) > 0 {
			specs = append(specs, spec)
		}
	}
	if err := errors.Join(cur.Err(), cur.Close(ctx)); err != nil {
		return fmt.Errorf("list the indexes of %s: %w", textfmt.Token(src.Name()), err)
	}
	if len(specs) == 0 {
		return nil
	}
	if err := db.RunCommand(ctx, bson.D{{Key: "createIndexes", Value: coll}, {Key: "indexes", Value: specs}}).Err(); err != nil {
		return fmt.Errorf("create the indexes of %s on the copy: %w", textfmt.Token(src.Name()), err)
	}
	return nil
}

// sampleDocs reads up to n documents of src: $sample, or the first n where
// the server has no $sample; at most maxCopyBytes in all; each marked
// poolsweep's (copyOwnField) for the copy.
func sampleDocs(ctx context.Context, src *mongo.Collection, n int) ([]any, error) {
	cur, err := src.Aggregate(ctx, bson.A{bson.D{{Key: "$sample", Value: bson.D{{Key: "size", Value: n}}}}})
	if err != nil {
		cur, err = src.Find(ctx, bson.D{}, options.Find().SetLimit(int64(n)))
	}
	if err != nil {
		return nil, fmt.Errorf("sample %s: %w", textfmt.Token(src.Name()), err)
	}
	defer cur.Close(context.WithoutCancel(ctx))
	var docs []any
	size := 0
	for len(docs) < n && size < maxCopyBytes && cur.Next(ctx) {
		doc, err := markedCopy(cur.Current)
		if err != nil {
			return nil, fmt.Errorf("sample %s: %w", src.Name(), err)
		}
		docs = append(docs, doc)
		size += len(cur.Current)
	}
	if err := cur.Err(); err != nil {
		return nil, fmt.Errorf("sample %s: %w", textfmt.Token(src.Name()), err)
	}
	return docs, nil
}

// markedCopy is doc, byte for byte but for copyOwnField, which it ends
// with, true, whatever the user's document held under that name.
func markedCopy(doc bson.Raw) (bson.Raw, error) {
	elems, err := bsoncore.Document(doc).Elements()
	if err != nil {
		return nil, err
	}
	idx, out := bsoncore.AppendDocumentStart(make([]byte, 0, len(doc)+len(copyOwnField)+3))
	for _, e := range elems {
		if e.Key() != copyOwnField {
			out = append(out, e...)
		}
	}
	out = bsoncore.AppendBooleanElement(out, copyOwnField, true)
	out, err = bsoncore.AppendDocumentEnd(out, idx)
	return bson.Raw(out), err
}

// setOwn is d with copyOwnField true, in place of any value it had.
func setOwn(d bson.D) bson.D {
	for i := range d {
		if d[i].Key == copyOwnField {
			d[i].Value = true
			return d
		}
	}
	return append(d, bson.E{Key: copyOwnField, Value: true})
}

// ownWrites makes a write call's command, fresh from Instantiate, one
// that touches only poolsweep's documents of its copy and leaves each
// document it writes marked: every statement's filter also asks for
// copyOwnField (so a replayed delete {} never deletes another client's
// document, and an upsert's new document takes the field from the
// filter's equality, as servers do), a replacement keeps the field, an
// update pipeline sets it last, and an insert's documents carry it. An
// operator update leaves the field as it was. The extra field costs the
// server one equality on a document it has fetched.
func ownWrites(cmd bson.D) {
	field := func(d bson.D, key string) *any {
		for i := range d {
			if d[i].Key == key {
				return &d[i].Value
			}
		}
		return nil
	}
	filter := func(v *any) {
		if v == nil {
			return
		}
		d, _ := (*v).(bson.D)
		*v = setOwn(d)
	}
	update := func(v *any) {
		if v == nil {
			return
		}
		switch u := (*v).(type) {
		case bson.A:
			*v = append(u, bson.D{{Key: "$set", Value: copyOwnFilter()}})
		case bson.D:
			if len(u) == 0 || !strings.HasPrefix(u[0].Key, "$") {
				*v = setOwn(u)
			}
		}
	}
	statements := func(key string, each func(bson.D)) {
		if v := field(cmd, key); v != nil {
			if a, ok := (*v).(bson.A); ok {
				for _, st := range a {
					if d, ok := st.(bson.D); ok {
						each(d)
					}
				}
			}
		}
	}
	switch cmd[0].Key {
	case "update":
		statements("updates", func(st bson.D) { filter(field(st, "q")); update(field(st, "u")) })
	case "delete":
		statements("deletes", func(st bson.D) { filter(field(st, "q")) })
	case "findAndModify":
		filter(field(cmd, "query"))
		update(field(cmd, "update"))
	case "insert":
		if v := field(cmd, "documents"); v != nil {
			if a, ok := (*v).(bson.A); ok {
				for i, d := range a {
					if d, ok := d.(bson.D); ok {
						a[i] = setOwn(d)
					}
				}
			}
		}
	}
}

// payload is the copy's answer to Instantiate's fallback: an insert's
// document is one of the copy's, picked at random, under a new _id, so
// inserts carry the collection's own sizes and types (an _id alone when
// the copy has none); any other placeholder's value is drawn from the
// copy's documents (valueSample).
func (c *replayCopy) payload(path, typ string) any {
	if path != "document" {
		return c.values.draw(path, typ)
	}
	d := bson.D{{Key: "_id", Value: bson.NewObjectID()}}
	if len(c.values.docs) == 0 {
		return d
	}
	var src bson.D
	if err := bson.Unmarshal(c.values.docs[rand.IntN(len(c.values.docs))], &src); err != nil {
		return d
	}
	for _, e := range src {
		if e.Key != "_id" {
			d = append(d, e)
		}
	}
	return d
}
