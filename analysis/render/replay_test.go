package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/analysis/knee"
)

// TestReplays: a replayed series is shown with the find-by-_id knee
// beside it, its shapes at the knee and the shape that saturates first;
// a shape id from the file is escaped.
func TestReplays(t *testing.T) {
	a := &analysis.Analysis{Replays: []analysis.Replay{{
		Target: "a", Pool: "match", Clients: 1, File: "app.yaml",
		Knee: knee.Knee{Found: true, Concurrency: 8, QPS: 576, Confidence: "low"}, Peak: knee.Peak{Concurrency: 16, QPS: 607},
		FindByID: &analysis.Baseline{Workload: "read", Pool: "match", Knee: knee.Knee{Found: true, Concurrency: 4, QPS: 928, Confidence: "low"}, Peak: knee.Peak{Concurrency: 16, QPS: 1000}},
		Shapes: []analysis.ShapeLevels{
			{ID: "byid", Command: "find", Class: "read", Share: 0.6, Levels: []analysis.ShapeLevel{{Concurrency: 8, OpsPerS: 350, P50Ms: 10.74, P99Ms: 23.36, TimeShare: 0.5}}},
			{ID: "sc\x1ban", Command: "find", Class: "read", Share: 0.2, Levels: []analysis.ShapeLevel{{Concurrency: 8, OpsPerS: 130, P50Ms: 26.32, P99Ms: 37.47, TimeShare: 0.44}}},
		},
		Saturates: &analysis.Saturation{Shape: "sc\x1ban", Concurrency: 8, Queued: []string{"byid", "sc\x1ban"}, AddedMs: 5.95, TimeShare: 0.45, From: 1},
	}}}
	var b bytes.Buffer
	if err := Replays(&b, a); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"replay of app.yaml on a (pool match, 1 client(s)): knee at C=8 (576 ops/s, confidence low); peak 607 ops/s at C=16",
		"find by _id on the same target (pool match): knee at C=4 (928 ops/s, confidence low); peak 1000 ops/s at C=16",
		"the replay peaks at 0.61× find-by-_id's throughput: its shapes cost the server more per op",
		"per shape at the knee (C=8):",
		"byid", "350", "23.36", "50%",
		"wait 5.95 ms more at the median than at C=1",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b") {
		t.Errorf("a control character from the file reached the output:\n%q", out)
	}
	b.Reset()
	if err := Replays(&b, &analysis.Analysis{}); err != nil || b.Len() != 0 {
		t.Errorf("no replay: %q %v", b.String(), err)
	}
}
