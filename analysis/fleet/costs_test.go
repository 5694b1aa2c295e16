package fleet

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/analysis/conncost"
	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/results"
)

// TestParseLimit: an Atlas tier's limit is the page's per node less the
// 10 Atlas reserves; anything else is refused naming what it takes.
func TestParseLimit(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int    // 0: refused
		err  string // a part of the refusal
	}{
		{"atlas:M30", 2_990, ""},          // the example: 3,000 less 10
		{"atlas:M10", 1_490, ""},          // the page's worked example: 1,500 per node
		{"atlas:m80", 95_990, ""},         // tiers are read in either case; M80 is 96,000 in the general class
		{"ATLAS:M0", 490, ""},             // the free tier's 500
		{"atlas: M300 ", 127_990, ""},     // spaces around the tier
		{"atlas:M31", 0, "M31"},           // not a tier
		{"atlas:", 0, "is not one of"},    // no tier
		{"M30", 0, "want atlas:TIER"},     // no provider
		{"aws:M30", 0, "want atlas:TIER"}, // another provider
	} {
		l, err := ParseLimit(tc.in)
		if tc.want == 0 {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: %+v, %v; want a refusal naming %q", tc.in, l, err, tc.err)
			}
			continue
		}
		if err != nil || l.PerHost != tc.want || !strings.Contains(l.Source, "10 Atlas reserves") {
			t.Errorf("%q: %+v, %v; want %d per host", tc.in, l, err, tc.want)
		}
	}
}

// costOf is a connection sweep's measured cost: memory per connection,
// monitors per client and the server's limit.
func costOf(memBytes, monitors float64, limit float64) *conncost.Cost {
	c := &conncost.Cost{Server: "127.0.0.1:1",
		MemoryBytes:       &results.Interval{Value: memBytes, Low: 0.9 * memBytes, High: 1.1 * memBytes},
		MonitorsPerClient: &results.Interval{Value: monitors, Low: monitors - 0.05, High: monitors + 0.05}}
	if limit > 0 {
		c.Limit = &limit
	}
	c.CPUusPerS = &results.Interval{Value: 25, Low: 20, High: 30}
	return c
}

