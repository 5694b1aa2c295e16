package shapes

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Classes a shape is costed by (Class).
const (
	ClassRead      = "read"
	ClassWrite     = "write"
	ClassScan      = "scan"
	ClassAggregate = "aggregate"
)

// scanDocs is the mean documents examined past which a read is a scan.
const scanDocs = 1000

// Class is what the simulator costs the shape by: writes (update, delete,
// insert, findAndModify), aggregations, and reads, which are scans when
// the input saw them scan (a COLLSCAN plan, or a thousand documents
// examined on average).
func (s *Shape) Class() string {
	switch s.Command {
	case CmdUpdate, CmdDelete, CmdInsert, CmdFindAndModify:
		return ClassWrite
	case CmdAggregate:
		return ClassAggregate
	}
	if strings.Contains(s.Observed.Plan, "COLLSCAN") {
		return ClassScan
	}
	if d := s.Observed.DocsExamined; d != nil && d.Mean >= scanDocs {
		return ClassScan
	}
	return ClassRead
}

// Instantiate returns the shape's command for one call, with every
// placeholder replaced by a value drawn from its distribution (or, with
// none, a value of its type from fallback, which may be nil: then a fixed
// value of the type). The command's first element names s.Collection; it
// carries no "$db": the caller chooses the database, and replaces the
// collection (cmd[0].Value) to run it elsewhere, as a replay's writes do.
// An insert's documents, which no log holds, come from
// fallback("document", "object") (a bson.D), or are an _id alone.
func (s *Shape) Instantiate(r *rand.Rand, fallback func(path, typ string) any) (bson.D, error) {
	in := instantiator{s: s, r: r, fallback: fallback}
	filter := in.doc("filter", s.Filter)
	var cmd bson.D
	switch s.Command {
	case CmdFind:
		cmd = bson.D{{Key: "find", Value: s.Collection}, {Key: "filter", Value: filter}}
		cmd = in.appendDoc(cmd, "projection", "projection", s.Projection)
		cmd = in.appendDoc(cmd, "sort", "sort", s.Sort)
		cmd = appendInt(cmd, "skip", s.Skip)
		cmd = appendInt(cmd, "limit", s.Limit)
	case CmdAggregate:
		cmd = bson.D{{Key: "aggregate", Value: s.Collection}, {Key: "pipeline", Value: in.stages("pipeline", s.Pipeline)},
			{Key: "cursor", Value: bson.D{}}}
	case CmdCount:
		cmd = bson.D{{Key: "count", Value: s.Collection}, {Key: "query", Value: filter}}
		cmd = appendInt(cmd, "skip", s.Skip)
		cmd = appendInt(cmd, "limit", s.Limit)
	case CmdDistinct:
		cmd = bson.D{{Key: "distinct", Value: s.Collection}, {Key: "key", Value: s.Key}, {Key: "query", Value: filter}}
	case CmdUpdate:
		u := bson.D{{Key: "q", Value: filter}, {Key: "u", Value: in.update()}}
		if s.Multi {
			u = append(u, bson.E{Key: "multi", Value: true})
		}
		if s.Upsert {
			u = append(u, bson.E{Key: "upsert", Value: true})
		}
		cmd = bson.D{{Key: "update", Value: s.Collection}, {Key: "updates", Value: bson.A{u}}}
	case CmdDelete:
		limit := int32(1)
		if s.Multi {
			limit = 0
		}
		cmd = bson.D{{Key: "delete", Value: s.Collection},
			{Key: "deletes", Value: bson.A{bson.D{{Key: "q", Value: filter}, {Key: "limit", Value: limit}}}}}
	case CmdInsert:
		docs := make(bson.A, 0, min(max(s.InsertDocs, 1), 1024))
		for range max(s.InsertDocs, 1) {
			d := in.insertDoc()
			if !in.grow(sizeOf(d, 0)) {
				break
			}
			docs = append(docs, d)
		}
		cmd = bson.D{{Key: "insert", Value: s.Collection}, {Key: "documents", Value: docs}}
	case CmdFindAndModify:
		cmd = bson.D{{Key: "findAndModify", Value: s.Collection}, {Key: "query", Value: filter}}
		cmd = in.appendDoc(cmd, "sort", "sort", s.Sort)
		if s.Remove {
			cmd = append(cmd, bson.E{Key: "remove", Value: true})
		} else {
			cmd = append(cmd, bson.E{Key: "update", Value: in.update()})
		}
		cmd = in.appendDoc(cmd, "fields", "projection", s.Projection)
		if s.Upsert {
			cmd = append(cmd, bson.E{Key: "upsert", Value: true})
		}
	default:
		return nil, fmt.Errorf("shape %s: command %q is not one a shape may have", s.ID, s.Command)
	}
	if in.err != nil {
		return nil, fmt.Errorf("shape %s: %w", s.ID, in.err)
	}
	return cmd, nil
}

