package compare

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/results"
)

// withSteady gives every step of r a batch-means interval of ±hwPct
// (95%, 20 batch means), as an auto window that ended by precision
// records it.
func withSteady(r *results.Results, hwPct float64) {
	for i := range r.Steps {
		s := &r.Steps[i]
		mean := s.CallsPerS
		hw := mean * hwPct / 100
		s.Steady = &results.StepSteady{WarmupMode: results.WindowAuto, WindowMode: results.WindowAuto, WindowEnd: "precision",
			BatchS: 0.1, BatchSize: 1, Batches: 20, Independent: true, Confidence: 0.95,
			MeanPerS: &mean, HalfWidthPerS: &hw, HalfWidthPct: &hwPct}
	}
}

// oneTrialPair is one level measured once on each side: the baseline at
// 1000 ops/s, the candidate at 1000·ratio, each with a ±hwPct window
// interval. runs names the sides' run IDs (equal: one run).
func oneTrialPair(ratio, hwPct float64, baseRun, candRun string) (b, c *results.Results) {
	b = fixture("a.jsonl", baseRun, "a")
	c = fixture("b.jsonl", candRun, "a")
	profile{ops: 1000, readMS: 2, read: 100, serverCPU: -1, clientCPU: -1, noise: []float64{1}}.add(b, "a", "read", []int{8}, 1)
	profile{ops: 1000 * ratio, readMS: 2, read: 100, serverCPU: -1, clientCPU: -1, noise: []float64{1}}.add(c, "a", "read", []int{8}, 1)
	withSteady(b, hwPct)
	withSteady(c, hwPct)
	return b, c
}

func opsMetric(t *testing.T, c *Comparison) *metricComparison {
	t.Helper()
	if len(c.Steps) != 1 || c.Steps[0].Metrics[OpsPerS] == nil {
		t.Fatalf("want one step with ops/s, got %d steps", len(c.Steps))
	}
	return c.Steps[0].Metrics[OpsPerS]
}

func TestOneTrialBatchMeans(t *testing.T) {
	for _, tc := range []struct {
		name         string
		ratio, hwPct float64
		sameRun      bool
		minEffect    float64
		want         status
		needsTrials  bool
	}{
		// The case: 17% apart, ±2% windows, one run: concluded.
		{"17% within one run", 0.83, 2, true, 0, statusChanged, false},
		// Across two runs the floor (3%) is small against 17%: still concluded.
		{"17% across runs", 0.83, 2, false, 0, statusChanged, false},
		// 4% with ±1% windows: the windows alone decide it within a run …
		{"4% within one run", 0.96, 1, true, 0, statusChanged, false},
		// … but across runs it is inside the between-run floor: sent to trials.
		{"4% across runs", 0.96, 1, false, 0, statusNoChange, true},
		// Nothing changed: no change, in both settings.
		{"equal within one run", 1, 2, true, 0, statusNoChange, false},
		{"equal across runs", 1, 2, false, 0, statusNoChange, false},
		// Wide windows (±20%) hide a 17% drop even within a run.
		{"17% inside wide windows", 0.83, 20, true, 0, statusNoChange, false},
		// --min-effect still applies.
		{"4% below a 5% minimum effect", 0.96, 1, true, 5, statusNoChange, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			candRun := "run-2"
			if tc.sameRun {
				candRun = "run-1"
			}
			b, c := oneTrialPair(tc.ratio, tc.hwPct, "run-1", candRun)
			cmp, err := Match([]*results.Results{b}, []*results.Results{c}, Options{MinEffectPct: tc.minEffect})
			if err != nil {
				t.Fatal(err)
			}
			m := opsMetric(t, cmp)
			if m.Status != tc.want || m.NeedsTrials != tc.needsTrials || m.Method != MethodBatchWelch {
				t.Fatalf("status %s needs_trials %v method %q (p=%v, note %q); want %s, %v, %s",
					m.Status, m.NeedsTrials, m.Method, *m.PValue, m.Note, tc.want, tc.needsTrials, MethodBatchWelch)
			}
			if cmp.WithinRun != tc.sameRun {
				t.Errorf("WithinRun %v, want %v", cmp.WithinRun, tc.sameRun)
			}
			// The interval holds the true change on its scale.
			truth := (tc.ratio - 1) * 100
			if *m.CILowPct > truth || *m.CIHighPct < truth {
				t.Errorf("interval [%.2f%%, %.2f%%] misses the truth %.2f%%", *m.CILowPct, *m.CIHighPct, truth)
			}
			// Latency has no interval of its own in one window: untested.
			if r := cmp.Steps[0].Metrics[ReadMeanUS]; r == nil || r.Status != StatusUnconfirmed {
				t.Errorf("read latency: %+v, want unconfirmed", r)
			}
			if tc.needsTrials != (cmp.Trials != nil) {
				t.Errorf("trials advice %+v, want one only when a step needs trials", cmp.Trials)
			}
		})
	}
}

