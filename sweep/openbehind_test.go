package sweep

import (
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/results"
)

// TestClientBehind: each kind of evidence that the load host, not the
// target, set an open-loop step's numbers says so with its numbers, and a
// client that kept up, or was starved without its schedule slipping, is
// not blamed.
func TestClientBehind(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	// A step that kept up, as on a quiet host: 2 ms replies, start lag p99
	// 1.2 ms, threads waiting 43% of their runnable time (wake-ups).
	kept := func() *results.OpenLoopStats {
		return &results.OpenLoopStats{Offered: 20000, Corrected: results.LatencySummary{P50: 2.6, P99: 3.5}, Uncorrected: &results.LatencySummary{P50: 2.2},
			StartLag: results.Quantiles{P99: 1.2}, ClientBusy: f(0.2), SchedLatencyP99Ms: f(0.2), RunQueueWaitPct: f(43), RunQueueMeanWaitMs: f(0.04)}
	}
	tests := []struct {
		name string
		edit func(*results.OpenLoopStats)
		want string // a fragment of the reason; "" for none
	}{
		{"kept up", func(*results.OpenLoopStats) {}, ""},
		{"not issued", func(o *results.OpenLoopStats) { o.NotIssued = 7 }, "7 of 20000 arrivals"},
		{"behind at close", func(o *results.OpenLoopStats) { o.BehindAtCloseMs = 12 }, "12 ms behind"},
		{"busy cores", func(o *results.OpenLoopStats) { o.ClientBusy = f(0.95) }, "95% busy"},
		{"goroutines waited", func(o *results.OpenLoopStats) { o.SchedLatencyP99Ms = f(1.5) }, "waited 1.50 ms to run"},
		{"late starts", func(o *results.OpenLoopStats) { o.StartLag.P99 = 2; o.Corrected.P99 = 3.5 }, "start lag p99 2.00 ms"},
		// Beside two busy loops: the Go scheduler saw nothing, the kernel
		// kept our threads waiting, and calls started 4.6 ms late.
		{"run queue", func(o *results.OpenLoopStats) {
			o.RunQueueWaitPct, o.RunQueueMeanWaitMs, o.StartLag.P99, o.Corrected.P99 = f(69), f(0.14), 4.6, 11
		}, "waited for a CPU 69% of the time they were runnable (0.14 ms each time on average) and started calls up to 4.60 ms late"},
		// Starved, but every call started on time: not this step's limit.
		{"run queue, on time", func(o *results.OpenLoopStats) { o.RunQueueWaitPct, o.StartLag.P99 = f(69), 0.5 }, ""},
		// Late starts with the cores to ourselves: not the neighbours'.
		{"run queue low", func(o *results.OpenLoopStats) { o.StartLag.P99, o.Corrected.P99 = 4.6, 11 }, ""},
		// A kernel without schedstat: no run-queue evidence, no blame.
		{"no schedstat", func(o *results.OpenLoopStats) {
			o.RunQueueWaitPct, o.RunQueueMeanWaitMs, o.StartLag.P99, o.Corrected.P99 = nil, nil, 4.6, 11
		}, ""},
	}
	for _, tt := range tests {
		o := kept()
		tt.edit(o)
		got := clientBehind(o)
		if (got == "") != (tt.want == "") || !strings.Contains(got, tt.want) {
			t.Errorf("%s: clientBehind = %q, want it to say %q", tt.name, got, tt.want)
		}
	}
}
