package sim

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// idKey is an _id encoded so that byte order is MongoDB's order within the
// supported types: the first byte is the type class (numbers < strings <
// ObjectIDs, as in MongoDB's comparison order), the rest sorts within it.
// Numbers are compared as float64, so 1 and 1.0 are the same _id (as in
// MongoDB) and int64 ids beyond 2^53 may collide.
type idKey string

const (
	classNumber   = '1'
	classString   = '2'
	classObjectID = '7'
)

// keyOf encodes a supported _id value.
func keyOf(v bsoncore.Value) (idKey, error) {
	switch v.Type {
	case bsoncore.TypeString:
		s, _ := v.StringValueOK()
		return idKey(string(rune(classString)) + s), nil
	case bsoncore.TypeObjectID:
		oid, _ := v.ObjectIDOK()
		return idKey(string(rune(classObjectID)) + string(oid[:])), nil
	case bsoncore.TypeInt32, bsoncore.TypeInt64, bsoncore.TypeDouble:
		f, _ := v.AsFloat64OK()
		if math.IsNaN(f) {
			return "", errBadValue("_id NaN is not supported by the simulator")
		}
		// Flip so that unsigned byte order is numeric order.
		bits := math.Float64bits(f)
		if bits>>63 == 1 {
			bits = ^bits
		} else {
			bits |= 1 << 63
		}
		var b [9]byte
		b[0] = classNumber
		binary.BigEndian.PutUint64(b[1:], bits)
		return idKey(b[:]), nil
	default:
		return "", errBadValue(fmt.Sprintf("_id of type %s is not supported by the simulator (use a string, ObjectId or number)", v.Type))
	}
}

// shardOf routes a key to one of n shards with FNV-1a, a stable hash so the
// same _id always lands on the same shard.
func (k idKey) shardOf(n int) int {
	if n <= 1 {
		return 0
	}
	h := fnv.New32a()
	h.Write([]byte(k))
	return int(h.Sum32() % uint32(n))
}

// collection is one namespace's documents: a map for point lookups and a
// sorted key list for range scans. New keys go to pending and are merged on
// the next scan, so a bulk load costs one sort instead of a quadratic number
// of insertions.
type collection struct {
	docs    map[idKey]bsoncore.Document
	sorted  []idKey
	pending []idKey
	dirty   bool // deletes since the last merge
	bytes   int64
	indexes []bson.Raw // createIndexes specs, recorded as given
}

func newCollection() *collection {
	return &collection{docs: map[idKey]bsoncore.Document{}}
}

func (c *collection) put(k idKey, doc bsoncore.Document) {
	if old, ok := c.docs[k]; ok {
		c.bytes -= int64(len(old))
	} else {
		c.pending = append(c.pending, k)
	}
	c.docs[k] = doc
	c.bytes += int64(len(doc))
}

func (c *collection) remove(k idKey) {
	if old, ok := c.docs[k]; ok {
		c.bytes -= int64(len(old))
		delete(c.docs, k)
		c.dirty = true
	}
}

// keys returns all keys in ascending order, merging pending inserts and
// dropping deleted keys first. The caller holds the store's write lock.
func (c *collection) keys() []idKey {
	if len(c.pending) == 0 && !c.dirty {
		return c.sorted
	}
	slices.Sort(c.pending)
	merged := make([]idKey, 0, len(c.sorted)+len(c.pending))
	i, j := 0, 0
	for i < len(c.sorted) || j < len(c.pending) {
		var k idKey
		switch {
		case j == len(c.pending) || (i < len(c.sorted) && c.sorted[i] <= c.pending[j]):
			k = c.sorted[i]
			i++
		default:
			k = c.pending[j]
			j++
		}
		// A key deleted and re-inserted is in both lists; a deleted key is
		// in neither the map nor the result.
		if _, ok := c.docs[k]; !ok || (len(merged) > 0 && merged[len(merged)-1] == k) {
			continue
		}
		merged = append(merged, k)
	}
	c.sorted, c.pending, c.dirty = merged, nil, false
	return c.sorted
}

// store is one server's (or shard's) in-memory data, by database and
// collection.
type store struct {
	mu  sync.Mutex
	dbs map[string]map[string]*collection
	// journal, while open, collects the changes of the write being applied
	// (a replica-set primary's, for its secondaries: see journal.go).
	journal *[]change
}

func newStore() *store {
	return &store{dbs: map[string]map[string]*collection{}}
}

// coll returns the collection, creating it if create is set; nil otherwise
// when absent. The caller holds mu.
func (s *store) coll(db, name string, create bool) *collection {
	colls := s.dbs[db]
	if colls == nil {
		if !create {
			return nil
		}
		colls = map[string]*collection{}
		s.dbs[db] = colls
	}
	c := colls[name]
	if c == nil && create {
		c = newCollection()
		colls[name] = c
		s.record(change{op: chCreate, db: db, coll: name})
	}
	return c
}

// filter is the subset of query language the simulator evaluates:
// equality or a range on _id, and equality on other fields (dotted paths
// included). Any other predicate (an operator on another field, $in, a
// top-level $or, mixed-type _id bounds) is accepted, so that any shape is
// answered, and marks the filter opaque: an opaque filter matches no
// document. The reply then has a real reply's shape (an empty cursor, n:
// 0) and the op is costed by its shape (shapecost.go), never answered
// with documents the predicate might not match.
type filter struct {
	idEq   *idKey
	lo, hi *bound
	class  byte // type class of the range bounds, 0 if none
	fields []bsoncore.Element
	opaque bool
}

