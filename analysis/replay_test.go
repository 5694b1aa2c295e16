package analysis

import (
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/results"
)

// replayInfo is a file of a point read (60%), a scan (20%) and an update
// (20%).
var replayInfo = &results.ReplayInfo{File: "app.yaml", Shapes: []results.ReplayShape{
	{ID: "byid", Command: "find", Class: "read", Share: 0.6, OpType: results.ShapeOpType("find", "byid")},
	{ID: "scan", Command: "find", Class: "scan", Share: 0.2, OpType: results.ShapeOpType("find", "scan")},
	{ID: "upd", Command: "update", Class: "write", Share: 0.2, OpType: results.ShapeOpType("update", "upd")},
}}

// replayStep is a replayed step at c: the reads wait wait ms in their
// queue (4 ms and 20 ms of service), the update 4 ms and never waits.
func replayStep(c, trial int, qps, wait float64) results.StepResult {
	st := step("a", c, trial, qps)
	st.Workload = "replay"
	st.OpsByType = map[string]results.OpTypeStats{}
	for _, s := range []struct {
		id, op   string
		share, t float64
	}{{"byid", "find", 0.6, 4 + wait}, {"scan", "find", 0.2, 20 + wait}, {"upd", "update", 0.2, 4}} {
		n := int64(s.share * qps)
		st.OpsByType[results.ShapeOpType(s.op, s.id)] = results.OpTypeStats{Count: n, PerS: float64(n),
			Latency: results.LatencySummary{Mean: s.t, P50: s.t, P99: 1.5 * s.t}}
	}
	return st
}

// TestReplayAnalysis: per-shape medians over trials, the shape whose work
// fills the queue that saturated (the scans: 4.0 of 7.2 ms per op, though
// the point reads' latency grows by a larger factor), and the same
// target's find-by-_id knee beside it; rare shapes are measured from
// where they ran enough ops.
func TestReplayAnalysis(t *testing.T) {
	var steps []results.StepResult
	for _, l := range []struct {
		c         int
		qps, wait float64
	}{{1, 140, 0}, {2, 280, 0}, {4, 550, 0.5}, {8, 620, 6}, {16, 625, 19}} {
		for trial := 1; trial <= 3; trial++ {
			steps = append(steps, replayStep(l.c, trial, l.qps+float64(trial), l.wait))
		}
	}
	r := run("replay.jsonl", steps...)
	r.Header.Workload.Replay = replayInfo
	a := Of([]*results.Results{r, run("byid.jsonl", saturating("a")...)}, knee.DefaultOptions())
	if len(a.Replays) != 1 {
		t.Fatalf("%d replays", len(a.Replays))
	}
	rp := a.Replays[0]
	if rp.FindByID == nil || rp.FindByID.Peak.QPS < 8000 || rp.Peak.QPS < 620 {
		t.Fatalf("find by _id beside the replay: %+v; the replay's peak %+v", rp.FindByID, rp.Peak)
	}
	scan := rp.Shapes[1]
	if len(scan.Levels) != 5 || scan.Levels[3].P50Ms != 26 || scan.Levels[3].OpsPerS != 124 {
		t.Errorf("the scan at C=8: %+v", scan.Levels)
	}
	sat := rp.Saturates
	if sat == nil || sat.Shape != "scan" || sat.Concurrency != 8 || strings.Join(sat.Queued, ",") != "byid,scan" {
		t.Fatalf("saturates first: %+v, want the scans at C=8 with the point reads in their queue", sat)
	}
	// The scans ran too few ops at C=1 (under minShapeOps): measured from C=2.
	for i := range steps[:3] {
		st := steps[i].OpsByType[results.ShapeOpType("find", "scan")]
		st.Count = minShapeOps - 1
		steps[i].OpsByType[results.ShapeOpType("find", "scan")] = st
	}
	r.Steps = steps
	a = Of([]*results.Results{r}, knee.DefaultOptions())
	if sat := a.Replays[0].Saturates; sat == nil || sat.Shape != "scan" || sat.From != 2 || a.Replays[0].FindByID != nil {
		t.Errorf("with the scans from C=2: %+v, baseline %+v", sat, a.Replays[0].FindByID)
	}
}
