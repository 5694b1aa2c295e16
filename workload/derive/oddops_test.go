package derive

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/poolsweep/poolsweep/querylog"
	"github.com/poolsweep/poolsweep/workload/shapes"
)

// derived reads files through querylog into a Builder, as from-log does.
func derived(t *testing.T, paths ...string) (*querylog.Report, *Builder) {
	t.Helper()
	b := NewBuilder()
	rep, err := querylog.Read(context.Background(), paths, querylog.Options{}, b.Add)
	if err != nil {
		t.Fatal(err)
	}
	return rep, b
}

// TestOddOperationsLeftOut: an operation whose shape no workload file can
// hold is left out with a warning naming its file and line, and the rest
// of the file is read into a file that writes as YAML and as JSON. Each
// case is one kind of operation that used to fail the whole file.
func TestOddOperationsLeftOut(t *testing.T) {
	at := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	nest := func(op string, n int) bson.D {
		f := d("x", 1)
		for range n {
			f = d(op, bson.A{f})
		}
		return f
	}
	elem := d("x", 1)
	for range 16 {
		elem = d("a", d("$elemMatch", elem))
	}
	var add any = "$x"
	for range 16 {
		add = d("$add", bson.A{add, 1})
	}
	good := slow(at, 1, "command", "shop.users", d("find", "users", "filter", d("a", 1), "$db", "shop"), d("durationMillis", 3))
	odd := []struct {
		name string
		line string
	}{
		{"16 nested $and", slow(at, 2, "command", "shop.users", d("find", "users", "filter", nest("$and", 16), "$db", "shop"), nil)},
		{"16 nested $elemMatch", slow(at, 2, "command", "shop.users", d("find", "users", "filter", elem, "$db", "shop"), nil)},
		{"16 nested $add", slow(at, 2, "command", "shop.users", d("aggregate", "users", "pipeline", bson.A{d("$project", d("v", add))}, "$db", "shop"), nil)},
		{"a key that is not UTF-8", strings.Replace(slow(at, 2, "command", "shop.users", d("find", "users", "filter", d("KEY", 1), "$db", "shop"), nil), "KEY", "\xff\xfe", 1)},
		{"namespace .x", slow(at, 2, "command", ".x", d("find", "x", "filter", d("a", 1)), nil)},
		{"namespace a.", slow(at, 2, "command", "a.", d("find", "", "filter", d("a", 1)), nil)},
		{"a database with a space", slow(at, 2, "command", "a b.c", d("find", "c", "filter", d("a", 1)), nil)},
		{"a 200-KB namespace", slow(at, 2, "command", "shop."+strings.Repeat("c", 200_000), d("find", strings.Repeat("c", 200_000), "filter", d("a", 1)), nil)},
		{"a value that is not UTF-8", strings.Replace(slow(at, 2, "command", "shop.users", d("find", "users", "filter", d("a", "VAL"), "$db", "shop"), nil), "VAL", "\xff", 1)},
	}
	dir := t.TempDir()
	for _, o := range odd {
		t.Run(o.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(o.name, " ", "_")+".log")
			if err := os.WriteFile(path, []byte(good+"\n"+o.line+"\n"+good+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			rep, b := derived(t, path)
			if len(rep.Warnings) != 1 || rep.Warnings[0].Line != 2 || rep.Warnings[0].File != path ||
				!strings.Contains(rep.Warnings[0].Msg, "left out") {
				t.Fatalf("warnings %v, want one at line 2", rep.Warnings)
			}
			if w := rep.Warnings[0].String(); len(w) > 400 || strings.Contains(w, "ccccc") {
				t.Errorf("the warning quotes the line: %.200q", w)
			}
			if rep.Unknown != 2 { // the thresholds are of the operations kept
				t.Errorf("%d operations counted at an unknown threshold, want the 2 kept", rep.Unknown)
			}
			f := b.File(rep, "")
			if f.Source.Operations != 2 || len(f.Shapes) != 1 {
				t.Fatalf("%d operations in %d shapes, want the 2 good ones", f.Source.Operations, len(f.Shapes))
			}
			if !strings.Contains(strings.Join(f.Caveats, "\n"), "1 operations a workload file cannot hold") {
				t.Errorf("caveats %q do not count it", f.Caveats)
			}
			if _, err := f.Marshal(); err != nil {
				t.Fatalf("YAML: %v", err)
			}
			var buf bytes.Buffer
			if err := json.NewEncoder(&buf).Encode(f); err != nil {
				t.Fatalf("JSON: %v", err)
			}
		})
	}
}

