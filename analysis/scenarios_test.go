package analysis

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/analysis/bound"
	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/results"
)

// burstPhases is a burst after a quiet spell: idle 10 s, 500 calls/s for
// 30 s.
var burstPhases = []results.ProfilePhase{
	{Kind: "idle", StartS: 0, EndS: 10},
	{Kind: "rate", StartS: 10, EndS: 40, From: 500, To: 500},
}

// twoBursts is burst, idle 30 s, burst.
var twoBursts = []results.ProfilePhase{
	{Kind: "rate", StartS: 0, EndS: 20, From: 500, To: 500},
	{Kind: "idle", StartS: 20, EndS: 50},
	{Kind: "rate", StartS: 50, EndS: 70, From: 500, To: 500},
}

// pstep is what a synthetic profile step is made of: its setting and the
// figures its summary holds.
type pstep struct {
	target     string
	pool       int
	opts       results.PoolOptions
	fill       float64
	worst      float64 // ms
	steady     float64 // steady p99 ms
	perS       float64 // steady calls/s
	created    int64
	inUse      int
	netErrors  int64
	phases     []results.ProfilePhase
	noSteadyAt bool // the summary has no steady part (no fill, no time to steady)
}

// profileStep builds a profile step record from p, trial n; jitter
// spreads the trials a little so that tests have a spread.
func profileStep(p pstep, n int) results.StepResult {
	j := 1 + 0.02*float64(n%3-1)
	f := func(v float64) *float64 { v *= j; return &v }
	if p.target == "" {
		p.target = "sim"
	}
	if p.phases == nil {
		p.phases = burstPhases
	}
	o := p.opts
	sum := results.ProfileSummary{
		WorstP99MS: f(p.worst), FirstSecondP99MS: f(p.worst),
		ConnectionsCreated: p.created, ConnectionsClosed: p.created,
	}
	if !p.noSteadyAt {
		sum.TimeToFillS, sum.TimeToSteadyS = f(p.fill), f(p.fill+0.5)
		sum.SteadyP99MS = &results.Interval{Value: p.steady, Low: p.steady * 0.95, High: p.steady * 1.05}
		sum.SteadyPerS = &results.Interval{Value: p.perS, Low: p.perS * 0.99, High: p.perS * 1.01}
	}
	return results.StepResult{
		Kind: results.KindStep, Mode: results.ModeProfile, Target: p.target, Workload: "api",
		PoolSetting: "100", MaxPoolSize: p.pool, Clients: 1, Trial: n, PoolOptions: &o,
		Errors: results.ErrorCounts{Network: p.netErrors},
		Profile: &results.ProfileStats{
			Spec: "idle:10s,rate:500:30s", PeakRate: 500, Phases: p.phases,
			Timeline: results.Timeline{IntervalS: 0.1, Intervals: []results.TimelineInterval{{InUse: p.inUse, Open: p.inUse}}},
			Summary:  sum,
		},
	}
}

// profileRun is a results file with each setting's trials interleaved,
// as the sweep runs them.
func profileRun(trials int, ps ...pstep) *results.Results {
	r := &results.Results{Path: "profile.jsonl"}
	for n := 1; n <= trials; n++ {
		for _, p := range ps {
			r.Steps = append(r.Steps, profileStep(p, n))
		}
	}
	return r
}

func opts(minPool, maxConn int) results.PoolOptions {
	return results.PoolOptions{MinPoolSize: minPool, MaxConnecting: maxConn, Cold: true}
}

// The settings of the proof: the drivers' defaults spike on a cold
// burst; maxConnecting 16 or minPoolSize 40 remove it.
var (
	coldDefault = pstep{pool: 100, opts: opts(0, 2), fill: 4, worst: 400, steady: 5, perS: 500, created: 40, inUse: 40}
	wideConnect = pstep{pool: 100, opts: opts(0, 16), fill: 0.6, worst: 9, steady: 5, perS: 500, created: 40, inUse: 40}
	heldPool    = pstep{pool: 100, opts: opts(40, 2), fill: 0, worst: 6, steady: 5, perS: 500, created: 40, inUse: 40}
)

