package plot

import (
	"math"
	"testing"

	"github.com/poolsweep/poolsweep/internal/runinfo"
	"github.com/poolsweep/poolsweep/results"
)

func TestHumanNumber(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{42000, "42.0k"},   // thousands keep one decimal, as in "42.0k ops/s"
		{950, "950"},       // below 1000: whole numbers
		{1250000, "1.25M"}, // millions: two decimals
		{2000000, "2M"},    // trailing zeros dropped for millions
		{0, "0"},           // zero is plain
		{2.5, "2.5"},       // small values keep a decimal
	} {
		if got := humanNumber(tc.v); got != tc.want {
			t.Errorf("humanNumber(%g) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

func TestLevelTicksDoNotCrowd(t *testing.T) {
	for _, tc := range []struct {
		levels []float64
		want   []string // labelled ticks in order
	}{
		// The seeds' 1000-connection scale: every level fits.
		{[]float64{32, 64, 128, 256, 500, 1000}, []string{"32", "64", "128", "256", "500", "1000"}},
		// 500 next to 512 would overlap: the inner one loses its label,
		// the largest keeps it.
		{[]float64{8, 64, 500, 512}, []string{"8", "64", "512"}},
		// Close clusters at both ends: one label per cluster, the largest
		// level labelled.
		{[]float64{100, 110, 120, 1000, 1100}, []string{"100", "1100"}},
	} {
		lo, hi := tc.levels[0]/1.15, tc.levels[len(tc.levels)-1]*1.15
		var got []string
		for _, tk := range levelTicks(tc.levels, 0.075).Ticks(lo, hi) {
			if tk.Label != "" {
				got = append(got, tk.Label)
			}
		}
		if len(got) != len(tc.want) {
			t.Errorf("%v: labels %v, want %v", tc.levels, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%v: labels %v, want %v", tc.levels, got, tc.want)
				break
			}
		}
	}
}

func TestStepConnections(t *testing.T) {
	for _, tc := range []struct {
		s    results.StepResult
		want float64
	}{
		{results.StepResult{Connections: 180, Concurrency: 64, MaxPoolSize: 64, Clients: 3}, 180}, // measured wins
		{results.StepResult{Concurrency: 64, MaxPoolSize: 32, Clients: 3}, 96},                    // planned: K × min(C, P)
		{results.StepResult{Concurrency: 64, MaxPoolSize: 100, Clients: 0}, 64},                   // clients 0 counts as 1
		{results.StepResult{Concurrency: 16}, 16},                                                 // no pool recorded: C
	} {
		if got := runinfo.Connections(&tc.s); got != tc.want {
			t.Errorf("runinfo.Connections(%+v) = %g, want %g", tc.s, got, tc.want)
		}
	}
}

func TestChooseXMode(t *testing.T) {
	lv := func(conns ...float64) *curve {
		c := &curve{}
		for _, x := range conns {
			c.levels = append(c.levels, level{conns: x})
		}
		return c
	}
	for _, tc := range []struct {
		curves []*curve
		want   xMode
	}{
		{[]*curve{lv(8, 16, 32)}, xConnections},             // match pool: connections grow with C
		{[]*curve{lv(8, 16, 32), lv(8, 32, 32)}, xInFlight}, // a fixed pool caps connections: switch
		{[]*curve{lv(24, 48, 96)}, xConnections},            // several hosts: still increasing
	} {
		if got := chooseXMode(tc.curves); got != tc.want {
			t.Errorf("chooseXMode = %v, want %v", got, tc.want)
		}
	}
}

func TestXAtConcurrency(t *testing.T) {
	c := &curve{levels: []level{{concurrency: 8, conns: 24}, {concurrency: 32, conns: 96}}}
	for _, tc := range []struct {
		n    float64
		want float64
		ok   bool
	}{
		{8, 24, true},  // a measured level maps to its own x
		{16, 48, true}, // between levels: log-linear, 3 hosts × 16
		{64, 0, false}, // outside the measured range: not drawn
	} {
		got, ok := c.xAtConcurrency(xConnections, tc.n)
		if ok != tc.ok || math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("xAtConcurrency(%g) = %g, %v; want %g, %v", tc.n, got, ok, tc.want, tc.ok)
		}
	}
}
