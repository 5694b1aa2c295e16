package main

import (
	"encoding/json"
	"github.com/poolsweep/poolsweep/internal/errext"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/results"
)

// TestProgressJSON: with --progress json every line of stderr is a JSON
// event; the events come in their documented order, step_end carries the
// step record's figures, the thresholds and end events say what the end
// record says, and every field seen is documented in docs/progress.md.
func TestProgressJSON(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("sweeps the simulator")
	}
	uri, _ := startServe(t, "--sim", "slots=4,service=5ms")
	out := filepath.Join(t.TempDir(), "out")
	code, _, stderr := runCLI(t, "sweep", "--uri", uri, "--concurrency", "2,8", "--warmup", "600ms", "--duration", "1s",
		"--records", "200", "--op-timeout", "2s", "--no-plot", "--out", out, "--progress", "json",
		"--threshold", "errors<=1000000", "--threshold", "p99<1ms@64")
	if code != errext.ExitGate {
		t.Fatalf("exit %d, want %d (p99<1ms@64 cannot be evaluated)\n%s", code, errext.ExitGate, stderr)
	}
	res := readRes(t, filepath.Join(out, "results.jsonl"))

	type event map[string]any
	var events []event
	fields := map[string]map[string]bool{} // event → fields seen
	for i, line := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
		var ev event
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("stderr line %d is not a JSON object: %v\n%s", i+1, err, line)
		}
		name, _ := ev["event"].(string)
		if ts, _ := ev["time"].(string); name == "" || ts == "" {
			t.Fatalf("line %d has no event or time: %s", i+1, line)
		} else if _, err := time.Parse(time.RFC3339Nano, ts); err != nil {
			t.Errorf("line %d: time %q: %v", i+1, ts, err)
		}
		if fields[name] == nil {
			fields[name] = map[string]bool{}
		}
		for k := range ev {
			fields[name][k] = true
		}
		events = append(events, ev)
	}

	// The order: messages, one plan, per step start, progress…, end; then
	// thresholds and end, last; the final "poolsweep: …" line is a message.
	var order []string
	for _, ev := range events {
		if n := ev["event"].(string); n != evMessage && (len(order) == 0 || order[len(order)-1] != n || n != evProgress) {
			order = append(order, n)
		}
	}
	want := "plan step_start progress step_end step_start progress step_end thresholds end"
	if got := strings.Join(order, " "); got != want {
		t.Errorf("events (progress runs folded, messages left out):\n %s\nwant\n %s", got, want)
	}
	if last := events[len(events)-1]; last["event"] != evMessage || !strings.Contains(last["text"].(string), "threshold(s) failed") {
		t.Errorf("last line %v: want the failure as a message", last)
	}

	// step_end is the step record's figures; progress is about the step
	// started last.
	n := 0
	var current float64
	for _, ev := range events {
		switch ev["event"] {
		case evStepStart:
			current = ev["n"].(float64)
		case evProgress:
			if ev["n"].(float64) != current || ev["calls_per_s"] == nil && ev["phase"] != "prewarm" {
				t.Errorf("progress %v during step %g", ev, current)
			}
		case evStepEnd:
			st := res.Steps[n]
			n++
			if ev["ops_per_s"].(float64) != st.OpsPerS || ev["p99_ms"].(float64) != st.Latency.P99 || ev["calls_per_s"].(float64) != st.CallsPerS ||
				int(ev["concurrency"].(float64)) != st.Concurrency || int(ev["connections"].(float64)) != st.Connections || int(ev["errors"].(float64)) != int(st.Errors.Total()) {
				t.Errorf("step_end %v\nis not the record %+v", ev, st)
			}
		case evThresholds:
			b, _ := json.Marshal(ev["thresholds"])
			var got []results.ThresholdOutcome
			if err := json.Unmarshal(b, &got); err != nil || len(got) != 2 || !got[0].Pass || got[1].Pass || got[1].Threshold != res.End.Thresholds[1].Threshold {
				t.Errorf("thresholds event %s, want the end record's %+v", b, res.End.Thresholds)
			}
		case evEnd:
			if ev["status"] != res.End.Status || int(ev["measured"].(float64)) != len(res.Steps) || ev["thresholds_passed"] != false {
				t.Errorf("end %v, want status %s, %d measured, thresholds failed", ev, res.End.Status, len(res.Steps))
			}
		}
	}

	// Every field seen is documented.
	doc, err := os.ReadFile("../../docs/progress.md")
	if err != nil {
		t.Fatal(err)
	}
	for name, fs := range fields {
		for f := range fs {
			row := regexp.MustCompile("(?m)^\\| (every|step events|`" + name + "`) \\| [^|]*`" + regexp.QuoteMeta(f) + "`")
			if !row.Match(doc) {
				t.Errorf("docs/progress.md does not document field %s of %s events", f, name)
			}
		}
	}
}