// TestExecCountOverflow: two $queryStats entries whose execCounts sum
// past int64 (or one past 2^53) are not an overflow: the entry that would
// overflow is left out with a warning naming its line, and the rest read.
func TestExecCountOverflow(t *testing.T) {
	entry := func(coll string, n string) string {
		return fmt.Sprintf(`{"key":{"queryShape":{"cmdNs":{"db":"shop","coll":"%s"},"command":"find","filter":{"a":{"$eq":"?number"}}}},"metrics":{"execCount":%s,"totalExecMicros":{"sum":1000,"max":10}}}`, coll, n)
	}
	path := filepath.Join(t.TempDir(), "qs.json")
	body := strings.Join([]string{entry("a", "10"), entry("b", "9223372036854775000"), entry("c", "6000000000000000"),
		entry("d", "6000000000000000"), entry("e", "5")}, "\n") + "\n"
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	rep, b := derived(t, path)
	// b alone is past 2^53; c and d are each a real count, but d would
	// take the sum past it.
	if len(rep.Warnings) != 2 || rep.Warnings[0].Line != 2 || rep.Warnings[1].Line != 4 {
		t.Fatalf("warnings %v, want lines 2 and 4", rep.Warnings)
	}
	f := b.File(rep, "")
	if f.Source.Operations != 6_000_000_000_000_015 || len(f.Shapes) != 3 {
		t.Fatalf("%d operations in %d shapes, want 6000000000000015 in 3", f.Source.Operations, len(f.Shapes))
	}
	for _, s := range f.Shapes {
		if s.Count <= 0 || s.Share <= 0 {
			t.Errorf("shape %s: count %d share %v", s.Name, s.Count, s.Share)
		}
	}
	if _, err := f.Marshal(); err != nil {
		t.Fatal(err)
	}
}

// TestSignedIDsReplay: from-log on ids that are signed $numberLong values
// over int64's whole range gives an integer uniform wider than 2^63; the
// file reads back, and its draws stay in the range without a panic.
func TestSignedIDsReplay(t *testing.T) {
	at := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	r := rand.New(rand.NewPCG(7, 7))
	var lines []string
	for range 3000 {
		id := int64(r.Uint64())
		lines = append(lines, slow(at, 1, "command", "shop.users", d("find", "users", "filter", d("_id", id), "$db", "shop"), d("durationMillis", 1)))
	}
	path := filepath.Join(t.TempDir(), "ids.log")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	rep, b := derived(t, path)
	data, err := b.File(rep, "").Marshal()
	if err != nil {
		t.Fatal(err)
	}
	f, err := shapes.Parse(data, "ids.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dist := f.Shapes[0].Values["filter._id.$eq"]
	if dist.Dist != shapes.DistUniform || !dist.Integer || dist.Max-dist.Min < 1<<63 {
		t.Fatalf("ids fitted as %+v, not an integer uniform wider than 2^63", dist)
	}
	for range 1000 {
		cmd, err := f.Shapes[0].Instantiate(r, nil)
		if err != nil {
			t.Fatal(err)
		}
		id := cmd[1].Value.(bson.D)[0].Value.(bson.D)[0].Value.(int64)
		if float64(id) < dist.Min || float64(id) > dist.Max {
			t.Fatalf("drew %d outside [%v, %v]", id, dist.Min, dist.Max)
		}
	}
}
