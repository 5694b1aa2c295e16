package workload

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/poolsweep/poolsweep/workload/shapes"
)

// replayFile is a workload file of the given shapes (YAML, each a list
// item's lines after "- "), their shares equal.
func replayFile(t *testing.T, shapeLines ...string) (*shapes.File, error) {
	t.Helper()
	var b strings.Builder
	b.WriteString("kind: poolsweep-workload\nversion: 1\nsource: {format: mongod-log, files: 1, lines: 1, operations: 1, complete: false}\nshapes:\n")
	for i, s := range shapeLines {
		fmt.Fprintf(&b, "  - id: s%d\n    count: 1\n    share: %v\n", i, 1/float64(len(shapeLines)))
		for _, line := range strings.Split(s, "\n") {
			b.WriteString("    " + line + "\n")
		}
	}
	return shapes.Parse([]byte(b.String()), "w.yaml")
}

// TestNewReplayRefusesUnsafeShapes: a shape that would reach the server's
// own data (the admin, local and config databases, a system.* collection,
// named by the shape or read by a stage at any depth) or write through a
// pipeline at any depth is refused before anything connects, naming the
// file, line and field and quoting nothing of the file; the shapes next
// to them that are an application's own are taken.
func TestNewReplayRefusesUnsafeShapes(t *testing.T) {
	const ok = "command: find\ndatabase: app\ncollection: users"
	agg := func(pipeline string) string {
		return "command: aggregate\ndatabase: app\ncollection: users\npipeline: " + pipeline
	}
	for _, tt := range []struct {
		name, shape, want string
	}{
		// The server's own namespaces, written or read.
		{"a write on admin", "command: delete\ndatabase: admin\ncollection: x\nfilter: {}", "shapes[1].database: a system database"},
		{"an insert into admin.system.users", "command: insert\ndatabase: admin\ncollection: system.users", "shapes[1].database: a system database"},
		{"a write on local", "command: update\ndatabase: local\ncollection: oplog.rs\nupdate: {$set: {a: 1}}", "shapes[1].database"},
		{"a write on config", "command: findAndModify\ndatabase: config\ncollection: system.sessions\nremove: true", "shapes[1].database"},
		{"a read on admin", "command: find\ndatabase: admin\ncollection: system.users", "shapes[1].database"},
		{"a count on config", "command: count\ndatabase: config\ncollection: chunks", "shapes[1].database"},
		{"a read of system.profile", "command: find\ndatabase: app\ncollection: system.profile", "shapes[1].collection: a system collection"},
		{"a write on system.views", "command: update\ndatabase: app\ncollection: system.views\nupdate: {$set: {a: 1}}", "shapes[1].collection"},
		{"a distinct on system.js", "command: distinct\ndatabase: app\ncollection: system.js\nkey: a", "shapes[1].collection"},
		{"$lookup from system.users", agg("[{$lookup: {from: system.users, localField: a, foreignField: b, as: c}}]"), "shapes[1].pipeline[0]: $lookup reads a system"},
		{"$lookup from {db: admin}", agg("[{$match: {a: 1}}, {$lookup: {from: {db: admin, coll: x}, localField: a, foreignField: b, as: c}}]"), "shapes[1].pipeline[1]: $lookup reads"},
		{"$graphLookup from system.views", agg("[{$graphLookup: {from: system.views, startWith: $a, connectFromField: a, connectToField: b, as: c}}]"), "$graphLookup reads"},
		{"$unionWith system.js", agg("[{$unionWith: system.js}]"), "$unionWith reads a system collection"},
		{"$unionWith {coll: system.x}", agg("[{$unionWith: {coll: system.x, pipeline: []}}]"), "$unionWith reads"},
		{"$lookup from system.users inside $facet", agg("[{$facet: {a: [{$lookup: {from: system.users, pipeline: [], as: c}}]}}]"), "$lookup inside $facet reads"},
		// Stages that write, at any depth.
		{"$out", agg("[{$match: {a: 1}}, {$out: elsewhere}]"), "shapes[1].pipeline[1]: $out: an aggregation that writes"},
		{"$merge", agg("[{$merge: {into: elsewhere}}]"), "$merge: an aggregation that writes"},
		{"$out inside $facet", agg("[{$facet: {a: [{$match: {a: 1}}], b: [{$out: elsewhere}]}}]"), "shapes[1].pipeline[0]: $out inside $facet"},
		{"$merge inside a $lookup pipeline", agg("[{$lookup: {from: orders, pipeline: [{$merge: {into: elsewhere}}], as: c}}]"), "$merge inside $lookup"},
		{"$out inside a $unionWith pipeline", agg("[{$unionWith: {coll: orders, pipeline: [{$out: elsewhere}]}}]"), "$out inside $unionWith"},
		{"$merge three levels down", agg("[{$lookup: {from: orders, as: c, pipeline: [{$facet: {x: [{$unionWith: {coll: y, pipeline: [{$merge: {into: z}}]}}]}}]}}]"), "$merge inside $lookup"},
		{"$out in an update pipeline", "command: update\ndatabase: app\ncollection: users\nupdate_pipeline: [{$set: {a: 1}}, {$out: elsewhere}]", "shapes[1].update_pipeline[1]: $out"},
	} {
		f, err := replayFile(t, ok, tt.shape)
		if err != nil {
			t.Fatalf("%s: the file does not read: %v", tt.name, err)
		}
		r, err := NewReplay(f, "w.yaml", ReplayOptions{})
		var pe *shapes.ParseError
		if err == nil || !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), "w.yaml:") || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: NewReplay returned %v, %v; want an error at w.yaml's line with %q", tt.name, r != nil, err, tt.want)
			continue
		}
		if pe.Line < 10 {
			t.Errorf("%s: the error names line %d, not the second shape's", tt.name, pe.Line)
		}
		for _, secret := range []string{"system.users", "oplog", "elsewhere", "orders"} {
			if strings.Contains(err.Error(), secret) {
				t.Errorf("%s: the error quotes the file: %v", tt.name, err)
			}
		}
	}
	// The application's own namespaces and stages, with names near the
	// refused ones, are taken.
	for _, shape := range []string{
		"command: delete\ndatabase: administrator\ncollection: x\nfilter: {}",
		"command: update\ndatabase: app\ncollection: systems.users\nupdate: {$set: {system: 1}}",
		"command: find\ndatabase: localdb\ncollection: system\nfilter: {system.users: 1}",
		agg("[{$lookup: {from: orders, pipeline: [{$match: {a: 1}}], as: c}}, {$facet: {a: [{$count: n}], out: [{$limit: 1}]}}, {$unionWith: {coll: archive, pipeline: [{$project: {a: 1}}]}}]"),
	} {
		f, err := replayFile(t, ok, shape)
		if err != nil {
			t.Fatalf("the file does not read: %v", err)
		}
		if _, err := NewReplay(f, "w.yaml", ReplayOptions{}); err != nil {
			t.Errorf("an application's own shape was refused: %v\n%s", err, shape)
		}
	}

	// A file built in code may nest deeper than a file can: what the
	// check cannot walk to the bottom it refuses.
	deep := bson.D{{Key: "$match", Value: bson.D{}}}
	for range shapes.MaxDepth + 2 {
		deep = bson.D{{Key: "$facet", Value: bson.D{{Key: "a", Value: bson.A{deep}}}}}
	}
	f := &shapes.File{Kind: shapes.Kind, Version: shapes.Version, Shapes: []shapes.Shape{
		{ID: "deep", Database: "app", Collection: "users", Command: shapes.CmdAggregate, Share: 1, Pipeline: []bson.D{deep}}}}
	if _, err := NewReplay(f, "code", ReplayOptions{}); err == nil || !strings.Contains(err.Error(), "nests deeper than") {
		t.Errorf("a pipeline nested %d deep: %v; want it refused", shapes.MaxDepth+2, err)
	}
}

