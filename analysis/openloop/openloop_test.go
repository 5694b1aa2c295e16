package openloop

import (
	"bytes"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/analysis/bound"
	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/internal/testkit/golden"
	"github.com/poolsweep/poolsweep/results"
)

// simOpen models the calibrated simulator (slots=8, service=2ms) under an
// open loop: a pool of p carries at most min(p, 8)/2ms calls/s; below
// that, p99 grows as 4 ms / (1 − utilisation); at or above it, the queue
// grows over the window, arrivals are dropped, and a pool below the
// server's 8 slots makes calls wait for connections.
func simOpen(rate, pool, trial int) Point {
	capacity := float64(min(pool, 8)) / 0.002
	p := Point{Rate: rate, MaxPoolSize: pool, Trial: trial, OfferedPerS: float64(rate), PoolWaitShare: 0.05}
	noise := 1 + 0.002*float64(trial-2)
	if rho := float64(rate) / capacity; rho < 1 {
		p.AchievedPerS = float64(rate) * noise
		p.P50Ms, p.P99Ms = 2.2/(1-rho), 4/(1-rho)*noise
		u := 3.0
		p.UncorrectedP99Ms = &u
		return p
	}
	p.AchievedPerS = capacity * noise
	p.P50Ms, p.P99Ms = 800, 1250*noise
	u := 25.0
	p.UncorrectedP99Ms = &u
	p.Dropped = int64(rate-int(capacity)) / 2
	p.Growing = true
	if pool < 8 {
		p.PoolWaitShare = 0.97
	}
	return p
}

func simOpenSeries(trials int) Series {
	s := Series{Target: "sim", Workload: "read", Clients: 1, Hosts: 1, Topology: "standalone"}
	for _, pool := range []int{4, 8, 16} {
		for _, rate := range []int{1000, 2000, 3000, 3900, 6000} {
			for tr := 1; tr <= trials; tr++ {
				s.Points = append(s.Points, simOpen(rate, pool, tr))
			}
		}
	}
	return s
}

func TestAnalyzeOpen(t *testing.T) {
	tests := []struct {
		name      string
		slo       time.Duration
		rate      int    // carried rate
		pool      int    // smallest pool carrying it
		byRate    string // rate:pool ("-" for none)
		recommend string
	}{
		{
			// With a 20 ms SLO: 3,000/s (p99 16 ms at 75% of the 4,000/s
			// capacity) is carried by 8 connections; 4 carry 1,000/s and
			// are pool-bound from 2,000/s, their capacity.
			name: "slo", slo: 20 * time.Millisecond, rate: 3000, pool: 8,
			byRate:    "1000:4 2000:8 3000:8 3900:- 6000:-",
			recommend: "To carry 3,000 calls/s at p99 ≤ 20 ms, use maxPoolSize ≥ 8 per client per host; at 4, pool wait dominates above 1,000 calls/s.",
		},
		{
			// Without one: latency doubles past 50% utilisation, so 2,000/s
			// is the highest rate before latency grows.
			name: "no slo", rate: 2000, pool: 8,
			byRate:    "1000:4 2000:8 3000:- 3900:- 6000:-",
			recommend: "To carry 2,000 calls/s before latency grows, use maxPoolSize ≥ 8 per client per host; at 4, pool wait dominates above 1,000 calls/s.",
		},
		{
			// An SLO no level meets: nothing is carried, and it says so.
			name: "slo unmet", slo: time.Millisecond,
			byRate:    "1000:- 2000:- 3000:- 3900:- 6000:-",
			recommend: "No pool size measured carries even 1,000 calls/s at p99 ≤ 1 ms; offer lower rates, or the target cannot take this load.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := knee.DefaultOptions()
			o.SLOP99 = tt.slo
			r := analyzeOpen(simOpenSeries(3), o)
			if tt.rate == 0 {
				if r.CarriedRate != nil || r.MaxPoolSize != nil {
					t.Errorf("carried %v with pool %v, want none", *r.CarriedRate, r.MaxPoolSize)
				}
			} else if r.CarriedRate == nil || *r.CarriedRate != tt.rate || r.MaxPoolSize == nil || *r.MaxPoolSize != tt.pool {
				t.Errorf("carried %v with pool %v, want %d with %d", r.CarriedRate, r.MaxPoolSize, tt.rate, tt.pool)
			}
			var got []string
			for _, c := range r.ByRate {
				p := "-"
				if c.MaxPoolSize != nil {
					p = itoa(*c.MaxPoolSize)
				}
				got = append(got, itoa(c.Rate)+":"+p)
			}
			if g := strings.Join(got, " "); g != tt.byRate {
				t.Errorf("by rate %s, want %s", g, tt.byRate)
			}
			if r.Recommendation != tt.recommend {
				t.Errorf("recommendation:\n got %s\nwant %s", r.Recommendation, tt.recommend)
			}
			// Pool 4 is pool-bound from its capacity; 8 and 16 never.
			if p := r.Pools[0]; p.PoolWaitFrom == nil || *p.PoolWaitFrom != 2000 || r.Pools[1].PoolWaitFrom != nil || r.Pools[2].PoolWaitFrom != nil {
				t.Errorf("pool wait dominates from %v / %v / %v", p.PoolWaitFrom, r.Pools[1].PoolWaitFrom, r.Pools[2].PoolWaitFrom)
			}
		})
	}
}

