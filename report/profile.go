package report

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/poolsweep/poolsweep/internal/runinfo"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/results"
)

// profileStepTable is one row per profile step (sweep --profile), from
// its record's summary: what each setting's pool did when the load
// changed. Sorted by target, workload, pool, pool options and trial;
// empty when the run has none.
func profileStepTable(r *results.Results) stepTable {
	ps := profileStepsOf(r)
	if len(ps.steps) == 0 {
		return stepTable{}
	}
	t := stepTable{Head: ps.head()}
	t.Head = append(t.Head, "peak (calls/s)", "time to fill (s)", "first-second p99 (ms)", "worst p99 (ms)",
		"time to steady (s)", "created", "closed", "clears", "errors")
	for _, s := range ps.steps {
		sum := &s.Profile.Summary
		row := append(ps.cells(s), fmt.Sprintf("%.0f", s.Profile.PeakRate), numCell(sum.TimeToFillS, 1), numCell(sum.FirstSecondP99MS, 2),
			numCell(sum.WorstP99MS, 2), numCell(sum.TimeToSteadyS, 1), strconv.FormatInt(sum.ConnectionsCreated, 10),
			strconv.FormatInt(sum.ConnectionsClosed, 10), strconv.FormatInt(sum.PoolClears, 10), errorsCell(s.Errors))
		t.Rows = append(t.Rows, row)
	}
	return t
}

// eventTable is one row per event of a profile step (sweep --event), from
// the step's record: when it was fired and ended, how, and its summary.
// In the profile table's order; empty when the run has none.
func eventTable(r *results.Results) stepTable {
	ps := profileStepsOf(r)
	var t stepTable
	for _, s := range ps.steps {
		for _, ev := range s.Profile.Events {
			if t.Head == nil {
				t.Head = append(ps.head(), "event", "fired (s)", "ended (s)", "via", "recover (s)", "refill (s)", "errors", "retried",
					"created", "closed", "clears", "p99 during (ms)", "degraded after", "peak connections", "reconnect storm")
			}
			row := append(ps.cells(s), textfmt.Escape(ev.Spec), strconv.FormatFloat(ev.FiredS, 'f', 2, 64), numCell(ev.EndS, 2), ev.Via)
			sum := ev.Summary
			switch {
			case ev.Error != "":
				row = append(row, "not performed: "+textfmt.CapLineAt(textfmt.Escape(ev.Error), 120), "", "", "", "", "", "", "", "", "", "")
			case sum == nil:
				row = append(row, "–", "–", "–", "–", "–", "–", "–", "–", "–", "–", stormCell(ev.Storms))
			default:
				row = append(row, numCell(sum.TimeToRecoverS, 2), numCell(sum.TimeToRefillS, 2), errorsCell(sum.Errors), strconv.FormatInt(sum.RetriedOK, 10),
					strconv.FormatInt(sum.ConnectionsCreated, 10), strconv.FormatInt(sum.ConnectionsClosed, 10),
					strconv.FormatInt(sum.PoolClears, 10), numCell(sum.P99DuringMS, 2), boolCell(sum.DegradedAfter), peakCell(sum.PeakConnections), stormCell(ev.Storms))
			}
			t.Rows = append(t.Rows, row)
		}
	}
	return t
}

// stormCell is the event's busiest reconnect storm: "h2: 250 from 50
// clients, ready in 5.13 s (48.7/s), limiter queued 120"; "–" without
// one.
func stormCell(ss []results.ReconnectStorm) string {
	if len(ss) == 0 {
		return "–"
	}
	s := ss[0]
	c := fmt.Sprintf("%s: %d from %d clients", textfmt.Escape(s.Host), s.Created, s.Clients)
	if s.RefillS != nil {
		c += ", ready in " + strconv.FormatFloat(*s.RefillS, 'f', 2, 64) + " s"
	}
	if s.SetupPerS != nil {
		c += " (" + strconv.FormatFloat(*s.SetupPerS, 'f', 1, 64) + "/s)"
	}
	if s.NotReady > 0 {
		c += fmt.Sprintf(", %d never ready", s.NotReady)
	}
	if e := s.Establishment; e.Limited() {
		var q, r float64
		if e.Queued != nil {
			q = *e.Queued
		}
		if e.Rejected != nil {
			r = *e.Rejected
		}
		c += fmt.Sprintf(", limiter queued %.0f, rejected %.0f", q, r)
	}
	return c
}

