package ftdc

import (
	"fmt"
	"math"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Sample rebuilds sample i of the chunk (0 is the reference itself) as a
// document shaped like the reference: its strings and other fields as the
// reference has them, each numeric field with sample i's value in the
// reference's BSON type. A double holds a whole value (FTDC keeps doubles
// truncated), and an int32 field whose value left int32 is written int64.
func (c *Chunk) Sample(i int) (bson.Raw, error) {
	if i < 0 || i >= c.Samples {
		return nil, fmt.Errorf("ftdc: sample %d of a chunk of %d", i, c.Samples)
	}
	if i == 0 {
		return c.Reference, nil
	}
	at := 0
	d, err := c.rebuild(c.Reference, i, &at, 0)
	if err != nil {
		return nil, err
	}
	raw, err := bson.Marshal(d)
	if err != nil {
		return nil, fmt.Errorf("ftdc: sample %d: %w", i, err)
	}
	return raw, nil
}

func (c *Chunk) rebuild(doc bson.Raw, i int, at *int, depth int) (bson.D, error) {
	if depth > maxDepth {
		return nil, corrupt("reference document nested deeper than %d", maxDepth)
	}
	elems, err := doc.Elements()
	if err != nil {
		return nil, corrupt("reference document: %v", err)
	}
	next := func() (int64, error) {
		if *at >= len(c.Metrics) {
			return 0, corrupt("reference document has more numbers than metrics")
		}
		v := c.Metrics[*at].Values[i]
		*at++
		return v, nil
	}
	out := make(bson.D, 0, len(elems))
	for _, e := range elems {
		v := e.Value()
		var val any
		switch v.Type {
		case bson.TypeDouble:
			x, err := next()
			if err != nil {
				return nil, err
			}
			val = float64(x)
		case bson.TypeInt32:
			x, err := next()
			if err != nil {
				return nil, err
			}
			if x >= math.MinInt32 && x <= math.MaxInt32 {
				val = int32(x)
			} else {
				val = x
			}
		case bson.TypeInt64, bson.TypeDecimal128:
			x, err := next()
			if err != nil {
				return nil, err
			}
			val = x
		case bson.TypeBoolean:
			x, err := next()
			if err != nil {
				return nil, err
			}
			val = x != 0
		case bson.TypeDateTime:
			x, err := next()
			if err != nil {
				return nil, err
			}
			val = bson.DateTime(x)
		case bson.TypeTimestamp:
			t, err := next()
			if err != nil {
				return nil, err
			}
			inc, err := next()
			if err != nil {
				return nil, err
			}
			val = bson.Timestamp{T: uint32(t), I: uint32(inc)}
		case bson.TypeEmbeddedDocument, bson.TypeArray:
			sub, err := c.rebuild(bson.Raw(v.Value), i, at, depth+1)
			if err != nil {
				return nil, err
			}
			if v.Type == bson.TypeArray {
				a := make(bson.A, len(sub))
				for j, x := range sub {
					a[j] = x.Value
				}
				val = a
			} else {
				val = sub
			}
		default:
			val = v
		}
		out = append(out, bson.E{Key: e.Key(), Value: val})
	}
	return out, nil
}

// Last returns the newest sample of the chunk and when it was taken (the
// zero time when the chunk has no start field).
func (c *Chunk) Last() (bson.Raw, error) { return c.Sample(c.Samples - 1) }
