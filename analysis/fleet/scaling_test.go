package fleet

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/loadprofile"
	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/topology/sim"
)

// TestParseInstanceTrace: rows of t_s,instances, the header optional;
// every bad row is refused naming the file, its line and the field, never
// quoting the row.
func TestParseInstanceTrace(t *testing.T) {
	good := "\ufefft_s,instances\n0,10\n\n60.5, 50\n120,200\n900,0\n"
	pts, err := ParseInstanceTrace("tr.csv", []byte(good), 1000)
	want := []TracePoint{{0, 10}, {60500 * time.Millisecond, 50}, {120 * time.Second, 200}, {900 * time.Second, 0}}
	if err != nil || len(pts) != len(want) {
		t.Fatalf("%v, %v", pts, err)
	}
	for i := range want {
		if pts[i] != want[i] {
			t.Errorf("row %d: %+v, want %+v", i, pts[i], want[i])
		}
	}
	for _, tc := range []struct{ text, want string }{
		{"0,10\n5\n", "tr.csv:2: not a row of two fields"},                    // one field
		{"0,10\n5,1,2\n", "tr.csv:2: not a row of two fields"},                // three
		{"0,10\nsoon,1\n", "tr.csv:2: t_s: not a number of seconds"},          // a word for a time
		{"0,10\n-1,1\n", "tr.csv:2: t_s: -1 is negative"},                     // before the start
		{"0,10\n0,20\n", "tr.csv:2: t_s: 0 is not after the row before"},      // not increasing
		{"0,10\n1,2.5\n", "tr.csv:2: instances: not a whole number"},          // half an instance
		{"0,10\n1,-3\n", "tr.csv:2: instances: -3 is negative"},               // negative
		{"0,10\n1,1001\n", "tr.csv:2: instances: above 1000"},                 // past the bound
		{"0,10\n1,99999999999999999999\n", "tr.csv:2: instances: above 1000"}, // past int
		{"0,10\n1e9,1\n", "tr.csv:2: t_s: 1000000000 is past the"},            // past a trace's length
		{"t_s,instances\n", "tr.csv: no rows"},                                // a header alone
		{"0,0\n5,0\n", "tr.csv: instances: every row has 0 instances"},        // no fleet
		{"0,10\n1,\x1b[31mred\n", "tr.csv:2: instances: not a whole number"},  // the row is not echoed
	} {
		_, err := ParseInstanceTrace("tr.csv", []byte(tc.text), 1000)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) || strings.Contains(err.Error(), "\x1b") || strings.Contains(err.Error(), "red") {
			t.Errorf("%q: %v, want %q", tc.text, err, tc.want)
		}
	}
}