// boolCell is yes, no, or "–" where the step could not say.
func boolCell(b *bool) string {
	switch {
	case b == nil:
		return "–"
	case *b:
		return "yes"
	}
	return "no"
}

// peakCell is "h1 40, h2 480 of 800": each host's peak (the server's own
// count where it reported one) and its limit where it said it.
func peakCell(ps []results.HostPeak) string {
	if len(ps) == 0 {
		return "–"
	}
	var out []string
	for _, p := range ps {
		n := p.Peak
		if p.ServerPeak != nil {
			n = *p.ServerPeak
		}
		c := textfmt.Escape(p.Host) + " " + strconv.Itoa(n)
		if p.Limit != nil {
			c += " of " + strconv.Itoa(*p.Limit)
		}
		out = append(out, c)
	}
	return strings.Join(out, ", ")
}

// profileSteps are a run's profile steps in the tables' order, with what
// decides their setting columns.
type profileSteps struct {
	steps       []*results.StepResult
	multiTarget bool
	withOptions bool
	// withDriver: some step recorded the driver's retry, server selection
	// and heartbeat options (files from before them did not).
	withDriver bool
}

func profileStepsOf(r *results.Results) profileSteps {
	var ps profileSteps
	targets := map[string]bool{}
	for i := range r.Steps {
		if s := &r.Steps[i]; s.Mode == results.ModeProfile && s.Profile != nil {
			ps.steps = append(ps.steps, s)
			targets[s.Target] = true
			ps.withOptions = ps.withOptions || s.PoolOptions != nil
			ps.withDriver = ps.withDriver || s.PoolOptions != nil && s.PoolOptions.RetryReads != ""
		}
	}
	ps.multiTarget = len(targets) > 1
	slices.SortStableFunc(ps.steps, func(a, b *results.StepResult) int {
		oa, ob := stepOptions(a), stepOptions(b)
		return cmp.Or(cmp.Compare(a.Target, b.Target), cmp.Compare(a.Workload, b.Workload),
			cmp.Compare(runinfo.PoolRank(a.PoolSetting), runinfo.PoolRank(b.PoolSetting)),
			cmp.Compare(oa.MinPoolSize, ob.MinPoolSize), cmp.Compare(oa.MaxConnecting, ob.MaxConnecting),
			cmp.Compare(oa.MaxIdleMS, ob.MaxIdleMS), cmp.Compare(oa.TimeoutMS, ob.TimeoutMS), cmp.Compare(oa.RetryReads, ob.RetryReads),
			cmp.Compare(oa.ServerSelectionTimeoutMS, ob.ServerSelectionTimeoutMS), cmp.Compare(oa.HeartbeatMS, ob.HeartbeatMS), cmp.Compare(a.Trial, b.Trial))
	})
	return ps
}

func stepOptions(s *results.StepResult) results.PoolOptions {
	if s.PoolOptions == nil {
		return results.PoolOptions{}
	}
	return *s.PoolOptions
}

// head is the setting's and trial's columns.
func (ps profileSteps) head() []string {
	var h []string
	if ps.multiTarget {
		h = append(h, "target")
	}
	h = append(h, "workload", "pool")
	if ps.withOptions {
		h = append(h, "minPool", "maxConnecting", "maxIdle (ms)", "timeout (ms)", "pools")
	}
	if ps.withDriver {
		h = append(h, "retryReads/Writes", "serverSelection (ms)", "heartbeat (ms)")
	}
	return append(h, "trial")
}

// cells are s's setting and trial, as head names them.
func (ps profileSteps) cells(s *results.StepResult) []string {
	var row []string
	if ps.multiTarget {
		row = append(row, s.Target)
	}
	row = append(row, s.Workload, strconv.Itoa(s.MaxPoolSize))
	if ps.withOptions {
		o := stepOptions(s)
		pools := "warm"
		if o.Cold {
			pools = "cold"
		}
		row = append(row, strconv.Itoa(o.MinPoolSize), strconv.Itoa(o.MaxConnecting), msCell(o.MaxIdleMS), msCell(o.TimeoutMS), pools)
	}
	if ps.withDriver {
		o := stepOptions(s)
		row = append(row, cmp.Or(o.RetryReads+"/"+o.RetryWrites, "–"), recordedMS(o.ServerSelectionTimeoutMS), recordedMS(o.HeartbeatMS))
	}
	trial := strconv.Itoa(s.Trial)
	if s.Interrupted {
		trial += " (interrupted)"
	}
	if s.TargetFailed != nil {
		trial += " (target failed)"
	}
	return append(row, trial)
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
