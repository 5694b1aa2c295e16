package sweep

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
		{"truncated last line", header + step + `{"kind":"step","tar`, "truncated", 3},
		{"unknown kind", header + `{"kind":"bogus"}` + "\n", "unknown record kind", 2},
		{"two headers", header + header, "second run header", 2},
	}
	for _, tt := range tests {
		_, err := ReadResults(strings.NewReader(tt.body), "f.jsonl")
		var le *LineError
		if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.As(err, &le) || le.Line != tt.line {
			t.Errorf("%s: err = %v, want %q at line %d", tt.name, err, tt.want, tt.line)
		}
	}
	// A run killed before its closing record is still readable.
	r, err := ReadResults(strings.NewReader(header+step), "f.jsonl")
	if err != nil || r.End != nil || len(r.Steps) != 1 || r.Steps[0].PoolSetting != "1" {
		t.Errorf("file without end record: %+v, %v", r, err)
	}
}
