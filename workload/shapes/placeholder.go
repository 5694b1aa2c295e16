package shapes

import (
	"math"
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Types a placeholder may name, as $queryStats' representative shapes do
// ("?string"); "redacted" is a value redactClientLogData hid, whose type
// the log does not say.
var placeholderTypes = map[string]bool{
	"string": true, "number": true, "bool": true, "date": true, "objectId": true, "binData": true,
	"null": true, "array": true, "object": true, "regex": true, "timestamp": true, "minKey": true,
	"maxKey": true, "redacted": true, "mixed": true,
}

// Redacted is how mongod's log shows a value under redactClientLogData.
const Redacted = "###"

// Placeholder is the placeholder of type typ ("?string").
func Placeholder(typ string) string { return "?" + typ }

// ArrayPlaceholder is the placeholder of an array whose elements are of
// type elem ("?array<?string>"); "?array<>" when it was empty.
func ArrayPlaceholder(elem string) string {
	if elem == "" {
		return "?array<>"
	}
	return "?array<?" + elem + ">"
}

// ParsePlaceholder says whether s is a placeholder and of what type; an
// array's placeholder gives typ "array" and its elements' type in elem.
func ParsePlaceholder(s string) (typ, elem string, ok bool) {
	if !strings.HasPrefix(s, "?") {
		return "", "", false
	}
	t := s[1:]
	if rest, isArr := strings.CutPrefix(t, "array<"); isArr && strings.HasSuffix(rest, ">") {
		e := strings.TrimSuffix(rest, ">")
		if e == "" {
			return "array", "", true
		}
		if e2, ok2 := strings.CutPrefix(e, "?"); ok2 && placeholderTypes[e2] && e2 != "array" {
			return "array", e2, true
		}
		return "", "", false
	}
	if placeholderTypes[t] && t != "mixed" {
		return t, "", true
	}
	return "", "", false
}

// Literal is one literal value Abstract replaced: the placeholder's path,
// the value's type, and the value as a workload file keeps it (a string,
// an int64, a float64, a bool; a date as milliseconds, an ObjectId as its
// hex). An array's placeholder gives its elements in Values; a scalar's
// Values holds its one value, or nothing when the value cannot be kept
// (redacted, binary).
type Literal struct {
	Path   string
	Type   string
	Values []any
	Array  bool
}

// Abstract is doc with its literal values replaced by placeholders, and
// the literals it replaced. section names where doc sits in its shape
// ("filter", "update", "projection", "sort", "pipeline") and is the first
// element of every literal's path.
//
// In a filter or an update (and a pipeline's $match) every value is a
// literal: a value of an operator ($gte: 18), a field compared with
// ($eq implied), an update's new value. An embedded document there is
// "?object" and a list of values "?array<?type>", as $queryStats shows
// them. Elsewhere (projection, sort, the other stages) numbers, booleans
// and "$field" paths are the command's structure and stay as they were
// (sort directions, $limit's count, $sum: 1); other strings and values are
// literals.
func Abstract(section string, doc bson.D) (bson.D, []Literal) {
	a := abstracter{}
	switch section {
	case "update":
		// An update's operators ($set, $inc) each take a document of
		// fields and their new values; a replacement is fields alone.
		out := make(bson.D, 0, len(doc))
		for _, e := range doc {
			p := section + "." + e.Key
			if m, ok := e.Value.(bson.D); ok && strings.HasPrefix(e.Key, "$") {
				out = append(out, bson.E{Key: e.Key, Value: a.doc(p, m, modeFields, 1)})
			} else {
				out = append(out, bson.E{Key: e.Key, Value: a.literalValue(p, e.Value, 1)})
			}
		}
		return out, a.lits
	case "filter":
		return a.doc(section, doc, modeFilter, 0), a.lits
	}
	return a.doc(section, doc, modeStruct, 0), a.lits
}

// AbstractStages is Abstract for a pipeline: each stage under
// "pipeline.N" (or section.N).
func AbstractStages(section string, stages []bson.D) ([]bson.D, []Literal) {
	a := abstracter{}
	out := make([]bson.D, len(stages))
	for i, st := range stages {
		out[i] = a.doc(section+"."+strconv.Itoa(i), st, modeStruct, 0)
	}
	return out, a.lits
}

type abstracter struct{ lits []Literal }

// How a document's values are read: the structure of a projection, sort or
// stage; a filter, whose fields' plain values are equalities ($queryStats
// writes {a: 1} as {a: {$eq: "?number"}}); or an update's fields and their
// new values.
type mode int

const (
	modeStruct mode = iota
	modeFilter
	modeFields
)

func (a *abstracter) doc(path string, d bson.D, m mode, depth int) bson.D {
	literal := m != modeStruct
	out := make(bson.D, 0, len(d))
	for _, e := range d {
		p := path + "." + e.Key
		if depth >= MaxDepth {
			out = append(out, bson.E{Key: e.Key, Value: Placeholder("object")})
			continue
		}
		switch {
		case literal && e.Key == "$expr":
			// An aggregation expression: "$field" paths are structure.
			out = append(out, bson.E{Key: e.Key, Value: a.structValue(p, e.Value, depth+1)})
			continue
		case literal && e.Key == "$elemMatch":
			if sub, ok := e.Value.(bson.D); ok {
				out = append(out, bson.E{Key: e.Key, Value: a.doc(p, sub, modeFilter, depth+1)})
				continue
			}
		case !literal && e.Key == "$match":
			if sub, ok := e.Value.(bson.D); ok {
				out = append(out, bson.E{Key: e.Key, Value: a.doc(p, sub, modeFilter, depth+1)})
				continue
			}
		case m == modeFilter && !strings.HasPrefix(e.Key, "$") && isEquality(e.Value):
			eq := bson.D{{Key: "$eq", Value: a.literalValue(p+".$eq", e.Value, depth+1)}}
			out = append(out, bson.E{Key: e.Key, Value: eq})
			continue
		case !literal && e.Key == "$literal":
			out = append(out, bson.E{Key: e.Key, Value: a.leaf(p, e.Value)})
			continue
		}
		if literal {
			out = append(out, bson.E{Key: e.Key, Value: a.literalValue(p, e.Value, depth+1)})
		} else {
			out = append(out, bson.E{Key: e.Key, Value: a.structValue(p, e.Value, depth+1)})
		}
	}
	return out
}

// literalValue is a filter's or an update's value: an operator document
// is walked, anything else is a literal.
func (a *abstracter) literalValue(path string, v any, depth int) any {
	switch x := v.(type) {
	case bson.D:
		if len(x) > 0 && strings.HasPrefix(x[0].Key, "$") {
			return a.doc(path, x, modeFilter, depth)
		}
		if len(x) == 0 {
			return bson.D{}
		}
		return a.leaf(path, v)
	case bson.A:
		if allDocs(x) && len(x) > 0 {
			// $and, $or, $nor, $each of documents: each is a filter again.
			out := make(bson.A, len(x))
			for i, e := range x {
				out[i] = a.doc(path+"."+strconv.Itoa(i), e.(bson.D), modeFilter, depth+1)
			}
			return out
		}
	}
	return a.leaf(path, v)
}

// structValue is a value of a projection, a sort or a stage.
func (a *abstracter) structValue(path string, v any, depth int) any {
	switch x := v.(type) {
	case bson.D:
		return a.doc(path, x, modeStruct, depth)
	case bson.A:
		out := make(bson.A, len(x))
		for i, e := range x {
			out[i] = a.structValue(path+"."+strconv.Itoa(i), e, depth+1)
		}
		return out
	case int32, int64, int, float64, bool, nil:
		return x
	case string:
		if strings.HasPrefix(x, "$") {
			return x
		}
	}
	return a.leaf(path, v)
}

// leaf replaces one literal by its placeholder and keeps its value.
func (a *abstracter) leaf(path string, v any) string {
	if arr, ok := v.(bson.A); ok {
		lit := Literal{Path: path, Array: true}
		for _, e := range arr {
			t, val, keep := TypeOf(e)
			switch {
			case lit.Type == "":
				lit.Type = t
			case lit.Type != t:
				lit.Type = "mixed"
			}
			if keep {
				lit.Values = append(lit.Values, val)
			}
		}
		if lit.Type == "array" || lit.Type == "object" {
			lit.Values = nil
		}
		a.lits = append(a.lits, lit)
		return ArrayPlaceholder(lit.Type)
	}
	t, val, keep := TypeOf(v)
	lit := Literal{Path: path, Type: t}
	if keep {
		lit.Values = []any{val}
	}
	a.lits = append(a.lits, lit)
	return Placeholder(t)
}

// isEquality says whether a filter field's value is a plain value (an
// implied $eq) rather than operators or a regular expression.
func isEquality(v any) bool {
	switch x := v.(type) {
	case bson.D:
		return len(x) == 0 || !strings.HasPrefix(x[0].Key, "$")
	case bson.Regex:
		return false
	}
	return true
}

func allDocs(a bson.A) bool {
	for _, e := range a {
		if _, ok := e.(bson.D); !ok {
			return false
		}
	}
	return true
}

// TypeOf is a value's placeholder type and the value as a workload file
// keeps it; keep is false when there is nothing worth keeping (a redacted
// value, a document, binary data).
func TypeOf(v any) (typ string, value any, keep bool) {
	switch x := v.(type) {
	case string:
		if x == Redacted {
			return "redacted", nil, false
		}
		return "string", x, true
	case int32:
		return "number", int64(x), true
	case int64:
		return "number", x, true
	case int:
		return "number", int64(x), true
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return "number", nil, false
		}
		return "number", x, true
	case bson.Decimal128:
		f, err := strconv.ParseFloat(x.String(), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return "number", nil, false
		}
		return "number", f, true
	case bool:
		return "bool", x, true
	case nil, bson.Null, bson.Undefined:
		return "null", nil, false
	case bson.DateTime:
		return "date", int64(x), true
	case bson.ObjectID:
		return "objectId", x.Hex(), true
	case bson.Regex:
		return "regex", x.Pattern, true
	case bson.Binary:
		return "binData", nil, false
	case bson.Timestamp:
		return "timestamp", nil, false
	case bson.MinKey:
		return "minKey", nil, false
	case bson.MaxKey:
		return "maxKey", nil, false
	case bson.D, bson.M:
		return "object", nil, false
	case bson.A:
		return "array", nil, false
	}
	return "object", nil, false
}