// TestInstancesFromRates: an autoscaler that adds an instance per R
// calls/s keeps ceil(rate/R), at least one, and the trace's end row adds
// no size of its own.
func TestInstancesFromRates(t *testing.T) {
	pts := []loadprofile.Point{{At: 0, Rate: 1000}, {At: time.Minute, Rate: 1000.5}, {At: 2 * time.Minute, Rate: 20_000}, {At: 3 * time.Minute, Rate: 0}, {At: 4 * time.Minute, Rate: 0}}
	got, err := InstancesFromRates(pts, 100, 1000)
	want := []TracePoint{{0, 10}, {time.Minute, 11}, {2 * time.Minute, 200}, {3 * time.Minute, 1}}
	if err != nil || len(got) != len(want) {
		t.Fatalf("%v, %v", got, err)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if _, err := InstancesFromRates(pts, 10, 1000); err == nil || !strings.Contains(err.Error(), "2000 instances") {
		t.Errorf("past the bound: %v", err)
	}
}

// TestScalingMatchesTheConstruction: a fleet that scales 10 → 50 → 200
// → 10 instances on a simulator with accept_cost=2ms. Its peak holds
// 200 × (P + 2) connections per host with full pools; at rest the fewest
// hold minPoolSize + 2 each; and a scale-out of Δ instances opens
// Δ × (minPoolSize + 2) at start and Δ × (P + 2) in all, which the
// simulator's serial acceptor sets up in that many × 2 ms once the storm
// saturated it.
func TestScalingMatchesTheConstruction(t *testing.T) {
	const specText = "slots=16,service=2ms,accept_cost=2ms"
	spec, _ := sim.ParseSpec(specText)
	run := modelRun(t, specText, 0)
	rs := []*results.Results{run}
	a := analysis.Of(rs, knee.DefaultOptions())
	acceptor := 1 / spec.AcceptCost.Seconds()
	storm := stormRun(run.Header.Targets[0], 2, map[int]float64{2: 0.4 * acceptor, 10: acceptor, 50: acceptor, 200: acceptor})
	trace := &Trace{Source: "pods.csv", MinPoolSize: 1, MaxIdle: time.Minute,
		Points: []TracePoint{{0, 10}, {60 * time.Second, 50}, {70 * time.Second, 200}, {900 * time.Second, 10}}}
	lim := 2_990
	p, err := Make(rs, a, Options{Instances: 200, Storm: storm, Trace: trace, MaxConnections: lim})
	if err != nil {
		t.Fatal(err)
	}
	sp := p.Series[0]
	sc := sp.Scaling
	if sc == nil {
		t.Fatal("no scaling")
	}
	pool, m := sp.Recommended.MaxPoolSize, sp.Monitors
	if sc.PeakInstances != 200 || sc.PeakAtS != 70 || sc.PeakConnections != 200*(pool+m) || sc.LowInstances != 10 || sc.RestConnections != 10*(1+m) {
		t.Errorf("peak %d at %g s, %d connections; low %d, %d at rest (pool %d, %d monitors)", sc.PeakInstances, sc.PeakAtS, sc.PeakConnections, sc.LowInstances, sc.RestConnections, pool, m)
	}
	if pct := 100 * float64(sc.PeakConnections) / float64(lim); sc.PeakLimitPct == nil || math.Abs(*sc.PeakLimitPct-pct) > 1e-9 || sc.OverLimit != (sc.PeakConnections > lim) {
		t.Errorf("peak share %v, want %g", sc.PeakLimitPct, pct)
	}
	if sc.Count != 2 || len(sc.ScaleOuts) != 2 {
		t.Fatalf("scale-outs %+v", sc.ScaleOuts)
	}
	big := sc.ScaleOuts[0] // the largest first: 50 → 200
	if big.From != 50 || big.To != 200 || big.StartConns != 150*(1+m) || big.FullConns != 150*(pool+m) || big.NextChangeAfter != 830 {
		t.Errorf("largest scale-out %+v", big)
	}
	for _, so := range sc.ScaleOuts {
		w := so.Warm
		if w == nil {
			t.Fatalf("%+v: not timed", so)
		}
		// Both scale-outs add at least 10 clients: the acceptor's rate.
		start, full := float64(so.StartConns)*spec.AcceptCost.Seconds(), float64(so.FullConns)*spec.AcceptCost.Seconds()
		if math.Abs(w.AcceptPerS-acceptor) > 1e-9 || math.Abs(w.StartS-start) > 1e-9 || math.Abs(w.FullS-full) > 1e-9 || w.MaxConnecting != 2 {
			t.Errorf("%d → %d: %+v, want %g s at start and %g s full", so.From, so.To, w, start, full)
		}
	}
	text := planText(t, p)
	for _, want := range []string{"autoscaling (pods.csv): 10 to 200 instances", "maxIdleTimeMS 60000", "scale-out at t = 70 s, 50 → 200 instances"} {
		if !strings.Contains(text, want) {
			t.Errorf("the plan does not say %q:\n%s", want, text)
		}
	}
	// Without a storm run the warm-up is not guessed; minPoolSize above
	// the pool is said and capped; maxIdleTimeMS 0 keeps busy pools.
	trace.MinPoolSize, trace.MaxIdle = 1000, 0
	p, err = Make(rs, a, Options{Instances: 200, Trace: trace})
	if err != nil {
		t.Fatal(err)
	}
	sc = p.Series[0].Scaling
	if sc.MinPoolSize != pool || sc.ScaleOuts[0].Warm != nil || len(sc.Warnings) != 1 {
		t.Errorf("%+v", sc)
	}
	if text := planText(t, p); !strings.Contains(text, "give --storm") || !strings.Contains(text, "never closed") {
		t.Errorf("without a storm or an idle time:\n%s", text)
	}
}
