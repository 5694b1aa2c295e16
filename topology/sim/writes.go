package sim

import (
	"context"
	"errors"
	"slices"
	"sync"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Writes: insert, update and delete, routed by _id like reads, with
// per-statement write errors as mongod reports them. The update operators
// themselves are in update.go.

// writeErrorsDoc renders per-statement errors.
func writeErrorsDoc(errs []writeError) bson.A {
	out := bson.A{}
	for _, e := range errs {
		out = append(out, bson.D{{Key: "index", Value: int32(e.Index)}, {Key: "code", Value: e.Code}, {Key: "errmsg", Value: e.Msg}})
	}
	return out
}

// withWriteErrors adds the failed statements, if any, to a write's reply.
func withWriteErrors(reply bson.D, errs []writeError) bson.D {
	if len(errs) == 0 {
		return reply
	}
	return append(reply, bson.E{Key: "writeErrors", Value: writeErrorsDoc(errs)})
}

// eachStatement runs a write's statements one after another, collecting
// the failed ones as write errors; an ordered write stops at the first.
// A cancelled context ends the whole command, and so does a write
// interrupted by a step-down, as a real server fails the whole batch on an
// interruption.
func eachStatement(stmts []bsoncore.Document, ordered bool, run func(i int, s bsoncore.Document) error) ([]writeError, error) {
	var errs []writeError
	for i, s := range stmts {
		err := run(i, s)
		var ce *cmdError
		if errors.Is(err, context.Canceled) || (errors.As(err, &ce) && ce.Code == errInterrupted().Code) {
			return nil, err
		}
		if err != nil {
			errs = append(errs, stmtError(i, err))
			if ordered {
				break
			}
		}
	}
	return errs, nil
}

// writeStatements reads an update's or a delete's collection and its
// statements under key, then takes the command's step on the router.
func (f *frontend) writeStatements(ctx context.Context, c *cmd, key string) (string, []bsoncore.Document, error) {
	coll, stmts, err := c.collDocs(key)
	if err == nil {
		err = f.routerStep(ctx, kindWrite)
	}
	return coll, stmts, err
}

// stmtError turns a statement's failure into a write error at index i.
func stmtError(i int, err error) writeError {
	var ce *cmdError
	if errors.As(err, &ce) {
		return writeError{Index: i, Code: ce.Code, Msg: ce.Msg}
	}
	return writeError{Index: i, Code: 1, Msg: err.Error()}
}

func cmdInsert(f *frontend, ctx context.Context, _ *connState, c *cmd) (bson.D, error) {
	coll, docs, err := c.collDocs("documents")
	if err != nil {
		return nil, err
	}
	ordered := c.bool("ordered", true)
	f.tel.insert.Add(int64(len(docs)))
	if err := f.routerStep(ctx, kindWrite); err != nil {
		return nil, err
	}
	ctx = withCost(ctx, opCost{class: classWrite})
	// Group by shard, remembering each document's index in the request.
	groups := make([][]keyed, len(f.shards))
	index := make([][]int, len(f.shards))
	var errs []writeError
	for i, d := range docs {
		d = withID(d)
		k, err := keyOf(d.Lookup("_id"))
		if err != nil {
			errs = append(errs, stmtError(i, err))
			if ordered {
				docs = docs[:i]
				break
			}
			continue
		}
		s := k.shardOf(len(f.shards))
		groups[s] = append(groups[s], keyed{k, d})
		index[s] = append(index[s], i)
	}
	var mu sync.Mutex
	n := 0
	run := func(i int, st *store) {
		if len(groups[i]) == 0 {
			return
		}
		got, werrs := st.insert(c.db, coll, groups[i], ordered)
		mu.Lock()
		defer mu.Unlock()
		n += got
		for _, e := range werrs {
			e.Index = index[i][e.Index]
			errs = append(errs, e)
		}
	}
	// One data op per shard that receives documents.
	var wg sync.WaitGroup
	var opErr error
	for i := range groups {
		if len(groups[i]) == 0 {
			continue
		}
		wg.Go(func() {
			sctx := withShardOp(ctx, shardOp{command: "insert", docs: len(groups[i]), ns: shardOpOf(ctx).ns})
			if err := f.onShard(sctx, i, kindWrite, func(st *store) { run(i, st) }); err != nil {
				mu.Lock()
				opErr = err
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if opErr != nil {
		return nil, opErr
	}
	slices.SortFunc(errs, func(a, b writeError) int { return a.Index - b.Index })
	return withWriteErrors(bson.D{{Key: "n", Value: int32(n)}}, errs), nil
}

// withID returns doc with an _id first, generating an ObjectID if missing
// (drivers add one, so this is for hand-written commands).
func withID(doc bsoncore.Document) bsoncore.Document {
	if _, err := doc.LookupErr("_id"); err == nil {
		return doc
	}
	idx, dst := bsoncore.AppendDocumentStart(nil)
	dst = bsoncore.AppendObjectIDElement(dst, "_id", bson.NewObjectID())
	elems, _ := doc.Elements()
	for _, e := range elems {
		dst = append(dst, e...)
	}
	dst, _ = bsoncore.AppendDocumentEnd(dst, idx)
	return dst
}

func cmdUpdate(f *frontend, ctx context.Context, _ *connState, c *cmd) (bson.D, error) {
	coll, stmts, err := f.writeStatements(ctx, c, "updates")
	if err != nil {
		return nil, err
	}
	var matched, modified int
	upserted := bson.A{}
	errs, err := eachStatement(stmts, c.bool("ordered", true), func(i int, s bsoncore.Document) error {
		f.tel.update.Add(1)
		r, err := f.updateOne(ctx, c.db, coll, s)
		if err != nil {
			return err
		}
		matched += r.matched
		modified += r.modified
		if r.upserted != nil {
			upserted = append(upserted, bson.D{{Key: "index", Value: int32(i)}, {Key: "_id", Value: bson.RawValue{Type: bson.Type(r.upserted.Type), Value: r.upserted.Data}}})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	reply := bson.D{{Key: "n", Value: int32(matched + len(upserted))}, {Key: "nModified", Value: int32(modified)}}
	if len(upserted) > 0 {
		reply = append(reply, bson.E{Key: "upserted", Value: upserted})
	}
	return withWriteErrors(reply, errs), nil
}

// updateOne runs one update statement: on the _id's shard when the filter
// pins an _id, else on every shard (all at once for multi, one after another
// until a match for single updates). An upsert that matched nothing on any
// shard then inserts on the new _id's shard, a second data op.
func (f *frontend) updateOne(ctx context.Context, db, coll string, s bsoncore.Document) (updateResult, error) {
	var r updateResult
	q, _ := s.Lookup("q").DocumentOK()
	flt, err := parseFilter(q)
	if err != nil {
		return r, err
	}
	u, err := parseUpdate(s.Lookup("u"))
	if err != nil {
		return r, err
	}
	multi := boolValue(s.Lookup("multi"))
	upsert := boolValue(s.Lookup("upsert"))
	walk := 1 // a single update examines up to its first match
	if multi {
		walk = 0
	}
	ctx = withCost(ctx, opCost{class: classWrite, examine: examiner(db, coll, flt, 0, walk)})
	if multi && u.replacement != nil {
		return r, errBadValue("multi update is not supported with a replacement document")
	}
	n := len(f.shards)
	var opErr error
	if flt.idEq != nil || n == 1 {
		i := 0
		if flt.idEq != nil {
			i = flt.idEq.shardOf(n)
		}
		err := f.onShard(ctx, i, kindWrite, func(st *store) { r, opErr = st.update(db, coll, flt, q, u, multi, upsert) })
		return r, errors.Join(err, opErr)
	}
	if multi {
		parts := make([]updateResult, n)
		errs := make([]error, n)
		if err := f.scatter(ctx, kindWrite, func(i int, st *store) { parts[i], errs[i] = st.update(db, coll, flt, q, u, true, false) }); err != nil {
			return r, err
		}
		for _, p := range parts {
			r.matched += p.matched
			r.modified += p.modified
		}
		if err := errors.Join(errs...); err != nil {
			return r, err
		}
	} else {
		for i := range n {
			if err := f.onShard(ctx, i, kindWrite, func(st *store) { r, opErr = st.update(db, coll, flt, q, u, false, false) }); err != nil {
				return r, err
			}
			if opErr != nil || r.matched > 0 {
				return r, opErr
			}
		}
	}
	if r.matched > 0 || !upsert {
		return r, nil
	}
	_, id, err := f.upsertOnShard(ctx, db, coll, q, u)
	if err == nil {
		r.upserted = &id
	}
	return r, err
}

// upsertOnShard inserts the document an upsert that matched on no shard
// makes (upsertKeyed) on its new _id's shard, a data op of its own, and
// returns it with its _id.
func (f *frontend) upsertOnShard(ctx context.Context, db, coll string, q bsoncore.Document, u update) (bsoncore.Document, bsoncore.Value, error) {
	kd, id, err := upsertKeyed(q, u)
	if err != nil {
		return nil, id, err
	}
	var werrs []writeError
	if err := f.onShard(ctx, kd.key.shardOf(len(f.shards)), kindWrite, func(st *store) { _, werrs = st.insert(db, coll, []keyed{kd}, true) }); err != nil {
		return nil, id, err
	}
	if len(werrs) > 0 {
		return nil, id, &cmdError{Code: werrs[0].Code, Name: "DuplicateKey", Msg: werrs[0].Msg}
	}
	return kd.doc, id, nil
}

func boolValue(v bsoncore.Value) bool {
	if b, ok := v.BooleanOK(); ok {
		return b
	}
	n, ok := v.AsInt64OK()
	return ok && n != 0
}

func cmdDelete(f *frontend, ctx context.Context, _ *connState, c *cmd) (bson.D, error) {
	coll, stmts, err := f.writeStatements(ctx, c, "deletes")
	if err != nil {
		return nil, err
	}
	total := 0
	errs, err := eachStatement(stmts, c.bool("ordered", true), func(_ int, s bsoncore.Document) error {
		f.tel.delete.Add(1)
		n, err := f.deleteOne(ctx, c.db, coll, s)
		if err != nil {
			return err
		}
		total += n
		return nil
	})
	if err != nil {
		return nil, err
	}
	return withWriteErrors(bson.D{{Key: "n", Value: int32(total)}}, errs), nil
}

// deleteOne runs one delete statement, routed like updateOne.
func (f *frontend) deleteOne(ctx context.Context, db, coll string, s bsoncore.Document) (int, error) {
	q, _ := s.Lookup("q").DocumentOK()
	flt, err := parseFilter(q)
	if err != nil {
		return 0, err
	}
	limit, _ := s.Lookup("limit").AsInt64OK()
	if limit != 0 && limit != 1 {
		return 0, errBadValue("delete limit must be 0 or 1")
	}
	ctx = withCost(ctx, opCost{class: classWrite, examine: examiner(db, coll, flt, 0, int(limit))})
	n := len(f.shards)
	if flt.idEq != nil || n == 1 {
		i := 0
		if flt.idEq != nil {
			i = flt.idEq.shardOf(n)
		}
		var got int
		err := f.onShard(ctx, i, kindWrite, func(st *store) { got = st.delete(db, coll, flt, int(limit)) })
		return got, err
	}
	if limit == 0 {
		counts := make([]int, n)
		if err := f.scatter(ctx, kindWrite, func(i int, st *store) { counts[i] = st.delete(db, coll, flt, 0) }); err != nil {
			return 0, err
		}
		total := 0
		for _, x := range counts {
			total += x
		}
		return total, nil
	}
	for i := range n {
		var got int
		if err := f.onShard(ctx, i, kindWrite, func(st *store) { got = st.delete(db, coll, flt, 1) }); err != nil {
			return 0, err
		}
		if got > 0 {
			return got, nil
		}
	}
	return 0, nil
}
