package results

import (
	"math"
	"strconv"
)

// Auto warm-ups and windows: the plan's settings, recorded in
// the header, and what each step chose, recorded in the step.

// Window and warm-up modes.
const (
	WindowAuto  = "auto"
	WindowFixed = "fixed"
)

// AutoPlan is how a sweep ends its warm-ups and windows from the data; nil
// in the header (and the plan) when both are fixed lengths.
type AutoPlan struct {
	// Warmup: MSER-5 over the step's rate batches ends each warm-up, after
	// MinWarmupS and at most MaxWarmupS. False: the plan's fixed warm-up.
	Warmup     bool    `json:"warmup"`
	MinWarmupS float64 `json:"min_warmup_s,omitempty"`
	MaxWarmupS float64 `json:"max_warmup_s,omitempty"`
	// Window: a window ends once its throughput's confidence half-width is
	// within PrecisionPct of it, after MinDurationS and MinCalls calls, at
	// MaxDurationS at the latest. False: the plan's fixed window.
	Window       bool    `json:"window"`
	MinDurationS float64 `json:"min_duration_s,omitempty"`
	MaxDurationS float64 `json:"max_duration_s,omitempty"`
	PrecisionPct float64 `json:"precision_pct,omitempty"`
	MinCalls     int64   `json:"min_calls,omitempty"`
	// BatchS is the length of the rate batches both rules read; Confidence
	// the level of the window's interval.
	BatchS     float64 `json:"batch_s"`
	Confidence float64 `json:"confidence"`
}

// StepSteady is how a step's warm-up and window were chosen, and how
// precise its throughput is by the batch means of its window. A fixed
// window has one too: its interval is what gives one trial a confidence.
type StepSteady struct {
	WarmupMode string `json:"warmup_mode"` // WindowAuto or WindowFixed
	// WarmupEnd is why the warm-up ended: settled (MSER-5 found the end of
	// the transient), max-warmup (it never did) or fixed-warmup.
	WarmupEnd string `json:"warmup_end"`
	// Settled is false when an auto warm-up found no truncation point
	// within the maximum: the window may hold part of the transient, and
	// the knee analysis gives the step low confidence. Nil for a fixed
	// warm-up.
	Settled *bool `json:"settled,omitempty"`
	// TruncationS is MSER-5's truncation point, seconds after the warm-up
	// began; nil unless the auto warm-up settled.
	TruncationS *float64 `json:"truncation_s,omitempty"`

	WindowMode string `json:"window_mode"`
	// WindowEnd is why the window ended: precision, max-duration, fixed,
	// precision-out-of-reach (even at max-duration the half-width would
	// stay over twice the precision) or overloaded (open loop: the target
	// did not keep up with the offered rate).
	WindowEnd string `json:"window_end"`
	// ProjectedHalfWidthPct is, for a window ended as out of reach, the
	// half-width projected at max-duration that ended it.
	ProjectedHalfWidthPct *float64 `json:"projected_half_width_pct,omitempty"`
	// Reason says in words why the step never settled or ended short of
	// its precision; empty when it did not.
	Reason string `json:"reason,omitempty"`
	// The window's interval: BatchS-long base batches, BatchSize of them
	// per batch mean, Batches means.
	BatchS    float64 `json:"batch_s"`
	BatchSize int     `json:"batch_size"`
	Batches   int     `json:"batches"`
	// Lag1 is the batch means' lag-1 autocorrelation (nil with fewer than
	// three); Independent says it was small enough for the interval.
	Lag1        *float64 `json:"lag1,omitempty"`
	Independent bool     `json:"independent"`
	// MeanPerS is the batch means' mean calls/s; HalfWidthPerS its
	// confidence half-width and HalfWidthPct that relative to it; nil with
	// fewer than ten batch means.
	MeanPerS      *float64 `json:"mean_per_s,omitempty"`
	HalfWidthPerS *float64 `json:"half_width_per_s,omitempty"`
	HalfWidthPct  *float64 `json:"half_width_pct,omitempty"`
	Confidence    float64  `json:"confidence"`

	// Ops is the interval of the ops' own batch series (ops completed per
	// base batch, beside the calls' above), the one ops/s is given; its
	// batches, like the calls' above, span at least three mean call times
	// (CallTimeS), so that the waves in which callers of a call of several
	// ops end their calls fall inside them. Absent in files from before
	// it, in open-loop steps and in an agent run's fleet-decided windows.
	Ops *OpsInterval `json:"ops,omitempty"`
	// CallTimeS is the window's mean call time, seconds (the callers over
	// the calls/s, Little's law), which sized the batches; absent when no
	// call ended.
	CallTimeS *float64 `json:"call_time_s,omitempty"`
	// NoInterval says why the ops have no interval, when they have none
	// (a window too short for ten batches of three call times, batch
	// means that stayed dependent, no call ended).
	NoInterval string `json:"no_interval,omitempty"`

	// FleetAgents, in agent mode with auto lengths, is how many agents'
	// batches the leader summed into the series and the interval above
	// (the fleet's, the same record in every agent's file: the leader
	// ended every agent's warm-up and window together); absent when they
	// are this process's own.
	FleetAgents int `json:"fleet_agents,omitempty"`

	// The open loop's second series: the mean corrected latency (from
	// the intended start) of the calls completed in each base batch. Its
	// batch-means mean in ms, half-width in ms and relative to the mean;
	// absent in closed-loop steps and with fewer than ten batch means.
	LatencyMeanMs       *float64 `json:"latency_mean_ms,omitempty"`
	LatencyHalfWidthMs  *float64 `json:"latency_half_width_ms,omitempty"`
	LatencyHalfWidthPct *float64 `json:"latency_half_width_pct,omitempty"`

	// The rates the rules read, kept so that a figure (plot --steady) can
	// show them with what was decided: SeriesBatchS-long batches (BatchS,
	// or a multiple of it when a phase held more than MaxSeriesLen base
	// batches), calls/s to 4 significant digits. WarmupRates is absent for
	// a fixed warm-up; WindowStartS is when the window began, seconds
	// after the warm-up began.
	SeriesBatchS float64   `json:"series_batch_s,omitempty"`
	WarmupRates  []float64 `json:"warmup_rates,omitempty"`
	WindowStartS *float64  `json:"window_start_s,omitempty"`
	WindowRates  []float64 `json:"window_rates,omitempty"`
}

