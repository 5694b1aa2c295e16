package shapes

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// MarshalJSON writes the shape with its documents as JSON objects in their
// order (a sort's keys, a pipeline's stages), as the shell shows them.
func (s Shape) MarshalJSON() ([]byte, error) {
	type plain Shape // the fields without their documents' BSON form
	var err error
	doc := func(d bson.D) json.RawMessage {
		if d == nil || err != nil {
			return nil
		}
		var b bytes.Buffer
		err = writeJSON(&b, d, 0)
		return b.Bytes()
	}
	stages := func(p []bson.D) json.RawMessage {
		if p == nil || err != nil {
			return nil
		}
		a := make(bson.A, len(p))
		for i := range p {
			a[i] = p[i]
		}
		var b bytes.Buffer
		err = writeJSON(&b, a, 0)
		return b.Bytes()
	}
	out := struct {
		plain
		Filter         json.RawMessage `json:"filter,omitempty"`
		Projection     json.RawMessage `json:"projection,omitempty"`
		Sort           json.RawMessage `json:"sort,omitempty"`
		Pipeline       json.RawMessage `json:"pipeline,omitempty"`
		Update         json.RawMessage `json:"update,omitempty"`
		UpdatePipeline json.RawMessage `json:"update_pipeline,omitempty"`
	}{plain: plain(s), Filter: doc(s.Filter), Projection: doc(s.Projection), Sort: doc(s.Sort),
		Pipeline: stages(s.Pipeline), Update: doc(s.Update), UpdatePipeline: stages(s.UpdatePipeline)}
	if err != nil {
		return nil, fmt.Errorf("shape %s: %w", s.ID, err)
	}
	return json.Marshal(out)
}

func writeJSON(b *bytes.Buffer, v any, depth int) error {
	if depth > MaxDepth {
		return errDepth
	}
	switch x := v.(type) {
	case bson.D:
		b.WriteByte('{')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			k, _ := json.Marshal(e.Key)
			b.Write(k)
			b.WriteByte(':')
			if err := writeJSON(b, e.Value, depth+1); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case bson.A:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeJSON(b, e, depth+1); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case string, bool, nil, int, int32, int64:
		j, _ := json.Marshal(x)
		b.Write(j)
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("a number that is not finite")
		}
		j, _ := json.Marshal(x)
		b.Write(j)
	default:
		return fmt.Errorf("a value of type %T, which a shape does not hold", v)
	}
	return nil
}
