package analysis

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/poolsweep/poolsweep/internal/stats"
	"github.com/poolsweep/poolsweep/internal/stats/twosample"
	"github.com/poolsweep/poolsweep/results"
)

// Scenario is one pool setting of a profile sweep (sweep --profile): the
// steps of one target, series, maxPoolSize and pool options, over their
// trials, each summary figure with its interval, and the setting compared
// with its target's baseline setting.
type Scenario struct {
	Target string `json:"target"`
	// Series is the steps' series label (the workload, with the pool
	// options' values when they were swept).
	Series      string              `json:"series"`
	MaxPoolSize int                 `json:"max_pool_size"`
	PoolOptions results.PoolOptions `json:"pool_options"`
	Profile     string              `json:"profile"`
	Trials      int                 `json:"trials"`
	// Baseline marks the setting the others are compared with: the
	// drivers' defaults where one was run (minPoolSize 0, maxConnecting 2,
	// no idle limit, no timeout), else the target's first setting.
	Baseline bool `json:"baseline,omitempty"`

	TimeToFillS      Figure `json:"time_to_fill_s"`
	WorstP99MS       Figure `json:"worst_p99_ms"`
	FirstSecondP99MS Figure `json:"first_second_p99_ms"`
	TimeToSteadyS    Figure `json:"time_to_steady_s"`
	SteadyPerS       Figure `json:"steady_per_s"`
	SteadyP99MS      Figure `json:"steady_p99_ms"`
	Created          Figure `json:"connections_created"`
	Closed           Figure `json:"connections_closed"`
	PoolClears       Figure `json:"pool_clears"`
	// Errors is the operations that failed in a trial (every kind,
	// timeouts included): a setting whose calls fail fast can look
	// better on latency, and this says it did not.
	Errors Figure `json:"errors"`
	// InUsePeak is the most connections in use at an interval's end, over
	// every trial: what the load held at the profile's peak.
	InUsePeak int `json:"in_use_peak"`
	// OfferedPerS is the rate of the profile's last constant phase (the
	// one the steady state is taken from), 0 when it has none.
	OfferedPerS float64 `json:"offered_per_s"`
	// ConnErrors are the network errors over the trials (failed
	// connections and sockets).
	ConnErrors int64 `json:"connection_errors"`
	// Versus is the setting against the baseline, one verdict per figure
	// compared; absent for the baseline.
	Versus []Verdict `json:"versus_baseline,omitempty"`
	Notes  []string  `json:"notes,omitempty"`

	// phases are the profile's phases (of its first trial), for the idle
	// spells between bursts.
	phases []results.ProfilePhase
	// sstVaries says the target's settings differ in their wait for a
	// server: only then does the label name it (every step records the
	// wait in effect, which without the axis is --op-timeout for all).
	sstVaries bool
}

// Figure is a summary figure over a setting's trials: the mean, and the
// Student t 95 % interval of the mean across trials (Low and High nil
// with fewer than two trials). N counts the trials that gave the figure;
// a trial without it (nil in its summary) is left out.
type Figure struct {
	Value *float64 `json:"value"`
	Low   *float64 `json:"low"`
	High  *float64 `json:"high"`
	N     int      `json:"n"`
	vals  []float64
}

// Verdict is one figure of a setting against the baseline setting.
type Verdict struct {
	Metric string `json:"metric"`
	// Method is the test (internal/stats/twosample: mann-whitney or welch-t, on
	// log values when both sides are positive); empty when not tested.
	Method string   `json:"method,omitempty"`
	PValue *float64 `json:"p_value,omitempty"`
	Alpha  float64  `json:"alpha"`
	// DeltaPct is the setting's mean against the baseline's, in percent.
	DeltaPct *float64 `json:"delta_pct,omitempty"`
	// Verdict is better, worse, no difference (tested, not significant) or
	// untested (too few trials: Note says how many are needed). Lower is
	// better for every metric compared.
	Verdict string `json:"verdict"`
	Note    string `json:"note,omitempty"`
}

