package results

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestResultsRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.jsonl")
	w, err := CreateResults(path)
	if err != nil {
		t.Fatal(err)
	}
	h := RunHeader{Kind: KindRun, Schema: SchemaVersion, RunID: "r1", StartedAt: time.Unix(0, 0).UTC(), Targets: []TargetHeader{{Name: "a", URI: "mongodb://u:***@h/"}}}
	s := StepResult{Kind: KindStep, Target: "a", Concurrency: 8, MaxPoolSize: 8, PoolSetting: "match", OpsPerS: 123.5, OpsByType: map[string]OpTypeStats{"find": {Count: 3}}}
	for _, rec := range []any{h, s, s, EndRecord{Kind: KindEnd, Status: StatusComplete}} {
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	r, err := ReadResultsFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if r.Header.RunID != "r1" || len(r.Steps) != 2 || r.Steps[1].OpsPerS != 123.5 || r.End == nil || r.End.Status != StatusComplete {
		t.Fatalf("round trip lost data: %+v", r)
	}
	// the schema's exact key names, as other tools will read them
	b, _ := os.ReadFile(path)
	for _, key := range []string{`"kind":"run"`, `"schema":1`, `"max_pool_size":8`, `"calls_per_s"`, `"ops_per_s":123.5`, `"latency_ms":{"mean"`, `"p999"`, `"checkout_wait_ms"`, `"checkout_failed"`, `"errors":{"timeout":0,"network":0,"server":0}`, `"kind":"end","status":"complete"`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("results file lacks %s", key)
		}
	}
}

func TestReadResultsErrors(t *testing.T) {
	header := `{"kind":"run","schema":1,"run_id":"x"}` + "\n"
	step := `{"kind":"step","target":"a","concurrency":1,"max_pool_size":1,"ops_per_s":1}` + "\n"
	tests := []struct {
		name, body, want string
		line             int
	}{
		{"not JSON at all", "concurrency,qps\n1,2\n", "not a poolsweep results file", 1},
		{"JSON but not ours", `{"hello":1}` + "\n", "first line has kind", 1},
		{"empty file", "", "empty", 1},
		{"future schema", `{"kind":"run","schema":99}` + "\n", "schema 99", 1},
		{"cut line in the middle", header + `{"kind":"step","tar` + "\n" + step, "truncated", 2},
		{"unknown kind", header + `{"kind":"bogus"}` + "\n", "unknown record kind", 2},
		{"two headers", header + header, "second run header", 2},
		// Records whose fields lie: each is refused, naming line and field.
		{"no ops_per_s", header + `{"kind":"step","target":"a","concurrency":1,"max_pool_size":1}` + "\n", "ops_per_s is missing", 2},
		{"negative ops_per_s", header + `{"kind":"step","target":"a","concurrency":1,"max_pool_size":1,"ops_per_s":-5}` + "\n", "ops_per_s is -5", 2},
		{"concurrency 0", header + `{"kind":"step","target":"a","concurrency":0,"max_pool_size":1,"ops_per_s":1}` + "\n", "concurrency is 0", 2},
		{"no concurrency", header + `{"kind":"step","target":"a","max_pool_size":1,"ops_per_s":1}` + "\n", "concurrency is missing", 2},
		{"no target", header + `{"kind":"step","concurrency":1,"max_pool_size":1,"ops_per_s":1}` + "\n", "target is missing", 2},
		{"string for a number", header + `{"kind":"step","target":"a","concurrency":"8","max_pool_size":1,"ops_per_s":1}` + "\n", "field concurrency holds a string", 2},
		{"negative latency", header + `{"kind":"step","target":"a","concurrency":1,"max_pool_size":1,"ops_per_s":1,"latency_ms":{"p99":-1}}` + "\n", "latency_ms.p99", 2},
		{"negative errors", header + `{"kind":"step","target":"a","concurrency":1,"max_pool_size":1,"ops_per_s":1,"errors":{"timeout":-1}}` + "\n", "errors.timeout", 2},
		{"trial 0 given", header + `{"kind":"step","target":"a","concurrency":1,"max_pool_size":1,"ops_per_s":1,"clients":-2}` + "\n", "clients is -2", 2},
		{"unknown end status", header + step + `{"kind":"end","status":"fine"}` + "\n", "status \"fine\"", 3},
		{"kind not a string", header + `{"kind":7}` + "\n", "field kind holds a number", 2},
	}
	for _, tt := range tests {
		_, err := ReadResults(strings.NewReader(tt.body), "f.jsonl")
		var le *LineError
		if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.As(err, &le) || le.Line != tt.line {
			t.Errorf("%s: err = %v, want %q at line %d", tt.name, err, tt.want, tt.line)
		}
	}
	// A run killed before its closing record is still readable, and says so.
	r, err := ReadResults(strings.NewReader(header+step), "f.jsonl")
	if err != nil || r.End != nil || len(r.Steps) != 1 || r.Steps[0].PoolSetting != "1" || len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "no end record") {
		t.Errorf("file without end record: %+v, %v", r, err)
	}
}

// TestReadResultsCutLastLine: a run killed (or a disk filled) while
// writing leaves its last line cut off; the complete records before it are
// used, with a warning naming the line.
func TestReadResultsCutLastLine(t *testing.T) {
	header := `{"kind":"run","schema":1,"run_id":"x"}` + "\n"
	step := `{"kind":"step","target":"a","concurrency":1,"max_pool_size":1,"ops_per_s":1}` + "\n"
	for _, cut := range []string{`{"kind":"step","tar`, `{`, `{"kind":"end","status":"compl`} {
		r, err := ReadResults(strings.NewReader(header+step+step+cut), "f.jsonl")
		if err != nil {
			t.Errorf("cut %q: %v", cut, err)
			continue
		}
		if len(r.Steps) != 2 || len(r.Warnings) == 0 || !strings.Contains(r.Warnings[0], "f.jsonl:4: the last line is cut off") {
			t.Errorf("cut %q: steps %d, warnings %q", cut, len(r.Steps), r.Warnings)
		}
	}
}

// TestResultsWriterWholeRecords: a record that cannot be written whole is
// cut back, so the file keeps only complete lines; resuming cuts off a
// partial last line left by a killed run before appending.
func TestResultsWriterWholeRecords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.jsonl")
	if err := os.WriteFile(path, []byte(`{"kind":"run","schema":1,"run_id":"x"}`+"\n"+`{"kind":"step","targ`), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := AppendResults(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(StepResult{Kind: KindStep, Target: "a", Concurrency: 1, MaxPoolSize: 1, Clients: 1, Trial: 1, OpsPerS: 3}); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(EndRecord{Kind: KindEnd, Status: StatusComplete}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	r, err := ReadResultsFile(path)
	if err != nil || len(r.Steps) != 1 || r.End == nil || len(r.Warnings) != 0 {
		t.Fatalf("after append: %+v %v", r, err)
	}
	// A new run never replaces a file, nor writes through a non-file.
	if _, err := CreateResults(path); err == nil {
		t.Error("CreateResults replaced an existing file")
	}
	if _, err := AppendResults("/dev/null"); err == nil {
		t.Error("AppendResults wrote through /dev/null")
	}
}
