package results

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Bounds of what a record may hold, from what a sweep can produce
// (docs/results-schema.md gives each field's meaning). The plan refuses
// more before anything runs; the validator refuses a record that claims
// more, so no reader loops over, allocates for or plots a number no sweep
// wrote.
const (
	MaxPoolSize = 100000 // maxPoolSize per client per host
	MaxClients  = 1000   // --clients of one process
	MaxAgents   = 1024   // --agents of one run
	MaxTrials   = 1000   // --trials
	MaxLevels   = 1000   // levels in one list (--concurrency, --pool, --rate)
	MaxRate     = 10_000_000
	// MaxWindowS bounds duration_s: --duration is at most 24 h, and a
	// window closes within moments of its planned end.
	MaxWindowS = 2 * 24 * 3600
	// MaxTargets and MaxWorkloads bound the header's lists (--target,
	// --mixes); MaxPlanned bounds the steps a header plans over all its
	// targets and workloads, which the missing-steps analysis walks.
	MaxTargets   = 1000
	MaxWorkloads = 1000
	MaxPlanned   = 10_000_000
)

// Bounds.
var (
	boundValues  = []string{"", "client", "pool", "server", "network", "none", BoundFailed}
	searchModes  = []string{SearchKnee, SearchPool}
	searchWhys   = []string{ReasonCoarse, ReasonBisect, ReasonRefine, ReasonRepeat, ReasonPeak, ReasonPool}
	arrivalKinds = []string{ArrivalsUniform, ArrivalsPoisson}
)

// BoundFailed is the bound of a step during which the target failed
// (StepResult.TargetFailed): its numbers say nothing about capacity.
const BoundFailed = "failed"

// FieldError is a record whose field breaks the schema: the field's path
// (as docs/results-schema.md writes it, from the record's kind) and why.
type FieldError struct {
	Field string // "step.duration_s"
	Msg   string // "0 is not a window length"
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

// check collects the first problem of a record.
type check struct{ err *FieldError }

func (c *check) fail(field, format string, a ...any) {
	if c.err == nil {
		c.err = &FieldError{Field: field, Msg: fmt.Sprintf(format, a...)}
	}
}

// result is the first problem, or nil.
func (c *check) result() error {
	if c.err == nil {
		return nil
	}
	return c.err
}

// client checks a client telemetry section's counts.
func (c *check) client(field string, cl *ClientTelemetry) {
	if cl == nil {
		return
	}
	c.nonNeg(field+".cpu_pct", cl.CPUPct)
	c.count(field+".cpus", int64(cl.CPUs))
	c.nonNeg(field+".gc_pause_ms", cl.GCPauseMS)
	c.count(field+".goroutines", int64(cl.Goroutines))
}

// target checks that a record names a target of the run header.
func (c *check) target(field, name string, h *RunHeader) {
	if strings.TrimSpace(name) == "" {
		c.fail(field, "empty")
	} else if h != nil && !slices.ContainsFunc(h.Targets, func(t TargetHeader) bool { return t.Name == name }) {
		c.fail(field, "not one of the run header's %d target(s)", len(h.Targets))
	}
}

// between checks lo ≤ v ≤ hi for an integer.
func (c *check) between(field string, v, lo, hi int64) {
	if v < lo || v > hi {
		c.fail(field, "%d is not between %d and %d", v, lo, hi)
	}
}

// count checks a count: a whole number ≥ 0.
func (c *check) count(field string, v int64) {
	if v < 0 {
		c.fail(field, "%d is negative; it counts things", v)
	}
}

// nonNeg checks a measured quantity: finite and ≥ 0.
func (c *check) nonNeg(field string, v float64) {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		c.fail(field, "%v is not a number ≥ 0", v)
	}
}

// optNonNeg is nonNeg for a value that may be null.
func (c *check) optNonNeg(field string, v *float64) {
	if v != nil {
		c.nonNeg(field, *v)
	}
}

// finite checks a value that may be negative (a deviation, an offset).
func (c *check) finite(field string, v float64) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		c.fail(field, "%v is not a finite number", v)
	}
}

