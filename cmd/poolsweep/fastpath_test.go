package main

import (
	"encoding/json"
	"github.com/poolsweep/poolsweep/internal/errext"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestPlanChoice: a range without a step searches, a list or a range with
// a step keeps a grid, and the choice says why; the defaults (a search for
// a deployment, a grid where a search cannot run, for the embedded server
// and for simulators); a grid with auto windows takes its trials as a
// maximum, with fixed windows every trial.
func TestPlanChoice(t *testing.T) {
	t.Parallel()
	uri := []string{"--uri", "mongodb://h:27017/"}
	tests := []struct {
		name         string
		args         []string
		search       string // "" for a grid
		levels       []int  // a grid's levels, or a search's span's ends
		why          string
		trialsAtMost bool
	}{
		{"bare range", append(uri, "--concurrency", "1..256"), "knee", []int{1, 256}, "a range without a step was given (--concurrency 1..256): searching for the knee; give a list or MIN..MAXxSTEP for a grid", false},
		{"list", append(uri, "--concurrency", "1,4,16"), "", []int{1, 4, 16}, "a list was given (--concurrency 1,4,16)", false},
		{"stepped range", append(uri, "--concurrency", "1..64x2"), "", []int{1, 2, 4, 8, 16, 32, 64}, "a range with a step was given (--concurrency 1..64x2)", false},
		{"linear range", append(uri, "--concurrency", "100..300+100"), "", []int{100, 200, 300}, "a range with a step", false},
		{"pool range", append(uri, "--pool", "4..64"), "pool", []int{1, 1024}, "a range without a step was given (--pool 4..64): searching for the knee, then the pool size", false},
		{"deployment default", uri, "knee", []int{1, 1024}, "the default for a deployment is a search over 1..1024", false},
		{"deployment, interleaved", []string{"--target", "a=mongodb://a/", "--target", "b=mongodb://b/", "--order", "interleaved"}, "", []int{64, 128, 256, 500, 1000}, "interleaved targets take a grid", false},
		{"deployment, pool list", append(uri, "--pool", "16,64"), "", []int{64, 128, 256, 500, 1000}, "a list of pool sizes makes a grid", false},
		{"deployment, spawn", append(uri, "--spawn", "2"), "", []int{64, 128, 256, 500, 1000}, "several agents measure a grid", false},
		{"deployment, open loop", append(uri, "--rate", "1000,2000"), "", []int{100000}, "the open loop (--rate)", false},
		{"explicit search", append(uri, "--search", "knee", "--concurrency", "8..64x2"), "knee", []int{8, 64}, "--search knee was given", false},
		{"embedded default", nil, "", []int{1, 2, 4, 8, 16, 32}, "the embedded server's default is a grid", false},
		{"simulator default", []string{"--target", "s=sim:slots=8"}, "", []int{1, 2, 4, 8, 16, 32, 64, 128}, "simulator targets default to a grid", false},
		{"auto grid, 3 trials", append(uri, "--concurrency", "1..64x2", "--trials", "3"), "", []int{1, 2, 4, 8, 16, 32, 64}, "a range with a step", true},
		{"fixed grid, 3 trials", append(uri, "--concurrency", "1..64x2", "--trials", "3", "--duration", "5s"), "", []int{1, 2, 4, 8, 16, 32, 64}, "a range with a step", false},
		{"auto grid, interleaved", []string{"--target", "a=mongodb://a/", "--target", "b=mongodb://b/", "--order", "interleaved", "--concurrency", "1,2", "--trials", "3"}, "", []int{1, 2}, "a list was given", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := parseSweep(tt.args)
			if err != nil {
				t.Fatal(err)
			}
			p := cfg.plan
			switch {
			case tt.search == "" && (p.Search != nil || cfg.choice.search != ""):
				t.Errorf("a search %+v, want a grid", p.Search)
			case tt.search != "" && (p.Search == nil || p.Search.Mode != tt.search):
				t.Errorf("search %+v, want %s", p.Search, tt.search)
			case tt.search == "" && tt.name != "deployment, open loop" && !slices.Equal(p.Concurrency, tt.levels):
				t.Errorf("grid %v, want %v", p.Concurrency, tt.levels)
			case tt.search != "" && (p.Search.Levels[0] != tt.levels[0] || p.Search.Levels[len(p.Search.Levels)-1] != tt.levels[1]):
				t.Errorf("search levels %v, want %d..%d", p.Search.Levels, tt.levels[0], tt.levels[1])
			}
			if !strings.Contains(cfg.choice.why, tt.why) {
				t.Errorf("why %q, want it to say %q", cfg.choice.why, tt.why)
			}
			if p.TrialsAtMost() != tt.trialsAtMost {
				t.Errorf("trials at most %v, want %v (auto %+v, trials %d)", p.TrialsAtMost(), tt.trialsAtMost, p.Auto, p.Trials)
			}
		})
	}
}

