package results

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

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

// checkOpen: an open-loop or profile step has its rate and open-loop
// numbers; a closed-loop one has neither.
func checkOpen(c *check, s *StepResult) {
	c.oneOf("step.mode", s.Mode, []string{"", ModeOpen, ModeProfile})
	checkProfile(c, s)
	if s.Mode != ModeOpen && s.Mode != ModeProfile {
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
				checkRouterPool(c, "step.server.hosts."+host, hs)
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