func appendInt(cmd bson.D, key string, v *int64) bson.D {
	if v == nil {
		return cmd
	}
	return append(cmd, bson.E{Key: key, Value: *v})
}

type instantiator struct {
	s        *Shape
	r        *rand.Rand
	fallback func(path, typ string) any
	err      error
	// size is about the BSON bytes built so far: past MaxCommandBytes
	// the command stops growing and the call fails, naming the shape, so
	// that values sampled from a collection (or an insert's many
	// documents) cannot grow a command, and the client's memory, without
	// bound.
	size int64
}

// grow counts n more bytes of the command, and says whether it still fits.
func (in *instantiator) grow(n int64) bool {
	if in.err != nil {
		return false
	}
	in.size += n
	if in.size > MaxCommandBytes {
		in.err = fmt.Errorf("its command would be larger than the %d MiB MongoDB takes (values sampled from the collection, or documents per insert, add up to more)", MaxCommandBytes>>20)
		return false
	}
	return true
}

// sizeOf is about the BSON size of a value the instantiator builds.
func sizeOf(v any, depth int) int64 {
	switch x := v.(type) {
	case string:
		return int64(len(x)) + 5
	case bson.D:
		n := int64(5)
		for _, e := range x {
			n += int64(len(e.Key)) + 2
			if depth < 2*MaxDepth {
				n += sizeOf(e.Value, depth+1)
			}
		}
		return n
	case bson.A:
		n := int64(5)
		for _, e := range x {
			n += 8
			if depth < 2*MaxDepth {
				n += sizeOf(e, depth+1)
			}
		}
		return n
	case bson.RawValue:
		return int64(len(x.Value)) + 1
	case bson.Raw:
		return int64(len(x))
	case bson.Binary:
		return int64(len(x.Data)) + 5
	case bson.Regex:
		return int64(len(x.Pattern)+len(x.Options)) + 2
	}
	return 8
}

func (in *instantiator) appendDoc(cmd bson.D, key, section string, d bson.D) bson.D {
	if len(d) == 0 {
		return cmd
	}
	return append(cmd, bson.E{Key: key, Value: in.doc(section, d)})
}

func (in *instantiator) update() any {
	if in.s.UpdatePipeline != nil {
		return in.stages("update_pipeline", in.s.UpdatePipeline)
	}
	return in.doc("update", in.s.Update)
}

func (in *instantiator) stages(section string, p []bson.D) bson.A {
	out := make(bson.A, len(p))
	for i, st := range p {
		out[i] = in.doc(section+"."+strconv.Itoa(i), st)
	}
	return out
}

func (in *instantiator) doc(path string, d bson.D) bson.D {
	out := make(bson.D, len(d))
	for i, e := range d {
		out[i] = bson.E{Key: e.Key, Value: in.value(path+"."+e.Key, e.Value)}
	}
	return out
}

