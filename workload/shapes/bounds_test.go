package shapes

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestBoundsRefused: every size, range and name a file declares is
// checked when it is read: the error names the file, the line and the
// field, never the value. Each row is one bound of the class.
func TestBoundsRefused(t *testing.T) {
	good, err := sample().Marshal()
	if err != nil {
		t.Fatal(err)
	}
	g := string(good)
	lengthOf := func(p50 string) string {
		return strings.Replace(strings.Replace(g, "filter: {email: '?string'", "filter: {email: {$in: '?array<?string>'}", 1),
			"  filter.email:\n", "  filter.email.$in:\n        length: {mean: 1, p50: "+p50+", p99: 1}\n", 1)
	}
	big := strings.Repeat("x", 17<<20)
	rows := []struct{ name, file, want string }{
		// An array length that would panic in make or take gigabytes.
		{"length 1e15", lengthOf("1e15"), "shapes[0].values: an entry whose length is not between 0 and 1048576"},
		{"length 1e8", lengthOf("1e8"), "length is not between"},
		{"length negative", lengthOf("-3"), "length is not between"},
		{"length inf", lengthOf(".inf"), "length is not between"},
		// An array as long as allowed, whose elements make the command
		// larger than MongoDB takes (lengths multiply the values' sizes).
		{"length times values", strings.Replace(lengthOf("1000000"), "values: [a@x, b@x]", "values: [a@x, "+strings.Repeat("y", 100)+"]", 1), "the command it builds can reach"},
		// One value larger than a command may be.
		{"value size", strings.Replace(g, "values: [a@x, b@x]", "values: [a@x, "+big+"]", 1), "the command it builds can reach"},
		// Integer ranges beyond int64.
		{"integer range", strings.Replace(g, "min: 18\n        max: 90", "min: -1e300\n        max: 1e300", 1), "beyond a 64-bit integer's range"},
		// Names MongoDB refuses: the same rules as --database.
		{"database dot", strings.Replace(g, "database: app", "database: a.SECRET", 1), "shapes[0].database: a name holding a space or one of"},
		{"database NUL", strings.Replace(g, "database: app", `database: "a\0SECRET"`, 1), "shapes[0].database: a name holding"},
		{"database long", strings.Replace(g, "database: app", "database: "+strings.Repeat("SECRET", 11), 1), "shapes[0].database: a name of 66 bytes"},
		{"database space", strings.Replace(g, "database: app", "database: 'a SECRET'", 1), "shapes[0].database: a name holding a space or one of"},
		{"collection dot", strings.Replace(g, "collection: users", "collection: .SECRET", 1), "shapes[0].collection: a name beginning with a dot"},
		{"collection dollar", strings.Replace(g, "collection: users", "collection: a$SECRET", 1), "shapes[0].collection: a name holding a $"},
		{"collection NUL", strings.Replace(g, "collection: users", `collection: "a\0SECRET"`, 1), "shapes[0].collection: a name holding a character"},
		{"namespace 200 KB", strings.Replace(g, "collection: users", "collection: "+strings.Repeat("SECRET", 200_000/6), 1), "shapes[0].collection: a namespace (database.collection) of 200002 bytes"},
		{"collection empty", strings.Replace(g, "collection: users", "collection: ''", 1), "shapes[0].collection: missing"},
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
			if strings.Contains(msg, "SECRET") || len(msg) > 300 {
				t.Errorf("error quotes the file: %.300q", msg)
			}
			if !strings.HasPrefix(msg, "w.yaml:") || strings.HasPrefix(msg, "w.yaml: ") {
				t.Errorf("error %q does not name the line", msg)
			}
		})
	}
}