// One trial per level is said; several clients share the rate, said; the
// top rate carried invites higher rates; a client that fell behind is
// named.
func TestAnalyzeOpenNotes(t *testing.T) {
	s := Series{Target: "t", Clients: 3, Hosts: 1}
	for _, rate := range []int{1000, 2000} {
		p := simOpen(rate, 16, 1)
		p.ClientBehind = rate == 2000
		s.Points = append(s.Points, p)
	}
	o := knee.DefaultOptions()
	o.SLOP99 = 50 * time.Millisecond
	r := analyzeOpen(s, o)
	if !strings.Contains(r.Recommendation, "3 clients share the rate") || !strings.Contains(r.Recommendation, "highest rate offered") ||
		!strings.Contains(r.Recommendation, "smallest pool measured") {
		t.Errorf("recommendation %q", r.Recommendation)
	}
	w := strings.Join(r.Warnings, "\n")
	if !strings.Contains(w, "one trial per level") || !strings.Contains(w, "pool 16 at 2,000/s") {
		t.Errorf("warnings %q", w)
	}
}

// FromResults takes only open-loop steps, knee.FromResults only closed-loop
// ones: a file holding both gives one series of each kind. A latency trend
// that climbs through the window is a growing queue; one slow tenth (a
// pause of the host) is not.
func TestOpenFromResultsSplitsModes(t *testing.T) {
	unc := results.LatencySummary{P99: 3}
	trend := func(vs ...float64) []*float64 {
		out := make([]*float64, len(vs))
		for i := range vs {
			out[i] = &vs[i]
		}
		return out
	}
	res := &results.Results{Header: results.RunHeader{Targets: []results.TargetHeader{{Name: "sim", Topology: "standalone", Hosts: []string{"h"}}}}, Steps: []results.StepResult{
		{Kind: "step", Target: "sim", Workload: "read", PoolSetting: "match", Concurrency: 8, MaxPoolSize: 8, Clients: 1, Trial: 1, OpsPerS: 3900, CallsPerS: 3900, Calls: 100, Ops: 100},
		{Kind: "step", Target: "sim", Workload: "read", PoolSetting: "16", Concurrency: 5000, MaxPoolSize: 16, Clients: 1, Trial: 1, OpsPerS: 2000, CallsPerS: 2000, Calls: 100, Ops: 100,
			Mode: results.ModeOpen, Rate: 2000, Open: &results.OpenLoopStats{OfferedPerS: 2000, AchievedPerS: 2000, Corrected: results.LatencySummary{Mean: 2.5, P50: 2.4, P99: 5},
				Uncorrected: &unc, PoolWait: results.Quantiles{Mean: 0.2, P50: 0.096}, LatencyTrend: trend(2, 2, 2, 2, 2, 2, 2, 2, 2, 40)}},
		// The classifier labelled it client-bound (a contended load host)
		// though the engine saw its schedule keep up.
		{Kind: "step", Target: "sim", Workload: "read", PoolSetting: "16", Concurrency: 5000, MaxPoolSize: 16, Clients: 1, Trial: 1, OpsPerS: 4000, CallsPerS: 4000, Calls: 100, Ops: 100,
			Bound: bound.BoundClient, Mode: results.ModeOpen, Rate: 6000, Open: &results.OpenLoopStats{OfferedPerS: 6000, AchievedPerS: 4000, Dropped: 9, Corrected: results.LatencySummary{Mean: 900, P99: 1200},
				LatencyTrend: trend(100, 200, 300, 400, 500, 600, 700, 800, 900, 1000)}},
	}}
	closed := knee.FromResults([]*results.Results{res})
	if len(closed) != 1 || len(closed[0].Points) != 1 || closed[0].Pool != "match" {
		t.Fatalf("closed-loop series %+v", closed)
	}
	open := FromResults([]*results.Results{res})
	if len(open) != 1 || len(open[0].Points) != 2 || open[0].Topology != "standalone" {
		t.Fatalf("open-loop series %+v", open)
	}
	p := open[0].Points
	if p[0].Growing || !p[1].Growing || p[1].Dropped != 9 || p[1].UncorrectedP99Ms != nil || *p[0].UncorrectedP99Ms != 3 ||
		p[0].ClientBehind || !p[1].ClientBehind {
		t.Errorf("points %+v", p)
	}
	// An auto window that ended overloaded is a growing queue though its
	// short window's trend rose less than 1.5×.
	st := res.Steps[1]
	st.Steady = &results.StepSteady{WarmupMode: results.WindowAuto, WarmupEnd: results.WindowEndOverloaded, WindowMode: results.WindowAuto, WindowEnd: results.WindowEndOverloaded}
	if !openPoint(&st).Growing {
		t.Errorf("an overloaded auto step is not growing")
	}
	if got := p[0].PoolWaitShare; got < 0.039 || got > 0.041 {
		t.Errorf("pool wait share %g, want the medians' 0.096/2.4", got)
	}
}

func openGolden(t *testing.T) []Report {
	o := knee.DefaultOptions()
	o.SLOP99 = 20 * time.Millisecond
	return AnalyzeAll([]Series{simOpenSeries(3)}, o)
}

func TestGoldenOpenText(t *testing.T) {
	checkGolden(t, "open.txt.golden", func(w io.Writer) error { return WriteOpenText(w, openGolden(t)) })
}

func TestGoldenOpenJSON(t *testing.T) {
	b := checkGolden(t, "open.json.golden", func(w io.Writer) error { return WriteJSON(w, openGolden(t)) })
	var doc struct {
		OpenLoop []map[string]any `json:"open_loop"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"carried_rate", "max_pool_size", "recommendation", "pools", "by_rate", "slo_p99_ms", "rule"} {
		if _, ok := doc.OpenLoop[0][k]; !ok {
			t.Errorf("open_loop has no %q", k)
		}
	}
}

// checkGolden renders with write, compares the output with testdata/name
// and returns it.
func checkGolden(t *testing.T, name string, write func(w io.Writer) error) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", name), buf.Bytes())
	return buf.Bytes()
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