func TestScenarios(t *testing.T) {
	a := Of([]*results.Results{profileRun(5, coldDefault, wideConnect, heldPool)}, knee.Options{})
	if len(a.Series) != 0 || len(a.Open) != 0 || len(a.Missing) != 0 {
		t.Fatalf("profile steps became series %d, open %d, missing %d; want none", len(a.Series), len(a.Open), len(a.Missing))
	}
	if a.Empty() {
		t.Fatal("an analysis of profile steps reads as empty")
	}
	if a.Counts.ProfileSteps != 15 || a.Counts.Steps != 0 {
		t.Errorf("counts = %+v, want 15 profile steps and no closed-loop ones", a.Counts)
	}
	if len(a.Scenarios) != 3 {
		t.Fatalf("scenarios = %d, want 3", len(a.Scenarios))
	}
	base, wide, held := a.Scenarios[0], a.Scenarios[1], a.Scenarios[2]
	if !base.Baseline || wide.Baseline || held.Baseline {
		t.Errorf("baseline marks %v %v %v, want the drivers' defaults (the first)", base.Baseline, wide.Baseline, held.Baseline)
	}
	if base.Trials != 5 || base.WorstP99MS.N != 5 {
		t.Errorf("trials %d, n %d, want 5", base.Trials, base.WorstP99MS.N)
	}
	w := base.WorstP99MS
	if w.Value == nil || math.Abs(*w.Value-401.6) > 1e-9 || w.Low == nil || !(*w.Low < 400 && *w.High > 403) {
		t.Errorf("worst p99 = %+v, want the mean 401.6 inside its interval", w)
	}
	for _, sc := range []Scenario{wide, held} {
		got := map[string]Verdict{}
		for _, v := range sc.Versus {
			got[v.Metric] = v
		}
		if v := got["worst_p99_ms"]; v.Verdict != verdictBetter || v.Method != "mann-whitney" || v.PValue == nil || *v.PValue >= 0.05 {
			t.Errorf("%s worst p99 verdict = %+v, want better by mann-whitney", sc.Label(), v)
		}
		if v := got["connections_created"]; v.Verdict != verdictNoChange {
			t.Errorf("%s created verdict = %+v, want no difference", sc.Label(), v)
		}
	}
}

func TestScenariosOneTrial(t *testing.T) {
	a := Of([]*results.Results{profileRun(1, coldDefault, wideConnect)}, knee.Options{})
	sc := a.Scenarios[1]
	if sc.WorstP99MS.Low != nil || sc.WorstP99MS.High != nil {
		t.Errorf("1 trial has an interval: %+v", sc.WorstP99MS)
	}
	if !strings.Contains(strings.Join(a.Scenarios[0].Notes, ";"), "1 trial: no interval") {
		t.Errorf("notes %q say nothing of the missing interval", a.Scenarios[0].Notes)
	}
	for _, v := range sc.Versus {
		if v.Verdict != verdictUntested || !strings.Contains(v.Note, "at least 3 per side") {
			t.Errorf("verdict %+v, want untested with the trials needed", v)
		}
	}
}

// TestProfileStepsLeftOutOfCurves: a file holding closed-loop steps and
// profile steps gives a knee series of the closed-loop steps only; a
// profile run owes no grid steps; the bound judge leaves profile steps
// alone.
func TestProfileStepsLeftOutOfCurves(t *testing.T) {
	r := profileRun(1, coldDefault)
	r.Header.Plan = results.PlanInfo{Concurrency: []int{8, 16}, Pool: "match", Trials: 1}
	if m := MissingSteps([]*results.Results{r}); len(m) != 0 {
		t.Errorf("a profile run owes grid steps: %+v", m)
	}
	for _, c := range []int{8, 16} {
		r.Steps = append(r.Steps, results.StepResult{Kind: results.KindStep, Target: "sim", Workload: "api", PoolSetting: "match",
			Concurrency: c, MaxPoolSize: c, Clients: 1, Trial: 1, Ops: 1000, CallsPerS: float64(100 * c), OpsPerS: float64(100 * c), Calls: 1000,
			Latency: results.LatencySummary{Mean: 1, P50: 1, P99: 2}})
	}
	for _, s := range knee.FromResults([]*results.Results{r}) {
		for _, p := range s.Points {
			if p.Concurrency == 0 {
				t.Errorf("a profile step became a knee point: %+v", p)
			}
		}
		if len(s.Points) != 2 {
			t.Errorf("series %s has %d points, want the 2 closed-loop steps", s.Target, len(s.Points))
		}
	}
	st := profileStep(coldDefault, 1)
	bound.NewJudge(bound.JudgeConfig{}).Judge(&st)
	if st.Bound != "" || st.LittlesLaw != nil {
		t.Errorf("the bound judge judged a profile step: %q %v", st.Bound, st.LittlesLaw)
	}
}

