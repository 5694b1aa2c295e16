package derive

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/querylog"
	"github.com/poolsweep/poolsweep/workload/shapes"
)

// derive writes the log, reads it back and derives its file.
func deriveLog(t *testing.T, log string) *shapes.File {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mongod.log")
	if err := os.WriteFile(path, []byte(log), 0o600); err != nil {
		t.Fatal(err)
	}
	b := NewBuilder()
	rep, err := querylog.Read(context.Background(), []string{path}, querylog.Options{}, func(op *querylog.Op) error {
		return b.Add(op)
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Warnings) > 0 {
		t.Fatalf("warnings on a generated log: %v", rep.Warnings)
	}
	f := b.File(rep, "")
	if err := f.Validate(); err != nil {
		t.Fatal(err)
	}
	return f
}

func byName(f *shapes.File) map[string]*shapes.Shape {
	m := map[string]*shapes.Shape{}
	for i := range f.Shapes {
		s := &f.Shapes[i]
		for _, prefix := range []string{"find app.users", "find app.orders", "update app.users", "aggregate app.orders", "insert app.events"} {
			if strings.HasPrefix(s.Name, prefix) {
				m[prefix] = s
			}
		}
	}
	return m
}

// TestProofShares is the proof: a mongod log of five shapes in
// known shares (20,000 operations, logged at slowms 0) gives back the
// five shapes, their shares within 2 points of the truth, and the right
// kind of distribution for each value: a uniform number, a zipfian string,
// an empirical string.
func TestProofShares(t *testing.T) {
	tr := newTruth(true)
	log, drawn := tr.generate(35, 20000)
	f := deriveLog(t, log)
	if len(f.Shapes) != 5 {
		t.Fatalf("%d shapes, want 5: %v", len(f.Shapes), names(f))
	}
	if !f.Source.Complete || f.Source.Operations != 20000 {
		t.Errorf("source %+v: want complete, 20000 operations", f.Source)
	}
	got := byName(f)
	truthShare := map[string]float64{"find app.users": 0.40, "find app.orders": 0.25, "update app.users": 0.15,
		"aggregate app.orders": 0.12, "insert app.events": 0.08}
	genName := map[string]string{"find app.users": "find app.users {age}", "find app.orders": "find app.orders {status} sort",
		"update app.users": "update app.users {_id} $set $inc", "aggregate app.orders": "aggregate app.orders [$match $group]",
		"insert app.events": "insert app.events"}
	for name, want := range truthShare {
		s := got[name]
		if s == nil {
			t.Errorf("shape %s not found in %v", name, names(f))
			continue
		}
		t.Logf("%-22s share %.5f  truth %.2f  (drawn %.5f)  Δ %+.5f", name, s.Share, want,
			float64(drawn[genName[name]])/20000, s.Share-want)
		if math.Abs(s.Share-want) > 0.02 {
			t.Errorf("%s: share %.4f, truth %.2f: more than 2 points off", name, s.Share, want)
		}
	}
	age := got["find app.users"].Values["filter.age.$gte"]
	t.Logf("age: %s", age.Fit)
	if age.Dist != shapes.DistUniform || age.Min != 18 || age.Max != 90 || !age.Integer {
		t.Errorf("age: %+v, want a uniform integer on [18, 90]", age)
	}
	status := got["find app.orders"].Values["filter.status.$eq"]
	t.Logf("status: %s", status.Fit)
	if status.Dist != shapes.DistZipfian || math.Abs(status.Theta-1.1) > 0.15 || status.Values[0] != "status-00" {
		t.Errorf("status: %s θ=%v, want zipfian θ≈1.1 led by status-00", status.Dist, status.Theta)
	}
	region := got["aggregate app.orders"].Values["pipeline.0.$match.region.$eq"]
	t.Logf("region: %v %v", region.Values, region.Weights)
	wantRegion := map[any]float64{"eu": 0.6, "us": 0.3, "apac": 0.1}
	if region.Dist != shapes.DistEmpirical || len(region.Values) != 3 {
		t.Errorf("region: %+v, want empirical over 3 values", region)
	}
	for i, v := range region.Values {
		if math.Abs(region.Weights[i]-wantRegion[v]) > 0.03 {
			t.Errorf("region %v: weight %.3f, truth %.1f", v, region.Weights[i], wantRegion[v])
		}
	}
	upd := got["update app.users"]
	if id := upd.Values["filter._id.$eq"]; id.Dist != shapes.DistUniform || id.Min < 1 || id.Max > 100000 {
		t.Errorf("update _id: %+v, want uniform within [1, 100000]", id)
	}
	if inc := upd.Values["update.$inc.visits"]; inc.Dist != shapes.DistEmpirical || len(inc.Values) != 1 || inc.Values[0] != int64(1) {
		t.Errorf("visits increment: %+v, want the one value 1", inc)
	}
	if ins := got["insert app.events"]; ins.InsertDocs != 10 || ins.Class() != shapes.ClassWrite {
		t.Errorf("insert: %d documents, class %s", ins.InsertDocs, ins.Class())
	}
	if agg := got["aggregate app.orders"]; agg.Observed.Plan != "COLLSCAN" || agg.Observed.LatencyMs.Mean < 20 || agg.Observed.LatencyMs.Mean > 50 {
		t.Errorf("aggregate observed %+v", agg.Observed)
	}
	// The file writes, reads back, and its shapes instantiate.
	b, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := shapes.Parse(b, "derived.yaml"); err != nil {
		t.Fatal(err)
	}
}

// TestProofNegative: the fit can say no. Statuses drawn uniformly come
// back uniform, not zipfian.
func TestProofNegative(t *testing.T) {
	log, _ := newTruth(false).generate(36, 8000)
	f := deriveLog(t, log)
	status := byName(f)["find app.orders"].Values["filter.status.$eq"]
	t.Logf("uniform statuses: %s", status.Fit)
	if status.Dist != shapes.DistUniform {
		t.Errorf("uniform statuses fitted as %s (%s)", status.Dist, status.Fit)
	}
}

// TestSlowOnly: a log without its startup lines says its shares are of
// the logged operations only.
func TestSlowOnly(t *testing.T) {
	log, _ := newTruth(true).generate(37, 500)
	log = log[strings.Index(log, "\n")+1:] // no startup options
	f := deriveLog(t, log)
	if f.Source.Complete || f.Source.SlowMs != nil {
		t.Errorf("source %+v: the log does not say its slowms", f.Source)
	}
	if !strings.Contains(strings.Join(f.Caveats, "\n"), "does not say the slowms") {
		t.Errorf("caveats %q", f.Caveats)
	}
}

func names(f *shapes.File) []string {
	var out []string
	for _, s := range f.Shapes {
		out = append(out, s.Name)
	}
	return out
}

// TestBudget: with its memory budget spent, a Builder still counts every
// operation and writes a valid file: samples stop growing and new values
// are counted as not kept.
func TestBudget(t *testing.T) {
	log, _ := newTruth(true).generate(38, 3000)
	path := filepath.Join(t.TempDir(), "mongod.log")
	if err := os.WriteFile(path, []byte(log), 0o600); err != nil {
		t.Fatal(err)
	}
	b := NewBuilder()
	b.budget = budget{numbers: 100, valueBytes: 2000, shapeBytes: shapeBudget}
	rep, err := querylog.Read(context.Background(), []string{path}, querylog.Options{}, func(op *querylog.Op) error {
		return b.Add(op)
	})
	if err != nil {
		t.Fatal(err)
	}
	f := b.File(rep, "")
	if _, err := f.Marshal(); err != nil {
		t.Fatalf("a file derived on a spent budget: %v", err)
	}
	if f.Source.Operations != 3000 || b.budget.numbers != 0 || b.budget.valueBytes >= 48 {
		t.Errorf("operations %d, budget left %+v", f.Source.Operations, b.budget)
	}
	kept := 0
	for _, s := range f.Shapes {
		for _, d := range s.Values {
			kept += len(d.Values)
		}
	}
	if kept > 2000/48 {
		t.Errorf("%d distinct values kept on a 2000-byte budget", kept)
	}
}

// TestShapeBudget: shapes first seen past the budget of shapes are left
// out, and the caveats say how many operations went with them.
func TestShapeBudget(t *testing.T) {
	log, _ := newTruth(true).generate(39, 2000)
	path := filepath.Join(t.TempDir(), "mongod.log")
	if err := os.WriteFile(path, []byte(log), 0o600); err != nil {
		t.Fatal(err)
	}
	b := NewBuilder()
	b.budget.shapeBytes = 700 // about two of the five shapes
	rep, err := querylog.Read(context.Background(), []string{path}, querylog.Options{}, func(op *querylog.Op) error {
		return b.Add(op)
	})
	if err != nil {
		t.Fatal(err)
	}
	f := b.File(rep, "")
	if err := f.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(f.Shapes) == 5 || len(f.Shapes) == 0 || f.Source.Operations+b.dropped != 2000 {
		t.Errorf("%d shapes, %d operations, %d left out", len(f.Shapes), f.Source.Operations, b.dropped)
	}
	if !strings.Contains(strings.Join(f.Caveats, "\n"), fmt.Sprintf("%d operations of shapes left out", b.dropped)) {
		t.Errorf("caveats %q", f.Caveats)
	}
}