// A step without an interval of its own (a fixed window too short for ten
// batch means, or an old file) leaves one trial a side unconfirmed, and
// the advice says which sweep would decide it.
func TestOneTrialWithoutIntervalUnconfirmed(t *testing.T) {
	b, c := oneTrialPair(0.83, 2, "run-1", "run-1")
	c.Steps[0].Steady.Batches = 5 // too few batch means: not Precise
	cmp, err := Match([]*results.Results{b}, []*results.Results{c}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m := opsMetric(t, cmp); m.Status != StatusUnconfirmed || m.Method != "" {
		t.Fatalf("status %s method %q, want unconfirmed and untested", m.Status, m.Method)
	}
	if cmp.Trials == nil || !strings.Contains(cmp.Trials.Flags, "--trials 3") || !strings.Contains(cmp.Trials.Flags, "--duration 10s") {
		t.Fatalf("trials advice %+v, want --duration 10s --trials 3", cmp.Trials)
	}
}

// A step whose load host was starved (labelled client-bound) is no
// measurement of the server: one trial a side is then left unconfirmed,
// saying why, however narrow its window's interval.
func TestOneTrialStarvedHostUnconfirmed(t *testing.T) {
	b, c := oneTrialPair(0.83, 1, "run-1", "run-1")
	c.Steps[0].Bound, c.Steps[0].BoundReason = "client", "load host CPU contended"
	cmp, err := Match([]*results.Results{b}, []*results.Results{c}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m := opsMetric(t, cmp); m.Status != StatusUnconfirmed || !strings.Contains(m.Note, "candidate's load host was starved (load host CPU contended)") {
		t.Fatalf("status %s note %q; want unconfirmed, naming the starved host", m.Status, m.Note)
	}
}

// The regression gate follows the same test: a 17% drop measured once a
// side fails a 5% gate; the same spec never does.
func TestOneTrialRegressionGate(t *testing.T) {
	for _, tc := range []struct {
		ratio float64
		want  int
	}{{0.83, 1}, {1, 0}, {1.01, 0}} {
		b, c := oneTrialPair(tc.ratio, 2, "run-1", "run-2")
		cmp, err := Match([]*results.Results{b}, []*results.Results{c}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := len(cmp.Regressions(5)); got != tc.want {
			t.Errorf("ratio %v: %d regressions, want %d", tc.ratio, got, tc.want)
		}
	}
}

// The test's false-positive rate is its alpha: under the null hypothesis
// (the same truth on both sides, each window's mean drawn with its own
// batch-means error), about 5% of comparisons are called significant.
// Seeded: the same draws every run.
func TestBatchWelchCalibrated(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n, batches = 4000, 20
	draw := func(sd float64) (mean, variance float64) {
		// batches means around 0 with this SD, as a window would record.
		var s, ss float64
		xs := make([]float64, batches)
		for i := range xs {
			xs[i] = sd * rng.NormFloat64()
			s += xs[i]
		}
		mean = s / batches
		for _, x := range xs {
			ss += (x - mean) * (x - mean)
		}
		return mean, ss / (batches - 1) / batches
	}
	for _, tc := range []struct {
		name    string
		floor   float64 // the test's floor
		runSD   float64 // the true between-run SD
		maxRate float64
		minRate float64
	}{
		// Within one run: the rate is alpha.
		{"within one run", 0, 0, 0.065, 0.035},
		// Across runs with a floor that is the truth: alpha again.
		{"floor equal to the run noise", 0.03, 0.03, 0.065, 0.035},
		// A floor above the truth is conservative.
		{"floor above the run noise", 0.03, 0.01, 0.03, 0},
	} {
		sig := 0
		for range n {
			mb, vb := draw(0.05)
			mc, vc := draw(0.05)
			mb += tc.runSD * rng.NormFloat64()
			mc += tc.runSD * rng.NormFloat64()
			r := batchWelch(batchSide{logMean: mb, variance: vb, df: batches - 1},
				batchSide{logMean: mc, variance: vc, df: batches - 1}, tc.floor, 0.05)
			if r.p < 0.05 {
				sig++
			}
		}
		rate := float64(sig) / n
		t.Logf("%s: %.1f%% significant", tc.name, rate*100)
		if rate > tc.maxRate || rate < tc.minRate {
			t.Errorf("%s: %.1f%% called significant, want %.1f%% to %.1f%%", tc.name, rate*100, tc.minRate*100, tc.maxRate*100)
		}
	}
}

func TestTTestEdges(t *testing.T) {
	// No variance at all: a constant difference, p 0 unless equal.
	if r := tTest(0.1, 0, 19, 0, 19, 0, 0.05); r.p != 0 || r.lo != 0.1 || r.hi != 0.1 {
		t.Errorf("constant: %+v", r)
	}
	if r := tTest(0, 0, 19, 0, 19, 0, 0.05); r.p != 1 {
		t.Errorf("constant equal: %+v", r)
	}
	// Only the known floor: a normal test.
	r := tTest(0.0588, 0, 19, 0, 19, 0.03*0.03, 0.05)
	if math.Abs(r.p-0.05) > 0.001 {
		t.Errorf("z=1.96 under a known variance: p %v, want 0.05", r.p)
	}
}

// A side of several trials whose trials disagree more than their windows
// say takes the trials' spread: drift between trials is not hidden.
func TestBatchSideTrialsSpread(t *testing.T) {
	r := fixture("a.jsonl", "run-1", "a")
	profile{ops: 1000, readMS: 2, read: 100, serverCPU: -1, clientCPU: -1, noise: []float64{1, 1.1}}.add(r, "a", "read", []int{8}, 2)
	withSteady(r, 1)
	var steps []*results.StepResult
	for i := range r.Steps {
		steps = append(steps, &r.Steps[i])
	}
	b, _, ok := batchSideOf(steps)
	if !ok {
		t.Fatal("no batch side")
	}
	within := 2 * math.Pow(0.01/2.093, 2) / 4 // two ±1% windows (t19 = 2.093)
	if !(b.variance > 10*within) || b.df != 1 {
		t.Errorf("variance %g df %v; want the trials' spread (≫ %g) with 1 degree of freedom", b.variance, b.df, within)
	}
}

// The floor follows the server kind: embedded FerretDB's runs differ far
// more than a simulator's (docs/analysis.md), so the same 12% change
// across two runs is concluded against simulators and left to trials
// against FerretDB; --run-noise overrides both.
func TestRunNoiseByServerKind(t *testing.T) {
	for _, tc := range []struct {
		kind      string
		override  *float64
		wantFloor float64
		want      status
	}{
		{"simulator", nil, 3, statusChanged},
		{"mongodb", nil, 3, statusChanged},
		{"ferretdb", nil, 12, statusNoChange},
		{"ferretdb", ptr(1), 1, statusChanged},
	} {
		b, c := oneTrialPair(0.88, 1, "run-1", "run-2")
		for _, r := range []*results.Results{b, c} {
			r.Header.Targets[0].ServerKind = tc.kind
		}
		cmp, err := Match([]*results.Results{b}, []*results.Results{c}, Options{RunNoisePct: tc.override})
		if err != nil {
			t.Fatal(err)
		}
		if m := opsMetric(t, cmp); cmp.RunNoisePct != tc.wantFloor || m.Status != tc.want {
			t.Errorf("%s (override %v): floor %g, status %s; want %g and %s", tc.kind, tc.override, cmp.RunNoisePct, m.Status, tc.wantFloor, tc.want)
		}
	}
}
