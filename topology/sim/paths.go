package sim

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Dotted paths ("holder.run_id") in filters and updates, as MongoDB serves
// them through embedded documents. A path through an array is not
// supported: a filter on it matches nothing and an update through it is
// refused (PathNotViable), never a silent wrong answer.

// lookupPath finds the value at a dotted path in doc.
func lookupPath(doc bsoncore.Document, path string) (bsoncore.Value, bool) {
	cur := doc
	parts := strings.Split(path, ".")
	for i, p := range parts {
		v, err := cur.LookupErr(p)
		if err != nil {
			return bsoncore.Value{}, false
		}
		if i == len(parts)-1 {
			return v, true
		}
		d, ok := v.DocumentOK()
		if !ok {
			return bsoncore.Value{}, false
		}
		cur = d
	}
	return bsoncore.Value{}, false
}

// dotted reports whether any update field is a dotted path.
func (u update) dotted() bool {
	for _, es := range [][]bsoncore.Element{u.set, u.inc} {
		for _, e := range es {
			if strings.Contains(e.Key(), ".") {
				return true
			}
		}
	}
	for k := range u.unset {
		if strings.Contains(k, ".") {
			return true
		}
	}
	return false
}

// applyPaths applies an operator update with dotted paths on a decoded
// copy of old: $set and $inc create the embedded documents they need, $inc
// follows addNumbers' typing, $unset removes the field if it is there.
func (u update) applyPaths(old bsoncore.Document) (bsoncore.Document, error) {
	var d bson.D
	if err := bson.Unmarshal(old, &d); err != nil {
		return nil, errBadValue("stored document: " + err.Error())
	}
	for _, e := range u.set {
		if err := setPath(&d, strings.Split(e.Key(), "."), rawOf(e.Value())); err != nil {
			return nil, err
		}
	}
	for _, e := range u.inc {
		parts := strings.Split(e.Key(), ".")
		val := e.Value()
		if cur, ok := getPath(d, parts); ok {
			t, data, err := bson.MarshalValue(cur)
			if err != nil {
				return nil, errBadValue(err.Error())
			}
			sum, err := addNumbers(bsoncore.Value{Type: bsoncore.Type(t), Data: data}, val)
			if err != nil {
				return nil, err
			}
			val = sum
		}
		if err := setPath(&d, parts, rawOf(val)); err != nil {
			return nil, err
		}
	}
	for k := range u.unset {
		unsetPath(&d, strings.Split(k, "."))
	}
	out, err := bson.Marshal(d)
	if err != nil {
		return nil, errBadValue(err.Error())
	}
	return out, nil
}

// rawOf keeps a value's BSON type exactly through bson.D.
func rawOf(v bsoncore.Value) bson.RawValue {
	return bson.RawValue{Type: bson.Type(v.Type), Value: v.Data}
}

func getPath(d bson.D, parts []string) (any, bool) {
	for i := range d {
		if d[i].Key != parts[0] {
			continue
		}
		if len(parts) == 1 {
			return d[i].Value, true
		}
		sub, ok := d[i].Value.(bson.D)
		if !ok {
			return nil, false
		}
		return getPath(sub, parts[1:])
	}
	return nil, false
}

// setPath sets parts to v, creating embedded documents on the way; a
// non-document on the way is PathNotViable, as in MongoDB.
func setPath(d *bson.D, parts []string, v any) error {
	for i := range *d {
		e := &(*d)[i]
		if e.Key != parts[0] {
			continue
		}
		if len(parts) == 1 {
			e.Value = v
			return nil
		}
		sub, ok := e.Value.(bson.D)
		if !ok {
			return &cmdError{Code: 28, Name: "PathNotViable", Msg: "Cannot create field '" + parts[1] + "' in element {" + e.Key + ": ...}"}
		}
		if err := setPath(&sub, parts[1:], v); err != nil {
			return err
		}
		e.Value = sub
		return nil
	}
	if len(parts) == 1 {
		*d = append(*d, bson.E{Key: parts[0], Value: v})
		return nil
	}
	sub := bson.D{}
	if err := setPath(&sub, parts[1:], v); err != nil {
		return err
	}
	*d = append(*d, bson.E{Key: parts[0], Value: sub})
	return nil
}

func unsetPath(d *bson.D, parts []string) {
	for i := range *d {
		e := &(*d)[i]
		if e.Key != parts[0] {
			continue
		}
		if len(parts) == 1 {
			*d = append((*d)[:i], (*d)[i+1:]...)
			return
		}
		if sub, ok := e.Value.(bson.D); ok {
			unsetPath(&sub, parts[1:])
			e.Value = sub
		}
		return
	}
}
