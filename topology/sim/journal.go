package sim

import (
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// The changes a write makes to a store, recorded on a replica set's
// primary and replayed on each secondary, as a real primary logs a write in
// its oplog and the secondaries apply the log: a secondary holds what it
// has applied, no more and no less.

// changeOp is what one change does.
type changeOp uint8

const (
	chInsert  changeOp = iota // a document put where none was (insert, upsert)
	chUpdate                  // a document replaced by its updated version
	chDelete                  // a document removed
	chCreate                  // a collection created
	chIndexes                 // a collection's recorded index specs set
	chDropColl
	chDropDB
)

// change is one entry of a write's journal. Documents are shared, never
// copied: a stored document is never modified in place.
type change struct {
	op       changeOp
	db, coll string
	key      idKey
	doc      bsoncore.Document
	indexes  []bson.Raw
}

// record adds c to the open journal, if any. Only the goroutine applying a
// primary's write (serialised by its replica set) opens one, and it is the
// one that calls record while it is open.
func (s *store) record(c change) {
	if s.journal != nil {
		*s.journal = append(*s.journal, c)
	}
}

// journaled runs write on s and returns the changes it made.
func (s *store) journaled(write func(*store)) []change {
	var j []change
	s.journal = &j
	defer func() { s.journal = nil }()
	write(s)
	return j
}

// apply replays changes made on another store, in order, as a secondary
// applies the oplog; it records nothing.
func (s *store) apply(changes []change) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ch := range changes {
		switch ch.op {
		case chInsert, chUpdate:
			s.coll(ch.db, ch.coll, true).put(ch.key, ch.doc)
		case chDelete:
			if c := s.coll(ch.db, ch.coll, false); c != nil {
				c.remove(ch.key)
			}
		case chCreate:
			s.coll(ch.db, ch.coll, true)
		case chIndexes:
			s.coll(ch.db, ch.coll, true).indexes = slices.Clone(ch.indexes)
		case chDropColl:
			s.dropCollLocked(ch.db, ch.coll)
		case chDropDB:
			delete(s.dbs, ch.db)
		}
	}
}

// The catalogue's writes, for a caller that holds mu; each records itself.

// addIndexesLocked records the index specs not recorded yet (by name; _id_
// always exists) and returns the counts before and after.
func (s *store) addIndexesLocked(db, name string, specs []bsoncore.Document) (before, after int, created bool) {
	created = s.coll(db, name, false) == nil
	col := s.coll(db, name, true)
	before = 1 + len(col.indexes)
	for _, spec := range specs {
		n := spec.Lookup("name").StringValue()
		if n == "_id_" || slices.ContainsFunc(col.indexes, func(r bson.Raw) bool { return r.Lookup("name").StringValue() == n }) {
			continue
		}
		col.indexes = append(col.indexes, bson.Raw(slices.Clone(spec)))
	}
	if after = 1 + len(col.indexes); after != before {
		s.record(change{op: chIndexes, db: db, coll: name, indexes: slices.Clone(col.indexes)})
	}
	return before, after, created
}

// dropCollLocked drops a collection and returns how many indexes it had (0
// when there was none).
func (s *store) dropCollLocked(db, name string) int {
	col := s.coll(db, name, false)
	if col == nil {
		return 0
	}
	delete(s.dbs[db], name)
	if len(s.dbs[db]) == 0 {
		delete(s.dbs, db)
	}
	s.record(change{op: chDropColl, db: db, coll: name})
	return 1 + len(col.indexes)
}

// dropDBLocked drops a database.
func (s *store) dropDBLocked(db string) {
	if _, ok := s.dbs[db]; ok {
		delete(s.dbs, db)
		s.record(change{op: chDropDB, db: db})
	}
}