func rec(t *testing.T, slo time.Duration, rs ...*results.Results) PoolOptionsRec {
	t.Helper()
	a := Of(rs, knee.Options{SLOP99: slo})
	if len(a.Pool) != 1 {
		t.Fatalf("recommendations = %d, want 1", len(a.Pool))
	}
	return a.Pool[0].PoolOptions
}

// failing is p whose trials each had network errors.
func failing(p pstep) pstep {
	p.netErrors = 50
	return p
}

// idleOpts is a cold setting with minPoolSize min and maxIdleTimeMS ms.
func idleOpts(min int, ms int64) results.PoolOptions {
	o := opts(min, 2)
	o.MaxIdleMS = ms
	return o
}

func TestRecommendMinPool(t *testing.T) {
	for _, tc := range []struct {
		name     string
		slo      time.Duration
		settings []pstep
		want     *int64
		why      string
	}{
		// minPoolSize 40 holds the pool: the spike goes (within 2× steady p99).
		{"removes the spike", 0, []pstep{coldDefault, heldPool}, i64(40), "smallest minPoolSize tried"},
		// With an SLO of 500 ms even the defaults pass: 0 is the answer.
		{"within the SLO already", 500 * time.Millisecond, []pstep{coldDefault, heldPool}, i64(0), "the SLO of 500 ms"},
		// No setting removes it, and the deployment carried 300 of 500
		// calls/s: a rate above capacity, which minPoolSize cannot remove.
		{"above capacity", 0, []pstep{
			{pool: 100, opts: opts(0, 2), fill: 4, worst: 900, steady: 300, perS: 300, inUse: 100},
			{pool: 100, opts: opts(100, 2), fill: 0, worst: 800, steady: 300, perS: 300, inUse: 100},
		}, nil, "a rate above its capacity"},
		// No setting removes it though the rate was carried: try more.
		{"none tried removes it", 0, []pstep{coldDefault, {pool: 100, opts: opts(5, 2), fill: 3, worst: 300, steady: 5, perS: 500, inUse: 40}}, nil, "try a larger --min-pool (the load held up to 40"},
		// The held pool keeps its p99 low only because its calls failed:
		// a setting whose operations fail is within no bound.
		{"low p99 of failed calls", 0, []pstep{coldDefault, failing(heldPool)}, nil, "no setting tried keeps"},
		// The bursts come after an idle spell (30 s) longer than the
		// settings' maxIdleTimeMS (1 s): the driver closes the idle
		// connections, the minimum's too, so the answer is maxIdleTimeMS,
		// not a larger minimum.
		{"idle spells outlast maxIdleTimeMS", 0, []pstep{
			{pool: 100, opts: idleOpts(0, 1000), fill: 0.6, worst: 430, steady: 25, perS: 500, inUse: 24, phases: twoBursts},
			{pool: 100, opts: idleOpts(10, 1000), fill: 0.5, worst: 366, steady: 25, perS: 500, inUse: 24, phases: twoBursts},
		}, nil, "longer than maxIdleTimeMS (1000 ms)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := rec(t, tc.slo, profileRun(3, tc.settings...)).MinPoolSize
			if (got.Value == nil) != (tc.want == nil) || got.Value != nil && *got.Value != *tc.want {
				t.Errorf("min_pool_size = %v, want %v (%s)", deref(got.Value), deref(tc.want), got.Why)
			}
			if !strings.Contains(got.Why, tc.why) {
				t.Errorf("why = %q, want it to hold %q", got.Why, tc.why)
			}
		})
	}
}

