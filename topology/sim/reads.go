package sim

import (
	"context"
	"slices"
	"sort"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Reads: find (one shard for an _id equality, every shard otherwise,
// merged in _id order) and count. Each takes one data op per shard it
// touches. Results past the first batch wait in a cursor (cursors.go).

// maxBatchBytes bounds one reply batch, like mongod's 16MB.
const maxBatchBytes = 16 << 20

// findOpts are the find options the simulator honours.
type findOpts struct {
	filter  filter
	reverse bool
	// sorted is set by any sort: one by _id is honoured (reverse), one by
	// another field is accepted and costed as a scan, and its documents
	// come in _id order. A projection is accepted and not applied.
	sorted      bool
	skip, limit int
	batchSize   int // -1 = default
	singleBatch bool
}

func parseFind(c *cmd) (findOpts, error) {
	o := findOpts{batchSize: -1}
	var err error
	if o.filter, err = c.filter("filter"); err != nil {
		return o, err
	}
	sortDoc, err := c.doc("sort")
	if err != nil {
		return o, err
	}
	if len(sortDoc) > 5 {
		o.sorted = true
		elems, _ := sortDoc.Elements()
		dir, ok := elems[0].Value().AsInt64OK()
		if len(elems) == 1 && elems[0].Key() == "_id" && ok && (dir == 1 || dir == -1) {
			o.reverse = dir == -1
		}
	}
	skip, limit, err := c.skipLimit()
	if err != nil {
		return o, err
	}
	bs, hasBS, err := c.int("batchSize")
	if err != nil {
		return o, err
	}
	if skip < 0 || bs < 0 {
		return o, errBadValue("skip and batchSize must not be negative")
	}
	o.singleBatch = c.bool("singleBatch", false)
	if limit < 0 {
		// A negative limit is the legacy spelling of a single batch.
		limit, o.singleBatch = -limit, true
	}
	o.skip, o.limit = int(skip), int(limit)
	if hasBS {
		o.batchSize = int(bs)
	}
	return o, nil
}

func cmdFind(f *frontend, ctx context.Context, _ *connState, c *cmd) (bson.D, error) {
	coll, err := c.collName()
	if err != nil {
		return nil, err
	}
	o, err := parseFind(c)
	if err != nil {
		return nil, err
	}
	ctx = withCost(ctx, opCost{class: readClass(o.filter, o.sorted, int64(o.limit)), examine: examiner(c.db, coll, o.filter, o.skip, o.limit)})
	var docs []bsoncore.Document
	if f.router && c.db == "config" && coll == "shards" {
		docs, err = f.configShards(o)
	} else {
		docs, err = f.findDocs(ctx, c.db, coll, o)
	}
	if err != nil {
		return nil, err
	}
	first := 101 // mongod's default first batch
	if o.batchSize >= 0 {
		first = o.batchSize
	}
	if o.limit > 0 && o.singleBatch {
		first = o.limit
	}
	batch, rest := splitBatch(docs, first)
	var id int64
	if len(rest) > 0 && !o.singleBatch {
		id = f.cursors.add(c.db+"."+coll, rest)
	}
	return cursorReply("firstBatch", c.db+"."+coll, id, batch), nil
}

// findDocs runs the query: one shard for an _id equality, all shards
// otherwise, merged in _id order.
func (f *frontend) findDocs(ctx context.Context, db, coll string, o findOpts) ([]bsoncore.Document, error) {
	if err := f.routerStep(ctx, kindRead); err != nil {
		return nil, err
	}
	perShard := 0
	if o.limit > 0 {
		perShard = o.skip + o.limit
	}
	var all []keyed
	if o.filter.idEq != nil {
		i := o.filter.idEq.shardOf(len(f.shards))
		if err := f.onShard(ctx, i, kindRead, func(st *store) { all = st.scan(db, coll, o.filter, o.reverse, perShard) }); err != nil {
			return nil, err
		}
	} else {
		parts := make([][]keyed, len(f.shards))
		if err := f.scatter(ctx, kindRead, func(i int, st *store) { parts[i] = st.scan(db, coll, o.filter, o.reverse, perShard) }); err != nil {
			return nil, err
		}
		all = mergeKeyed(parts, o.reverse)
	}
	if o.skip >= len(all) {
		return nil, nil
	}
	all = all[o.skip:]
	if o.limit > 0 && len(all) > o.limit {
		all = all[:o.limit]
	}
	out := make([]bsoncore.Document, len(all))
	for i, k := range all {
		out[i] = k.doc
	}
	return out, nil
}

// configShards answers a router's find on config.shards from the
// cluster's shards (shardDocs), in the order they were added (a real
// find without a sort returns them as stored), with the filter, skip and
// limit applied. It takes no slot: a router reads it from its config
// server, whose cost a sweep does not measure. A mongod has no such
// collection of its own, and its find reads whatever was stored there.
func (f *frontend) configShards(o findOpts) ([]bsoncore.Document, error) {
	var out []bsoncore.Document
	for _, d := range f.shardDocs() {
		raw, err := bson.Marshal(d)
		if err != nil {
			return nil, err
		}
		k, err := keyOf(bsoncore.Document(raw).Lookup("_id"))
		if err != nil {
			return nil, err
		}
		if o.filter.matchKey(k) && o.filter.matchDoc(raw) {
			out = append(out, raw)
		}
	}
	if o.reverse {
		slices.Reverse(out)
	}
	out = out[min(o.skip, len(out)):]
	if o.limit > 0 && len(out) > o.limit {
		out = out[:o.limit]
	}
	return out, nil
}

// mergeKeyed merges per-shard results, each already in order.
func mergeKeyed(parts [][]keyed, reverse bool) []keyed {
	var all []keyed
	for _, p := range parts {
		all = append(all, p...)
	}
	if len(parts) > 1 {
		sort.SliceStable(all, func(i, j int) bool {
			if reverse {
				return all[i].key > all[j].key
			}
			return all[i].key < all[j].key
		})
	}
	return all
}

// splitBatch takes up to n documents (and at most maxBatchBytes, but always
// at least one so a cursor makes progress).
func splitBatch(docs []bsoncore.Document, n int) (batch, rest []bsoncore.Document) {
	size := 0
	i := 0
	for ; i < len(docs) && i < n; i++ {
		size += len(docs[i])
		if size > maxBatchBytes && i > 0 {
			break
		}
	}
	return docs[:i], docs[i:]
}

func cursorReply(batchKey, ns string, id int64, docs []bsoncore.Document) bson.D {
	arr := make(bson.A, len(docs))
	for i, d := range docs {
		arr[i] = bson.Raw(d)
	}
	return bson.D{{Key: "cursor", Value: bson.D{
		{Key: batchKey, Value: arr},
		{Key: "id", Value: id},
		{Key: "ns", Value: ns},
	}}}
}

func cmdCount(f *frontend, ctx context.Context, _ *connState, c *cmd) (bson.D, error) {
	coll, err := c.collName()
	if err != nil {
		return nil, err
	}
	flt, err := c.filter("query")
	if err != nil {
		return nil, err
	}
	skip, limit, err := c.skipLimit()
	if err != nil {
		return nil, err
	}
	if err := f.routerStep(ctx, kindRead); err != nil {
		return nil, err
	}
	ctx = withCost(ctx, opCost{class: readClass(flt, false, 0), examine: examiner(c.db, coll, flt, int(max(skip, 0)), int(max(limit, 0)))})
	counts := make([]int, len(f.shards))
	if flt.idEq != nil {
		i := flt.idEq.shardOf(len(f.shards))
		err = f.onShard(ctx, i, kindRead, func(st *store) { counts[i] = st.count(c.db, coll, flt) })
	} else {
		err = f.scatter(ctx, kindRead, func(i int, st *store) { counts[i] = st.count(c.db, coll, flt) })
	}
	if err != nil {
		return nil, err
	}
	n := int64(0)
	for _, x := range counts {
		n += int64(x)
	}
	n = max(n-max(skip, 0), 0)
	if limit < 0 {
		limit = -limit
	}
	if limit > 0 {
		n = min(n, limit)
	}
	return bson.D{{Key: "n", Value: int32(n)}}, nil
}