// Verdicts.
const (
	verdictBetter   = "better"
	verdictWorse    = "worse"
	verdictNoChange = "no difference"
	verdictUntested = "untested"
)

// ScenarioAlpha is the significance level of the settings' comparison:
// compare's default.
const ScenarioAlpha = 0.05

// comparedMetrics are the figures each setting is compared on with the
// baseline; lower is better for each.
var comparedMetrics = []string{"worst_p99_ms", "time_to_fill_s", "time_to_steady_s", "connections_created", "errors"}

// settingKey is what makes a profile step's setting: its target, series,
// maxPoolSize and pool options (the scenarios' and the events' groups).
type settingKey struct {
	target, series string
	pool           int
	opts           results.PoolOptions
}

// setting is sc's setting.
func (sc *Scenario) setting() settingKey {
	return settingKey{sc.Target, sc.Series, sc.MaxPoolSize, sc.PoolOptions}
}

// settingOf is st's setting.
func settingOf(st *results.StepResult) settingKey {
	var o results.PoolOptions
	if st.PoolOptions != nil {
		o = *st.PoolOptions
	}
	return settingKey{st.Target, st.Workload, st.MaxPoolSize, o}
}

// measuredProfileSteps are rs's profile steps that measured something, in
// file and step order.
func measuredProfileSteps(rs []*results.Results) []*results.StepResult {
	var out []*results.StepResult
	for _, r := range rs {
		if r == nil {
			continue
		}
		for i := range r.Steps {
			if st := &r.Steps[i]; IsProfile(st) && st.Profile != nil && st.Measured() {
				out = append(out, st)
			}
		}
	}
	return out
}

// IsProfile says st is a profile step (sweep --profile): a timeline of
// load that changes, which no knee, open-loop or bound analysis reads.
func IsProfile(st *results.StepResult) bool { return st.Mode == results.ModeProfile }

// Scenarios groups rs's measured profile steps into settings, in the
// order they first appear, and compares each with its target's baseline.
func Scenarios(rs []*results.Results) []Scenario {
	var order []settingKey
	by := map[settingKey]*Scenario{}
	for _, st := range measuredProfileSteps(rs) {
		k := settingOf(st)
		sc, ok := by[k]
		if !ok {
			sc = &Scenario{Target: k.target, Series: k.series, MaxPoolSize: k.pool, PoolOptions: k.opts, Profile: st.Profile.Spec}
			by[k] = sc
			order = append(order, k)
		}
		sc.add(st)
	}
	out := make([]Scenario, 0, len(order))
	for _, k := range order {
		sc := by[k]
		sc.finish()
		out = append(out, *sc)
	}
	sst := map[string]map[int64]bool{}
	for _, sc := range out {
		if sst[sc.Target] == nil {
			sst[sc.Target] = map[int64]bool{}
		}
		sst[sc.Target][sc.PoolOptions.ServerSelectionTimeoutMS] = true
	}
	for i := range out {
		out[i].sstVaries = len(sst[out[i].Target]) > 1
	}
	markBaselines(out)
	for i := range out {
		if out[i].Baseline {
			continue
		}
		for j := range out {
			if out[j].Baseline && out[j].Target == out[i].Target {
				out[i].Versus = versus(&out[j], &out[i])
			}
		}
	}
	return out
}

