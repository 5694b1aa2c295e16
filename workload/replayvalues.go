package workload

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Values for the placeholders a workload file has no distribution for (a
// $queryStats shape's, a redacted log's): the replay draws them from a
// sample of the collection the shape runs on, so that a filter on email
// is sent an email the collection holds, not a fixed "poolsweep". A read
// shape's sample is of the user's collection (read once, before the first
// step, with a find: the only thing the replay reads besides the shapes
// themselves); a write shape's is its copy's.

// valueSampleDocs is how many documents a read namespace's sample holds.
const valueSampleDocs = 100

// valueSample is one namespace's sampled documents.
type valueSample struct {
	db, coll string
	filter   bson.D // the documents it may hold (nil: any): a copy's own
	docs     []bson.Raw
	paths    sync.Map // placeholder path → its field's path ([]string; nil: none)
}

// read fills the sample with up to n documents of db.coll that v.filter
// matches (the first ones: a find, which every server takes), at most
// maxPayloadBytes.
func (v *valueSample) read(ctx context.Context, client *mongo.Client, n int64) error {
	filter := v.filter
	if filter == nil {
		filter = bson.D{}
	}
	cur, err := client.Database(v.db).Collection(v.coll).Find(ctx, filter, options.Find().SetLimit(n))
	if err != nil {
		return fmt.Errorf("sample %s.%s for the values: %w", v.db, v.coll, err)
	}
	defer cur.Close(context.WithoutCancel(ctx))
	v.docs = v.docs[:0]
	size := 0
	for size < maxPayloadBytes && cur.Next(ctx) {
		v.docs = append(v.docs, bson.Raw(append([]byte(nil), cur.Current...)))
		size += len(cur.Current)
	}
	if err := cur.Err(); err != nil {
		return fmt.Errorf("sample %s.%s for the values: %w", v.db, v.coll, err)
	}
	return nil
}

// draw is Instantiate's fallback for a placeholder at path of type typ:
// the value at the placeholder's field in a sampled document picked at
// random (an element when it holds an array), when it has the type; nil
// otherwise, and Instantiate then sends a fixed value of the type.
func (v *valueSample) draw(path, typ string) any {
	if len(v.docs) == 0 {
		return nil
	}
	field := v.fieldOf(path)
	if field == nil {
		return nil
	}
	val, err := v.docs[rand.IntN(len(v.docs))].LookupErr(field...)
	if err != nil {
		return nil
	}
	if arr, ok := val.ArrayOK(); ok && typ != "array" {
		vals, err := arr.Values()
		if err != nil || len(vals) == 0 {
			return nil
		}
		val = vals[rand.IntN(len(vals))]
	}
	if !ofType(val.Type, typ) {
		return nil
	}
	return val
}

// fieldOf is the document field a placeholder's path stands for:
// "filter.email.$eq", "update.$set.email" and "pipeline.0.$match.email"
// are all email. Operators and array indexes are not fields.
func (v *valueSample) fieldOf(path string) []string {
	if f, ok := v.paths.Load(path); ok {
		return f.([]string)
	}
	parts := strings.Split(path, ".")
	var field []string
	for _, p := range parts[1:] {
		if p != "" && p[0] != '$' && strings.Trim(p, "0123456789") != "" {
			field = append(field, p)
		}
	}
	v.paths.Store(path, field)
	return field
}

// ofType reports whether a BSON value is of a placeholder's type;
// "redacted" takes any.
func ofType(t bson.Type, typ string) bool {
	switch typ {
	case "redacted":
		return true
	case "string":
		return t == bson.TypeString
	case "number":
		return t == bson.TypeInt32 || t == bson.TypeInt64 || t == bson.TypeDouble || t == bson.TypeDecimal128
	case "bool":
		return t == bson.TypeBoolean
	case "date":
		return t == bson.TypeDateTime
	case "objectId":
		return t == bson.TypeObjectID
	case "binData":
		return t == bson.TypeBinary
	case "object":
		return t == bson.TypeEmbeddedDocument
	case "array":
		return t == bson.TypeArray
	case "timestamp":
		return t == bson.TypeTimestamp
	}
	return false
}
