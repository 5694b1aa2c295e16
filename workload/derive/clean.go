package derive

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/poolsweep/poolsweep/workload/shapes"
)

// clean is a $queryStats shape as a workload file holds it: placeholders
// of types the format does not name (a later server's) become
// "?redacted" (a value of unknown type), and values of types a file does
// not hold become their placeholder.
func clean(d bson.D) bson.D {
	if d == nil {
		return nil
	}
	return cleanValue(d, 0).(bson.D)
}

func cleanStages(p []bson.D) []bson.D {
	if p == nil {
		return nil
	}
	out := make([]bson.D, len(p))
	for i, st := range p {
		out[i] = clean(st)
	}
	return out
}

func cleanValue(v any, depth int) any {
	if depth > shapes.MaxDepth {
		return shapes.Placeholder("object")
	}
	switch x := v.(type) {
	case bson.D:
		out := make(bson.D, len(x))
		for i, e := range x {
			out[i] = bson.E{Key: e.Key, Value: cleanValue(e.Value, depth+1)}
		}
		return out
	case bson.A:
		out := make(bson.A, len(x))
		for i, e := range x {
			out[i] = cleanValue(e, depth+1)
		}
		return out
	case string:
		if strings.HasPrefix(x, "?") {
			if _, _, ok := shapes.ParsePlaceholder(x); !ok {
				return shapes.Placeholder("redacted")
			}
		}
		return x
	case int32:
		return int64(x)
	case int64, float64, bool, nil:
		return x
	}
	typ, _, _ := shapes.TypeOf(v)
	return shapes.Placeholder(typ)
}