func TestRecommendOthers(t *testing.T) {
	storming := pstep{pool: 100, opts: opts(0, 64), fill: 0.2, worst: 8, steady: 5, perS: 500, created: 40, inUse: 40, netErrors: 3}
	r := profileRun(3, coldDefault, wideConnect, storming)
	got := rec(t, 0, r)
	// 64 had connection errors; 16 is the largest healthy one.
	if got.MaxConnecting.Value == nil || *got.MaxConnecting.Value != 16 {
		t.Errorf("max_connecting = %v (%s), want 16", deref(got.MaxConnecting.Value), got.MaxConnecting.Why)
	}
	// No knee in the results: maxPoolSize from the profile's in-use peak.
	if got.MaxPoolSize.Value == nil || *got.MaxPoolSize.Value != 40 || got.MaxPoolSize.From != "profile" {
		t.Errorf("max_pool_size = %+v, want 40 from the profile", got.MaxPoolSize)
	}
	// No idle spell between bursts: keep the default.
	if got.MaxIdleMS.Value != nil || !got.MaxIdleMS.KeepDefault {
		t.Errorf("max_idle_ms = %+v, want keep the default", got.MaxIdleMS)
	}
	// The recommended setting (0, 16) saw about 9 ms; twice the top of
	// its interval, up to 10 ms.
	if got.TimeoutMS.Value == nil || *got.TimeoutMS.Value != 20 || !strings.Contains(got.TimeoutMS.Why, "2×") {
		t.Errorf("timeout_ms = %+v, want 20", got.TimeoutMS)
	}

	// Storms that show the acceptor saturating at 8: maxConnecting capped.
	rate := func(v float64) *float64 { return &v }
	r.Storms = []results.StormResult{
		{Target: "sim", MaxConnecting: 2, AcceptPerS: rate(200)},
		{Target: "sim", MaxConnecting: 8, AcceptPerS: rate(790)},
		{Target: "sim", MaxConnecting: 32, AcceptPerS: rate(800)},
	}
	got = rec(t, 0, r)
	if got.MaxConnecting.Value == nil || *got.MaxConnecting.Value != 8 || got.MaxConnecting.From != "storm" {
		t.Errorf("max_connecting with storms = %+v, want 8 from the storm", got.MaxConnecting)
	}

	// Burst, idle 30 s, burst: maxIdleTimeMS above the spell.
	gap := coldDefault
	gap.phases = twoBursts
	got = rec(t, 0, profileRun(3, gap))
	if got.MaxIdleMS.Value == nil || *got.MaxIdleMS.Value != 45000 {
		t.Errorf("max_idle_ms = %+v, want 45000 (30 s + 15 s)", got.MaxIdleMS)
	}
}

func deref(v *int64) any {
	if v == nil {
		return nil
	}
	return *v
}

// TestFigureIntervalNotBelowZero: a figure of spread trials near zero
// (time to steady 0.1 s and 3 s) keeps its interval's low end at 0, since
// no time, latency or count is negative.
func TestFigureIntervalNotBelowZero(t *testing.T) {
	f := Figure{vals: []float64{0.1, 3, 0.2}}
	f.finish()
	if f.Low == nil || *f.Low != 0 || f.High == nil || *f.High <= 3 {
		t.Fatalf("interval [%v, %v], want [0, above 3]", f.Low, f.High)
	}
}

// A setting's label names the driver's options that tell it apart, in
// the drivers' words, and a setting with retries off is not the drivers'
// defaults.
func TestScenarioLabelDriverOptions(t *testing.T) {
	sc := Scenario{MaxPoolSize: 100, PoolOptions: results.PoolOptions{MaxConnecting: 2, RetryReads: "off", RetryWrites: "off",
		ServerSelectionTimeoutMS: 2000, HeartbeatMS: 500, Cold: true}, sstVaries: true}
	if got := sc.Label(); got != "maxPoolSize=100 minPoolSize=0 maxConnecting=2 retryReads=false retryWrites=false serverSelectionTimeoutMS=2000 heartbeatFrequencyMS=500 cold" {
		t.Errorf("label %q", got)
	}
	// Where every setting of the target waits as long for a server (the
	// --op-timeout each step records without the axis), the label leaves
	// the wait out.
	sc.sstVaries = false
	if got := sc.Label(); strings.Contains(got, "serverSelection") {
		t.Errorf("label %q names a wait every setting shares", got)
	}
	if driverDefaults(sc.PoolOptions) {
		t.Error("retries off taken for the drivers' defaults")
	}
	on := results.PoolOptions{MaxConnecting: 2, RetryReads: "on", RetryWrites: "on", HeartbeatMS: 10000}
	if !driverDefaults(on) || !driverDefaults(results.PoolOptions{MaxConnecting: 2}) {
		t.Error("the drivers' defaults, recorded or from a file from before, not taken for them")
	}
}