// TestPlanChoiceRefusals: what cannot be searched is refused with exit 2
// and one line that names the flag and says how to get a grid.
func TestPlanChoiceRefusals(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"--concurrency", "1..256", "--order", "interleaved"}, []string{"--order interleaved:", "MIN..MAXxSTEP for a grid"}},
		{[]string{"--concurrency", "1..256", "--pool", "16,64"}, []string{"--pool 16,64:", "MIN..MAXxSTEP for a grid"}},
		{[]string{"--concurrency", "1..256", "--spawn", "2"}, []string{"--spawn:", "MIN..MAXxSTEP for a grid"}},
		{[]string{"--concurrency", "1..256", "--agents", "2", "--agent-index", "0", "--run-id", "r"}, []string{"--agents:", "MIN..MAXxSTEP for a grid"}},
		{[]string{"--concurrency", "1..64x2", "--pool", "4..64"}, []string{"--pool 4..64:", "MIN..MAXxSTEP for a grid"}},
		{[]string{"--pool", "4..64", "--order", "interleaved"}, []string{"--order interleaved:", "--pool as a list or MIN..MAXxSTEP"}},
		{[]string{"--concurrency", "1..256", "--rate", "1000"}, []string{"--rate and --concurrency"}},
		{[]string{"--concurrency", "8..8"}, []string{"--concurrency:", "at least two levels"}},
	}
	for _, tt := range tests {
		args := append([]string{"sweep", "--uri", "mongodb://h:27017/"}, tt.args...)
		code, stdout, stderr := runCLI(t, args...)
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		ok := code == errext.ExitUsage && len(lines) == 1 && stdout == ""
		for _, w := range tt.want {
			ok = ok && strings.Contains(stderr, w)
		}
		if !ok {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want exit 2 and one line saying %q", tt.args, code, stderr, stdout, tt.want)
		}
	}
}

// planEventOf is the first progress event of a --progress json run.
func planEventOf(t *testing.T, stderr string) map[string]any {
	t.Helper()
	for _, line := range strings.Split(stderr, "\n") {
		var ev map[string]any
		if json.Unmarshal([]byte(line), &ev) != nil || ev["event"] == "message" {
			continue
		}
		if ev["event"] != "plan" {
			t.Fatalf("the first event is %v, want plan\n%s", ev["event"], stderr)
		}
		return ev
	}
	t.Fatalf("no plan event\n%s", stderr)
	return nil
}