// TestCopyNamesInjective: every namespace a write shape names gets a copy
// of its own, whatever its name: the names that an underscore joined into
// one (shop.a_b and shop_a.b) are two, a namespace too long for a copy
// name beside poolsweep's database is cut to MongoDB's and FerretDB's
// limits and kept apart by a hash, and two namespaces that would still
// meet are refused before anything connects.
func TestCopyNamesInjective(t *testing.T) {
	write := func(db, coll string) string {
		return fmt.Sprintf("command: delete\ndatabase: %q\ncollection: %q\nfilter: {}", db, coll)
	}
	long := strings.Repeat("c", 230)
	wide := strings.Repeat("é", 115) // two bytes each: a cut must not split one
	for _, tt := range []struct {
		name string
		ns   [][2]string
	}{
		{"an underscore on either side of the dot", [][2]string{{"shop", "a_b"}, {"shop_a", "b"}}},
		{"underscores and dots", [][2]string{{"a_b", "c.d"}, {"a", "b_c.d"}, {"a_b_c", "d"}, {"a", "b_c_d"}}},
		{"long names that differ at their ends", [][2]string{{"app", long + "1"}, {"app", long + "2"}, {"app", long}}},
		{"long names of two-byte characters", [][2]string{{"app", wide + "a"}, {"app", wide + "b"}}},
	} {
		var lines []string
		for _, ns := range tt.ns {
			lines = append(lines, write(ns[0], ns[1]))
		}
		f, err := replayFile(t, lines...)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		for _, db := range []string{"poolsweep", strings.Repeat("p", 63)} {
			r, err := NewReplay(f, "w.yaml", ReplayOptions{Database: db})
			if err != nil {
				t.Fatalf("%s, --database of %d bytes: %v", tt.name, len(db), err)
			}
			seen := map[string]string{}
			for _, c := range r.copies {
				if prev, dup := seen[c.coll]; dup {
					t.Errorf("%s: %s and %s share the copy %s", tt.name, prev, c.src(), c.coll)
				}
				seen[c.coll] = c.src()
				if err := CheckCollectionName(c.db, c.coll); err != nil || len(c.coll) > maxCopyName || !strings.HasPrefix(c.coll, copyPrefix) {
					t.Errorf("%s: the copy name %s (%d bytes) in %s: %v", tt.name, c.coll, len(c.coll), db, err)
				}
				if !strings.ContainsRune(c.coll, '~') && c.coll != copyPrefix+c.srcDB+"."+c.srcColl {
					t.Errorf("%s: the copy of %s is %s, which does not read as its namespace", tt.name, c.src(), c.coll)
				}
				if strings.ToValidUTF8(c.coll, "?") != c.coll {
					t.Errorf("%s: the copy name %q is cut inside a character", tt.name, c.coll)
				}
			}
			if len(seen) != len(tt.ns) {
				t.Errorf("%s: %d copies for %d namespaces", tt.name, len(seen), len(tt.ns))
			}
		}
	}
	// A database name with a dot (MongoDB has none) would make two
	// namespaces' copies one: refused, naming both shapes.
	f, err := replayFile(t, write("shop.a", "b"), write("shop", "a.b"))
	if err != nil {
		t.Skipf("the reader refuses a database name with a dot already: %v", err)
	}
	if _, err := NewReplay(f, "w.yaml", ReplayOptions{}); err == nil || !strings.Contains(err.Error(), "shapes[1]: its namespace and shapes[0]'s, another, would share one copy") {
		t.Errorf("shop.a.b twice: %v; want the collision refused", err)
	}
}