// oneOf checks a closed set of words.
func (c *check) oneOf(field, v string, allowed []string) {
	if !slices.Contains(allowed, v) {
		var quoted []string
		for _, a := range allowed {
			if a != "" {
				quoted = append(quoted, strconv.Quote(a))
			}
		}
		c.fail(field, "not one of %s", strings.Join(quoted, ", "))
	}
}

// ordered checks that named values never decrease: p50 ≤ p90 ≤ … ≤ max.
func (c *check) ordered(field string, names []string, vs []float64) {
	for i := range vs {
		c.nonNeg(field+"."+names[i], vs[i])
	}
	for i := 1; i < len(vs); i++ {
		if vs[i] < vs[i-1] {
			c.fail(field, "%s %v is above %s %v; percentiles never decrease", names[i-1], vs[i-1], names[i], vs[i])
		}
	}
}

// meanWithin checks that a mean lies under the maximum (a rounding's
// worth of slack), and that a summary with a maximum of 0 is all 0.
func (c *check) meanWithin(field string, mean, maxV float64) {
	if mean > maxV*(1+1e-9)+1e-9 {
		c.fail(field, "mean %v is above max %v", mean, maxV)
	}
}

func (c *check) latency(field string, l LatencySummary) {
	c.ordered(field, []string{"p50", "p90", "p99", "p999", "max"}, []float64{l.P50, l.P90, l.P99, l.P999, l.Max})
	c.nonNeg(field+".mean", l.Mean)
	c.meanWithin(field, l.Mean, l.Max)
}

func (c *check) quantiles(field string, q Quantiles) {
	c.ordered(field, []string{"p50", "p99", "max"}, []float64{q.P50, q.P99, q.Max})
	c.nonNeg(field+".mean", q.Mean)
	c.meanWithin(field, q.Mean, q.Max)
}

func (c *check) errorCounts(field string, e ErrorCounts) {
	c.count(field+".timeout", e.Timeout)
	c.count(field+".network", e.Network)
	c.count(field+".server", e.Server)
}

// histogram checks that an encoded histogram decodes.
func (c *check) histogram(field, enc string) {
	if c.err != nil {
		return
	}
	if _, err := DecodeHistogram(enc); err != nil {
		c.fail(field, "not an HdrHistogram in the V2 compressed base64 encoding (%v)", err)
	}
}

// rate checks that a rate is count ÷ window, within 5% (a merged step's
// rates are the agents' sum over windows of slightly different lengths).
func (c *check) rate(field string, perS float64, n int64, durationS float64) {
	c.nonNeg(field, perS)
	if c.err != nil || durationS <= 0 {
		return
	}
	want := float64(n) / durationS
	if math.Abs(perS-want) > 0.05*max(perS, want)+1/durationS {
		c.fail(field, "%v is not its count over the window (%d in %gs is %v)", perS, n, durationS, want)
	}
}

// stepKeys are the keys a step record never lacks (the schema's "never"
// rows that every poolsweep has written; clients, trial and pool_setting
// are absent from the oldest files and read as their defaults).
var stepKeys = []string{"target", "workload", "concurrency", "max_pool_size", "started_at", "duration_s",
	"calls", "ops", "calls_per_s", "ops_per_s", "errors", "latency_ms", "ops_by_type", "pool"}

// checkStepKeys refuses a step record without a key it never lacks.
func checkStepKeys(b []byte) error {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(b, &keys); err != nil {
		return fieldError("step", err)
	}
	for _, k := range stepKeys {
		if v, ok := keys[k]; !ok || string(v) == "null" {
			return &FieldError{Field: "step." + k, Msg: "missing"}
		}
	}
	return nil
}