// TestRangeSearchesListGrids: against a simulator, a range without a step
// runs a search (its header has plan.search, its first progress event
// says search and why), a list runs a grid (the first text line says
// grid and why), and fixed windows with --trials 3 measure every level 3
// times.
func TestRangeSearchesListGrids(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("sweeps the simulator")
	}
	target := "s=mongodb://" + sharedSimAddr(t, "slots=4,service=2ms")
	short := []string{"--warmup", "100ms", "--duration", "300ms", "--op-timeout", "2s", "--records", "200", "--no-plot"}

	out := filepath.Join(t.TempDir(), "search")
	code, stdout, stderr := runCLI(t, append([]string{"sweep", "--target", target, "--concurrency", "1..16", "--trials", "1", "--out", out, "--progress", "json"}, short...)...)
	if code != 0 {
		t.Fatalf("search: exit %d\n%s\n%s", code, stdout, stderr)
	}
	ev := planEventOf(t, stderr)
	if ev["mode"] != "search" || ev["search"] != "knee" || !strings.Contains(ev["why"].(string), "a range without a step was given (--concurrency 1..16)") ||
		ev["steps"].(float64) < 1 || ev["steps_max"].(float64) < ev["steps"].(float64) || ev["estimate_s"].(float64) <= 0 {
		t.Errorf("plan event %v", ev)
	}
	if _, auto := ev["estimate_max_s"]; auto {
		t.Errorf("fixed windows, but the plan event gives a longest estimate: %v", ev)
	}
	res := readRes(t, filepath.Join(out, "results.jsonl"))
	if res.Header.Plan.Search == nil || res.Header.Plan.Search.Mode != "knee" || len(res.Steps) == 0 || res.Steps[0].Search == nil {
		t.Errorf("search run: header plan.search %+v, %d steps", res.Header.Plan.Search, len(res.Steps))
	}

	out = filepath.Join(t.TempDir(), "grid")
	code, stdout, stderr = runCLI(t, append([]string{"sweep", "--target", target, "--concurrency", "1,4", "--trials", "3", "--out", out}, short...)...)
	if code != 0 {
		t.Fatalf("grid: exit %d\n%s\n%s", code, stdout, stderr)
	}
	var first string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "plan: ") {
			first = l
			break
		}
	}
	if !strings.HasPrefix(first, "plan: grid, because a list was given (--concurrency 1,4)") || !strings.Contains(first, "6 steps") || !strings.Contains(first, "(fixed lengths)") {
		t.Errorf("first plan line %q", first)
	}
	res = readRes(t, filepath.Join(out, "results.jsonl"))
	n := map[int]int{}
	for _, st := range res.Steps {
		n[st.Concurrency]++
		if st.ExtraTrial != nil || st.Search != nil {
			t.Errorf("a fixed grid's step C=%d trial %d says extra %+v search %+v", st.Concurrency, st.Trial, st.ExtraTrial, st.Search)
		}
	}
	if res.Header.Plan.Search != nil || res.Header.Plan.TrialsAtMost || n[1] != 3 || n[4] != 3 {
		t.Errorf("fixed grid: search %+v, trials at most %v, trials per level %v; want 3 at every level", res.Header.Plan.Search, res.Header.Plan.TrialsAtMost, n)
	}
}

