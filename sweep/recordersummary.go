package sweep

import (
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/poolsweep/poolsweep/results"
)

// summary merges the stripes into the step's counts and distributions.
func (r *recorder) summary(step *results.StepResult, window time.Duration) {
	call := hdr.New(1, r.highest, 3)
	n := len(r.types)
	ops := make([]*hdr.Histogram, n)
	for j := range ops {
		ops[j] = hdr.New(1, r.highest, 3)
	}
	opErrs, late := make([]int64, n), make([]int64, n)
	var errs [4]int64
	var causes [3]int64
	var slowest slowCall
	for i := range r.s {
		s := &r.s[i]
		s.mu.Lock()
		call.Merge(s.call)
		if s.slowest.us > slowest.us {
			slowest = s.slowest
		}
		for j := range ops {
			if s.ops[j] != nil {
				ops[j].Merge(s.ops[j])
			}
			opErrs[j] += s.opErrs[j]
			late[j] += s.lateOps[j]
		}
		for k := range errs {
			errs[k] += s.errs[k]
		}
		for k := range causes {
			causes[k] += s.causes[k]
		}
		step.Calls += s.calls
		step.LoadedKeyOps += s.keyed
		step.NotFound += s.notFound
		if step.ErrorSample == "" {
			step.ErrorSample = s.firstErr
		}
		s.mu.Unlock()
	}
	// call holds the calls that ended inside the window; with those that
	// straddled its end it is the step's (stall.go).
	r.lateMu.Lock()
	r.stuck = r.findStuck(call, slowest)
	for _, c := range r.late {
		call.RecordValue(c.us)
	}
	r.lateMu.Unlock()
	secs := window.Seconds()
	step.DurationS = secs
	step.Latency = results.NewLatencySummary(call)
	step.Histograms = newStepHistograms(call, ops, r.types)
	step.OpsByType = map[string]results.OpTypeStats{}
	for j, h := range ops {
		if h.TotalCount() == 0 {
			continue
		}
		n := h.TotalCount() - late[j]
		step.Ops += n
		step.OpsAfterClose += late[j]
		st := results.OpTypeStats{Count: n, Errors: opErrs[j], Latency: results.NewLatencySummary(h)}
		if secs > 0 {
			st.PerS = float64(n) / secs
		}
		step.OpsByType[r.types[j]] = st
	}
	if secs > 0 {
		step.CallsPerS = float64(step.Calls) / secs
		step.OpsPerS = float64(step.Ops) / secs
	}
	step.Errors = results.ErrorCounts{Timeout: errs[errTimeout], Network: errs[errNetwork], Server: errs[errServer],
		NotWritablePrimary: causes[causeNotPrimary], PoolCleared: causes[causePoolCleared]}
	step.InFlightAtClose = r.inFlightAtClose
	step.OldestInFlightMS = float64(r.oldestAtClose) / float64(time.Millisecond)
}