// ValidateStep checks a decoded step against the schema and the run
// header it belongs to: types were checked by decoding; this checks
// ranges (counts ≥ 0, a window > 0, concurrency within MaxConcurrency,
// percentiles in order), that its histograms decode, that its target is
// one of the header's, and that its parts agree (ops_by_type with ops,
// rates with counts, a closed-loop step without open-loop numbers). The
// error is a *FieldError naming the first field that breaks it.
func ValidateStep(s *StepResult, h *RunHeader) error {
	c := &check{}
	c.oneOf("step.kind", s.Kind, []string{KindStep})
	c.target("step.target", s.Target, h)
	c.between("step.concurrency", int64(s.Concurrency), 1, MaxConcurrency)
	c.between("step.max_pool_size", int64(s.MaxPoolSize), 1, MaxPoolSize)
	c.between("step.clients", int64(s.Clients), 1, MaxClients*MaxAgents)
	c.between("step.trial", int64(s.Trial), 1, MaxTrials+1) // a search adds a trial where levels overlap
	if p := s.PoolSetting; p != "match" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > MaxPoolSize {
			c.fail("step.pool_setting", "not \"match\" or a pool size from 1 to %d", MaxPoolSize)
		}
	}
	if s.StartedAt.IsZero() {
		c.fail("step.started_at", "missing: when the window opened")
	}
	if d := s.DurationS; math.IsNaN(d) || d <= 0 || d > MaxWindowS {
		c.fail("step.duration_s", "%v is not a window length", d)
	}
	c.count("step.calls", s.Calls)
	c.count("step.ops", s.Ops)
	c.count("step.ops_after_close", s.OpsAfterClose)
	c.count("step.connections", int64(s.Connections))
	c.rate("step.calls_per_s", s.CallsPerS, s.Calls, s.DurationS)
	c.rate("step.ops_per_s", s.OpsPerS, s.Ops, s.DurationS)
	c.errorCounts("step.errors", s.Errors)
	if c.err == nil && s.Errors.Total() > s.Ops+s.OpsAfterClose {
		c.fail("step.errors", "%d failed operations, but only %d ended (ops + ops_after_close)", s.Errors.Total(), s.Ops+s.OpsAfterClose)
	}
	c.latency("step.latency_ms", s.Latency)
	checkOpsByType(c, s)
	checkPool(c, &s.Pool)
	checkAxes(c, s)
	if pc := s.PrimaryChange; pc != nil {
		c.count("step.primary_change.changes", int64(pc.Changes))
		c.nonNeg("step.primary_change.no_primary_ms", pc.NoPrimaryMS)
	}
	c.between("step.in_flight_at_close", int64(s.InFlightAtClose), 0, int64(s.Concurrency)*int64(max(s.Clients, 1)))
	c.nonNeg("step.oldest_in_flight_ms", s.OldestInFlightMS)
	c.notFound("step", s.NotFound, s.LoadedKeyOps)
	if c.err == nil && s.LoadedKeyOps > s.Ops+s.OpsAfterClose {
		c.fail("step.loaded_key_ops", "%d, but only %d operations ended (ops + ops_after_close)", s.LoadedKeyOps, s.Ops+s.OpsAfterClose)
	}
	if p := s.Phases; p != nil {
		for _, ph := range []struct {
			name string
			v    float64
		}{{"check", p.Check}, {"prewarm", p.Prewarm}, {"warmup", p.Warmup}, {"window", p.Window}, {"teardown", p.Teardown}, {"barrier", p.Barrier}} {
			c.nonNeg("step.phases_s."+ph.name, ph.v)
		}
	}
	checkSearchInfo(c, s.Search)
	checkExtraTrial(c, s)
	checkSteady(c, s.Steady, s.Mode)
	checkOpen(c, s)
	checkTelemetry(c, s)
	c.oneOf("step.bound", s.Bound, boundValues)
	checkTargetFailed(c, s)
	if hs := s.Histograms; hs != nil {
		c.histogram("step.histograms.call", hs.Call)
		for _, typ := range sortedKeys(hs.Ops) {
			c.histogram("step.histograms.ops."+typ, hs.Ops[typ])
		}
		if hs.CheckoutWait != "" {
			c.histogram("step.histograms.checkout_wait", hs.CheckoutWait)
		}
	}
	checkAgents(c, s)
	return c.result()
}

