package sim

import (
	"math"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// update is a parsed update document: operators ($set, $inc, $unset) or a
// replacement document. Other operators ($push, $max, $currentDate …) and
// pipeline updates are accepted, so that any shape is answered, and not
// applied: the fields they name are left as they were (nModified counts
// only what $set, $inc and $unset changed).
type update struct {
	replacement bsoncore.Document // nil for operator updates
	set         []bsoncore.Element
	inc         []bsoncore.Element
	unset       map[string]bool
}

// parseUpdate validates an update document. Operators other than $set,
// $inc and $unset, and pipeline updates, are accepted and not applied
// (see update): the op is costed as the write it is. Dotted paths reach
// into embedded documents (paths.go).
func parseUpdate(v bsoncore.Value) (update, error) {
	var u update
	if _, ok := v.ArrayOK(); ok {
		return u, nil
	}
	doc, ok := v.DocumentOK()
	if !ok {
		return u, errBadValue("update must be a document or a pipeline")
	}
	elems, err := doc.Elements()
	if err != nil {
		return u, errBadValue("update: " + err.Error())
	}
	if len(elems) == 0 || !strings.HasPrefix(elems[0].Key(), "$") {
		for _, e := range elems {
			if strings.HasPrefix(e.Key(), "$") {
				return u, errBadValue("update mixes operators and fields")
			}
		}
		u.replacement = doc
		return u, nil
	}
	for _, e := range elems {
		fields, ok := e.Value().DocumentOK()
		if !ok {
			return u, errBadValue(e.Key() + " needs a document")
		}
		fe, err := fields.Elements()
		if err != nil {
			return u, errBadValue(e.Key() + ": " + err.Error())
		}
		for _, f := range fe {
			if f.Key() == "_id" || strings.HasPrefix(f.Key(), "_id.") {
				return u, &cmdError{Code: 66, Name: "ImmutableField", Msg: "Performing an update on the path '_id' would modify the immutable field '_id'"}
			}
		}
		switch e.Key() {
		case "$set":
			u.set = append(u.set, fe...)
		case "$inc":
			for _, f := range fe {
				if !f.Value().IsNumber() {
					return u, &cmdError{Code: 14, Name: "TypeMismatch", Msg: "Cannot increment with non-numeric argument: {" + f.Key() + "}"}
				}
			}
			u.inc = append(u.inc, fe...)
		case "$unset":
			if u.unset == nil {
				u.unset = map[string]bool{}
			}
			for _, f := range fe {
				u.unset[f.Key()] = true
			}
		}
		// Any other operator is not applied (see update).
	}
	return u, nil
}

// apply returns the updated document. The old document is not modified.
func (u update) apply(old bsoncore.Document) (bsoncore.Document, error) {
	id, err := old.LookupErr("_id")
	if err != nil {
		return nil, errBadValue("stored document has no _id")
	}
	if u.replacement != nil {
		if rid, err := u.replacement.LookupErr("_id"); err == nil && !rid.Equal(id) {
			return nil, &cmdError{Code: 66, Name: "ImmutableField", Msg: "After applying the update, the (immutable) field '_id' was found to have been altered"}
		}
		idx, dst := bsoncore.AppendDocumentStart(nil)
		dst = bsoncore.AppendValueElement(dst, "_id", id)
		elems, _ := u.replacement.Elements()
		for _, e := range elems {
			if e.Key() != "_id" {
				dst = append(dst, e...)
			}
		}
		dst, _ = bsoncore.AppendDocumentEnd(dst, idx)
		return dst, nil
	}
	if u.dotted() {
		return u.applyPaths(old)
	}
	done := map[string]bool{}
	idx, dst := bsoncore.AppendDocumentStart(nil)
	elems, err := old.Elements()
	if err != nil {
		return nil, errBadValue("stored document: " + err.Error())
	}
	for _, e := range elems {
		key := e.Key()
		switch {
		case u.unset[key]:
			continue
		case findElem(u.set, key) != nil:
			dst = bsoncore.AppendValueElement(dst, key, findElem(u.set, key).Value())
		case findElem(u.inc, key) != nil:
			sum, err := addNumbers(e.Value(), findElem(u.inc, key).Value())
			if err != nil {
				return nil, err
			}
			dst = bsoncore.AppendValueElement(dst, key, sum)
		default:
			dst = append(dst, e...)
		}
		done[key] = true
	}
	// Fields the document lacked are appended, as MongoDB does.
	for _, e := range u.set {
		if !done[e.Key()] {
			dst = append(dst, e...)
			done[e.Key()] = true
		}
	}
	for _, e := range u.inc {
		if !done[e.Key()] {
			dst = append(dst, e...)
			done[e.Key()] = true
		}
	}
	dst, _ = bsoncore.AppendDocumentEnd(dst, idx)
	return dst, nil
}

// findElem returns the last element with key, since a later $set wins.
func findElem(elems []bsoncore.Element, key string) bsoncore.Element {
	for i := len(elems) - 1; i >= 0; i-- {
		if elems[i].Key() == key {
			return elems[i]
		}
	}
	return nil
}

// addNumbers follows MongoDB's $inc typing: int32+int32 stays int32 unless
// it overflows, any int64 makes int64, any double makes double.
func addNumbers(a, b bsoncore.Value) (bsoncore.Value, error) {
	if !a.IsNumber() {
		return bsoncore.Value{}, &cmdError{Code: 14, Name: "TypeMismatch", Msg: "Cannot apply $inc to a value of non-numeric type " + a.Type.String()}
	}
	if a.Type == bsoncore.TypeDouble || b.Type == bsoncore.TypeDouble || a.Type == bsoncore.TypeDecimal128 || b.Type == bsoncore.TypeDecimal128 {
		x, _ := a.AsFloat64OK()
		y, _ := b.AsFloat64OK()
		return bsoncore.Value{Type: bsoncore.TypeDouble, Data: bsoncore.AppendDouble(nil, x+y)}, nil
	}
	x, _ := a.AsInt64OK()
	y, _ := b.AsInt64OK()
	s := x + y
	if (x > 0 && y > 0 && s < 0) || (x < 0 && y < 0 && s >= 0) {
		return bsoncore.Value{}, errBadValue("$inc overflows int64")
	}
	if a.Type == bsoncore.TypeInt32 && b.Type == bsoncore.TypeInt32 && s >= math.MinInt32 && s <= math.MaxInt32 {
		return bsoncore.Value{Type: bsoncore.TypeInt32, Data: bsoncore.AppendInt32(nil, int32(s))}, nil
	}
	return bsoncore.Value{Type: bsoncore.TypeInt64, Data: bsoncore.AppendInt64(nil, s)}, nil
}

// upsertBase builds the document an upsert starts from: the filter's
// equality fields (and _id, generated if the filter has none), then the
// update applied to it.
func upsertBase(filterDoc bsoncore.Document, u update) (bsoncore.Document, bsoncore.Value, error) {
	var id bsoncore.Value
	if v, err := filterDoc.LookupErr("_id"); err == nil {
		if d, ok := v.DocumentOK(); ok {
			if eq, err := d.LookupErr("$eq"); err == nil {
				id = eq
			}
		} else {
			id = v
		}
	}
	if u.replacement != nil {
		if rid, err := u.replacement.LookupErr("_id"); err == nil {
			id = rid
		}
	}
	if id.Type == 0 {
		oid := bson.NewObjectID()
		id = bsoncore.Value{Type: bsoncore.TypeObjectID, Data: bsoncore.AppendObjectID(nil, oid)}
	}
	base := bson.D{{Key: "_id", Value: rawOf(id)}}
	if u.replacement == nil {
		elems, _ := filterDoc.Elements()
		for _, e := range elems {
			if e.Key() == "_id" || strings.HasPrefix(e.Key(), "$") {
				continue
			}
			if d, ok := e.Value().DocumentOK(); ok {
				if first, err := d.IndexErr(0); err == nil && strings.HasPrefix(first.Key(), "$") {
					continue
				}
			}
			// {"a.b": v} upserts {a: {b: v}}, as MongoDB does.
			if err := setPath(&base, strings.Split(e.Key(), "."), rawOf(e.Value())); err != nil {
				return nil, id, err
			}
		}
	}
	dst, err := bson.Marshal(base)
	if err != nil {
		return nil, id, errBadValue(err.Error())
	}
	doc, err := u.apply(dst)
	return doc, id, err
}

// upsertKeyed is upsertBase's document with its store key, ready to insert.
func upsertKeyed(filterDoc bsoncore.Document, u update) (keyed, bsoncore.Value, error) {
	doc, id, err := upsertBase(filterDoc, u)
	if err != nil {
		return keyed{}, id, err
	}
	k, err := keyOf(id)
	return keyed{k, doc}, id, err
}

// dupKeyMsg is mongod's message for a second document with the same _id.
func dupKeyMsg(db, coll string, id bsoncore.Value) string {
	return "E11000 duplicate key error collection: " + db + "." + coll + " index: _id_ dup key: { _id: " + id.String() + " }"
}

// writeError is one failed statement of a write command.
type writeError struct {
	Index int
	Code  int32
	Msg   string
}

// insert stores docs (each already carrying an _id) in order, stopping at
// the first duplicate when ordered. It returns how many were inserted.
func (s *store) insert(db, name string, docs []keyed, ordered bool) (int, []writeError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.coll(db, name, true)
	n := 0
	var errs []writeError
	for i, d := range docs {
		if _, dup := c.docs[d.key]; dup {
			errs = append(errs, writeError{Index: i, Code: 11000, Msg: dupKeyMsg(db, name, d.doc.Lookup("_id"))})
			if ordered {
				break
			}
			continue
		}
		c.put(d.key, d.doc)
		s.record(change{op: chInsert, db: db, coll: name, key: d.key, doc: d.doc})
		n++
	}
	return n, errs
}

// updateResult is the outcome of one update statement on one store.
type updateResult struct {
	matched, modified int
	upserted          *bsoncore.Value
}

// update applies one statement under one lock, so concurrent upserts of one
// _id cannot both insert. Upserts insert only when upsert is set and nothing
// matched.
func (s *store) update(db, name string, f filter, filterDoc bsoncore.Document, u update, multi, upsert bool) (updateResult, error) {
	var r updateResult
	limit := 1
	if multi {
		limit = 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	matches := s.scanLocked(db, name, f, false, limit)
	c := s.coll(db, name, true)
	for _, m := range matches {
		nd, err := u.apply(m.doc)
		if err != nil {
			return r, err
		}
		r.matched++
		if string(nd) != string(m.doc) {
			c.put(m.key, nd)
			s.record(change{op: chUpdate, db: db, coll: name, key: m.key, doc: nd})
			r.modified++
		}
	}
	if r.matched > 0 || !upsert {
		return r, nil
	}
	kd, id, err := upsertKeyed(filterDoc, u)
	if err != nil {
		return r, err
	}
	if _, exists := c.docs[kd.key]; exists {
		// The filter pinned an existing _id but its other fields did not
		// match: MongoDB refuses to insert a second document with that _id.
		return r, &cmdError{Code: 11000, Name: "DuplicateKey", Msg: dupKeyMsg(db, name, id)}
	}
	c.put(kd.key, kd.doc)
	s.record(change{op: chInsert, db: db, coll: name, key: kd.key, doc: kd.doc})
	r.upserted = &id
	return r, nil
}

// delete removes up to limit (0 = all) matching documents.
func (s *store) delete(db, name string, f filter, limit int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	matches := s.scanLocked(db, name, f, false, limit)
	if len(matches) == 0 {
		return 0
	}
	c := s.coll(db, name, false)
	for _, m := range matches {
		c.remove(m.key)
		s.record(change{op: chDelete, db: db, coll: name, key: m.key})
	}
	return len(matches)
}