// TestMeasuredCosts: a connection sweep's memory per connection and
// monitors per client replace the assumed 1 MiB and 2, in the table, the
// recommendation and the largest pool the limit holds, and the plan says
// which it used; a limit named by --limit comes before the telemetry's,
// --max-connections before both.
func TestMeasuredCosts(t *testing.T) {
	const measured = 0.27 * 1e6 // bytes per connection: a public measurement's figure
	run := modelRun(t, "slots=16,service=2ms", 1_000_000)
	rs := []*results.Results{run}
	a := analysis.Of(rs, knee.DefaultOptions())
	m30, _ := ParseLimit("atlas:M30")
	for _, tc := range []struct {
		name      string
		o         Options
		memMiB    float64
		monitors  int
		limit     int
		fit       int
		measuredM bool
		memSource string
	}{
		// 400 × (5 + 2) = 2,800 ≤ 2,990 < 400 × (6 + 2).
		{"M30, measured, 2 monitors", Options{Instances: 400, Limit: &m30, Costs: costOf(measured, 2, 0), CostsFrom: "conns.jsonl"}, measured / mib, 2, 2_990, 5, true, "conns.jsonl"},
		// One monitor measured (a server before 4.4): 400 × (6 + 1) = 2,800.
		{"M30, measured, 1 monitor", Options{Instances: 400, Limit: &m30, Costs: costOf(measured, 1.02, 0), CostsFrom: "conns.jsonl"}, measured / mib, 1, 2_990, 6, true, "conns.jsonl"},
		// No measurement: the assumption, said to be one.
		{"M30, assumed", Options{Instances: 400, Limit: &m30}, 1, 2, 2_990, 5, false, "assumed"},
		// --conn-memory is the user's figure.
		{"given", Options{Instances: 400, Limit: &m30, ConnMemoryMiB: 0.5}, 0.5, 2, 2_990, 5, false, "--conn-memory"},
		// --max-connections before the tier.
		{"--max-connections first", Options{Instances: 400, Limit: &m30, MaxConnections: 4_000}, 1, 2, 4_000, 8, false, "assumed"},
		// Without either, the telemetry's 1,000,000.
		{"telemetry", Options{Instances: 400, Costs: costOf(measured, 2, 0)}, measured / mib, 2, 1_000_000, 2_498, true, "measured"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Make(rs, a, tc.o)
			if err != nil {
				t.Fatal(err)
			}
			sp := p.Series[0]
			if math.Abs(p.Memory.MiB-tc.memMiB) > 1e-12 || p.Memory.Measured != tc.measuredM || !strings.Contains(p.Memory.Source, tc.memSource) {
				t.Errorf("memory %+v, want %g MiB measured %v from %q", p.Memory, tc.memMiB, tc.measuredM, tc.memSource)
			}
			if sp.Monitors != tc.monitors || sp.Limit.PerHost == nil || *sp.Limit.PerHost != tc.limit || sp.FitPool == nil || *sp.FitPool != tc.fit {
				t.Fatalf("monitors %d, limit %v, fit %v; want %d, %d, %d", sp.Monitors, sp.Limit, sp.FitPool, tc.monitors, tc.limit, tc.fit)
			}
			if tc.o.Instances*(tc.fit+tc.monitors) > tc.limit || tc.o.Instances*(tc.fit+1+tc.monitors) <= tc.limit {
				t.Errorf("%d is not the largest pool within %d", tc.fit, tc.limit)
			}
			for _, r := range sp.Rows {
				conns := tc.o.Instances * (r.MaxPoolSize + tc.monitors)
				if r.ConnectionsPerHost != conns || math.Abs(r.MemoryMiBPerHost-float64(conns)*tc.memMiB) > 1e-6 {
					t.Errorf("P=%d: %d connections, %g MiB; want %d, %g", r.MaxPoolSize, r.ConnectionsPerHost, r.MemoryMiBPerHost, conns, float64(conns)*tc.memMiB)
				}
			}
			text := planText(t, p)
			// The measured CPU: 25 µs/s for each connection at the recommendation.
			if cpu := fmt.Sprintf("idle, the %d connections per host cost the server %.3g ms of CPU per second", sp.Recommended.ConnectionsPerHost, float64(sp.Recommended.ConnectionsPerHost)*25/1000); strings.Contains(text, cpu) != tc.measuredM {
				t.Errorf("CPU said %v, want %v (%q):\n%s", !tc.measuredM, tc.measuredM, cpu, text)
			}
			if !strings.Contains(text, fmt.Sprintf("the largest maxPoolSize within it is %d", tc.fit)) || !strings.Contains(text, "memory per connection: ") {
				t.Errorf("the plan does not say the fit or the memory's source:\n%s", text)
			}
		})
	}
}

// TestMonitorsByVersion: without a measurement the monitors per client
// follow the server's version: two from 4.4 (the streaming monitor and
// the round-trip monitor), one before.
func TestMonitorsByVersion(t *testing.T) {
	for _, tc := range []struct {
		version string
		want    int
		says    string
	}{
		{"4.2.8", 1, "before 4.4"},
		{"4.4.0", 2, "from 4.4"},
		{"8.0.0-poolsweep-sim", 2, "from 4.4"},
		{"3.6.23", 1, "before 4.4"},
		{"", 2, "not recorded"},
		{"not-a-version", 2, "not one a server reports"},
	} {
		run := modelRun(t, "slots=16,service=2ms", 0)
		run.Header.Targets[0].ServerVersion = tc.version
		rs := []*results.Results{run}
		p, err := Make(rs, analysis.Of(rs, knee.DefaultOptions()), Options{Instances: 4, MaxConnections: 100})
		if err != nil {
			t.Fatal(err)
		}
		sp := p.Series[0]
		if sp.Monitors != tc.want || !strings.Contains(sp.MonitorsSource, tc.says) {
			t.Errorf("%q: %d monitors (%s), want %d (%s)", tc.version, sp.Monitors, sp.MonitorsSource, tc.want, tc.says)
		}
		if r := sp.Recommended; r.ConnectionsPerHost != 4*(r.MaxPoolSize+tc.want) {
			t.Errorf("%q: %d connections per host at maxPoolSize %d", tc.version, r.ConnectionsPerHost, r.MaxPoolSize)
		}
		if fit := *sp.FitPool; fit != 100/4-tc.want {
			t.Errorf("%q: fit %d, want %d", tc.version, fit, 100/4-tc.want)
		}
	}
}

func planText(t *testing.T, p *Plan) string {
	t.Helper()
	var b strings.Builder
	if err := p.Write(&b, FormatText); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