// checkOpsByType: each type's numbers in range, and the types adding up
// to the step's operations.
func checkOpsByType(c *check, s *StepResult) {
	var n, errs int64
	for _, typ := range sortedKeys(s.OpsByType) {
		st := s.OpsByType[typ]
		f := "step.ops_by_type." + keyWord(typ)
		if strings.TrimSpace(typ) == "" {
			c.fail("step.ops_by_type", "an op type with no name")
		}
		c.count(f+".count", st.Count)
		c.count(f+".errors", st.Errors)
		c.nonNeg(f+".per_s", st.PerS)
		c.latency(f+".latency_ms", st.Latency)
		n += st.Count
		errs += st.Errors
	}
	if c.err != nil {
		return
	}
	if n != s.Ops && (len(s.OpsByType) > 0 || s.Ops > 0) {
		c.fail("step.ops_by_type", "the types' counts add up to %d, but ops is %d", n, s.Ops)
	}
	if errs > s.Errors.Total() {
		c.fail("step.ops_by_type", "the types' errors add up to %d, more than the step's %d", errs, s.Errors.Total())
	}
}

// keyWord is a map key of a record as a field's name shows it: the key
// when it is a short word (read, find), else a stand-in: a key is what
// the file holds, and an error never quotes that.
func keyWord(k string) string {
	if k == "" || len(k) > 32 {
		return "(a key that is not an op type)"
	}
	for _, c := range k {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return "(a key that is not an op type)"
		}
	}
	return k
}

func checkPool(c *check, p *PoolStats) {
	c.quantiles("step.pool.checkout_wait_ms", p.CheckoutWait)
	c.count("step.pool.checkout_failed", p.CheckoutFailed)
	c.count("step.pool.connections_open", int64(p.ConnectionsOpen))
	c.count("step.pool.connections_max", int64(p.ConnectionsMax))
	c.count("step.pool.connections_created", p.ConnectionsCreated)
	c.count("step.pool.connections_lost", p.ConnectionsLost)
	c.nonNeg("step.pool.prewarm_s", p.PrewarmS)
	for i, h := range p.Hosts {
		f := fmt.Sprintf("step.pool.hosts[%d].", i)
		if strings.TrimSpace(h.Host) == "" {
			c.fail(f+"host", "empty")
		}
		c.oneOf(f+"role", h.Role, hostRoles)
		c.count(f+"connections_open", int64(h.ConnectionsOpen))
		c.count(f+"connections_max", int64(h.ConnectionsMax))
		c.count(f+"in_use_max", int64(h.InUseMax))
		c.count(f+"connections_created", h.ConnectionsCreated)
		c.count(f+"connections_lost", h.ConnectionsLost)
		c.count(f+"checkouts", h.Checkouts)
		c.count(f+"checkout_failed", h.CheckoutFailed)
		c.quantiles(f+"checkout_wait_ms", h.CheckoutWait)
		if c.err == nil && h.InUseMax > h.ConnectionsMax && h.ConnectionsMax > 0 {
			c.fail(f+"in_use_max", "%d in use, but at most %d open", h.InUseMax, h.ConnectionsMax)
		}
	}
}

// hostRoles are the roles a pool's server may have had.
var hostRoles = []string{"", "primary", "secondary", "mongos", "standalone", "other"}

// checkAxes checks a step's values on the series axes.
func checkAxes(c *check, s *StepResult) {
	if s.ReadPreference != "" {
		c.oneOf("step.read_preference", s.ReadPreference, ReadPreferences)
	}
	if s.WriteConcern != "" {
		c.oneOf("step.write_concern", s.WriteConcern, WriteConcerns)
	}
}

func checkSearchInfo(c *check, s *SearchInfo) {
	if s == nil {
		return
	}
	c.oneOf("step.search.mode", s.Mode, searchModes)
	c.oneOf("step.search.reason", s.Reason, searchWhys)
	c.between("step.search.probe", int64(s.Probe), 1, math.MaxInt32)
	if s.Bracket != nil && len(s.Bracket) != 2 {
		c.fail("step.search.bracket", "%d values; a bracket has two", len(s.Bracket))
	}
}

