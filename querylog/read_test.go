package querylog

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/workload/shapes"
)

// readAll reads paths and returns the ops and the report.
func readAll(t *testing.T, opt Options, paths ...string) ([]Op, *Report, error) {
	t.Helper()
	var ops []Op
	rep, err := Read(context.Background(), paths, opt, func(op *Op) error {
		ops = append(ops, *op)
		return nil
	})
	return ops, rep, err
}

// TestRealLog reads lines of a real mongod 6.0.11 log (testdata/real,
// from simagix/hatchet, Apache-2.0): the statements of writes from their
// own lines, the batches and server commands left out, and the threshold
// a setProfilingLevel line set (slowms -1: every operation).
func TestRealLog(t *testing.T) {
	ops, rep, err := readAll(t, Options{}, "testdata/real/hatchet-mongod-6.0.11.log")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, op := range ops {
		got[op.Command+" "+op.Database+"."+op.Collection]++
	}
	// The aggregate on testdb.favorites is a $collStats: Keyhole's
	// statistics, not a workload's operation.
	want := map[string]int{"insert testdb.lookups": 1, "update testdb.dealers": 1,
		"find testdb.vehicles": 2, "delete testdb.__examples": 1, "distinct testdb.vehicles": 1}
	if len(got) != len(want) {
		t.Errorf("ops %v, want %v", got, want)
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("%s: %d ops, want %d (all: %v)", k, got[k], n, got)
		}
	}
	if rep.Format != shapes.FormatMongodLog || rep.Skipped[skipBatch] != 2 || rep.Skipped[skipOther] != 2 || rep.Skipped[skipStats] != 1 {
		t.Errorf("format %q, skipped %v", rep.Format, rep.Skipped)
	}
	if len(rep.Settings) != 1 || rep.Settings[0].SlowMs != 0 || rep.Settings[0].SampleRate != 1 || rep.Unknown != 0 {
		t.Errorf("settings %+v, unknown %d: want slowms 0 (the log's -1) at rate 1", rep.Settings, rep.Unknown)
	}
	if len(rep.Versions) != 1 || rep.Versions[0] != "6.0.11" {
		t.Errorf("versions %v", rep.Versions)
	}
	for _, op := range ops {
		switch op.Command {
		case shapes.CmdUpdate:
			if op.Filter == nil || op.Update == nil || !op.Upsert || op.Metrics.Plan != "IDHACK" {
				t.Errorf("update statement read as %+v", op)
			}
		case shapes.CmdFind:
			if op.Filter == nil || math.IsNaN(op.Metrics.DurationMs) || math.IsNaN(op.Metrics.NReturned) || op.App != "Keyhole Lib" {
				t.Errorf("find read as %+v", op)
			}
		case shapes.CmdDistinct:
			if op.Key != "color" {
				t.Errorf("distinct key %q", op.Key)
			}
		}
	}
}

// TestProfileFormats: a system.profile export reads the same in relaxed
// and canonical extended JSON, one document a line or as an array.
func TestProfileFormats(t *testing.T) {
	relaxed, rep, err := readAll(t, Options{}, "testdata/profile-relaxed.json")
	if err != nil {
		t.Fatal(err)
	}
	if rep.Format != shapes.FormatProfiler || len(relaxed) != 6 || rep.Skipped[skipGetMore] != 1 {
		t.Fatalf("format %s, %d ops, skipped %v", rep.Format, len(relaxed), rep.Skipped)
	}
	byCmd := map[string]Op{}
	for _, op := range relaxed {
		byCmd[op.Command] = op
	}
	if op := byCmd[shapes.CmdInsert]; op.InsertDocs != 5 || op.Collection != "events" {
		t.Errorf("insert %+v", op)
	}
	if op := byCmd[shapes.CmdDelete]; !op.Multi || op.Collection != "carts" {
		t.Errorf("delete %+v", op)
	}
	if op := byCmd[shapes.CmdFind]; op.Metrics.ResLen != 8123 || op.Metrics.DurationMs != 3 || *op.Limit != 20 {
		t.Errorf("find %+v", op)
	}
	array, _, err := readAll(t, Options{}, "testdata/profile-array.json")
	if err != nil || len(array) != len(relaxed) {
		t.Fatalf("array: %d ops, %v", len(array), err)
	}
	if array[2].Line != 4 {
		t.Errorf("array element 3 said to be on line %d, want 4", array[2].Line)
	}
	canon, _, err := readAll(t, Options{}, "testdata/profile-canonical.json")
	if err != nil || len(canon) != 2 {
		t.Fatalf("canonical: %d ops, %v", len(canon), err)
	}
	for i := range canon {
		a, b := canon[i], relaxed[i]
		if a.Command != b.Command || a.Metrics.DurationMs != b.Metrics.DurationMs || len(a.Filter) != len(b.Filter) {
			t.Errorf("canonical %d differs: %+v vs %+v", i, a, b)
		}
	}
	// --app keeps one appName's operations.
	app, rep, err := readAll(t, Options{App: "reports"}, "testdata/profile-relaxed.json")
	if err != nil || len(app) != 2 || rep.Skipped[skipApp] != 4 {
		t.Errorf("--app reports: %d ops, skipped %v, %v", len(app), rep.Skipped, err)
	}
}