// TestDrawFullRange: an integer uniform draws without a panic over any
// range an int64 holds, the whole range included (hi-lo+1 overflows
// there), and stays within it; a float uniform over the widest range
// stays finite.
func TestDrawFullRange(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, d := range []Distribution{
		{Dist: DistUniform, Type: "number", Integer: true, Min: -9e18, Max: 9e18}, // 1.8e19 wide: over 2^63
		{Dist: DistUniform, Type: "number", Integer: true, Min: math.MinInt64, Max: 1 << 63},
		{Dist: DistUniform, Type: "number", Integer: true, Min: -1 << 62, Max: 1<<62 + 1<<61},
		{Dist: DistZipfian, Type: "number", Integer: true, Min: 1<<63 - 1000, Max: 1 << 63, Theta: 0.9},
	} {
		if msg := d.check(); msg != "" {
			t.Fatalf("%+v refused: %s", d, msg)
		}
		var neg, pos bool
		for range 2000 {
			v, ok := d.Draw(r)
			x, isInt := v.(int64)
			if !ok || !isInt {
				t.Fatalf("%+v drew %v (%T)", d, v, v)
			}
			if float64(x) < d.Min || float64(x) > d.Max {
				t.Fatalf("%+v drew %d, outside it", d, x)
			}
			neg, pos = neg || x < 0, pos || x > 0
		}
		if d.Dist == DistUniform && !(neg && pos) {
			t.Errorf("%+v: 2000 draws all of one sign", d)
		}
	}
	wide := Distribution{Dist: DistUniform, Type: "number", Min: -math.MaxFloat64, Max: math.MaxFloat64}
	for range 1000 {
		v, _ := wide.Draw(r)
		if x := v.(float64); math.IsInf(x, 0) || math.IsNaN(x) {
			t.Fatalf("the widest float uniform drew %v", x)
		}
	}
	// A date out of int64's milliseconds is the nearest end, not garbage.
	if got := toBSON("date", 1e300, false); got != bson.DateTime(math.MaxInt64) {
		t.Errorf("date 1e300 is %v", got)
	}
}

// TestInstantiateBounded: a command stops growing at MongoDB's 16 MiB,
// whatever a File built in code (never validated) or values sampled from
// a collection would make of it: the call fails naming the shape, and
// nothing near the declared size is allocated.
func TestInstantiateBounded(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	arr := Shape{ID: "arr", Database: "app", Collection: "c", Command: CmdFind,
		Filter: bson.D{{Key: "a", Value: bson.D{{Key: "$in", Value: "?array<?string>"}}}}}
	megabyte := strings.Repeat("v", 1<<20)
	for _, tt := range []struct {
		name     string
		length   float64
		fallback func(path, typ string) any
	}{
		{"length 1e15", 1e15, nil},
		{"length 1e8", 1e8, nil},
		{"sampled values", 100, func(string, string) any { return megabyte }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := arr
			// No values to draw from: the elements come from the fallback.
			s.Values = map[string]Distribution{"filter.a.$in": {Dist: DistEmpirical, Type: "string", Length: &Summary{P50: tt.length}}}
			_, err := s.Instantiate(r, tt.fallback)
			if err == nil || !strings.Contains(err.Error(), "shape arr: its command would be larger than the 16 MiB") {
				t.Fatalf("err %v", err)
			}
		})
	}
	ins := Shape{ID: "ins", Database: "app", Collection: "c", Command: CmdInsert, InsertDocs: 100_000}
	doc := bson.D{{Key: "payload", Value: strings.Repeat("p", 4096)}}
	if _, err := ins.Instantiate(r, func(string, string) any { return doc }); err == nil {
		t.Fatal("100,000 documents of 4 KiB built into one insert")
	}
	ins.InsertDocs = 1000 // 4 MiB: fits
	cmd, err := ins.Instantiate(r, func(string, string) any { return doc })
	if err != nil || len(cmd[1].Value.(bson.A)) != 1000 {
		t.Fatalf("an insert that fits: %v", err)
	}
}

// TestValidateMarshalable: what Marshal or the JSON writer cannot write
// is refused by Validate, naming the field, so that a derived shape can
// be left out before a whole file fails.
func TestValidateMarshalable(t *testing.T) {
	for _, tt := range []struct {
		name string
		edit func(s *Shape)
		want string
	}{
		{"key not UTF-8", func(s *Shape) { s.Filter = bson.D{{Key: "\xff\xfe", Value: eq("?number")}} }, "shapes[0].filter: a key that is not UTF-8"},
		{"string not UTF-8", func(s *Shape) { s.Projection = bson.D{{Key: "a", Value: "\xff"}} }, "shapes[0].projection: a string that is not UTF-8"},
		{"too deep", func(s *Shape) {
			f := bson.D{{Key: "x", Value: eq("?number")}}
			for range 16 {
				f = bson.D{{Key: "$and", Value: bson.A{f}}}
			}
			s.Filter = f
		}, "shapes[0].filter: nested deeper"},
		{"plan not UTF-8", func(s *Shape) { s.Observed.Plan = "IXSCAN \xff" }, "shapes[0].observed.plan: not UTF-8"},
		{"summary infinite", func(s *Shape) { s.Observed.LatencyMs = &Summary{Mean: math.Inf(1)} }, "shapes[0].observed: a mean or percentile that is not finite"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := sample()
			tt.edit(&f.Shapes[0])
			_, err := f.Marshal()
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("Marshal: %v, want %q", err, tt.want)
			}
		})
	}
}