// checkExtraTrial: an extra trial is a trial beyond the first, of a grid
// step, taken because two neighbouring levels' intervals overlapped: the
// intervals it records must be intervals, and overlap.
func checkExtraTrial(c *check, s *StepResult) {
	e := s.ExtraTrial
	if e == nil {
		return
	}
	switch {
	case s.Search != nil:
		c.fail("step.extra_trial", "on a step a search chose (search says why)")
	case s.Trial < 2:
		c.fail("step.extra_trial", "on trial %d; an extra trial is the second or later", s.Trial)
	case e.NeighbourTarget == "" && e.Neighbour == s.Concurrency:
		c.fail("step.extra_trial.neighbour", "%d is the step's own level", e.Neighbour)
	case e.NeighbourTarget == s.Target:
		c.fail("step.extra_trial.neighbour_target", "is the step's own target")
	}
	c.between("step.extra_trial.neighbour", int64(e.Neighbour), 1, MaxConcurrency)
	for _, iv := range []struct {
		name string
		v    []float64
	}{{"interval", e.Interval}, {"neighbour_interval", e.NeighbourInterval}} {
		f := "step.extra_trial." + iv.name
		if len(iv.v) != 2 {
			c.fail(f, "%d values; an interval has two", len(iv.v))
			return
		}
		c.nonNeg(f+"[0]", iv.v[0])
		c.nonNeg(f+"[1]", iv.v[1])
		if c.err == nil && iv.v[0] > iv.v[1] {
			c.fail(f, "low %g above high %g", iv.v[0], iv.v[1])
		}
	}
	if c.err == nil && (e.Interval[1] < e.NeighbourInterval[0] || e.NeighbourInterval[1] < e.Interval[0]) {
		c.fail("step.extra_trial", "the intervals %v and %v do not overlap", e.Interval, e.NeighbourInterval)
	}
	if e.Knee != nil {
		c.between("step.extra_trial.knee", int64(*e.Knee), 1, MaxConcurrency)
	}
}

// checkOpen: an open-loop step has its rate and open-loop numbers; a
// closed-loop one has neither.
func checkOpen(c *check, s *StepResult) {
	c.oneOf("step.mode", s.Mode, []string{"", ModeOpen})
	if s.Mode != ModeOpen {
		if s.Rate != 0 || s.Open != nil {
			c.fail("step.mode", "a closed-loop step (no mode) with a rate or open_loop numbers")
		}
		return
	}
	c.between("step.rate", int64(s.Rate), 1, MaxRate)
	o := s.Open
	if o == nil {
		c.fail("step.open_loop", "missing from an open-loop step")
		return
	}
	c.oneOf("step.open_loop.arrivals", o.Arrivals, arrivalKinds)
	c.between("step.open_loop.max_in_flight", int64(o.MaxInFlight), 1, MaxConcurrency)
	c.count("step.open_loop.offered", o.Offered)
	c.count("step.open_loop.dropped", o.Dropped)
	c.count("step.open_loop.not_issued", o.NotIssued)
	c.count("step.open_loop.in_flight_max", int64(o.InFlightMax))
	for _, v := range []struct {
		name string
		v    float64
	}{{"offered_per_s", o.OfferedPerS}, {"achieved_per_s", o.AchievedPerS}, {"in_flight_mean", o.InFlightMean}, {"behind_at_close_ms", o.BehindAtCloseMs}} {
		c.nonNeg("step.open_loop."+v.name, v.v)
	}
	c.latency("step.open_loop.corrected_ms", o.Corrected)
	if o.Uncorrected != nil {
		c.latency("step.open_loop.uncorrected_ms", *o.Uncorrected)
	}
	c.quantiles("step.open_loop.start_lag_ms", o.StartLag)
	c.quantiles("step.open_loop.pool_wait_ms", o.PoolWait)
	c.quantiles("step.open_loop.service_ms", o.Service)
	for i, v := range o.LatencyTrend {
		c.optNonNeg(fmt.Sprintf("step.open_loop.latency_trend_ms[%d]", i), v)
	}
	c.optNonNeg("step.open_loop.client_busy", o.ClientBusy)
	c.optNonNeg("step.open_loop.sched_latency_p99_ms", o.SchedLatencyP99Ms)
	c.optNonNeg("step.open_loop.run_queue_wait_pct", o.RunQueueWaitPct)
	c.optNonNeg("step.open_loop.run_queue_mean_wait_ms", o.RunQueueMeanWaitMs)
}