// TestAutoGridTrialsWhereTheyPay: a grid with auto windows and --trials 3
// measures every level once and gives further trials only to the level
// below the knee and the knee (the top two levels while there is no knee
// yet), while their intervals overlap. The
// simulator (10 slots of 100 ms with jitter: about 100 calls/s, so 100-ms
// batches hold a few calls and intervals are wide) puts 3 and 30 far from
// the knee (30% and 100% of capacity: clearly apart from 9 and 10); 9
// (90%) and 10 (the knee) overlap. Every extra trial records the two
// intervals it saw, which overlap (the reader validates them), and the
// run ends only when the run's own analysis wants no more.
func TestAutoGridTrialsWhereTheyPay(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("sweeps the simulator")
	}
	target := "s=mongodb://" + sharedSimAddr(t, "slots=10,service=100ms,jitter=0.9")
	out := filepath.Join(t.TempDir(), "auto")
	began := time.Now()
	args := []string{"sweep", "--target", target, "--concurrency", "3,9,10,30", "--trials", "3",
		"--warmup", "200ms", "--duration", "auto", "--min-duration", "1s", "--max-duration", "1500ms", "--min-calls", "0",
		"--op-timeout", "5s", "--records", "200", "--no-plot"}
	code, stdout, stderr := runCLI(t, append(args, "--out", out)...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	// Resumed once it has ended, the grid and its extra trials have
	// nothing left to do.
	if code, _, stderr := runCLI(t, append(args, "--resume", out)...); code != 0 || !strings.Contains(stderr, "already complete") {
		t.Errorf("resume of the finished run: exit %d\n%s", code, stderr)
	}
	res := readRes(t, filepath.Join(out, "results.jsonl"))
	if !res.Header.Plan.TrialsAtMost || res.Header.Plan.Trials != 3 {
		t.Fatalf("header plan: trials %d, at most %v", res.Header.Plan.Trials, res.Header.Plan.TrialsAtMost)
	}
	n, paired := map[int]int{}, map[int]bool{}
	for i, st := range res.Steps {
		n[st.Concurrency]++
		switch e := st.ExtraTrial; {
		case i < 4 && (st.Trial != 1 || e != nil):
			t.Errorf("step %d: C=%d trial %d extra %+v; the first pass measures every level once", i+1, st.Concurrency, st.Trial, e)
		case i >= 4 && e == nil:
			t.Errorf("step %d: C=%d trial %d without its reason", i+1, st.Concurrency, st.Trial)
		case i >= 4:
			// The pair that decides the knee the analysis had then: the
			// knee and the level below it, or, with no knee yet (a busy
			// host can flatten the first pass), the top two levels.
			pair := []int{10, 30}
			if e.Knee != nil {
				k := slices.Index([]int{3, 9, 10, 30}, *e.Knee)
				if k < 1 {
					t.Errorf("step %d: an extra trial at knee %d, which has no level below it", i+1, *e.Knee)
					continue
				}
				pair = []int{[]int{3, 9, 10, 30}[k-1], *e.Knee}
			}
			paired[pair[0]], paired[pair[1]] = true, true
			if !slices.Contains(pair, st.Concurrency) || !slices.Contains(pair, e.Neighbour) || st.Concurrency == e.Neighbour {
				t.Errorf("step %d: an extra trial of %d beside %d, outside the pair %v that decides the knee then (%s)", i+1, st.Concurrency, e.Neighbour, pair, e.Why)
			}
		}
	}
	// A level takes more than one trial only as one of a deciding pair,
	// and at most 3.
	for _, c := range []int{3, 9, 10, 30} {
		if n[c] > 3 || (n[c] > 1 && !paired[c]) {
			t.Errorf("trials per level %v: %d took %d, outside any deciding pair or more than 3", n, c, n[c])
		}
	}
	// The run's own analysis: a knee at 10 of low confidence, not limited
	// by the load host, whose pair still overlaps below 3 trials, means
	// the grid stopped before the trials paid.
	code, js, stderr := runCLI(t, "analyze", filepath.Join(out, "results.jsonl"), "--format", "json")
	var rep struct {
		Series []struct {
			Knee   kneeJSON
			Levels []struct {
				Concurrency, Trials int
				QPSLow              float64 `json:"qps_low"`
				QPSHigh             float64 `json:"qps_high"`
			}
		}
	}
	if code != 0 || json.Unmarshal([]byte(js), &rep) != nil || len(rep.Series) != 1 {
		t.Fatalf("analyze: %d %s", code, stderr)
	}
	k, ls := rep.Series[0].Knee, rep.Series[0].Levels
	if k.Found && k.Concurrency == 10 && k.Confidence == "low" && len(k.LoadHostLimited) == 0 && len(ls) == 4 {
		a, b := ls[1], ls[2] // 9 and 10
		if a.QPSHigh >= b.QPSLow && b.QPSHigh >= a.QPSLow && (a.Trials < 3 || b.Trials < 3) {
			t.Errorf("the grid ended with 9 [%.0f, %.0f] × %d and 10 [%.0f, %.0f] × %d overlapping at a knee of low confidence",
				a.QPSLow, a.QPSHigh, a.Trials, b.QPSLow, b.QPSHigh, b.Trials)
		}
	}
	t.Logf("trials per level %v, knee %+v, %d steps in %s", n, k, len(res.Steps), time.Since(began).Round(time.Second))
}
