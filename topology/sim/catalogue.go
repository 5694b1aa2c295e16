package sim

import (
	"context"
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Catalogue commands: listCollections, listDatabases, create,
// createIndexes (recorded only), listIndexes, drop and dropDatabase. They do
// not take slots: they model metadata operations whose cost is not what a
// sweep measures.

// catalogue returns, across shards, each collection of db with its
// document bytes and recorded indexes (from the first shard holding it).
func (f *frontend) catalogue(db string) map[string]*collection {
	f.catchUp()
	out := map[string]*collection{}
	for _, sh := range f.shards {
		sh.store.mu.Lock()
		for name, c := range sh.store.dbs[db] {
			agg := out[name]
			if agg == nil {
				agg = &collection{indexes: c.indexes}
				out[name] = agg
			}
			agg.bytes += c.bytes
		}
		sh.store.mu.Unlock()
	}
	return out
}

func cmdListCollections(f *frontend, _ context.Context, _ *connState, c *cmd) (bson.D, error) {
	fd, err := c.doc("filter")
	if err != nil {
		return nil, err
	}
	flt, err := parseFilter(fd)
	if err != nil {
		return nil, err
	}
	cat := f.catalogue(c.db)
	names := make([]string, 0, len(cat))
	for n := range cat {
		names = append(names, n)
	}
	slices.Sort(names)
	nameOnly := c.bool("nameOnly", false)
	var docs []bsoncore.Document
	for _, n := range names {
		d := bson.D{{Key: "name", Value: n}, {Key: "type", Value: "collection"}}
		if !nameOnly {
			d = append(d,
				bson.E{Key: "options", Value: bson.D{}},
				bson.E{Key: "info", Value: bson.D{{Key: "readOnly", Value: false}}},
				bson.E{Key: "idIndex", Value: idIndexSpec()})
		}
		raw, err := bson.Marshal(d)
		if err != nil {
			return nil, err
		}
		if flt.matchDoc(raw) {
			docs = append(docs, raw)
		}
	}
	return cursorReply("firstBatch", c.db+".$cmd.listCollections", 0, docs), nil
}

func idIndexSpec() bson.D {
	return bson.D{{Key: "v", Value: int32(2)}, {Key: "key", Value: bson.D{{Key: "_id", Value: int32(1)}}}, {Key: "name", Value: "_id_"}}
}

func cmdListDatabases(f *frontend, _ context.Context, _ *connState, c *cmd) (bson.D, error) {
	f.catchUp()
	sizes := map[string]int64{}
	for _, sh := range f.shards {
		sh.store.mu.Lock()
		for db, colls := range sh.store.dbs {
			for _, coll := range colls {
				sizes[db] += coll.bytes
			}
			if _, ok := sizes[db]; !ok {
				sizes[db] = 0
			}
		}
		sh.store.mu.Unlock()
	}
	names := make([]string, 0, len(sizes))
	for n := range sizes {
		names = append(names, n)
	}
	slices.Sort(names)
	nameOnly := c.bool("nameOnly", false)
	dbs := bson.A{}
	var total int64
	for _, n := range names {
		total += sizes[n]
		if nameOnly {
			dbs = append(dbs, bson.D{{Key: "name", Value: n}})
			continue
		}
		// sizeOnDisk is the bytes of stored BSON documents: the simulator
		// has no disk, and this is the true size of what it holds.
		dbs = append(dbs, bson.D{{Key: "name", Value: n}, {Key: "sizeOnDisk", Value: sizes[n]}, {Key: "empty", Value: sizes[n] == 0}})
	}
	reply := bson.D{{Key: "databases", Value: dbs}}
	if !nameOnly {
		reply = append(reply, bson.E{Key: "totalSize", Value: total})
	}
	return reply, nil
}

// eachStore runs a catalogue write on every store this server's data ops
// reach, under the store's lock; on a replica set's primary it is a write
// of the set, replayed on the secondaries.
func (f *frontend) eachStore(ctx context.Context, fn func(st *store)) error {
	locked := func(st *store) {
		st.mu.Lock()
		defer st.mu.Unlock()
		fn(st)
	}
	if f.member != nil {
		return f.member.write(ctx, locked)
	}
	for _, sh := range f.shards {
		locked(sh.store)
	}
	return nil
}

func cmdCreate(f *frontend, ctx context.Context, _ *connState, c *cmd) (bson.D, error) {
	coll, err := c.collName()
	if err != nil {
		return nil, err
	}
	exists := false
	err = f.eachStore(ctx, func(st *store) {
		exists = exists || st.coll(c.db, coll, false) != nil
		st.coll(c.db, coll, true)
	})
	if err != nil {
		return nil, err
	}
	if exists {
		return nil, &cmdError{Code: 48, Name: "NamespaceExists", Msg: "Collection " + c.db + "." + coll + " already exists."}
	}
	return bson.D{}, nil
}

func cmdCreateIndexes(f *frontend, ctx context.Context, _ *connState, c *cmd) (bson.D, error) {
	coll, specs, err := c.collDocs("indexes")
	if err != nil {
		return nil, err
	}
	for _, s := range specs {
		if _, ok := s.Lookup("key").DocumentOK(); !ok {
			return nil, errBadValue("index specification needs a key document")
		}
		if _, ok := s.Lookup("name").StringValueOK(); !ok {
			return nil, errBadValue("index specification needs a name")
		}
	}
	var before, after int
	created := false
	if err := f.eachStore(ctx, func(st *store) { before, after, created = st.addIndexesLocked(c.db, coll, specs) }); err != nil {
		return nil, err
	}
	return bson.D{
		{Key: "createdCollectionAutomatically", Value: created},
		{Key: "numIndexesBefore", Value: int32(before)},
		{Key: "numIndexesAfter", Value: int32(after)},
	}, nil
}

func cmdListIndexes(f *frontend, _ context.Context, _ *connState, c *cmd) (bson.D, error) {
	coll, err := c.collName()
	if err != nil {
		return nil, err
	}
	col := f.catalogue(c.db)[coll]
	if col == nil {
		return nil, &cmdError{Code: 26, Name: "NamespaceNotFound", Msg: "ns does not exist: " + c.db + "." + coll}
	}
	idx, _ := bson.Marshal(idIndexSpec())
	docs := []bsoncore.Document{idx}
	for _, r := range col.indexes {
		docs = append(docs, bsoncore.Document(r))
	}
	return cursorReply("firstBatch", c.db+"."+coll, 0, docs), nil
}

func cmdDrop(f *frontend, ctx context.Context, _ *connState, c *cmd) (bson.D, error) {
	coll, err := c.collName()
	if err != nil {
		return nil, err
	}
	was := 0
	err = f.eachStore(ctx, func(st *store) {
		if n := st.dropCollLocked(c.db, coll); n > 0 {
			was = n
		}
	})
	if err != nil {
		return nil, err
	}
	// Since MongoDB 7.0 dropping a missing collection succeeds.
	return bson.D{{Key: "nIndexesWas", Value: int32(was)}, {Key: "ns", Value: c.db + "." + coll}}, nil
}

func cmdDropDatabase(f *frontend, ctx context.Context, _ *connState, c *cmd) (bson.D, error) {
	if strings.TrimSpace(c.db) == "" {
		return nil, errBadValue("dropDatabase needs $db")
	}
	if err := f.eachStore(ctx, func(st *store) { st.dropDBLocked(c.db) }); err != nil {
		return nil, err
	}
	return bson.D{{Key: "dropped", Value: c.db}}, nil
}