type bound struct {
	key       idKey
	inclusive bool
}

// parseFilter parses {}, {_id: v}, {_id: {$eq|$gt|$gte|$lt|$lte: v, ...}}
// and {field: v} equality, and marks anything else opaque (see filter);
// only a document that is not valid BSON, or an _id of a type the
// simulator cannot store, is an error.
func parseFilter(doc bsoncore.Document) (filter, error) {
	var f filter
	if len(doc) == 0 {
		return f, nil
	}
	elems, err := doc.Elements()
	if err != nil {
		return f, errBadValue("filter is not a valid document: " + err.Error())
	}
	for _, e := range elems {
		key, v := e.Key(), e.Value()
		if strings.HasPrefix(key, "$") {
			f.opaque = true
			continue
		}
		ops, isDoc := v.DocumentOK()
		if isDoc && len(ops) > 5 {
			if first, _ := ops.IndexErr(0); first != nil && strings.HasPrefix(first.Key(), "$") {
				if key != "_id" || f.addIDOps(ops) != nil {
					f.opaque = true
				}
				continue
			}
		}
		if key == "_id" {
			k, err := keyOf(v)
			if err != nil {
				f.opaque = true
				continue
			}
			f.idEq = &k
			continue
		}
		f.fields = append(f.fields, e)
	}
	return f, nil
}

func (f *filter) addIDOps(ops bsoncore.Document) error {
	elems, err := ops.Elements()
	if err != nil {
		return errBadValue("_id operators: " + err.Error())
	}
	for _, e := range elems {
		k, err := keyOf(e.Value())
		if err != nil {
			return err
		}
		if f.class != 0 && f.class != k[0] {
			return errBadValue("_id range bounds of different types are not supported by the simulator")
		}
		switch op := e.Key(); op {
		case "$eq":
			f.idEq = &k
			continue
		case "$gt", "$gte":
			f.lo = &bound{key: k, inclusive: op == "$gte"}
		case "$lt", "$lte":
			f.hi = &bound{key: k, inclusive: op == "$lte"}
		default:
			return errBadValue("_id operator " + op + " is not supported by the simulator")
		}
		f.class = k[0]
	}
	return nil
}

// matchKey reports whether k satisfies the _id part. Range operators only
// match values of their own type, as in MongoDB.
func (f *filter) matchKey(k idKey) bool {
	if f.idEq != nil && k != *f.idEq {
		return false
	}
	if f.class != 0 && k[0] != f.class {
		return false
	}
	if f.lo != nil && (k < f.lo.key || (k == f.lo.key && !f.lo.inclusive)) {
		return false
	}
	if f.hi != nil && (k > f.hi.key || (k == f.hi.key && !f.hi.inclusive)) {
		return false
	}
	return true
}

// matchDoc checks the non-_id equality fields by exact BSON value; a
// dotted key ("holder.run_id") is a path into embedded documents. An
// opaque filter matches nothing.
func (f *filter) matchDoc(doc bsoncore.Document) bool {
	if f.opaque {
		return false
	}
	for _, e := range f.fields {
		v, ok := lookupPath(doc, e.Key())
		if !ok || !v.Equal(e.Value()) {
			return false
		}
	}
	return true
}

// keyed is a document with its key, so shard results can be merged in order.
type keyed struct {
	key idKey
	doc bsoncore.Document
}

// scan returns up to limit (0 = all) matching documents in ascending _id
// order, or descending when reverse is set. The documents are shared, not
// copied: stored documents are never modified in place.
func (s *store) scan(db, name string, f filter, reverse bool, limit int) []keyed {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.scanLocked(db, name, f, reverse, limit)
}

// scanLocked is scan for a caller that holds mu, so that a write can find
// and change documents in one critical section.
func (s *store) scanLocked(db, name string, f filter, reverse bool, limit int) []keyed {
	c := s.coll(db, name, false)
	if c == nil || f.opaque {
		return nil
	}
	if f.idEq != nil {
		doc, ok := c.docs[*f.idEq]
		if !ok || !f.matchKey(*f.idEq) || !f.matchDoc(doc) {
			return nil
		}
		return []keyed{{*f.idEq, doc}}
	}
	keys := c.keys()
	lo, hi := 0, len(keys)
	if f.class != 0 {
		// Narrow to the type class first, then to the bounds.
		lo = sort.Search(len(keys), func(i int) bool { return keys[i][0] >= f.class })
		hi = sort.Search(len(keys), func(i int) bool { return keys[i][0] > f.class })
		if f.lo != nil {
			lo = max(lo, sort.Search(len(keys), func(i int) bool { return keys[i] >= f.lo.key }))
		}
		if f.hi != nil {
			hi = min(hi, sort.Search(len(keys), func(i int) bool { return keys[i] > f.hi.key }))
		}
	}
	var out []keyed
	for n := 0; n < hi-lo; n++ {
		i := lo + n
		if reverse {
			i = hi - 1 - n
		}
		k := keys[i]
		doc := c.docs[k]
		if !f.matchKey(k) || !f.matchDoc(doc) {
			continue
		}
		out = append(out, keyed{k, doc})
		if limit > 0 && len(out) == limit {
			break
		}
	}
	return out
}

// count returns the number of matching documents.
func (s *store) count(db, name string, f filter) int {
	if f.idEq == nil && f.class == 0 && len(f.fields) == 0 && !f.opaque {
		s.mu.Lock()
		defer s.mu.Unlock()
		if c := s.coll(db, name, false); c != nil {
			return len(c.docs)
		}
		return 0
	}
	return len(s.scan(db, name, f, false, 0))
}