// checkTelemetry checks the counts of the server's and client's sections;
// the server's own figures are as it reported them (a counter reset by a
// restart may give a negative rate), and are only held to be numbers.
func checkTelemetry(c *check, s *StepResult) {
	if t := s.Server; t != nil {
		c.count("step.server.sampler_errors", int64(t.SamplerErrors))
		for _, host := range sortedKeys(t.Hosts) {
			if hs := t.Hosts[host]; hs != nil {
				c.count("step.server.hosts."+host+".samples", int64(hs.Samples))
				checkEstablishment(c, "step.server.hosts."+host, hs)
			}
		}
		if t.Total != nil {
			c.count("step.server.total.samples", int64(t.Total.Samples))
			checkEstablishment(c, "step.server.total", t.Total)
		}
		for i, m := range t.Replication {
			f := fmt.Sprintf("step.server.replication[%d].", i)
			c.nonNeg(f+"lag_start_ms", m.StartMS)
			c.nonNeg(f+"lag_end_ms", m.EndMS)
			c.nonNeg(f+"lag_max_ms", m.MaxMS)
			c.count(f+"samples", int64(m.Samples))
			c.nonNeg(f+"precision_ms", m.PrecisionMS)
		}
	}
	c.client("step.client", s.Client)
	if l := s.LittlesLaw; l != nil {
		c.nonNeg("step.littles_law.expected_in_flight", l.ExpectedInFlight)
		c.nonNeg("step.littles_law.measured_in_flight", l.MeasuredInFlight)
		c.finite("step.littles_law.deviation_pct", l.DeviationPct)
	}
}

// checkTargetFailed: the mark's evidence is counts and times in range.
func checkTargetFailed(c *check, s *StepResult) {
	f := s.TargetFailed
	if f == nil {
		if s.Bound == BoundFailed {
			c.fail("step.bound", "%q without a target_failed mark", BoundFailed)
		}
		return
	}
	if !f.Failed {
		c.fail("step.target_failed.failed", "false; a step the target did not fail has no mark")
	}
	c.nonNeg("step.target_failed.first_failure_s", f.FirstFailureS)
	c.nonNeg("step.target_failed.stalled_from_s", f.StalledFromS)
	c.nonNeg("step.target_failed.stalled_s", f.StalledS)
	c.count("step.target_failed.pool_cleared", f.PoolCleared)
	c.count("step.target_failed.connections_lost", f.ConnectionsLost)
	c.count("step.target_failed.sampler_errors", int64(f.SamplerErrors))
	c.count("step.target_failed.in_flight_at_close", int64(f.InFlightAtClose))
	c.errorCounts("step.target_failed.errors", f.Errors)
	c.oneOf("step.target_failed.cause", f.Cause, TargetFailedCauses)
	c.count("step.target_failed.stuck_calls", f.StuckCalls)
	c.nonNeg("step.target_failed.stuck_after_ms", f.StuckAfterMS)
	c.nonNeg("step.target_failed.window_p99_ms", f.WindowP99MS)
	c.nonNeg("step.target_failed.oldest_in_flight_ms", f.OldestInFlightMS)
	c.notFound("step.target_failed", f.NotFound, f.LoadedKeyOps)
}

// notFound: the ops that found no document are among those by a loaded
// key.
func (c *check) notFound(field string, notFound, loaded int64) {
	c.count(field+".not_found", notFound)
	c.count(field+".loaded_key_ops", loaded)
	if c.err == nil && notFound > loaded {
		c.fail(field+".not_found", "%d, above %s.loaded_key_ops %d (the ops it is counted among)", notFound, field, loaded)
	}
}

// checkAgents: agent mode's parts of a step.
func checkAgents(c *check, s *StepResult) {
	if a := s.Agent; a != nil {
		c.between("step.agent.of", int64(a.Of), 1, MaxAgents)
		c.between("step.agent.index", int64(a.Index), 0, int64(max(a.Of, 1))-1)
	}
	for i, a := range s.Agents {
		f := fmt.Sprintf("step.agents[%d]", i)
		c.between(f+".index", int64(a.Index), 0, MaxAgents-1)
		c.count(f+".ops", a.Ops)
		c.count(f+".calls", a.Calls)
		c.nonNeg(f+".ops_per_s", a.OpsPerS)
		c.nonNeg(f+".calls_per_s", a.CallsPerS)
		c.errorCounts(f+".errors", a.Errors)
		c.count(f+".connections", int64(a.Connections))
		c.latency(f+".latency_ms", a.Latency)
	}
	for i, m := range s.MissingAgents {
		c.between(fmt.Sprintf("step.missing_agents[%d].index", i), int64(m.Index), 0, MaxAgents-1)
	}
	if w := s.WindowSkew; w != nil {
		c.nonNeg("step.window_skew.start_ms", w.StartMS)
		c.nonNeg("step.window_skew.end_ms", w.EndMS)
		if !(w.Overlap >= 0 && w.Overlap <= 1) {
			c.fail("step.window_skew.overlap", "%v is not a share from 0 to 1", w.Overlap)
		}
	}
}

