package results

import (
	"encoding/json"
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
	s := testStep(8)
	s.Ops, s.OpsPerS, s.OpsByType = 247, 123.5, map[string]OpTypeStats{"find": {Count: 247}}
	s2 := s
	s2.Trial = 2
	for _, rec := range []any{h, s, s2, EndRecord{Kind: KindEnd, Status: StatusComplete}} {
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
	header := line(t, testHeader())
	step := line(t, testStep(1))
	tests := []struct {
		name, body, want string
		line             int
	}{
		{"not JSON at all", "concurrency,qps\n1,2\n", "not a poolsweep results file", 1},
		{"JSON but not ours", `{"hello":1}` + "\n", "the first line's kind is not", 1},
		{"empty file", "", "empty", 1},
		{"future schema", `{"kind":"run","schema":99}` + "\n", "schema 99", 1},
		{"header without targets", `{"kind":"run","schema":1,"run_id":"x"}` + "\n", "run.targets: none", 1},
		{"cut line in the middle", header + `{"kind":"step","tar` + "\n" + step, "truncated", 2},
		{"unknown kind", header + `{"kind":"bogus"}` + "\n", "a record of an unknown kind", 2},
		{"two headers", header + header, "second run header", 2},
		// Records whose fields lie: each is refused, naming line and field.
		{"no ops_per_s", header + stepWith(t, "ops_per_s", nil), "step.ops_per_s: missing", 2},
		{"no latency_ms", header + stepWith(t, "latency_ms", nil), "step.latency_ms: missing", 2},
		{"negative ops_per_s", header + stepWith(t, "ops_per_s", -5), "step.ops_per_s: -5 is not a number ≥ 0", 2},
		{"concurrency 0", header + stepWith(t, "concurrency", 0), "step.concurrency: 0 is not between 1 and 100000", 2},
		{"no concurrency", header + stepWith(t, "concurrency", nil), "step.concurrency: missing", 2},
		{"no target", header + stepWith(t, "target", nil), "step.target: missing", 2},
		{"target not in the header", header + stepWith(t, "target", "zz"), `step.target: not one of the run header's 1 target(s)`, 2},
		{"string for a number", header + stepWith(t, "concurrency", "8"), "step.concurrency: holds a string, want a whole number", 2},
		{"negative latency", header + stepWith(t, "latency_ms", map[string]any{"p99": -1}), "step.latency_ms.p99", 2},
		{"negative errors", header + stepWith(t, "errors", map[string]any{"timeout": -1}), "step.errors.timeout", 2},
		{"negative clients", header + stepWith(t, "clients", -2), "step.clients: -2 is not between", 2},
		{"window of 0", header + stepWith(t, "duration_s", 0), "step.duration_s: 0 is not a window length", 2},
		{"unknown end status", header + step + `{"kind":"end","status":"fine"}` + "\n", `end.status: not one of`, 3},
		{"kind not a string", header + `{"kind":7}` + "\n", "record.kind: holds a number, want a string", 2},
		// A number that does not fit its field is named, never repeated.
		{"number past a float64", header + stepWith(t, "ops_per_s", json.RawMessage("1e400")), "step.ops_per_s: holds a number that is not a number within range", 2},
		{"5,000 digits", header + stepWith(t, "concurrency", json.RawMessage(strings.Repeat("9", 5000))), "step.concurrency: holds a number that is not a whole number within range", 2},
		{"fraction for a count", header + stepWith(t, "concurrency", json.RawMessage("8.5")), "step.concurrency: holds a number that is not a whole number within range", 2},
	}
	for _, tt := range tests {
		_, err := ReadResults(strings.NewReader(tt.body), "f.jsonl")
		var le *LineError
		if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.As(err, &le) || le.Line != tt.line {
			t.Errorf("%s: err = %v, want %q at line %d", tt.name, err, tt.want, tt.line)
		}
		if err != nil && (strings.Contains(err.Error(), "1e400") || strings.Contains(err.Error(), "99999") || strings.Contains(err.Error(), "8.5")) {
			t.Errorf("%s: the error repeats the file's text: %.200s", tt.name, err)
		}
	}
	// A run killed before its closing record is still readable, and says so.
	r, err := ReadResults(strings.NewReader(header+stepWith(t, "pool_setting", nil)), "f.jsonl")
	if err != nil || r.End != nil || len(r.Steps) != 1 || r.Steps[0].PoolSetting != "1" || len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "no end record") {
		t.Errorf("file without end record: %+v, %v", r, err)
	}
}

// TestReadResultsCutLastLine: a run killed (or a disk filled) while
// writing leaves its last line cut off; the complete records before it are
// used, with a warning naming the line.
func TestReadResultsCutLastLine(t *testing.T) {
	header := line(t, testHeader())
	step1, step2 := line(t, testStep(1)), line(t, testStep(2))
	for _, cut := range []string{`{"kind":"step","tar`, `{`, `{"kind":"end","status":"compl`} {
		r, err := ReadResults(strings.NewReader(header+step1+step2+cut), "f.jsonl")
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
	if err := os.WriteFile(path, []byte(line(t, testHeader())+`{"kind":"step","targ`), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := AppendResults(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(testStep(1)); err != nil {
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
