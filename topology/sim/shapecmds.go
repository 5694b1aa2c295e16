package sim

import (
	"context"
	"math/rand/v2"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// The commands a replayed workload sends beyond find, count and the
// writes: aggregate, distinct and findAndModify. Each answers with a real
// server's reply shape and is costed by its shape class (shapecost.go);
// what each evaluates is said at its handler.

// cmdAggregate answers aggregate with a cursor. It evaluates a leading
// $match as find's filter (an opaque one matches nothing), then $skip,
// $limit, $sample and $count in pipeline order, and a later $match of
// predicates the simulator evaluates; $sort, $project, $addFields, $set
// and $unset pass the documents through unchanged (in _id order); any
// other stage ($group, $lookup, $unwind, $out …) is costed and not
// computed: the cursor is empty from that stage on, and nothing is
// written.
func cmdAggregate(f *frontend, ctx context.Context, _ *connState, c *cmd) (bson.D, error) {
	coll, err := c.str("aggregate")
	if err != nil {
		coll = "" // aggregate: 1, a database-wide pipeline: no documents here
	}
	ns := c.db + "." + coll
	if coll == "" {
		ns = c.db + ".$cmd.aggregate"
	}
	stages, err := c.docs("pipeline")
	if err != nil {
		return nil, err
	}
	batchSize := 101
	if cur, err := c.doc("cursor"); err != nil {
		return nil, err
	} else if v, err := cur.LookupErr("batchSize"); err == nil {
		if n, ok := v.AsInt64OK(); ok && n >= 0 {
			batchSize = int(n)
		}
	}
	var flt filter
	if len(stages) > 0 && stageName(stages[0]) == "$match" {
		m, _ := stages[0].Lookup("$match").DocumentOK()
		if flt, err = parseFilter(m); err != nil {
			return nil, err
		}
		stages = stages[1:]
	}
	ctx = withCost(ctx, opCost{class: classAggregate, examine: examiner(c.db, coll, flt, 0, 0)})
	var docs []bsoncore.Document
	if coll == "" {
		err = f.scatter(ctx, kindRead, func(int, *store) {})
	} else {
		docs, err = f.findDocs(ctx, c.db, coll, findOpts{filter: flt, batchSize: -1})
	}
	if err != nil {
		return nil, err
	}
	if docs, err = runStages(docs, stages); err != nil {
		return nil, err
	}
	batch, rest := splitBatch(docs, batchSize)
	var id int64
	if len(rest) > 0 {
		id = f.cursors.add(ns, rest)
	}
	return cursorReply("firstBatch", ns, id, batch), nil
}

// stageName is a pipeline stage's operator, "" for an empty stage.
func stageName(stage bsoncore.Document) string {
	e, err := stage.IndexErr(0)
	if err != nil {
		return ""
	}
	return e.Key()
}

// runStages applies the stages after a leading $match (cmdAggregate says
// which it computes).
func runStages(docs []bsoncore.Document, stages []bsoncore.Document) ([]bsoncore.Document, error) {
	for _, st := range stages {
		name := stageName(st)
		arg := st.Lookup(name)
		switch name {
		case "$sort", "$project", "$addFields", "$set", "$unset":
		case "$skip", "$limit", "$sample":
			n, ok := arg.AsInt64OK()
			if name == "$sample" {
				d, _ := arg.DocumentOK()
				n, ok = d.Lookup("size").AsInt64OK()
			}
			if !ok || n < 0 || (n == 0 && name == "$limit") {
				return nil, errBadValue(name + " needs a positive number")
			}
			switch name {
			case "$skip":
				docs = docs[min(int(n), len(docs)):]
			case "$limit":
				docs = docs[:min(int(n), len(docs))]
			default:
				docs = sample(docs, int(n))
			}
		case "$count":
			field, ok := arg.StringValueOK()
			if !ok || field == "" || strings.HasPrefix(field, "$") {
				return nil, errBadValue("$count needs a field name")
			}
			if len(docs) == 0 {
				return nil, nil
			}
			out, err := bson.Marshal(bson.D{{Key: field, Value: int32(len(docs))}})
			if err != nil {
				return nil, err
			}
			docs = []bsoncore.Document{out}
		case "$match":
			m, _ := arg.DocumentOK()
			flt, err := parseFilter(m)
			if err != nil {
				return nil, err
			}
			kept := docs[:0:0]
			for _, d := range docs {
				if flt.matches(d) {
					kept = append(kept, d)
				}
			}
			docs = kept
		case "$group":
			d, _ := arg.DocumentOK()
			out, ok := countGroup(d, len(docs))
			if !ok {
				return nil, nil
			}
			docs = out
		default:
			return nil, nil
		}
	}
	return docs, nil
}

// countGroup computes the one $group the simulator evaluates, a constant
// _id with {$sum: number} accumulators (the driver's countDocuments is
// one): one document, or none over no input. ok is false for any other
// $group.
func countGroup(spec bsoncore.Document, n int) ([]bsoncore.Document, bool) {
	elems, err := spec.Elements()
	if err != nil || len(elems) == 0 || elems[0].Key() != "_id" {
		return nil, false
	}
	id := elems[0].Value()
	if s, isStr := id.StringValueOK(); (isStr && strings.HasPrefix(s, "$")) || id.Type == bsoncore.TypeEmbeddedDocument {
		return nil, false
	}
	out := bson.D{{Key: "_id", Value: rawOf(id)}}
	for _, e := range elems[1:] {
		acc, _ := e.Value().DocumentOK()
		ops, _ := acc.Elements()
		if len(ops) != 1 || ops[0].Key() != "$sum" {
			return nil, false
		}
		k, isNum := ops[0].Value().AsFloat64OK()
		if !isNum {
			return nil, false
		}
		if k == float64(int32(k)) {
			out = append(out, bson.E{Key: e.Key(), Value: int32(k) * int32(n)})
		} else {
			out = append(out, bson.E{Key: e.Key(), Value: k * float64(n)})
		}
	}
	if n == 0 {
		return nil, true
	}
	raw, err := bson.Marshal(out)
	return []bsoncore.Document{raw}, err == nil
}

// sample picks n of docs at random, in random order, as $sample does.
func sample(docs []bsoncore.Document, n int) []bsoncore.Document {
	out := append([]bsoncore.Document(nil), docs...)
	rand.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out[:min(n, len(out))]
}

// matches is the whole filter on one document: its _id part and the rest.
func (f *filter) matches(doc bsoncore.Document) bool {
	if f.idEq == nil && f.class == 0 {
		return f.matchDoc(doc)
	}
	k, err := keyOf(doc.Lookup("_id"))
	return err == nil && f.matchKey(k) && f.matchDoc(doc)
}

// cmdDistinct answers distinct with the values of key in the documents
// the query matches (an array's elements each count), each once, in the
// order first met.
func cmdDistinct(f *frontend, ctx context.Context, _ *connState, c *cmd) (bson.D, error) {
	coll, err := c.collName()
	if err != nil {
		return nil, err
	}
	key, err := c.str("key")
	if err != nil {
		return nil, err
	}
	if key == "" {
		return nil, errBadValue("distinct needs a key")
	}
	flt, err := c.filter("query")
	if err != nil {
		return nil, err
	}
	ctx = withCost(ctx, opCost{class: readClass(flt, false, 0), examine: examiner(c.db, coll, flt, 0, 0)})
	docs, err := f.findDocs(ctx, c.db, coll, findOpts{filter: flt, batchSize: -1})
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	values := bson.A{}
	add := func(v bsoncore.Value) {
		if k := string(rune(v.Type)) + string(v.Data); !seen[k] {
			seen[k] = true
			values = append(values, bson.RawValue{Type: bson.Type(v.Type), Value: v.Data})
		}
	}
	for _, d := range docs {
		v, ok := lookupPath(d, key)
		if !ok {
			continue
		}
		if arr, isArr := v.ArrayOK(); isArr {
			vals, _ := arr.Values()
			for _, e := range vals {
				add(e)
			}
			continue
		}
		add(v)
	}
	return bson.D{{Key: "values", Value: values}}, nil
}

// famResult is one findAndModify's outcome on one store.
type famResult struct {
	found    bool
	old, new bsoncore.Document
	upserted *bsoncore.Value
}

// cmdFindAndModify answers findAndModify: the first document the query
// matches (in _id order; a sort by another field is accepted and not
// applied) is removed or updated as update does, and value is it before
// the change, or after with new: true; an upsert that matched nothing
// inserts as update does. fields is not applied.
func cmdFindAndModify(f *frontend, ctx context.Context, _ *connState, c *cmd) (bson.D, error) {
	coll, err := c.collName()
	if err != nil {
		return nil, err
	}
	q, err := c.doc("query")
	if err != nil {
		return nil, err
	}
	flt, err := parseFilter(q)
	if err != nil {
		return nil, err
	}
	o, err := parseFind(&cmd{name: c.name, body: c.body})
	if err != nil {
		return nil, err
	}
	remove, upsert, returnNew := c.bool("remove", false), c.bool("upsert", false), c.bool("new", false)
	var u update
	if !remove {
		v, err := c.body.LookupErr("update")
		if err != nil {
			return nil, errBadValue("findAndModify needs remove or update")
		}
		if u, err = parseUpdate(v); err != nil {
			return nil, err
		}
	}
	if err := f.routerStep(ctx, kindWrite); err != nil {
		return nil, err
	}
	ctx = withCost(ctx, opCost{class: classWrite, examine: examiner(c.db, coll, flt, 0, 1)})
	r, err := f.findAndModifyOn(ctx, c.db, coll, flt, q, o.reverse, u, remove, upsert)
	if err != nil {
		return nil, err
	}
	last := bson.D{{Key: "n", Value: int32(0)}}
	if r.found || r.upserted != nil {
		last[0].Value = int32(1)
	}
	if !remove {
		last = append(last, bson.E{Key: "updatedExisting", Value: r.found})
	}
	if r.upserted != nil {
		last = append(last, bson.E{Key: "upserted", Value: rawOf(*r.upserted)})
	}
	var value any // null when nothing matched
	switch {
	case returnNew && r.new != nil:
		value = bson.Raw(r.new)
	case !returnNew && r.old != nil:
		value = bson.Raw(r.old)
	}
	return bson.D{{Key: "lastErrorObject", Value: last}, {Key: "value", Value: value}}, nil
}

// findAndModifyOn runs it on the _id's shard, or tries the shards in
// turn until one matches; an upsert that matched nowhere inserts on the
// new _id's shard, a second data op, as updateOne does.
func (f *frontend) findAndModifyOn(ctx context.Context, db, coll string, flt filter, q bsoncore.Document, reverse bool, u update, remove, upsert bool) (famResult, error) {
	var r famResult
	var opErr error
	n := len(f.shards)
	one := flt.idEq != nil || n == 1
	for i := range n {
		if flt.idEq != nil {
			i = flt.idEq.shardOf(n)
		}
		if err := f.onShard(ctx, i, kindWrite, func(st *store) {
			r, opErr = st.findAndModify(db, coll, flt, q, reverse, u, remove, upsert && one)
		}); err != nil {
			return r, err
		}
		if opErr != nil || r.found || one {
			return r, opErr
		}
	}
	if !upsert || remove {
		return r, nil
	}
	doc, id, err := f.upsertOnShard(ctx, db, coll, q, u)
	if err == nil {
		r.new, r.upserted = doc, &id
	}
	return r, err
}

// findAndModify changes the first matching document under one lock, as
// update does.
func (s *store) findAndModify(db, name string, f filter, q bsoncore.Document, reverse bool, u update, remove, upsert bool) (famResult, error) {
	var r famResult
	s.mu.Lock()
	defer s.mu.Unlock()
	matches := s.scanLocked(db, name, f, reverse, 1)
	if len(matches) == 1 {
		m := matches[0]
		r.found, r.old = true, m.doc
		c := s.coll(db, name, false)
		if remove {
			c.remove(m.key)
			s.record(change{op: chDelete, db: db, coll: name, key: m.key})
			return r, nil
		}
		nd, err := u.apply(m.doc)
		if err != nil {
			return r, err
		}
		r.new = nd
		if string(nd) != string(m.doc) {
			c.put(m.key, nd)
			s.record(change{op: chUpdate, db: db, coll: name, key: m.key, doc: nd})
		}
		return r, nil
	}
	if !upsert || remove {
		return r, nil
	}
	kd, id, err := upsertKeyed(q, u)
	if err != nil {
		return r, err
	}
	c := s.coll(db, name, true)
	if _, exists := c.docs[kd.key]; exists {
		return r, &cmdError{Code: 11000, Name: "DuplicateKey", Msg: dupKeyMsg(db, name, id)}
	}
	c.put(kd.key, kd.doc)
	s.record(change{op: chInsert, db: db, coll: name, key: kd.key, doc: kd.doc})
	r.new, r.upserted = kd.doc, &id
	return r, nil
}