// OpsInterval is the batch-means interval of a window's ops/s.
type OpsInterval struct {
	BatchSize   int      `json:"batch_size"` // base batches per batch mean
	Batches     int      `json:"batches"`    // batch means
	Lag1        *float64 `json:"lag1,omitempty"`
	Independent bool     `json:"independent"`
	// MeanPerS is the batch means' mean ops/s, HalfWidthPerS its
	// confidence half-width and HalfWidthPct that relative to it; absent
	// with fewer than ten batch means.
	MeanPerS      *float64 `json:"mean_per_s,omitempty"`
	HalfWidthPerS *float64 `json:"half_width_per_s,omitempty"`
	HalfWidthPct  *float64 `json:"half_width_pct,omitempty"`
}

// OpsPrecise says the window gives ops/s its own confidence interval: an
// ops record with ten or more independent batch means of several call
// times and a finite half-width.
func (s *StepSteady) OpsPrecise() bool {
	return s != nil && s.Ops != nil && s.Ops.HalfWidthPct != nil && s.Ops.MeanPerS != nil && *s.Ops.MeanPerS > 0 && s.Ops.Independent && s.Ops.Batches >= 10
}

// ThroughputInterval is the interval a window gives its ops/s: the ops'
// own (Ops) where the step recorded one, or, in a file from before them,
// the calls', whose relative half-width applies to ops/s (a workload's
// ops per call are fixed). mean and halfWidth are per second, in the
// series' own unit; ok is false when the window gives none.
func (s *StepSteady) ThroughputInterval() (mean, halfWidth float64, batches int, ok bool) {
	switch {
	case s == nil:
		return 0, 0, 0, false
	case s.Ops != nil:
		if !s.OpsPrecise() || s.Ops.HalfWidthPerS == nil {
			return 0, 0, 0, false
		}
		return *s.Ops.MeanPerS, *s.Ops.HalfWidthPerS, s.Ops.Batches, true
	case s.Precise() && s.MeanPerS != nil && *s.MeanPerS > 0 && s.HalfWidthPerS != nil:
		return *s.MeanPerS, *s.HalfWidthPerS, s.Batches, true
	}
	return 0, 0, 0, false
}

