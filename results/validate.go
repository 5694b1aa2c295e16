package results

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Bounds of what a record may hold, from what a sweep can produce
// (docs/results-schema.md gives each field's meaning). The plan refuses
// more before anything runs; the validator refuses a record that claims
// more, so no reader loops over, allocates for or plots a number no sweep
// wrote.
const (
	MaxPoolSize = 100000 // maxPoolSize per client per host
	MaxClients  = 10000  // --clients of one process (each level of the list)
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
	// MaxTargetName bounds a target's name, as --target takes it and as
	// a sweep names a --uri's target (its hosts, cut to fit): every table,
	// heading and progress line that names a target stays one short line.
	MaxTargetName = 64
)

// Bounds.
var (
	boundValues  = []string{"", "client", "pool", "server", "router_pool", "router_cpu", "network", "none", BoundFailed}
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
		case len(t.Name) > MaxTargetName:
			c.fail(fmt.Sprintf("run.targets[%d].name", i), "%d bytes, more than the %d a target's name has", len(t.Name), MaxTargetName)
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
	named := map[string]bool{}
	for _, t := range h.Targets {
		named[t.Name] = true
	}
	if len(p.TargetConcurrency) > 0 && (p.Search != nil || len(p.Rate) > 0) {
		c.fail("run.plan.target_concurrency", "levels per target belong to a closed-loop grid, not a search or an open loop")
	}
	listed := map[string]bool{}
	for i, tl := range p.TargetConcurrency {
		field := fmt.Sprintf("run.plan.target_concurrency[%d]", i)
		switch {
		case !named[tl.Target]:
			c.fail(field+".target", "not a target of this run")
		case listed[tl.Target]:
			c.fail(field+".target", "the same target as an earlier list")
		case len(tl.Concurrency) == 0:
			c.fail(field+".concurrency", "empty")
		}
		listed[tl.Target] = true
		levels(c, field+".concurrency", tl.Concurrency, MaxConcurrency)
	}
	levels(c, "run.plan.pools", p.Pools, MaxPoolSize)
	levels(c, "run.plan.rate", p.Rate, MaxRate)
	c.between("run.plan.clients", int64(p.Clients), 0, MaxClients*MaxAgents)
	levels(c, "run.plan.client_levels", p.ClientLevels, MaxClients)
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
	checkPoolAxes(c, p)
	checkAutoPlan(c, p.Auto)
	if p.TrialsAtMost && (p.Search != nil || len(p.Rate) > 0 || p.Auto == nil || !p.Auto.Window) {
		c.fail("run.plan.trials_at_most", "only a closed-loop grid with auto windows takes its trials where they pay")
	}
	// Each target's levels: its own list, or the plan's.
	var levelsAll int64
	for _, t := range h.Targets {
		levelsAll += int64(max(len(p.LevelsOf(t.Name)), len(p.Rate)))
	}
	levelsAll = max(levelsAll, int64(max(len(p.Concurrency), len(p.Rate))))
	grid := levelsAll * int64(max(len(p.Pools), 1)) * int64(max(p.Trials, 1))
	if n := grid * int64(max(len(w.Mixes), 1)); c.err == nil && n > MaxPlanned {
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

// checkPoolAxes checks the pool-option axes a plan swept: each list
// within MaxLevels, minPoolSize from 0 to MaxPoolSize, maxConnecting
// from 1 to MaxConnecting, the idle time from 0, the timeout and the
// server selection timeout from 1 ms, the heartbeat from MinHeartbeatMS,
// retry on or off; and --cold only with a profile.
func checkPoolAxes(c *check, p PlanInfo) {
	for _, l := range []struct {
		field  string
		vs     []int64
		lo, hi int64
	}{
		{"run.plan.min_pool", int64s(p.MinPool), 0, MaxPoolSize},
		{"run.plan.max_connecting", int64s(p.MaxConnecting), 1, MaxConnecting},
		{"run.plan.max_idle_ms", p.MaxIdleMS, 0, math.MaxInt64},
		{"run.plan.timeout_ms", p.TimeoutMS, 1, math.MaxInt64},
		{"run.plan.server_selection_timeout_ms", p.ServerSelectionTimeoutMS, 1, math.MaxInt64},
		{"run.plan.heartbeat_ms", p.HeartbeatMS, MinHeartbeatMS, math.MaxInt64},
	} {
		if len(l.vs) > MaxLevels {
			c.fail(l.field, "%d values, more than %d", len(l.vs), MaxLevels)
			continue
		}
		for _, v := range l.vs {
			if v < l.lo || v > l.hi {
				c.fail(l.field, "%d is not between %d and %d", v, l.lo, l.hi)
				break
			}
		}
	}
	for _, v := range p.Retry {
		if v != "on" && v != "off" || len(p.Retry) > 2 {
			c.fail("run.plan.retry", "%d values, or one that is neither on nor off", len(p.Retry))
			break
		}
	}
	if p.Cold && p.Profile == "" {
		c.fail("run.plan.cold", "cold pools belong to a profile run (plan.profile)")
	}
	checkEventSpecs(c, "run.plan.events", p.Events)
	if len(p.Events) > 0 && p.Profile == "" {
		c.fail("run.plan.events", "events are fired into profile steps (plan.profile)")
	}
}

func int64s(vs []int) []int64 {
	out := make([]int64, len(vs))
	for i, v := range vs {
		out[i] = int64(v)
	}
	return out
}
