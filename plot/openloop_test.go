package plot

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/internal/testkit/golden"
	"github.com/poolsweep/poolsweep/results"
)

// openResults is an open-loop run against a model of the calibrated
// simulator (slots=8, service=2ms): a pool of p carries min(p, 8)/2ms
// calls/s; below that, latency grows as 1/(1 − utilisation); above it the
// backlog grows to max-in-flight and arrivals are dropped, and a pool
// below 8 makes calls wait for connections. 2 trials, pools 4 and 16.
func openResults() *results.Results {
	rates, pools := []int{1000, 2000, 3000, 6000}, []int{4, 16}
	plan := results.PlanInfo{Concurrency: []int{5000}, Pool: "4,16", Pools: pools, Clients: 1, Trials: 2, WarmupS: 1, DurationS: 3, OpTimeoutS: 5,
		Steps: 16, Rate: rates, Arrivals: results.ArrivalsUniform, MaxInFlight: 5000}
	r := &results.Results{Path: "testdata/open.jsonl", Header: header("open-sim", "read", map[string]float64{"read": 100}, 1, plan,
		results.TargetHeader{Name: "sim", URI: "mongodb://127.0.0.1:27018/", Topology: "standalone", ServerVersion: "8.0.0-poolsweep-sim",
			ServerKind: "simulator", Hosts: []string{"127.0.0.1:27018"}, SimSpec: "slots=8,service=2ms"})}
	for trial := 1; trial <= 2; trial++ {
		for _, pool := range pools {
			for _, rate := range rates {
				noise := 1 + 0.01*float64(trial*2-3)
				capacity := float64(min(pool, 8)) / 0.002
				st := results.StepResult{Kind: results.KindStep, Target: "sim", Workload: "read", PoolSetting: itoa(pool), Concurrency: 5000,
					MaxPoolSize: pool, Clients: 1, Connections: pool, Trial: trial, StartedAt: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC), DurationS: 3,
					OpsByType: map[string]results.OpTypeStats{}, Mode: results.ModeOpen, Rate: rate}
				o := &results.OpenLoopStats{Arrivals: results.ArrivalsUniform, MaxInFlight: 5000, Offered: int64(3 * rate), OfferedPerS: float64(rate)}
				svc := 2.2
				var mean, p50, p99, wait float64
				if rho := float64(rate) / capacity; rho < 1 {
					o.AchievedPerS = float64(rate)
					mean, p50, p99 = svc/(1-rho)*noise, 2.1/(1-rho)*noise, 4/(1-rho)*noise
					wait = 0.02 * mean
				} else {
					o.AchievedPerS = capacity * noise
					o.Dropped = int64((float64(rate) - capacity) * 1.5)
					mean, p50, p99 = 900*noise, 1000*noise, 1250*noise
					wait = 0.1 * mean
					if pool < 8 {
						wait = 0.97 * mean
					}
				}
				o.Corrected = results.LatencySummary{Mean: mean, P50: p50, P90: p99 * 0.8, P99: p99, P999: p99 * 1.1, Max: p99 * 1.2}
				o.Uncorrected = &results.LatencySummary{Mean: svc, P50: 2.1, P90: 2.5, P99: 4, P999: 6, Max: 9}
				o.StartLag = results.Quantiles{Mean: 0.2, P50: 0.1, P99: 0.6, Max: 2}
				o.PoolWait = results.Quantiles{Mean: wait, P50: wait, P99: wait * 2, Max: wait * 3}
				o.Service = results.Quantiles{Mean: mean - wait - 0.2, P50: 2.1, P99: 4, Max: max(9, 2*(mean-wait))}
				o.InFlightMean = o.AchievedPerS * (mean - 0.2) / 1000
				o.InFlightMax = int(o.InFlightMean * 2)
				st.Calls, st.Ops = int64(o.AchievedPerS*3), int64(o.AchievedPerS*3)
				st.CallsPerS, st.OpsPerS = o.AchievedPerS, o.AchievedPerS
				st.Latency = o.Corrected
				st.OpsByType[results.TypeFind] = results.OpTypeStats{Count: st.Ops, PerS: st.OpsPerS, Latency: o.Corrected}
				st.Open = o
				r.Steps = append(r.Steps, st)
			}
		}
	}
	r.End = &results.EndRecord{Kind: results.KindEnd, Status: results.StatusComplete, FinishedAt: time.Date(2025, 3, 1, 12, 30, 0, 0, time.UTC), Steps: len(r.Steps)}
	return r
}