// ThroughputHalfWidthPct is the relative half-width (in %) of the
// interval a window gives its ops/s, from the same series as
// ThroughputInterval: the ops' own, or an older file's calls'. ok is
// false when the window gives none.
func (s *StepSteady) ThroughputHalfWidthPct() (pct float64, ok bool) {
	switch {
	case s == nil:
		return 0, false
	case s.Ops != nil:
		if !s.OpsPrecise() {
			return 0, false
		}
		return *s.Ops.HalfWidthPct, true
	case s.Precise():
		return *s.HalfWidthPct, true
	}
	return 0, false
}

// MaxSeriesLen bounds each of a step's stored rate series: 600 base
// batches are 60 s, the longest auto phase by default.
const MaxSeriesLen = 600

// SetSeries stores the warm-up's and the window's base batch rates
// (calls/s, BatchS long each) compactly: adjacent batches averaged in
// groups of k, the same k for both, so that neither holds more than
// MaxSeriesLen values, rounded to 4 significant digits.
func (s *StepSteady) SetSeries(warmup, window []float64, windowStartS float64) {
	k := max(1, (max(len(warmup), len(window))+MaxSeriesLen-1)/MaxSeriesLen)
	s.SeriesBatchS = s.BatchS * float64(k)
	s.WarmupRates, s.WindowRates = compactRates(warmup, k), compactRates(window, k)
	s.WindowStartS = new(math.Round(windowStartS*1000) / 1000)
}

// compactRates averages xs in groups of k (a short last group over its
// own length) and rounds each mean to 4 significant digits; nil for none.
func compactRates(xs []float64, k int) []float64 {
	if len(xs) == 0 {
		return nil
	}
	out := make([]float64, 0, (len(xs)+k-1)/k)
	for i := 0; i < len(xs); i += k {
		g := xs[i:min(i+k, len(xs))]
		sum := 0.0
		for _, x := range g {
			sum += x
		}
		out = append(out, round4(sum/float64(len(g))))
	}
	return out
}

// Round4 rounds x to 4 significant digits, as the stored series are.
func Round4(x float64) float64 { return round4(x) }

// round4 rounds x to 4 significant digits through its decimal form, so
// that the JSON holds 1234 or 0.1235, not 1234.0000000001.
func round4(x float64) float64 {
	v, err := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 4, 64), 64)
	if err != nil {
		return x
	}
	return v
}

// Precise says the step's window gives its own confidence interval: ten
// or more batch means, independent enough, with a finite half-width.
func (s *StepSteady) Precise() bool {
	return s != nil && s.HalfWidthPct != nil && s.Independent && s.Batches >= 10
}

// Unsettled says an auto warm-up never found the end of the transient.
func (s *StepSteady) Unsettled() bool {
	return s != nil && s.Settled != nil && !*s.Settled
}

// Ends of a window that did not reach its precision and were not its
// maximum: the stall rule's, and the open loop's target that did not keep
// up (also a warm-up's end).
const (
	WindowEndOutOfReach = "precision-out-of-reach"
	WindowEndOverloaded = "overloaded"
)

// Why a warm-up and a window ended (StepSteady.WarmupEnd, WindowEnd).
var (
	warmupEnds = []string{"settled", "max-warmup", "fixed-warmup", WindowEndOverloaded}
	windowEnds = []string{"precision", "max-duration", "fixed", WindowEndOutOfReach, WindowEndOverloaded}
	modes      = []string{WindowAuto, WindowFixed}
)