// ValidateHeader checks a run header's lists and numbers: every target
// named once, and the plan within what a sweep can plan (a reader walks
// the planned grid to name missing steps). A number of 0 or a list left
// out reads as not recorded (hand-made and older files).
func ValidateHeader(h *RunHeader) error {
	c := &check{}
	if len(h.Targets) == 0 {
		c.fail("run.targets", "none; steps name their target from this list")
	}
	if len(h.Targets) > MaxTargets {
		c.fail("run.targets", "%d targets, more than %d", len(h.Targets), MaxTargets)
	}
	seen := map[string]bool{}
	for i, t := range h.Targets {
		switch {
		case strings.TrimSpace(t.Name) == "":
			c.fail(fmt.Sprintf("run.targets[%d].name", i), "empty")
		case seen[t.Name]:
			c.fail(fmt.Sprintf("run.targets[%d].name", i), "the name of an earlier target")
		}
		seen[t.Name] = true
	}
	w := h.Workload
	if len(w.Mixes) > MaxWorkloads {
		c.fail("run.workload.mixes", "%d mixes, more than %d", len(w.Mixes), MaxWorkloads)
	}
	for _, op := range sortedKeys(w.Mix) {
		c.nonNeg("run.workload.mix."+op, w.Mix[op])
	}
	for i, rp := range w.ReadPreferences {
		c.oneOf(fmt.Sprintf("run.workload.read_preferences[%d]", i), rp, ReadPreferences)
	}
	for i, wc := range w.WriteConcerns {
		c.oneOf(fmt.Sprintf("run.workload.write_concerns[%d]", i), wc, WriteConcerns)
	}
	c.nonNeg("run.workload.ops_per_call", w.OpsPerCall)
	c.count("run.workload.records", int64(w.Records))
	c.count("run.workload.field_count", int64(w.FieldCount))
	c.count("run.workload.field_length", int64(w.FieldLength))
	c.count("run.workload.max_scan_length", int64(w.MaxScanLength))
	p := h.Plan
	levels(c, "run.plan.concurrency", p.Concurrency, MaxConcurrency)
	levels(c, "run.plan.pools", p.Pools, MaxPoolSize)
	levels(c, "run.plan.rate", p.Rate, MaxRate)
	c.between("run.plan.clients", int64(p.Clients), 0, MaxClients*MaxAgents)
	c.between("run.plan.trials", int64(p.Trials), 0, MaxTrials)
	c.count("run.plan.steps", int64(p.Steps))
	c.between("run.plan.max_in_flight", int64(p.MaxInFlight), 0, MaxConcurrency)
	for _, d := range []struct {
		name string
		v    float64
	}{{"warmup_s", p.WarmupS}, {"duration_s", p.DurationS}, {"op_timeout_s", p.OpTimeoutS}} {
		c.nonNeg("run.plan."+d.name, d.v)
	}
	if s := p.Search; s != nil {
		c.oneOf("run.plan.search.mode", s.Mode, searchModes)
		if !(s.Resolution > 1 && s.Resolution <= 16) {
			c.fail("run.plan.search.resolution", "%v is not a factor above 1", s.Resolution)
		}
		levels(c, "run.plan.search.levels", s.Levels, MaxConcurrency)
		c.nonNeg("run.plan.search.budget_s", s.BudgetS)
		c.nonNeg("run.plan.search.slo_p99_ms", s.SLOP99Ms)
	}
	checkStormPlan(c, p.Storm)
	checkAutoPlan(c, p.Auto)
	if p.TrialsAtMost && (p.Search != nil || len(p.Rate) > 0 || p.Auto == nil || !p.Auto.Window) {
		c.fail("run.plan.trials_at_most", "only a closed-loop grid with auto windows takes its trials where they pay")
	}
	grid := int64(max(len(p.Concurrency), len(p.Rate))) * int64(max(len(p.Pools), 1)) * int64(max(p.Trials, 1))
	if n := grid * int64(max(len(h.Targets), 1)) * int64(max(len(w.Mixes), 1)); c.err == nil && n > MaxPlanned {
		c.fail("run.plan", "a grid of %d steps, more than %d", n, MaxPlanned)
	}
	if a := h.Agents; a != nil {
		c.between("run.agents.count", int64(a.Count), 1, MaxAgents)
		if a.Index != nil {
			c.between("run.agents.index", int64(*a.Index), 0, int64(max(a.Count, 1))-1)
		}
		c.between("run.agents.clients_per_agent", int64(a.ClientsPerAgent), 0, MaxClients)
		c.nonNeg("run.agents.timeout_s", a.TimeoutS)
		for i, m := range a.Merged {
			c.between(fmt.Sprintf("run.agents.merged[%d].index", i), int64(m.Index), 0, MaxAgents-1)
			c.count(fmt.Sprintf("run.agents.merged[%d].steps", i), int64(m.Steps))
		}
	}
	return c.result()
}