// TestQueryStats reads the $queryStats output of MongoDB's documentation
// (as extended JSON): shapes with their execCount, no values.
func TestQueryStats(t *testing.T) {
	ops, rep, err := readAll(t, Options{}, "testdata/querystats.json")
	if err != nil {
		t.Fatal(err)
	}
	if rep.Format != shapes.FormatQueryStats || len(ops) != 2 || rep.Ops != 4 {
		t.Fatalf("format %s, %d entries, %d ops", rep.Format, len(ops), rep.Ops)
	}
	agg := ops[1]
	if !agg.Shaped || agg.Weight != 3 || agg.Command != shapes.CmdAggregate || agg.App != "mongosh 1.8.0" {
		t.Errorf("aggregate entry %+v", agg)
	}
	if math.Abs(agg.Metrics.DurationMs-1.028) > 1e-9 || agg.Metrics.MaxDurationMs != 2.499 {
		t.Errorf("latency mean %v max %v, want 1.028 and 2.499 ms", agg.Metrics.DurationMs, agg.Metrics.MaxDurationMs)
	}
}

// TestRedacted: redactClientLogData's "###" marks the ops as redacted;
// the collection comes from the namespace.
func TestRedacted(t *testing.T) {
	ops, rep, err := readAll(t, Options{}, "testdata/redacted.log")
	if err != nil {
		t.Fatal(err)
	}
	if len(ops) != 2 || rep.Redacted != 2 || ops[0].Collection != "orders" || ops[0].Limit != nil {
		t.Errorf("%d ops, %d redacted, first %+v", len(ops), rep.Redacted, ops[0])
	}
}

// TestRefused: inputs that are not what from-log reads are refused with
// their file and line, and the reason in words.
func TestRefused(t *testing.T) {
	rows := []struct {
		file, want string
	}{
		{"testdata/mongos.log", "testdata/mongos.log:1: a mongos (router) log"},
		{"testdata/mongos-lines.log", "testdata/mongos-lines.log:1: a mongos (router) log"},
		{"testdata/legacy-text.log", "text format of 4.2 and older"},
		{"testdata/noslow.log", "db.setProfilingLevel(0, {slowms: 0})"},
	}
	for _, r := range rows {
		_, _, err := readAll(t, Options{}, r.file)
		if err == nil || !strings.Contains(err.Error(), r.want) {
			t.Errorf("%s: error %v, want %q", r.file, err, r.want)
		}
	}
	_, _, err := readAll(t, Options{}, "testdata/noslow.log")
	if !errors.Is(err, ErrNoOps) {
		t.Errorf("no slow lines: %v is not ErrNoOps", err)
	}
	// Two kinds of input in one run.
	_, _, err = readAll(t, Options{}, "testdata/profile-relaxed.json", "testdata/redacted.log")
	if err == nil || !strings.Contains(err.Error(), "read them separately") {
		t.Errorf("mixed formats: %v", err)
	}
	// An appName nobody used.
	_, _, err = readAll(t, Options{App: "nobody"}, "testdata/profile-relaxed.json")
	if err == nil || !strings.Contains(err.Error(), `appName "nobody" (6 of other appNames)`) {
		t.Errorf("--app nobody: %v", err)
	}
}

// TestSettingsChange: the operations are counted under the threshold in
// effect when each was logged: mongod's default until a
// setProfilingLevel line changes it, and a restart's options after.
func TestSettingsChange(t *testing.T) {
	opts := `{"t":{"$date":"2024-05-02T10:00:00.000+00:00"},"s":"I","c":"CONTROL","id":21951,"ctx":"initandlisten","msg":"Options set by command line","attr":{"options":{"net":{"port":27017}}}}`
	change := `{"t":{"$date":"2024-05-02T10:01:00.000+00:00"},"s":"I","c":"COMMAND","id":48742,"ctx":"conn3","msg":"Profiler settings changed","attr":{"from":{"level":0,"slowms":100,"sampleRate":1},"to":{"level":0,"slowms":0,"sampleRate":0.5}}}`
	restart := `{"t":{"$date":"2024-05-02T11:00:00.000+00:00"},"s":"I","c":"CONTROL","id":21951,"ctx":"initandlisten","msg":"Options set by command line","attr":{"options":{"operationProfiling":{"slowOpThresholdMs":20,"slowOpSampleRate":1}}}}`
	log := strings.Join([]string{slowLine, opts, slowLine, slowLine, change, slowLine, restart, slowLine, slowLine, slowLine}, "\n") + "\n"
	path := write(t, "mongod.log", log)
	_, rep, err := readAll(t, Options{}, path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[Setting]int64{{SlowMs: 100, SampleRate: 1}: 2, {SlowMs: 0, SampleRate: 0.5}: 1, {SlowMs: 20, SampleRate: 1}: 3}
	got := map[Setting]int64{}
	for _, s := range rep.Settings {
		n := s.Ops
		s.Ops = 0
		got[s] = n
	}
	if rep.Unknown != 1 || len(got) != 3 {
		t.Fatalf("unknown %d (want the 1 before the startup line), settings %+v", rep.Unknown, rep.Settings)
	}
	for s, n := range want {
		if got[s] != n {
			t.Errorf("%+v: %d operations, want %d (all %+v)", s, got[s], n, rep.Settings)
		}
	}
}