func (in *instantiator) value(path string, v any) any {
	switch x := v.(type) {
	case bson.D:
		return in.doc(path, x)
	case bson.A:
		out := make(bson.A, len(x))
		for i, e := range x {
			out[i] = in.value(path+"."+strconv.Itoa(i), e)
		}
		return out
	case string:
		typ, elem, ok := ParsePlaceholder(x)
		if !ok {
			in.grow(int64(len(x)) + 5)
			return x
		}
		if typ == "array" {
			return in.array(path, elem)
		}
		v := in.draw(path, typ)
		in.grow(sizeOf(v, 0))
		return v
	}
	in.grow(8)
	return v
}

// array is an "?array<?elem>" placeholder's value: as many elements as its
// arrays had at the median, each drawn, while the command fits.
func (in *instantiator) array(path, elem string) bson.A {
	length := 1.0
	if d, ok := in.s.Values[path]; ok && d.Length != nil {
		length = 0
		if l := math.Round(d.Length.P50); l > 0 { // NaN stays 0
			length = l
		}
	}
	if elem == "" {
		return bson.A{}
	}
	// Each element takes at least a type byte, its index and a byte of
	// value: a length the command cannot hold fails before anything is
	// allocated (Validate refuses it in a file; a File built in code
	// still ends here).
	if length > MaxArrayLength || !in.grow(4*int64(length)) {
		in.grow(MaxCommandBytes + 1)
		return bson.A{}
	}
	n := int(length)
	out := make(bson.A, 0, min(n, 1024))
	for range n {
		v := in.draw(path, elem)
		if !in.grow(4 + sizeOf(v, 0)) {
			break
		}
		out = append(out, v)
	}
	return out
}

func (in *instantiator) draw(path, typ string) any {
	if d, ok := in.s.Values[path]; ok {
		if v, ok := d.Draw(in.r); ok {
			t := typ
			if t == "mixed" || t == "redacted" {
				t = d.Type
			}
			return toBSON(t, v, d.Integer)
		}
	}
	if in.fallback != nil {
		if v := in.fallback(path, typ); v != nil {
			return v
		}
	}
	return fixed(typ, in.r)
}

// toBSON is a value as the file keeps it, as the BSON type it stands for.
func toBSON(typ string, v any, integer bool) any {
	switch typ {
	case "number":
		switch x := v.(type) {
		case int64:
			return x
		case float64:
			if integer && x == math.Trunc(x) && math.Abs(x) < 1<<53 {
				return int64(x)
			}
			return x
		}
	case "date":
		switch x := v.(type) {
		case int64:
			return bson.DateTime(x)
		case float64:
			return bson.DateTime(toInt64(x))
		}
	case "objectId":
		if s, ok := v.(string); ok {
			if id, err := bson.ObjectIDFromHex(s); err == nil {
				return id
			}
		}
	case "regex":
		if s, ok := v.(string); ok {
			return bson.Regex{Pattern: s}
		}
	}
	return v
}

// fixed is a value of the type when nothing says which: the replay still
// sends a well-typed command.
func fixed(typ string, r *rand.Rand) any {
	switch typ {
	case "string", "redacted", "mixed":
		return "poolsweep"
	case "number":
		return int64(0)
	case "bool":
		return false
	case "date":
		return bson.DateTime(0)
	case "objectId":
		return randomID(r)
	case "binData":
		return bson.Binary{Data: []byte("poolsweep")}
	case "regex":
		return bson.Regex{Pattern: "^poolsweep"}
	case "timestamp":
		return bson.Timestamp{T: 1}
	case "minKey":
		return bson.MinKey{}
	case "maxKey":
		return bson.MaxKey{}
	case "object":
		return bson.D{}
	case "array":
		return bson.A{}
	}
	return nil
}

func randomID(r *rand.Rand) bson.ObjectID {
	var id bson.ObjectID
	for i := range id {
		id[i] = byte(r.UintN(256))
	}
	return id
}

func (in *instantiator) insertDoc() any {
	if in.fallback != nil {
		if d, ok := in.fallback("document", "object").(bson.D); ok {
			return d
		}
	}
	return bson.D{{Key: "_id", Value: randomID(in.r)}}
}
