package report

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"

	"github.com/poolsweep/poolsweep/internal/runinfo"
	"github.com/poolsweep/poolsweep/results"
)

// profileStepTable is one row per profile step (sweep --profile), from
// its record's summary: what each setting's pool did when the load
// changed. Sorted by target, workload, pool, pool options and trial;
// empty when the run has none.
func profileStepTable(r *results.Results) stepTable {
	var steps []*results.StepResult
	// driver: some step recorded the driver's retry, server selection
	// and heartbeat options (files from before them did not).
	targets, options, driver := map[string]bool{}, false, false
	for i := range r.Steps {
		if s := &r.Steps[i]; s.Mode == results.ModeProfile && s.Profile != nil {
			steps = append(steps, s)
			targets[s.Target] = true
			options = options || s.PoolOptions != nil
			driver = driver || s.PoolOptions != nil && s.PoolOptions.RetryReads != ""
		}
	}
	if len(steps) == 0 {
		return stepTable{}
	}
	opts := func(s *results.StepResult) results.PoolOptions {
		if s.PoolOptions == nil {
			return results.PoolOptions{}
		}
		return *s.PoolOptions
	}
	slices.SortStableFunc(steps, func(a, b *results.StepResult) int {
		oa, ob := opts(a), opts(b)
		return cmp.Or(cmp.Compare(a.Target, b.Target), cmp.Compare(a.Workload, b.Workload),
			cmp.Compare(runinfo.PoolRank(a.PoolSetting), runinfo.PoolRank(b.PoolSetting)),
			cmp.Compare(oa.MinPoolSize, ob.MinPoolSize), cmp.Compare(oa.MaxConnecting, ob.MaxConnecting),
			cmp.Compare(oa.MaxIdleMS, ob.MaxIdleMS), cmp.Compare(oa.TimeoutMS, ob.TimeoutMS), cmp.Compare(oa.RetryReads, ob.RetryReads),
			cmp.Compare(oa.ServerSelectionTimeoutMS, ob.ServerSelectionTimeoutMS), cmp.Compare(oa.HeartbeatMS, ob.HeartbeatMS), cmp.Compare(a.Trial, b.Trial))
	})
	var t stepTable
	if len(targets) > 1 {
		t.Head = append(t.Head, "target")
	}
	t.Head = append(t.Head, "workload", "pool")
	if options {
		t.Head = append(t.Head, "minPool", "maxConnecting", "maxIdle (ms)", "timeout (ms)", "pools")
	}
	if driver {
		t.Head = append(t.Head, "retryReads/Writes", "serverSelection (ms)", "heartbeat (ms)")
	}
	t.Head = append(t.Head, "trial", "peak (calls/s)", "time to fill (s)", "first-second p99 (ms)", "worst p99 (ms)",
		"time to steady (s)", "created", "closed", "clears", "errors")
	for _, s := range steps {
		var row []string
		if len(targets) > 1 {
			row = append(row, s.Target)
		}
		row = append(row, s.Workload, strconv.Itoa(s.MaxPoolSize))
		if options {
			o := opts(s)
			pools := "warm"
			if o.Cold {
				pools = "cold"
			}
			row = append(row, strconv.Itoa(o.MinPoolSize), strconv.Itoa(o.MaxConnecting), msCell(o.MaxIdleMS), msCell(o.TimeoutMS), pools)
		}
		if driver {
			o := opts(s)
			row = append(row, cmp.Or(o.RetryReads+"/"+o.RetryWrites, "–"), recordedMS(o.ServerSelectionTimeoutMS), recordedMS(o.HeartbeatMS))
		}
		trial := strconv.Itoa(s.Trial)
		if s.Interrupted {
			trial += " (interrupted)"
		}
		if s.TargetFailed != nil {
			trial += " (target failed)"
		}
		sum := &s.Profile.Summary
		row = append(row, trial, fmt.Sprintf("%.0f", s.Profile.PeakRate), numCell(sum.TimeToFillS, 1), numCell(sum.FirstSecondP99MS, 2),
			numCell(sum.WorstP99MS, 2), numCell(sum.TimeToSteadyS, 1), strconv.FormatInt(sum.ConnectionsCreated, 10),
			strconv.FormatInt(sum.ConnectionsClosed, 10), strconv.FormatInt(sum.PoolClears, 10), errorsCell(s.Errors))
		t.Rows = append(t.Rows, row)
	}
	return t
}

// recordedMS is a length in ms the step recorded, or "–" where its file
// is from before it was recorded.
func recordedMS(ms int64) string {
	if ms == 0 {
		return "–"
	}
	return strconv.FormatInt(ms, 10)
}

// numCell is a summary figure, or "–" where the step gave no evidence
// for it (its summary's notes say why).
func numCell(v *float64, decimals int) string {
	if v == nil {
		return "–"
	}
	return strconv.FormatFloat(*v, 'f', decimals, 64)
}

// msCell is a pool option in ms, "none" when it is off (0).
func msCell(ms int64) string {
	if ms == 0 {
		return "none"
	}
	return strconv.FormatInt(ms, 10)
}
