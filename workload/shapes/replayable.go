package shapes

import (
	"fmt"
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/poolsweep/poolsweep/internal/mongoname"
)

// What a replay may send. A workload file describes what a deployment
// ran, and may be written by hand; a replay sends its shapes to a live
// server, reads through the user's collections and copies the collections
// it writes into poolsweep's database. So a file is refused, before
// anything connects, when a shape would reach the server's own data or
// write through a pipeline:
//   - a namespace that is the server's own: the admin, local and config
//     databases, and a system.* collection of any database (system.users,
//     system.profile, system.views …), whether the shape names it or a
//     stage of its pipeline reads it ($lookup, $graphLookup, $unionWith);
//   - an aggregation stage that writes ($out, $merge) at any depth: in the
//     pipeline itself or in any sub-pipeline ($facet, $lookup, $unionWith,
//     and whatever other stage holds one), as the server runs them all.
// These are the replay's rules, kept apart from Validate, which says what
// a well-formed file is.

// CheckReplay says whether every shape of f is one a replay may send: a
// *FieldError naming the first shape and field that is not. It holds no
// value of the file: stage operators it names are from a fixed list.
func (f *File) CheckReplay() error {
	for i := range f.Shapes {
		s := &f.Shapes[i]
		field := fmt.Sprintf("shapes[%d]", i)
		bad := func(sub, msg string) error { return &FieldError{Field: field + "." + sub, Line: s.line, Msg: msg} }
		switch {
		case mongoname.SystemDatabase(s.Database):
			return bad("database", "a system database (admin, local or config): a replay runs only on an application's own collections")
		case mongoname.SystemCollection(s.Collection):
			return bad("collection", "a system collection (system.*): a replay runs only on an application's own collections")
		}
		for _, sec := range []struct {
			name string
			p    []bson.D
		}{{"pipeline", s.Pipeline}, {"update_pipeline", s.UpdatePipeline}} {
			for j, st := range sec.p {
				if msg := checkStage(s.Database, st, 0, ""); msg != "" {
					return bad(sec.name+"["+strconv.Itoa(j)+"]", msg)
				}
			}
		}
	}
	return nil
}

// checkStage walks v, a stage or any value inside one, to the bottom:
// every document and array, so that a write stage or a system namespace
// is found in whatever holds a sub-pipeline. db is the database the
// stages run in; within names the enclosing stage, for the message.
// The walk stops at MaxDepth, as the reader does: what it cannot see to
// the bottom it refuses.
func checkStage(db string, v any, depth int, within string) string {
	if depth > MaxDepth {
		return fmt.Sprintf("nests deeper than %d levels, past what the replay checks", MaxDepth)
	}
	switch x := v.(type) {
	case bson.D:
		for _, e := range x {
			if msg := checkOperator(db, e, within); msg != "" {
				return msg
			}
			in := within
			if in == "" && strings.HasPrefix(e.Key, "$") && subPipelineStages[e.Key] {
				in = " inside " + e.Key
			}
			if msg := checkStage(db, e.Value, depth+1, in); msg != "" {
				return msg
			}
		}
	case bson.A:
		for _, e := range x {
			if msg := checkStage(db, e, depth+1, within); msg != "" {
				return msg
			}
		}
	case []bson.D:
		for _, e := range x {
			if msg := checkStage(db, e, depth+1, within); msg != "" {
				return msg
			}
		}
	case []any:
		for _, e := range x {
			if msg := checkStage(db, e, depth+1, within); msg != "" {
				return msg
			}
		}
	}
	return ""
}

// subPipelineStages are the stages whose names the messages say when a
// write stage is found inside them; the walk itself goes into every stage.
var subPipelineStages = map[string]bool{"$facet": true, "$lookup": true, "$unionWith": true}

// checkOperator says what is wrong with one element of a stage, or "".
func checkOperator(db string, e bson.E, within string) string {
	const own = "a replay runs only on an application's own collections"
	switch e.Key {
	case "$out", "$merge":
		return e.Key + within + ": an aggregation that writes; a replay never writes through a pipeline: remove the shape and scale the others' shares"
	case "$lookup", "$graphLookup":
		if d, ok := e.Value.(bson.D); ok {
			if from, ok := lookup(d, "from"); ok && internalNamespace(db, from) {
				return e.Key + within + " reads a system collection or database: " + own
			}
		}
	case "$unionWith":
		coll := e.Value
		if d, ok := e.Value.(bson.D); ok {
			coll, _ = lookup(d, "coll")
		}
		if internalNamespace(db, coll) {
			return e.Key + within + " reads a system collection: " + own
		}
	}
	return ""
}

// internalNamespace reports whether from, a stage's collection (a name in
// the shape's database db, or {db, coll}), is the server's own.
func internalNamespace(db string, from any) bool {
	switch x := from.(type) {
	case string:
		return mongoname.SystemDatabase(db) || mongoname.SystemCollection(x)
	case bson.D:
		d, _ := lookup(x, "db")
		c, _ := lookup(x, "coll")
		ds, _ := d.(string)
		cs, _ := c.(string)
		return mongoname.SystemDatabase(ds) || mongoname.SystemCollection(cs)
	}
	return false
}

func lookup(d bson.D, key string) (any, bool) {
	for _, e := range d {
		if e.Key == key {
			return e.Value, true
		}
	}
	return nil, false
}

// Line is where the reader found the shape in its file (0 for a shape
// built in code), for errors found after reading.
func (s *Shape) Line() int { return s.line }