// checkSteady checks a step's steady record: known words, counts, and an
// interval that is a half-width around a rate; the corrected latency's
// interval and an overloaded end belong to open-loop steps (mode).
func checkSteady(c *check, s *StepSteady, mode string) {
	if s == nil {
		return
	}
	c.oneOf("step.steady.warmup_mode", s.WarmupMode, modes)
	c.oneOf("step.steady.warmup_end", s.WarmupEnd, warmupEnds)
	c.oneOf("step.steady.window_mode", s.WindowMode, modes)
	c.oneOf("step.steady.window_end", s.WindowEnd, windowEnds)
	if (s.WarmupMode == WindowFixed) != (s.WarmupEnd == "fixed-warmup") {
		c.fail("step.steady.warmup_end", "%q does not go with a %s warm-up", s.WarmupEnd, s.WarmupMode)
	}
	if (s.WindowMode == WindowFixed) != (s.WindowEnd == "fixed") {
		c.fail("step.steady.window_end", "%q does not go with a %s window", s.WindowEnd, s.WindowMode)
	}
	c.optNonNeg("step.steady.truncation_s", s.TruncationS)
	if !(s.BatchS > 0 && s.BatchS <= 60) {
		c.fail("step.steady.batch_s", "%v is not a batch length in seconds", s.BatchS)
	}
	c.count("step.steady.batch_size", int64(s.BatchSize))
	c.count("step.steady.batches", int64(s.Batches))
	if r := s.Lag1; r != nil && !(*r >= -1 && *r <= 1) {
		c.fail("step.steady.lag1", "%v is not an autocorrelation", *r)
	}
	if s.FleetAgents < 0 || s.FleetAgents > MaxAgents {
		c.fail("step.steady.fleet_agents", "%d is not a number of agents (0 to %d)", s.FleetAgents, MaxAgents)
	}
	if s.FleetAgents > 0 && s.WarmupMode == WindowFixed && s.WindowMode == WindowFixed {
		c.fail("step.steady.fleet_agents", "fixed lengths are no fleet's: only auto warm-ups and windows are decided by the leader")
	}
	c.optNonNeg("step.steady.mean_per_s", s.MeanPerS)
	c.optNonNeg("step.steady.half_width_per_s", s.HalfWidthPerS)
	c.optNonNeg("step.steady.half_width_pct", s.HalfWidthPct)
	if (s.HalfWidthPerS == nil) != (s.MeanPerS == nil) || (s.HalfWidthPct == nil) != (s.MeanPerS == nil) {
		c.fail("step.steady", "mean_per_s, half_width_per_s and half_width_pct come together")
	}
	c.optNonNeg("step.steady.projected_half_width_pct", s.ProjectedHalfWidthPct)
	if (s.ProjectedHalfWidthPct != nil) != (s.WindowEnd == WindowEndOutOfReach) {
		c.fail("step.steady.projected_half_width_pct", "comes with window_end %q, and only with it", WindowEndOutOfReach)
	}
	if s.WarmupEnd == WindowEndOverloaded && (s.Settled == nil || *s.Settled) {
		c.fail("step.steady.settled", "a warm-up that ended overloaded never settled")
	}
	for _, f := range []struct {
		name string
		v    *float64
	}{{"latency_mean_ms", s.LatencyMeanMs}, {"latency_half_width_ms", s.LatencyHalfWidthMs}, {"latency_half_width_pct", s.LatencyHalfWidthPct}} {
		c.optNonNeg("step.steady."+f.name, f.v)
	}
	if (s.LatencyHalfWidthMs == nil) != (s.LatencyMeanMs == nil) || (s.LatencyHalfWidthPct == nil) != (s.LatencyMeanMs == nil) {
		c.fail("step.steady", "latency_mean_ms, latency_half_width_ms and latency_half_width_pct come together")
	}
	if mode != ModeOpen && (s.LatencyMeanMs != nil || s.WindowEnd == WindowEndOverloaded || s.WarmupEnd == WindowEndOverloaded) {
		c.fail("step.steady", "a latency interval or an overloaded end in a closed-loop step (they belong to the open loop)")
	}
	if s.HalfWidthPerS != nil && s.Batches < 10 {
		c.fail("step.steady.batches", "%d batch means; an interval needs 10 or more", s.Batches)
	}
	if !(s.Confidence > 0 && s.Confidence < 1) {
		c.fail("step.steady.confidence", "%v is not a confidence between 0 and 1", s.Confidence)
	}
	checkOps(c, s.Ops, mode)
	c.optNonNeg("step.steady.call_time_s", s.CallTimeS)
	if len(s.NoInterval) > 1000 {
		c.fail("step.steady.no_interval", "%d characters; at most 1000", len(s.NoInterval))
	}
	checkSeries(c, s)
}

