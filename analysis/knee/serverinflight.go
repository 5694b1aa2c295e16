package knee

import (
	"fmt"
	"math"

	"github.com/poolsweep/poolsweep/results"
)

// serverInFlightKnee is the concurrency at which the server's in-flight
// operations (server ops/s × mean server latency, Little's law) stop
// rising: past it, more client concurrency no longer puts more work inside
// the server, it only waits in front of it. It uses the rules the
// throughput curve uses: the first level within Options.Plateau of the
// highest in-flight count, and the first level from which no doubling adds
// Options.MinGain; the answer is the later of the two (by either rule the
// earlier has not levelled off yet).
//
// It runs only when every level has the server's in-flight count, i.e. the
// server reports latency; it returns -1 and the reason otherwise, or when
// the count still rises at the top.
func serverInFlightKnee(levels []level, lx []float64, o Options) (int, string) {
	known := 0
	ys := make([]float64, len(levels))
	for i, l := range levels {
		if l.ServerInFlight != nil {
			ys[i] = *l.ServerInFlight
			known++
		}
	}
	switch {
	case known == 0:
		return -1, "no server in-flight count recorded (needs server latency)"
	case known < len(levels):
		return -1, fmt.Sprintf("the server reported latency at %d of %d levels", known, len(levels))
	case len(levels) < 2:
		return -1, "needs at least 2 levels"
	}
	peak := peakIndex(ys)
	if ys[peak] <= 0 {
		return -1, "no operations in flight at the server"
	}
	plateau := plateauIndex(ys, peak, o.Plateau)
	marginal, top := marginalIndex(lx, ys, o.MinGain)
	if marginal < 0 || (peak == len(ys)-1 && top >= o.MinGain) {
		return -1, fmt.Sprintf("the server's in-flight operations still rose %.0f%% in the last doubling", top*100)
	}
	idx := max(plateau, marginal)
	return idx, fmt.Sprintf("server in-flight operations level off at %.1f (server ops/s × server latency, less the queued)", ys[idx])
}

// serverInFlight is the server's in-flight operations during a step
// (Little's law, recorded by telemetry), from the server-wide sample or the
// only host's; ok is false when the server reported no latency.
func serverInFlight(st *results.StepResult) (float64, bool) {
	if st.Server == nil {
		return 0, false
	}
	t := st.Server.Total
	if t == nil && len(st.Server.Hosts) == 1 {
		for _, h := range st.Server.Hosts {
			t = h
		}
	}
	if t == nil || t.InFlight == nil {
		return 0, false
	}
	v := *t.InFlight
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return 0, false
	}
	// The server's latency includes the wait for an execution ticket, so
	// ops/s × latency counts queued operations too and follows the
	// client's concurrency; what levels off at the server's capacity is
	// the part executing: in flight minus queued, where the queue is
	// reported.
	if q := t.Queued(); q != nil {
		v = max(0, v-*q)
	}
	return v, true
}