// add takes one trial of the setting.
func (sc *Scenario) add(st *results.StepResult) {
	s := st.Profile.Summary
	sc.Trials++
	sc.TimeToFillS.add(s.TimeToFillS)
	sc.WorstP99MS.add(s.WorstP99MS)
	sc.FirstSecondP99MS.add(s.FirstSecondP99MS)
	sc.TimeToSteadyS.add(s.TimeToSteadyS)
	if s.SteadyPerS != nil {
		sc.SteadyPerS.add(&s.SteadyPerS.Value)
	}
	if s.SteadyP99MS != nil {
		sc.SteadyP99MS.add(&s.SteadyP99MS.Value)
	}
	sc.Created.add(ptr(float64(s.ConnectionsCreated)))
	sc.Closed.add(ptr(float64(s.ConnectionsClosed)))
	sc.PoolClears.add(ptr(float64(s.PoolClears)))
	sc.Errors.add(ptr(float64(st.Errors.Total())))
	for _, iv := range st.Profile.Timeline.Intervals {
		sc.InUsePeak = max(sc.InUsePeak, iv.InUse)
	}
	for _, ph := range st.Profile.Phases {
		if ph.Kind != "sine" && ph.Kind != "trace" && ph.From == ph.To && ph.From > 0 {
			sc.OfferedPerS = ph.From
		}
	}
	sc.ConnErrors += st.Errors.Network
	if sc.phases == nil {
		sc.phases = st.Profile.Phases
	}
	for _, n := range s.Notes {
		if !slices.Contains(sc.Notes, n) {
			sc.Notes = append(sc.Notes, n)
		}
	}
}

func (f *Figure) add(v *float64) {
	if v != nil && !math.IsNaN(*v) && !math.IsInf(*v, 0) {
		f.vals = append(f.vals, *v)
	}
}

// finish computes every figure's mean and interval.
func (sc *Scenario) finish() {
	for _, f := range sc.figures() {
		f.finish()
	}
	if sc.Trials == 1 {
		sc.Notes = append(sc.Notes, "1 trial: no interval; run --trials 3 or more for intervals and a comparison")
	}
}

func (sc *Scenario) figures() []*Figure {
	return []*Figure{&sc.TimeToFillS, &sc.WorstP99MS, &sc.FirstSecondP99MS, &sc.TimeToSteadyS, &sc.SteadyPerS, &sc.SteadyP99MS,
		&sc.Created, &sc.Closed, &sc.PoolClears, &sc.Errors}
}

// finish is the mean of the trials with its t interval.
func (f *Figure) finish() {
	f.N = len(f.vals)
	if f.N == 0 {
		return
	}
	m := stats.Mean(f.vals)
	f.Value = ptr(m)
	if f.N < 2 {
		return
	}
	sd := math.Sqrt(stats.Variance(f.vals))
	q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(f.N - 1)}.Quantile(1 - (1-stats.DefaultConfidence)/2)
	hw := q * sd / math.Sqrt(float64(f.N))
	// Every figure of a scenario is a time, a latency, a rate or a
	// count: none is below 0, so neither is its interval's low end (a
	// t interval over few, spread trials would reach below it).
	f.Low, f.High = ptr(max(m-hw, 0)), ptr(m+hw)
}

// Get is the figure's mean, and whether it has one.
func (f Figure) Get() (float64, bool) {
	if f.Value == nil {
		return 0, false
	}
	return *f.Value, true
}

// driverDefaults says o is every driver's default pool: no minimum, two
// connections set up at once, no idle limit, no timeout; and, where the
// step recorded them, retries on and the 10-s heartbeat.
func driverDefaults(o results.PoolOptions) bool {
	return o.MinPoolSize == 0 && o.MaxConnecting == 2 && o.MaxIdleMS == 0 && o.TimeoutMS == 0 &&
		o.RetryReads != "off" && o.RetryWrites != "off" && (o.HeartbeatMS == 0 || o.HeartbeatMS == driverHeartbeatMS)
}

// driverHeartbeatMS is the drivers' default heartbeatFrequencyMS.
const driverHeartbeatMS = 10000

// markBaselines marks each target's baseline setting: the drivers'
// defaults (at maxPoolSize 100, the drivers' default, where that was
// run), else the target's first setting.
func markBaselines(scs []Scenario) {
	done := map[string]bool{}
	for pass := range 3 {
		for i := range scs {
			sc := &scs[i]
			if done[sc.Target] {
				continue
			}
			ok := pass == 2 || driverDefaults(sc.PoolOptions) && (pass == 1 || sc.MaxPoolSize == 100)
			if ok {
				sc.Baseline, done[sc.Target] = true, true
			}
		}
	}
}

