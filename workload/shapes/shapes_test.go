package shapes

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func ptr[T any](v T) *T { return &v }

func eq(v any) bson.D { return bson.D{{Key: "$eq", Value: v}} }

// sample is a file with one shape of each kind of document, the values a
// round trip must keep.
func sample() *File {
	find := Shape{Name: "find app.users", Database: "app", Collection: "users", Command: CmdFind, Share: 0.5, Count: 50,
		Filter:     bson.D{{Key: "email", Value: "?string"}, {Key: "age", Value: bson.D{{Key: "$gte", Value: "?number"}}}},
		Projection: bson.D{{Key: "name", Value: int64(1)}},
		Sort:       bson.D{{Key: "createdAt", Value: int64(-1)}, {Key: "_id", Value: int64(1)}},
		Limit:      ptr(int64(20)),
		Values: map[string]Distribution{
			"filter.email":    {Dist: DistEmpirical, Type: "string", Values: []any{"a@x", "b@x"}, Weights: []float64{0.75, 0.25}, N: 40},
			"filter.age.$gte": {Dist: DistUniform, Type: "number", Min: 18, Max: 90, Integer: true, N: 40, Fit: "uniform, KS D=0.05"},
		},
		DocBytes: &Summary{Mean: 812, P50: 790, P99: 2100},
		Observed: Observed{LatencyMs: &Summary{Mean: 3.1, P50: 2, P99: 19}, Plan: "IXSCAN { email: 1 }"}}
	agg := Shape{Name: "aggregate app.orders", Database: "app", Collection: "orders", Command: CmdAggregate, Share: 0.3, Count: 30,
		Pipeline: []bson.D{
			{{Key: "$match", Value: bson.D{{Key: "status", Value: "?string"}}}},
			{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$region"}, {Key: "n", Value: bson.D{{Key: "$sum", Value: int64(1)}}}}}},
		},
		Values: map[string]Distribution{
			"pipeline.0.$match.status": {Dist: DistZipfian, Type: "string", Values: []any{"new", "paid", "sent"}, Theta: 0.99, N: 30},
		}}
	upd := Shape{Name: "update app.users", Database: "app", Collection: "users", Command: CmdUpdate, Share: 0.2, Count: 20,
		Filter: bson.D{{Key: "_id", Value: "?objectId"}},
		Update: bson.D{{Key: "$set", Value: bson.D{{Key: "status", Value: "?string"}}}, {Key: "$inc", Value: bson.D{{Key: "n", Value: "?number"}}}},
		Upsert: true}
	f := &File{Kind: Kind, Version: Version, Source: Source{Format: FormatMongodLog, Files: 1, Lines: 120, Operations: 100,
		SlowMs: ptr(0.0), SampleRate: ptr(1.0), Complete: true}, Caveats: []string{"insert payloads are not in the log"},
		Shapes: []Shape{find, agg, upd}}
	for i := range f.Shapes {
		f.Shapes[i].ID = f.Shapes[i].ShapeID()
	}
	return f
}

// TestRoundTrip: Marshal then Parse gives the same file, key order included.
func TestRoundTrip(t *testing.T) {
	f := sample()
	b, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	g, err := Parse(b, "w.yaml")
	if err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	for i := range g.Shapes {
		g.Shapes[i].line = 0
	}
	if !reflect.DeepEqual(f, g) {
		t.Fatalf("round trip changed the file:\n%s\nwant %+v\ngot  %+v", b, f.Shapes, g.Shapes)
	}
	if !strings.Contains(string(b), "sort: {createdAt: -1, _id: 1}") {
		t.Errorf("sort not written in its order, as the shell would:\n%s", b)
	}
	b2, err := g.Marshal()
	if err != nil || string(b2) != string(b) {
		t.Errorf("second Marshal differs (err %v)", err)
	}
}

// TestParseErrors: each bad file names its line and what is wrong, and
// never what the line held (the secret).
func TestParseErrors(t *testing.T) {
	good, err := sample().Marshal()
	if err != nil {
		t.Fatal(err)
	}
	g := string(good)
	rows := []struct {
		name, file, want string
		line             bool
	}{
		// Not YAML at all.
		{"syntax", "kind: [SECRET\n", "not valid YAML", true},
		// A list where the file is a mapping.
		{"not a mapping", "- SECRET\n", "not a workload file", false},
		// A key the format does not have is named by its line only.
		{"unknown key", strings.Replace(g, "kind:", "SECRET: 1\nkind:", 1), "a key the format does not have", true},
		// A string where a number goes.
		{"wrong type", strings.Replace(g, "count: 50", "count: SECRET", 1), "a value of the wrong type", true},
		{"kind", strings.Replace(g, "kind: poolsweep-workload", "kind: SECRET", 1), "kind: must be", false},
		{"version", strings.Replace(g, "version: 1", "version: 2", 1), "version: must be 1", false},
		// Shares that do not sum to 1.
		{"shares", strings.Replace(g, "share: 0.5", "share: 0.6", 1), "shares sum to 1.1", false},
		{"command", strings.Replace(g, "command: find", "command: SECRET", 1), "shapes[0].command", true},
		{"placeholder", strings.Replace(g, `'?objectId'`, `'?SECRET'`, 1), "a placeholder of a type the format does not have", true},
		// A values entry for a path the shape lacks.
		{"values path", strings.Replace(g, "filter.email:", "filter.SECRET:", 1), "names no placeholder", true},
		{"weights", strings.Replace(g, "0.25]", "-1]", 1), "weight", true},
		// A key of a filter that is not a string.
		{"alias", strings.Replace(g, "filter: {email:", "filter: {x: &a SECRET, y: *a, email:", 1), "an alias", true},
		{"depth", strings.Replace(g, `filter: {email: '?string'`, "filter: {email: "+strings.Repeat("{a: ", 40)+"1"+strings.Repeat("}", 40), 1), "nested deeper", true},
		{"empty", "", "not a workload file", false},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			_, err := Parse([]byte(r.file), "w.yaml")
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if !strings.Contains(msg, r.want) {
				t.Errorf("error %q lacks %q", msg, r.want)
			}
			if strings.Contains(msg, "SECRET") {
				t.Errorf("error quotes the file: %q", msg)
			}
			if r.line && !strings.HasPrefix(msg, "w.yaml:") || r.line && strings.HasPrefix(msg, "w.yaml: ") {
				t.Errorf("error %q does not name the line", msg)
			}
		})
	}
}