// checkOps checks the ops' interval: counts, an autocorrelation, and a
// half-width around a rate, with ten or more means; a closed loop's.
func checkOps(c *check, o *OpsInterval, mode string) {
	if o == nil {
		return
	}
	if mode == ModeOpen {
		c.fail("step.steady.ops", "the ops' own interval belongs to closed-loop steps")
	}
	c.count("step.steady.ops.batch_size", int64(o.BatchSize))
	c.count("step.steady.ops.batches", int64(o.Batches))
	if r := o.Lag1; r != nil && !(*r >= -1 && *r <= 1) {
		c.fail("step.steady.ops.lag1", "%v is not an autocorrelation", *r)
	}
	c.optNonNeg("step.steady.ops.mean_per_s", o.MeanPerS)
	c.optNonNeg("step.steady.ops.half_width_per_s", o.HalfWidthPerS)
	c.optNonNeg("step.steady.ops.half_width_pct", o.HalfWidthPct)
	if (o.HalfWidthPerS == nil) != (o.MeanPerS == nil) || (o.HalfWidthPct == nil) != (o.MeanPerS == nil) {
		c.fail("step.steady.ops", "mean_per_s, half_width_per_s and half_width_pct come together")
	}
	if o.HalfWidthPerS != nil && o.Batches < 10 {
		c.fail("step.steady.ops.batches", "%d batch means; an interval needs 10 or more", o.Batches)
	}
}

// checkSeries checks the stored rate series: bounded, non-negative, with
// a batch length that is a whole number of base batches.
func checkSeries(c *check, s *StepSteady) {
	if s.SeriesBatchS == 0 && s.WarmupRates == nil && s.WindowRates == nil && s.WindowStartS == nil {
		return // an older file
	}
	if k := s.SeriesBatchS / s.BatchS; !(k >= 1 && k <= 1e7 && math.Abs(k-math.Round(k)) < 1e-6) {
		c.fail("step.steady.series_batch_s", "%v is not a whole number of %v-s batches", s.SeriesBatchS, s.BatchS)
	}
	c.optNonNeg("step.steady.window_start_s", s.WindowStartS)
	if s.WarmupMode == WindowFixed && len(s.WarmupRates) > 0 {
		c.fail("step.steady.warmup_rates", "a fixed warm-up keeps no rates")
	}
	for _, f := range []struct {
		name string
		xs   []float64
	}{{"warmup_rates", s.WarmupRates}, {"window_rates", s.WindowRates}} {
		if len(f.xs) > MaxSeriesLen {
			c.fail("step.steady."+f.name, "%d values; at most %d", len(f.xs), MaxSeriesLen)
		}
		for _, x := range f.xs {
			if !(x >= 0 && x <= 1e12) {
				c.fail("step.steady."+f.name, "%v is not a rate in calls/s", x)
				break
			}
		}
	}
}

// checkAutoPlan checks the header's auto settings.
func checkAutoPlan(c *check, a *AutoPlan) {
	if a == nil {
		return
	}
	for _, d := range []struct {
		name string
		v    float64
	}{{"min_warmup_s", a.MinWarmupS}, {"max_warmup_s", a.MaxWarmupS}, {"min_duration_s", a.MinDurationS}, {"max_duration_s", a.MaxDurationS}, {"precision_pct", a.PrecisionPct}} {
		c.nonNeg("run.plan.auto."+d.name, d.v)
	}
	if a.MaxWarmupS < a.MinWarmupS {
		c.fail("run.plan.auto.max_warmup_s", "%v is below min_warmup_s %v", a.MaxWarmupS, a.MinWarmupS)
	}
	if a.MaxDurationS < a.MinDurationS {
		c.fail("run.plan.auto.max_duration_s", "%v is below min_duration_s %v", a.MaxDurationS, a.MinDurationS)
	}
	c.count("run.plan.auto.min_calls", a.MinCalls)
	if !(a.BatchS > 0 && a.BatchS <= 60) {
		c.fail("run.plan.auto.batch_s", "%v is not a batch length in seconds", a.BatchS)
	}
	if !(a.Confidence > 0 && a.Confidence < 1) {
		c.fail("run.plan.auto.confidence", "%v is not a confidence between 0 and 1", a.Confidence)
	}
}
