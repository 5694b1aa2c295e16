//go:build soak

package main

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/results"
)

// The soak tier: the search against the full grid measured beside it, on
// the simulator (the proof end to end). The fast tier holds the same
// claims more cheaply: the step count and the grid's knee on modelled
// deployments (search: TestKneeSearchMatchesTheGrid), the knee against the
// simulator's ground truth (search: TestSearchSessionOnSimulator), and what
// the CLI writes for a searched run and how every reader and --resume take
// it (TestSearchKneeOnSimulator).

// wall is a run's wall time from its header to its last end record.
func wall(res *results.Results) time.Duration { return res.End.FinishedAt.Sub(res.Header.StartedAt) }

// TestSearchOnSimulator is the proof end to end: against the
// calibrated standalone (knee 8), the full grid at ×√2 with 3 trials and
// --search knee over the same range. The search's knee is the grid's
// within one grid step, in at most 40% of its steps and half its wall
// time (a ratio within one run of the test; the searched steps sit at
// lower concurrency, so they are not dearer than the grid's). When the
// machine is busy enough to blur the knee, qualifications are accepted
// only with the tool's own evidence: steps labelled client-bound; both
// knees below medium confidence; or a grid knee below medium confidence
// with the search's within one grid step of the ground truth (8, or 11
// and 16 where the client's own time per op shows; see topology/sim).
// Every reader takes the searched run as it is.
func TestSearchOnSimulator(t *testing.T) {
	levels := []int{1, 2, 3, 4, 6, 8, 11, 16, 23, 32, 45, 64, 91, 128}
	target := "s=sim:slots=8,service=2ms"
	win := []string{"--warmup", "200ms", "--duration", "700ms"}
	gridRes, gridPath := simSweep(t, append([]string{"--target", target, "--concurrency", "1,2,3,4,6,8,11,16,23,32,45,64,91,128", "--trials", "3", "--no-plot"}, win...)...)
	res, path := simSweep(t, append([]string{"--target", target, "--concurrency", "1..128x2", "--search", "knee"}, win...)...)

	checkSearchRecords(t, res, levels, "search: knee at concurrency")

	g, s := analyzeKnee(t, gridPath), analyzeKnee(t, path)
	clientBound := 0
	for _, r := range []*results.Results{gridRes, res} {
		for _, st := range r.Steps {
			if st.Bound == "client" {
				clientBound++
			}
		}
	}
	ratio, wallRatio := float64(len(res.Steps))/float64(len(gridRes.Steps)), wall(res).Seconds()/wall(gridRes).Seconds()
	t.Logf("grid: knee %d (%d–%d, %s) in %d steps, %s; search: knee %d (%d–%d, %s) in %d steps, %s; ratio %.0f%% steps, %.0f%% wall; %d client-bound steps",
		g.Concurrency, g.Low, g.High, g.Confidence, len(gridRes.Steps), wall(gridRes).Round(time.Second),
		s.Concurrency, s.Low, s.High, s.Confidence, len(res.Steps), wall(res).Round(time.Second), 100*ratio, 100*wallRatio, clientBound)
	step := func(a, b int) int { return slices.Index(levels, a) - slices.Index(levels, b) }
	within := func(a, b int) bool {
		d := step(a, b)
		return d >= -1 && d <= 1 && slices.Contains(levels, a) && slices.Contains(levels, b)
	}
	confident := func(k kneeJSON) bool { return k.Confidence == "high" || k.Confidence == "medium" }
	switch {
	case !s.Found:
		t.Errorf("the search found no knee: %+v", s)
	case g.Found && within(s.Concurrency, g.Concurrency):
	case clientBound > 0:
		t.Logf("accepted: the knees differ with %d client-bound steps, the load host's numbers", clientBound)
	case !confident(g) && !confident(s):
		t.Logf("accepted: both knees are low confidence, the analysis's own word that this machine's noise hid the knee")
	case !confident(g) && s.Concurrency >= 6 && s.Concurrency <= 16:
		t.Logf("accepted: the grid's own knee is %s confidence on this machine; the search's is at the ground truth", g.Confidence)
	default:
		t.Errorf("search knee %d (%s), grid knee %d (%s): more than one grid step apart", s.Concurrency, s.Confidence, g.Concurrency, g.Confidence)
	}
	// The search repeats where levels overlap, so on a noisy machine it
	// takes more steps; the 40% target holds for a search that ended
	// confident, and it never costs more than 60%.
	switch {
	case !confident(s) && ratio <= 0.6:
		t.Logf("the search ended %s confidence in %.0f%% of the grid's steps", s.Confidence, 100*ratio)
	case ratio > 0.4:
		t.Errorf("the search took %.0f%% of the grid's steps, want at most 40%%", 100*ratio)
	case wallRatio > 0.5:
		t.Errorf("the search took %.0f%% of the grid's wall time, want at most half", 100*wallRatio)
	}

	// Readers take the searched run unchanged (compare pairs the levels
	// both runs measured), and a resume of it has nothing to do.
	if stdout := checkSearchedRun(t, path, gridPath, append([]string{"--target", target, "--concurrency", "1..128x2", "--search", "knee"}, win...)); !strings.Contains(stdout, "read C=8") {
		t.Errorf("compare grid and search pairs no C=8:\n%s", stdout)
	}
}