// TestAbstract: literals become $queryStats' placeholders, structure stays.
func TestAbstract(t *testing.T) {
	oid := bson.NewObjectID()
	rows := []struct {
		name    string
		section string
		in      bson.D
		want    bson.D
		lits    map[string]string // path -> type
	}{
		// Equality, range and $in: every value a literal.
		{"filter", "filter",
			bson.D{{Key: "email", Value: "a@x"}, {Key: "age", Value: bson.D{{Key: "$gte", Value: int32(18)}, {Key: "$lt", Value: 65.5}}},
				{Key: "tag", Value: bson.D{{Key: "$in", Value: bson.A{"a", "b"}}}}},
			bson.D{{Key: "email", Value: bson.D{{Key: "$eq", Value: "?string"}}}, {Key: "age", Value: bson.D{{Key: "$gte", Value: "?number"}, {Key: "$lt", Value: "?number"}}},
				{Key: "tag", Value: bson.D{{Key: "$in", Value: "?array<?string>"}}}},
			map[string]string{"filter.email.$eq": "string", "filter.age.$gte": "number", "filter.age.$lt": "number", "filter.tag.$in": "string"}},
		// $or of filters, an embedded document, an ObjectId, a redacted value.
		{"or", "filter",
			bson.D{{Key: "$or", Value: bson.A{bson.D{{Key: "a", Value: oid}}, bson.D{{Key: "b", Value: bson.D{{Key: "x", Value: 1}}}}}},
				{Key: "c", Value: "###"}},
			bson.D{{Key: "$or", Value: bson.A{bson.D{{Key: "a", Value: eq("?objectId")}}, bson.D{{Key: "b", Value: eq("?object")}}}},
				{Key: "c", Value: eq("?redacted")}},
			map[string]string{"filter.$or.0.a.$eq": "objectId", "filter.$or.1.b.$eq": "object", "filter.c.$eq": "redacted"}},
		// $expr keeps field paths; $elemMatch is a filter again.
		{"expr", "filter",
			bson.D{{Key: "$expr", Value: bson.D{{Key: "$gt", Value: bson.A{"$qty", int32(5)}}}},
				{Key: "items", Value: bson.D{{Key: "$elemMatch", Value: bson.D{{Key: "sku", Value: "k1"}}}}}},
			bson.D{{Key: "$expr", Value: bson.D{{Key: "$gt", Value: bson.A{"$qty", int32(5)}}}},
				{Key: "items", Value: bson.D{{Key: "$elemMatch", Value: bson.D{{Key: "sku", Value: eq("?string")}}}}}},
			map[string]string{"filter.items.$elemMatch.sku.$eq": "string"}},
		// An update's operators keep their fields; values are literals.
		{"update", "update",
			bson.D{{Key: "$set", Value: bson.D{{Key: "status", Value: "paid"}, {Key: "at", Value: bson.DateTime(1000)}}},
				{Key: "$inc", Value: bson.D{{Key: "n", Value: int64(1)}}}},
			bson.D{{Key: "$set", Value: bson.D{{Key: "status", Value: "?string"}, {Key: "at", Value: "?date"}}},
				{Key: "$inc", Value: bson.D{{Key: "n", Value: "?number"}}}},
			map[string]string{"update.$set.status": "string", "update.$set.at": "date", "update.$inc.n": "number"}},
		// A sort and a projection are structure.
		{"sort", "sort", bson.D{{Key: "createdAt", Value: int32(-1)}}, bson.D{{Key: "createdAt", Value: int32(-1)}}, map[string]string{}},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			got, lits := Abstract(r.section, r.in)
			if !reflect.DeepEqual(got, r.want) {
				t.Errorf("got %v, want %v", got, r.want)
			}
			gotLits := map[string]string{}
			for _, l := range lits {
				gotLits[l.Path] = l.Type
			}
			if !reflect.DeepEqual(gotLits, r.lits) {
				t.Errorf("literals %v, want %v", gotLits, r.lits)
			}
		})
	}
	// A pipeline: $match's values are literals, $group's and $limit's structure.
	stages, lits := AbstractStages("pipeline", []bson.D{
		{{Key: "$match", Value: bson.D{{Key: "status", Value: "new"}}}},
		{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$region"}, {Key: "n", Value: bson.D{{Key: "$sum", Value: int32(1)}}}}}},
		{{Key: "$addFields", Value: bson.D{{Key: "k", Value: "secret"}}}},
		{{Key: "$limit", Value: int64(10)}},
	})
	want := []bson.D{
		{{Key: "$match", Value: bson.D{{Key: "status", Value: eq("?string")}}}},
		{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$region"}, {Key: "n", Value: bson.D{{Key: "$sum", Value: int32(1)}}}}}},
		{{Key: "$addFields", Value: bson.D{{Key: "k", Value: "?string"}}}},
		{{Key: "$limit", Value: int64(10)}},
	}
	if !reflect.DeepEqual(stages, want) || len(lits) != 2 || lits[0].Path != "pipeline.0.$match.status.$eq" || lits[1].Path != "pipeline.2.$addFields.k" {
		t.Errorf("pipeline: got %v, literals %+v", stages, lits)
	}
}

// TestInstantiate: placeholders are drawn from their distributions, in
// their types and in their weights; the paths Abstract gives are the
// paths Instantiate looks up.
func TestInstantiate(t *testing.T) {
	f := sample()
	r := rand.New(rand.NewPCG(1, 2))
	find := &f.Shapes[0]
	emails := map[any]int{}
	const n = 20000
	for range n {
		cmd, err := find.Instantiate(r, nil)
		if err != nil {
			t.Fatal(err)
		}
		if cmd[0].Key != "find" || cmd[0].Value != "users" {
			t.Fatalf("command %v", cmd)
		}
		filter := cmd[1].Value.(bson.D)
		emails[filter[0].Value]++
		age := filter[1].Value.(bson.D)[0].Value.(int64)
		if age < 18 || age > 90 {
			t.Fatalf("age %d outside the uniform's range", age)
		}
		if lim := cmd[len(cmd)-1]; lim.Key != "limit" || lim.Value != int64(20) {
			t.Fatalf("limit %v", lim)
		}
	}
	if got := float64(emails["a@x"]) / n; math.Abs(got-0.75) > 0.02 {
		t.Errorf("empirical weight 0.75 drawn %.3f of the time", got)
	}
	agg := &f.Shapes[1]
	counts := map[any]int{}
	for range n {
		cmd, err := agg.Instantiate(r, nil)
		if err != nil {
			t.Fatal(err)
		}
		st := cmd[1].Value.(bson.A)[0].(bson.D)[0].Value.(bson.D)
		counts[st[0].Value]++
	}
	// zipfian θ 0.99 over 3 ranks: 1/(1+1/2^.99+1/3^.99) of draws on rank 0.
	w0 := 1 / (1 + math.Pow(2, -0.99) + math.Pow(3, -0.99))
	if got := float64(counts["new"]) / n; math.Abs(got-w0) > 0.02 {
		t.Errorf("zipfian rank 0 drawn %.3f of the time, want %.3f", got, w0)
	}
	// Without a distribution, the fallback answers, or a fixed value.
	upd := &f.Shapes[2]
	cmd, err := upd.Instantiate(r, func(path, typ string) any {
		if path == "update.$set.status" && typ == "string" {
			return "from-fallback"
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	u := cmd[1].Value.(bson.A)[0].(bson.D)
	if _, ok := u[0].Value.(bson.D)[0].Value.(bson.ObjectID); !ok {
		t.Errorf("q._id is not an ObjectId: %v", u)
	}
	set := u[1].Value.(bson.D)[0].Value.(bson.D)
	if set[0].Value != "from-fallback" {
		t.Errorf("fallback not used: %v", u)
	}
	if u[len(u)-1].Key != "upsert" {
		t.Errorf("upsert lost: %v", u)
	}
	if _, err := bson.Marshal(cmd); err != nil {
		t.Errorf("command does not marshal: %v", err)
	}
}

// TestClass: what the simulator costs each shape by.
func TestClass(t *testing.T) {
	rows := []struct {
		s    Shape
		want string
	}{
		{Shape{Command: CmdFind}, ClassRead},                                                          // an indexed find
		{Shape{Command: CmdFind, Observed: Observed{Plan: "COLLSCAN"}}, ClassScan},                    // a scan by its plan
		{Shape{Command: CmdCount, Observed: Observed{DocsExamined: &Summary{Mean: 5000}}}, ClassScan}, // by documents examined
		{Shape{Command: CmdAggregate}, ClassAggregate},
		{Shape{Command: CmdInsert}, ClassWrite},
		{Shape{Command: CmdFindAndModify}, ClassWrite},
	}
	for _, r := range rows {
		if got := r.s.Class(); got != r.want {
			t.Errorf("%s %+v: %s, want %s", r.s.Command, r.s.Observed, got, r.want)
		}
	}
}

// TestShapeID: the same shape gets the same id; another limit another.
func TestShapeID(t *testing.T) {
	a, b := sample().Shapes[0], sample().Shapes[0]
	b.Share, b.Count, b.Values = 0.1, 7, nil
	if a.ShapeID() != b.ShapeID() {
		t.Error("share, count or values changed the id")
	}
	b.Limit = ptr(int64(21))
	if a.ShapeID() == b.ShapeID() {
		t.Error("a different limit kept the id")
	}
	if !idPattern.MatchString(a.ShapeID()) {
		t.Errorf("id %q is not a valid id", a.ShapeID())
	}
}

// TestJSON: --format json writes documents as objects in their order.
func TestJSON(t *testing.T) {
	f := sample()
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"sort":{"createdAt":-1,"_id":1}`, `"share":0.5`,
		`"pipeline":[{"$match":{"status":"?string"}},{"$group":{"_id":"$region","n":{"$sum":1}}}]`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("JSON lacks %s:\n%s", want, b)
		}
	}
}
