package compare

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/internal/testkit/golden"
	"github.com/poolsweep/poolsweep/results"
)

// check compares got with testdata/name (internal/testkit/golden; -update
// rewrites it, and the fixtures it is made from).
func check(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name), got)
}

func rendered(t *testing.T, c *Comparison, f func(*bytes.Buffer, *Comparison) error) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := f(&b, c); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestGolden(t *testing.T) {
	base, cand := testdataFixtures(t)
	c, err := Match([]*results.Results{base}, []*results.Results{cand}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	check(t, "study.txt", rendered(t, c, func(b *bytes.Buffer, c *Comparison) error { return WriteText(b, c) }))
	check(t, "study.md", rendered(t, c, func(b *bytes.Buffer, c *Comparison) error { return WriteMarkdown(b, c) }))
	check(t, "study.json", rendered(t, c, func(b *bytes.Buffer, c *Comparison) error { return WriteJSON(b, c) }))

	// Two trials per side: deltas shown, nothing called significant.
	b2, c2 := studyPair(2)
	c, err = Match([]*results.Results{b2}, []*results.Results{c2}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	check(t, "unconfirmed.txt", rendered(t, c, func(b *bytes.Buffer, c *Comparison) error { return WriteText(b, c) }))
	for _, s := range c.Steps {
		for name, m := range s.Metrics {
			if m != nil && m.Significant {
				t.Errorf("2 trials: %s at C=%d called significant", name, s.Concurrency)
			}
		}
	}
}

// TestStudyFindings checks the golden scenario's substance, independently
// of formatting: the changes built into the fixture are found, and nothing
// else is.
func TestStudyFindings(t *testing.T) {
	for _, trials := range []int{3, 5} {
		b, cd := studyPair(trials)
		c, err := Match([]*results.Results{b}, []*results.Results{cd}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Steps) != 4 || len(c.Unmatched) != 1 {
			t.Fatalf("trials=%d: %d steps, %d unmatched", trials, len(c.Steps), len(c.Unmatched))
		}
		for _, s := range c.Steps {
			changed := map[string]bool{}
			for name, m := range s.Metrics {
				if m != nil && m.Significant {
					changed[name] = true
				}
			}
			var want []string
			switch s.Workload {
			case "mix 100:0:0":
				want = []string{ServerCPUPct}
			case "mix 0:50:50":
				want = []string{OpsPerS, ReadMeanUS, ReadP99US, WriteMeanUS, WriteP99US, serverReadLatencyUS, serverWriteLatencyUS}
			}
			for _, name := range metricNames {
				if changed[name] != contains(want, name) {
					t.Errorf("trials=%d %s C=%d: %s significant=%v", trials, s.Workload, s.Concurrency, name, changed[name])
				}
			}
			// 3 trials per side cannot reach p<0.05 by ranks: Welch decides.
			wantMethod := map[int]string{3: methodWelch, 5: methodMannWhitney}[trials]
			if m := s.Metrics[OpsPerS]; m.Method != wantMethod {
				t.Errorf("trials=%d: method %q, want %q", trials, m.Method, wantMethod)
			}
			if s.Workload == "mix 0:50:50" {
				m := s.Metrics[OpsPerS]
				if *m.CILowPct > -17 || *m.CIHighPct < -17 {
					t.Errorf("trials=%d C=%d: throughput interval [%.1f, %.1f] misses -17%%", trials, s.Concurrency, *m.CILowPct, *m.CIHighPct)
				}
			}
		}
		if len(c.Verdicts) != 2 || c.Verdicts[0].Class != classWriteOnly || c.Verdicts[1].Class != classMixed {
			t.Errorf("verdicts: %+v", c.Verdicts)
		}
	}
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

func TestJSONShape(t *testing.T) {
	base, cand := studyPair(5)
	c, err := Match([]*results.Results{base}, []*results.Results{cand}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Steps []struct {
			Concurrency int                                   `json:"concurrency"`
			Pool        string                                `json:"pool"`
			Clients     int                                   `json:"clients"`
			Workload    string                                `json:"workload"`
			Trials      map[string]int                        `json:"trials"`
			Metrics     map[string]map[string]json.RawMessage `json:"metrics"`
		} `json:"steps"`
		Unmatched []map[string]any `json:"unmatched"`
		Verdicts  []map[string]any `json:"verdicts"`
	}
	if err := json.Unmarshal(rendered(t, c, func(b *bytes.Buffer, c *Comparison) error { return WriteJSON(b, c) }), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Steps) != 4 || len(doc.Unmatched) != 1 || len(doc.Verdicts) != 2 {
		t.Fatalf("steps %d unmatched %d verdicts %d", len(doc.Steps), len(doc.Unmatched), len(doc.Verdicts))
	}
	for _, s := range doc.Steps {
		if s.Concurrency == 0 || s.Pool != "match" || s.Clients != 1 || s.Workload == "" || s.Trials["baseline"] != 5 || s.Trials["candidate"] != 5 {
			t.Errorf("step fields: %+v", s)
		}
		for _, name := range metricNames {
			m, ok := s.Metrics[name]
			if !ok {
				t.Errorf("metric %s missing (want null when not measured)", name)
				continue
			}
			// Write-only steps measure no read latency, and the fixture
			// gives them no server-side latency: null, not zero.
			if s.Workload == "mix 100:0:0" && (name == ReadMeanUS || name == ReadP99US || name == serverReadLatencyUS || name == serverWriteLatencyUS) {
				if m != nil {
					t.Errorf("%s: %s should be null", s.Workload, name)
				}
				continue
			}
			for _, f := range []string{"baseline", "candidate", "delta", "delta_pct", "ci_low_pct", "ci_high_pct", "significant"} {
				if _, ok := m[f]; !ok {
					t.Errorf("%s.%s missing", name, f)
				}
			}
		}
	}
}

func TestMatchUnmatchedReasons(t *testing.T) {
	p := profile{ops: 1000, readMS: 1, read: 100, serverCPU: -1, clientCPU: -1, noise: noiseA}
	for _, tc := range []struct {
		name string
		base func(*results.Results)
		cand func(*results.Results)
		want []string // reasons in order
	}{
		// A concurrency only the baseline ran.
		{"missing concurrency",
			func(r *results.Results) { p.add(r, "a", "read", []int{64, 128, 256}, 3) },
			func(r *results.Results) { p.add(r, "a", "read", []int{64, 128}, 3) },
			[]string{"candidate has no concurrency=256 (it has 64, 128)"}},
		// A concurrency only the candidate ran.
		{"extra candidate concurrency",
			func(r *results.Results) { p.add(r, "a", "read", []int{64}, 3) },
			func(r *results.Results) { p.add(r, "a", "read", []int{64, 512}, 3) },
			[]string{"baseline has no concurrency=512 (it has 64)"}},
		// One of two workloads missing on the candidate side.
		{"missing workload",
			func(r *results.Results) { p.add(r, "a", "read", []int{64}, 3); p.add(r, "a", "scan", []int{64}, 3) },
			func(r *results.Results) { p.add(r, "a", "read", []int{64}, 3); p.add(r, "a", "update", []int{64}, 3) },
			[]string{`candidate has no workload "scan"`, `baseline has no workload "update"`}},
		// Pool settings differ at the same concurrency.
		{"pool differs",
			func(r *results.Results) {
				p.add(r, "a", "read", []int{64, 128}, 3)
				for i := range r.Steps {
					if r.Steps[i].Concurrency == 128 {
						r.Steps[i].PoolSetting = "100"
					}
				}
			},
			func(r *results.Results) { p.add(r, "a", "read", []int{64, 128}, 3) },
			[]string{"candidate has no pool=100 at concurrency=128 (it has match)", "baseline has no pool=match at concurrency=128 (it has 100)"}},
		// Clients differ at the same concurrency and pool.
		{"clients differ",
			func(r *results.Results) { p.add(r, "a", "read", []int{64, 128}, 3) },
			func(r *results.Results) {
				p.add(r, "a", "read", []int{64, 128}, 3)
				for i := range r.Steps {
					if r.Steps[i].Concurrency == 128 {
						r.Steps[i].Clients = 3
					}
				}
			},
			[]string{"candidate has no clients=1 at concurrency=128 pool=match (it has 3)", "baseline has no clients=3 at concurrency=128 pool=match (it has 1)"}},
		// Several targets pair by name; the others are reported.
		{"targets by name",
			func(r *results.Results) { p.add(r, "a", "read", []int{64}, 3); p.add(r, "b", "read", []int{64}, 3) },
			func(r *results.Results) { p.add(r, "a", "read", []int{64}, 3); p.add(r, "c", "read", []int{64}, 3) },
			[]string{`candidate has no target "b"`, `baseline has no target "c"`}},
	} {
		b, c := fixture("b.jsonl", "b"), fixture("c.jsonl", "c")
		tc.base(b)
		tc.cand(c)
		cmp, err := Match([]*results.Results{b}, []*results.Results{c}, Options{})
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		var got []string
		for _, u := range cmp.Unmatched {
			got = append(got, u.Reason)
		}
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%s: reasons\n%s\nwant\n%s", tc.name, strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
		}
		if len(cmp.Steps) == 0 {
			t.Errorf("%s: nothing matched", tc.name)
		}
	}
}

func TestMatchTargets(t *testing.T) {
	p := profile{ops: 1000, readMS: 1, read: 100, serverCPU: -1, clientCPU: -1, noise: noiseA}
	q := p
	q.ops, q.noise = 800, noiseB

	// One target per file, different names: they pair, labelled a → b.
	b, c := fixture("b.jsonl", "b"), fixture("c.jsonl", "c")
	p.add(b, "old", "read", []int{64}, 4)
	q.add(c, "new", "read", []int{64}, 4)
	cmp, err := Match([]*results.Results{b}, []*results.Results{c}, Options{})
	if err != nil || len(cmp.Steps) != 1 || cmp.Steps[0].Target != "old → new" {
		t.Fatalf("single targets: %v %+v", err, cmp)
	}

	// One file with two targets, interleaved as --order interleaved writes
	// them: --baseline a --candidate b.
	one := fixture("ab.jsonl", "ab", "a", "b")
	for _, cc := range []int{64, 128} {
		for tr := 1; tr <= 4; tr++ {
			one.Steps = append(one.Steps, fixtureStep("a", "read", cc, tr, p), fixtureStep("b", "read", cc, tr, q))
		}
	}
	rs := []*results.Results{one}
	cmp, err = Match(rs, rs, Options{Baseline: "a", Candidate: "b"})
	if err != nil {
		t.Fatal(err)
	}
	if len(cmp.Steps) != 2 || len(cmp.Unmatched) != 0 || cmp.Steps[0].Target != "a → b" || !cmp.Steps[0].Metrics[OpsPerS].Significant {
		t.Errorf("--baseline/--candidate: %d steps, %d unmatched, first %+v", len(cmp.Steps), len(cmp.Unmatched), cmp.Steps[0])
	}
	if d := *cmp.Steps[0].Metrics[OpsPerS].DeltaPct; d > -15 || d < -25 {
		t.Errorf("a → b throughput delta %.1f%%, want about -20%%", d)
	}

	for _, tc := range []struct {
		name string
		o    Options
		want string
	}{
		// A name not in the file says how many are, never what they are
		// (the file's contents: TestErrorsQuoteNoTargets).
		{"unknown target", Options{Baseline: "a", Candidate: "z"}, `candidate target "z" is not in ab.jsonl, which holds 2 other target(s) (poolsweep analyze names them)`},
		// Half of the pair is a usage error.
		{"baseline only", Options{Baseline: "a"}, "--baseline and --candidate name two targets and go together"},
		// The same target against itself in the same file compares nothing.
		{"same target", Options{Baseline: "a", Candidate: "a"}, `both name "a"`},
		// Alpha outside (0, 1).
		{"bad alpha", Options{Alpha: 1.5}, "alpha 1.5 is not between 0 and 1"},
	} {
		_, err := Match(rs, rs, tc.o)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestNothingToCompare(t *testing.T) {
	p := profile{ops: 1000, readMS: 1, writeMS: 2, read: 100, serverCPU: -1, clientCPU: -1, noise: noiseA}
	w := p
	w.read, w.upd = 0, 100
	for _, tc := range []struct {
		name       string
		base, cand func(*results.Results)
		want       string
	}{
		// Files from different workloads: the error names both.
		{"different workloads",
			func(r *results.Results) { p.add(r, "a", "read", []int{64, 128}, 3) },
			func(r *results.Results) { w.add(r, "a", "update", []int{64, 128}, 3) },
			`nothing to compare between b.jsonl and c.jsonl: workload differs: baseline "read" vs candidate "update"`},
		// Same workload, disjoint concurrencies.
		{"disjoint concurrency",
			func(r *results.Results) { p.add(r, "a", "read", []int{64}, 3) },
			func(r *results.Results) { p.add(r, "a", "read", []int{512}, 3) },
			"nothing to compare between b.jsonl and c.jsonl: candidate has no concurrency=64 (it has 512)"},
		// A run that died before its first step.
		{"empty candidate",
			func(r *results.Results) { p.add(r, "a", "read", []int{64}, 3) },
			func(r *results.Results) {},
			"nothing to compare: candidate c.jsonl has no finished steps"},
		// Interrupted steps do not count as finished.
		{"only interrupted",
			func(r *results.Results) { p.add(r, "a", "read", []int{64}, 3) },
			func(r *results.Results) { p.add(r, "a", "read", []int{64}, 1); r.Steps[0].Interrupted = true },
			"nothing to compare: candidate c.jsonl has no finished steps"},
	} {
		b, c := fixture("b.jsonl", "b"), fixture("c.jsonl", "c")
		tc.base(b)
		tc.cand(c)
		_, err := Match([]*results.Results{b}, []*results.Results{c}, Options{})
		if !errors.Is(err, errNothingToCompare) || err.Error() != tc.want {
			t.Errorf("%s: error %q, want %q", tc.name, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error spans lines", tc.name)
		}
	}
}

// TestProfileStepsNotPaired: profile steps (timelines of load that
// changes) are left out of the pairing, with a note; the closed-loop
// steps beside them are compared as before.
func TestProfileStepsNotPaired(t *testing.T) {
	p := profile{ops: 1000, readMS: 1, writeMS: 2, read: 100, serverCPU: -1, clientCPU: -1, noise: noiseA}
	b, c := fixture("b.jsonl", "b"), fixture("c.jsonl", "c")
	p.add(b, "a", "read", []int{64}, 3)
	p.add(c, "a", "read", []int{64}, 3)
	for _, r := range []*results.Results{b, c} {
		st := r.Steps[0]
		st.Mode, st.Concurrency, st.Trial = results.ModeProfile, 0, 1
		r.Steps = append(r.Steps, st)
	}
	cmp, err := Match([]*results.Results{b}, []*results.Results{c}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(cmp.Steps) != 1 || cmp.Steps[0].Concurrency != 64 || len(cmp.Unmatched) != 0 {
		t.Errorf("steps %d (first at C=%d), unmatched %+v; want the closed-loop step only", len(cmp.Steps), cmp.Steps[0].Concurrency, cmp.Unmatched)
	}
	if !strings.Contains(strings.Join(cmp.Notes, "\n"), "1 profile step(s) left out") {
		t.Errorf("notes %q say nothing of the profile steps", cmp.Notes)
	}
}

func TestInterruptedStepsNoted(t *testing.T) {
	b, c := studyPair(4)
	c.Steps[0].Interrupted = true
	cmp, err := Match([]*results.Results{b}, []*results.Results{c}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(cmp.Notes) != 1 || cmp.Notes[0] != "cand.jsonl: 1 interrupted step(s) ignored" || cmp.Steps[0].CandidateTrials != 3 {
		t.Errorf("notes %v, trials %d", cmp.Notes, cmp.Steps[0].CandidateTrials)
	}
}

func TestDeltaBars(t *testing.T) {
	b, c := studyPair(5)
	cmp, err := Match([]*results.Results{b}, []*results.Results{c}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	bars := cmp.DeltaBars()
	found := false
	for _, bar := range bars {
		if bar.Workload == "mix 0:50:50" && bar.Concurrency == 256 && bar.Metric == OpsPerS {
			found = true
			if !bar.Significant || bar.CILowPct > bar.DeltaPct || bar.CIHighPct < bar.DeltaPct || bar.Step != "rs mix 0:50:50 C=256 pool=match clients=1" {
				t.Errorf("throughput bar: %+v", bar)
			}
		}
		if bar.Workload == "mix 100:0:0" && (bar.Metric == ReadMeanUS) {
			t.Errorf("a bar for an unmeasured metric: %+v", bar)
		}
	}
	if !found {
		t.Error("no throughput bar for the mixed mix at C=256")
	}
}

// TestErrorsQuoteNoTargets: an unknown --baseline or --candidate, a
// target name or an axis value the file lacks, gets an error that names
// the file and what was asked, never the names and values the file holds
// (a 5,000-character target name among them).
func TestErrorsQuoteNoTargets(t *testing.T) {
	p := profile{ops: 1000, readMS: 1, read: 100, serverCPU: -1, clientCPU: -1, noise: noiseA}
	long := "held-in-the-file-" + strings.Repeat("t", 5000)
	one := fixture("ab.jsonl", "ab", "heldA", long)
	for tr := 1; tr <= 2; tr++ {
		one.Steps = append(one.Steps, fixtureStep("heldA", "read", 64, tr, p), fixtureStep(long, "read", 64, tr, p))
	}
	rs := []*results.Results{one}
	for _, o := range []Options{{Baseline: "heldA", Candidate: "z"}, {Baseline: "z", Candidate: "heldA"}, {Baseline: "w1", Candidate: "majority"}} {
		_, err := Match(rs, rs, o)
		if err == nil {
			t.Fatalf("%+v: no error", o)
		}
		if msg := err.Error(); strings.Contains(msg, "held-in-the-file") || len(msg) > 300 {
			t.Errorf("%+v: the error quotes the file's targets (%d bytes): %.200s", o, len(msg), msg)
		}
	}
}