// metricFigure is the figure a compared metric names.
func (sc *Scenario) metricFigure(name string) *Figure {
	switch name {
	case "worst_p99_ms":
		return &sc.WorstP99MS
	case "time_to_fill_s":
		return &sc.TimeToFillS
	case "time_to_steady_s":
		return &sc.TimeToSteadyS
	case "connections_created":
		return &sc.Created
	case "errors":
		return &sc.Errors
	}
	return nil
}

// versus compares sc with the baseline b on comparedMetrics.
func versus(b, sc *Scenario) []Verdict {
	var out []Verdict
	for _, name := range comparedMetrics {
		out = append(out, compareTrials(name, b.metricFigure(name).vals, sc.metricFigure(name).vals))
	}
	return out
}

// compareTrials is the verdict on metric name of a setting's trials y
// against the baseline's x, concluded as compare concludes (twosample):
// at least MinTrials trials a side, log values where both sides are
// positive, significant when p < alpha and the interval of the shift is
// clear of zero. Lower is better.
func compareTrials(name string, x, y []float64) Verdict {
	v := Verdict{Metric: name, Alpha: ScenarioAlpha, Verdict: verdictUntested}
	mx, my := stats.Mean(x), stats.Mean(y)
	if len(x) > 0 && len(y) > 0 && mx != 0 {
		v.DeltaPct = ptr((my - mx) / math.Abs(mx) * 100)
	}
	switch {
	case len(x) < twosample.MinTrials || len(y) < twosample.MinTrials:
		v.Note = fmt.Sprintf("%d+%d trials: at least %d per side are needed to test a difference", len(x), len(y), twosample.MinTrials)
	default:
		tx, ty := x, y
		if twosample.LogScale(x, y) {
			tx, ty = twosample.Logs(x), twosample.Logs(y)
		}
		r := twosample.Test(tx, ty, ScenarioAlpha)
		v.Method, v.PValue = r.Method, ptr(r.P)
		switch {
		case !r.Significant(ScenarioAlpha):
			v.Verdict = verdictNoChange
		case r.Lo > 0:
			v.Verdict = verdictWorse
		default:
			v.Verdict = verdictBetter
		}
	}
	return v
}

// Label names the setting in the pool option words the drivers share.
func (sc *Scenario) Label() string {
	o := sc.PoolOptions
	parts := []string{fmt.Sprintf("maxPoolSize=%d", sc.MaxPoolSize), fmt.Sprintf("minPoolSize=%d", o.MinPoolSize),
		fmt.Sprintf("maxConnecting=%d", o.MaxConnecting)}
	if o.MaxIdleMS > 0 {
		parts = append(parts, fmt.Sprintf("maxIdleTimeMS=%d", o.MaxIdleMS))
	}
	if o.TimeoutMS > 0 {
		parts = append(parts, fmt.Sprintf("timeoutMS=%d", o.TimeoutMS))
	}
	// The driver's options where they tell settings apart: retries when
	// off (the drivers' default is on), the wait for a server where the
	// target's settings differ in it, the heartbeat when not the drivers' 10 s.
	if o.RetryReads == "off" {
		parts = append(parts, "retryReads=false")
	}
	if o.RetryWrites == "off" {
		parts = append(parts, "retryWrites=false")
	}
	if o.ServerSelectionTimeoutMS > 0 && sc.sstVaries {
		parts = append(parts, fmt.Sprintf("serverSelectionTimeoutMS=%d", o.ServerSelectionTimeoutMS))
	}
	if o.HeartbeatMS > 0 && o.HeartbeatMS != driverHeartbeatMS {
		parts = append(parts, fmt.Sprintf("heartbeatFrequencyMS=%d", o.HeartbeatMS))
	}
	if o.Cold {
		parts = append(parts, "cold")
	}
	return strings.Join(parts, " ")
}

func ptr(v float64) *float64 { return &v }