func loadOpen(t *testing.T) *results.Results {
	t.Helper()
	if golden.Updating() {
		writeResultsFile(t, filepath.Join("testdata", "open.jsonl"), openResults())
	}
	return readTestdata(t, "open.jsonl")
}

// The open-loop figures draw the open-loop analysis: per pool the
// corrected p50/p99 and the highest rate carried, achieved against
// offered with the diagonal, and the pool-wait share; the closed-loop
// figures are skipped with a note, not an error.
func TestOpenFigures(t *testing.T) {
	r := loadOpen(t)
	o := knee.DefaultOptions()
	o.SLOP99 = 20 * time.Millisecond
	a := analysis.Of([]*results.Results{r}, o)
	figs, notes, err := Figures([]*results.Results{r}, a, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "only open-loop steps") {
		t.Errorf("notes %q", notes)
	}
	data := checkFigureData(t, "open", figs, notes, []string{figOpenLatency, figOpenAchieved, figOpenPoolWait})
	if *plotDir != "" {
		writeLook(t, filepath.Join(*plotDir, "open"), scenario{rs: []*results.Results{r}}, figs)
	}

	// What the analysis decided is what is marked: pool 4 carries
	// 1,000/s (its capacity is 2,000), pool 16 carries 3,000/s at p99 ≤
	// 20 ms; the SLO is drawn.
	var carried []string
	for _, m := range data[0].Marks {
		carried = append(carried, m.Label)
	}
	if !slices.Equal(carried, []string{"pool 4 carries 1,000/s", "pool 16 carries 3,000/s"}) {
		t.Errorf("marks %q", carried)
	}
	roles := map[string]int{}
	for _, d := range data {
		for _, s := range d.Series {
			roles[s.Role]++
			if s.Role == "diagonal" && (s.Points[0].X != s.Points[0].Y || s.Points[1].X != s.Points[1].Y) {
				t.Errorf("diagonal %+v", s.Points)
			}
		}
	}
	for role, n := range map[string]int{"p99": 2, "p50": 2, "slo": 1, "diagonal": 1, "achieved": 2, "pool wait": 2} {
		if roles[role] != n {
			t.Errorf("%d series of role %s, want %d", roles[role], role, n)
		}
	}
	// The pool-wait panel: pool 4 waits for connections from 2,000/s on.
	for _, s := range data[2].Series {
		for _, p := range s.Points {
			pool4 := strings.HasSuffix(s.Name, "=4")
			if dominated := p.Y > 50; dominated != (pool4 && p.X >= 2000) {
				t.Errorf("%s at %g/s: pool wait %g%%", s.Name, p.X, p.Y)
			}
		}
	}
	// Every figure renders.
	for i := range figs {
		var b bytes.Buffer
		if err := figs[i].WriteSVG(&b); err != nil || b.Len() == 0 {
			t.Errorf("%s: %v", figs[i].Name, err)
		}
	}
}

// A run with closed- and open-loop steps: the closed-loop figures leave
// the open-loop steps out, with a note; asking for an open figure of a
// closed-loop run says there is none.
func TestOpenMixed(t *testing.T) {
	pair, _ := loadInputs(t)
	open := loadOpen(t)
	mixed := *pair
	mixed.Steps = append(slices.Clone(pair.Steps), open.Steps...)
	rs := []*results.Results{&mixed}
	figs, notes, err := Figures(rs, unmarked(rs...), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(figs); n < 4 || figs[n-1].Name != figOpenPoolWait {
		t.Errorf("%d figures, last %s", n, figs[len(figs)-1].Name)
	}
	if !slices.ContainsFunc(notes, func(n string) bool { return strings.Contains(n, "16 open-loop step(s) left out") }) {
		t.Errorf("notes %q", notes)
	}
	_, notes, err = Figures([]*results.Results{pair}, unmarked(pair), Options{Figures: []string{figOpenLatency}})
	if err != nil || len(notes) != 1 || !strings.Contains(notes[0], "open-latency: skipped: no open-loop steps") {
		t.Errorf("open figure of a closed run: %v %q", err, notes)
	}
}
