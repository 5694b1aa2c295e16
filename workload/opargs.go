package workload

import (
	"encoding/binary"
	"math/rand/v2"
	"strconv"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// OpArgs holds a worker's next op arguments in buffers it reuses, and the
// filters and updates that point at them, built once per worker. A filter
// made per op (a bson.D boxed into an interface, a key string, a value
// string) costs three or four allocations the bare driver loop also pays;
// with OpArgs the worker's own per-op path allocates nothing, and the
// driver's allocations are all that is left. The driver encodes a filter
// before the op returns, so rewriting the buffers for the next op is safe.
type OpArgs struct {
	id    bson.RawValue // the record's _id, a BSON string
	value bson.RawValue // an update's new field value, a BSON string
	set   bson.D        // {field: value}; its one element's Key is rewritten per op
	ScanN int           // a scan's limit, drawn by the worker

	ByID   any // {_id: id}
	Update any // {$set: set}
	FromID any // {_id: {$gte: id}}
}

// NewOpArgs makes a worker's buffers and the filters that point at them.
func NewOpArgs() *OpArgs {
	a := &OpArgs{id: bson.RawValue{Type: bson.TypeString}, value: bson.RawValue{Type: bson.TypeString}}
	a.set = bson.D{{Value: &a.value}}
	a.ByID = bson.D{{Key: "_id", Value: &a.id}}
	a.Update = bson.D{{Key: "$set", Value: a.set}}
	a.FromID = bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: &a.id}}}}
	return a
}

// SetKey makes the _id the key of record n (Key(n)).
func (a *OpArgs) SetKey(n int64) {
	b := beginBSONString(a.id.Value[:0])
	b = appendKey(b, n)
	a.id.Value = endBSONString(b)
}

// SetField makes the update set field to a random string of length n.
func (a *OpArgs) SetField(field string, r *rand.Rand, n int) {
	a.set[0].Key = field
	b := beginBSONString(a.value.Value[:0])
	b = appendRandom(b, r, n)
	a.value.Value = endBSONString(b)
}

// appendKey appends Key(n): "user" and n in decimal.
func appendKey(b []byte, n int64) []byte {
	return strconv.AppendInt(append(b, "user"...), n, 10)
}

// beginBSONString starts a BSON string value in b (empty): its int32
// length, written by endBSONString once the bytes are in.
func beginBSONString(b []byte) []byte { return append(b, 0, 0, 0, 0) }

// endBSONString ends a BSON string value begun by beginBSONString: the
// terminating NUL, and the length (bytes and NUL) in front.
func endBSONString(b []byte) []byte {
	b = append(b, 0)
	binary.LittleEndian.PutUint32(b, uint32(len(b)-4))
	return b
}