// levels checks a list of levels: at most MaxLevels, each from 1 to hi.
func levels(c *check, field string, vs []int, hi int64) {
	if len(vs) > MaxLevels {
		c.fail(field, "%d levels, more than %d", len(vs), MaxLevels)
		return
	}
	for _, v := range vs {
		if int64(v) < 1 || int64(v) > hi {
			c.fail(field, "%d is not between 1 and %d", v, hi)
			return
		}
	}
}

// ValidateEnd checks an end record: a known status and counts ≥ 0.
func ValidateEnd(e *EndRecord) error {
	c := &check{}
	c.oneOf("end.status", e.Status, []string{StatusComplete, StatusPartial, StatusInterrupted, StatusFailed})
	c.count("end.steps", int64(e.Steps))
	c.count("end.planned", int64(e.Planned))
	for i, f := range e.FailedSteps {
		c.between(fmt.Sprintf("end.failed_steps[%d].concurrency", i), int64(f.Concurrency), 0, MaxConcurrency)
		c.count(fmt.Sprintf("end.failed_steps[%d].trial", i), int64(f.Trial))
		c.count(fmt.Sprintf("end.failed_steps[%d].clients", i), int64(f.Clients))
		c.between(fmt.Sprintf("end.failed_steps[%d].rate", i), int64(f.Rate), 0, MaxRate)
	}
	for i, t := range e.Thresholds {
		c.thresholdOutcome(fmt.Sprintf("end.thresholds[%d]", i), t)
	}
	return c.result()
}

// sortedKeys is m's keys in order, so that the first problem named is
// the same on every run.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// ThresholdUnits are the units a threshold outcome may be in.
var ThresholdUnits = []string{"ops/s", "calls/s", "ms", "%", "errors", "connections", "workers"}

// thresholdOutcome checks a threshold's outcome: a threshold, a known
// unit, values ≥ 0, a check without a value never passing, and the
// outcome passing exactly when it has checks and all of them passed.
func (c *check) thresholdOutcome(field string, t ThresholdOutcome) {
	if strings.TrimSpace(t.Threshold) == "" {
		c.fail(field+".threshold", "empty")
	}
	c.oneOf(field+".unit", t.Unit, ThresholdUnits)
	all := len(t.Checks) > 0
	for j, k := range t.Checks {
		f := fmt.Sprintf("%s.checks[%d]", field, j)
		c.optNonNeg(f+".value", k.Value)
		c.between(f+".concurrency", int64(k.Concurrency), 0, MaxConcurrency)
		c.count(f+".trial", int64(k.Trial))
		c.count(f+".trials", int64(k.Trials))
		c.between(f+".rate", int64(k.Rate), 0, MaxRate)
		if k.Value == nil && k.Pass {
			c.fail(f+".pass", "true without a value: a check that could not be made fails")
		}
		all = all && k.Pass
	}
	if t.Pass != all {
		c.fail(field+".pass", "%v, but its checks say %v", t.Pass, all)
	}
}
