package analysis

import (
	"reflect"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/results"
)

// step is a closed-loop step of target t at concurrency c with ops/s q.
func step(t string, c, trial int, q float64) results.StepResult {
	return results.StepResult{Kind: results.KindStep, Target: t, Workload: "read", PoolSetting: "match", Concurrency: c, MaxPoolSize: c,
		Clients: 1, Trial: trial, Calls: int64(q), Ops: int64(q), OpsPerS: q, CallsPerS: q, DurationS: 1}
}

// saturating is a run of target t whose throughput stops growing at 8.
func saturating(t string) []results.StepResult {
	var out []results.StepResult
	for _, c := range []int{1, 2, 4, 8, 16, 32} {
		for trial := 1; trial <= 3; trial++ {
			out = append(out, step(t, c, trial, 1000*float64(min(c, 8))+float64(trial)))
		}
	}
	return out
}

func run(path string, steps ...results.StepResult) *results.Results {
	return &results.Results{Path: path, Header: results.RunHeader{Kind: results.KindRun, RunID: path,
		Targets: []results.TargetHeader{{Name: "a"}, {Name: "b"}}}, Steps: steps}
}

// Counts are the file's own numbers: client-bound steps by their label,
// operations with those finished after the window, failed ones of every
// kind, open-loop steps that fell behind, and a target whose shards were
// not sampled named once.
func TestCount(t *testing.T) {
	no := false
	a, b, c := step("a", 1, 1, 100), step("a", 2, 1, 200), step("b", 1, 1, 100)
	a.Bound, b.Bound = "client", "server"
	a.OpsAfterClose, b.Errors = 5, results.ErrorCounts{Timeout: 2, Network: 1, Server: 1}
	for _, s := range []*results.StepResult{&a, &b} {
		s.Server = &results.ServerTelemetry{ShardsSampled: &no, ShardsNotSampled: "listShards refused"}
	}
	open := step("a", 1, 1, 50)
	open.Mode, open.Open = results.ModeOpen, &results.OpenLoopStats{ClientBehind: true}
	got := count(run("r", a, b, c, open))
	want := Counts{Steps: 3, ClientBound: 1, Ops: 405, FailedOps: 4, OpenSteps: 1, Behind: 1,
		ShardsNotSampled: []ShardsNotSampled{{Target: "a", Why: "listShards refused"}}}
	if got.Steps != want.Steps || got.ClientBound != want.ClientBound || got.Ops != want.Ops || got.FailedOps != want.FailedOps ||
		got.OpenSteps != want.OpenSteps || got.Behind != want.Behind || !slices.Equal(got.ShardsNotSampled, want.ShardsNotSampled) {
		t.Errorf("Count = %+v, want %+v", got, want)
	}
	if s := got.FailedShare(); s != 4.0/405 {
		t.Errorf("failed share %g", s)
	}
}

// Each analyses every file on its own: its series are the files' own
// analyses, in order, where Of forms one series across both.
func TestEachAndOf(t *testing.T) {
	r1, r2 := run("one", saturating("a")...), run("two", saturating("a")...)
	rs := []*results.Results{r1, r2}
	each, of := Each(rs, knee.DefaultOptions()), Of(rs, knee.DefaultOptions())
	if len(of.Series) != 1 || of.PerFile != nil {
		t.Fatalf("Of: %d series, per file %v; want one series across files", len(of.Series), of.PerFile)
	}
	if len(each.Series) != 2 || len(each.PerFile) != 2 {
		t.Fatalf("Each: %d series, %d files", len(each.Series), len(each.PerFile))
	}
	for i, r := range rs {
		alone := Of([]*results.Results{r}, knee.DefaultOptions())
		if !reflect.DeepEqual(each.PerFile[i].Series[0].Knee, alone.Series[0].Knee) || !reflect.DeepEqual(each.Series[i], alone.Series[0]) {
			t.Errorf("file %d: %+v, alone %+v", i, each.PerFile[i].Series[0].Knee, alone.Series[0].Knee)
		}
	}
	if each.Counts.Steps != 2*len(r1.Steps) {
		t.Errorf("counts %+v", each.Counts)
	}
}

// A searched run is analysed as the search analysed it: with its pool
// search's SLO unless the caller gives one, its pool probes left to the
// search's conclusion (one knee series, not one per pool size), and that
// conclusion taken from the end record.
func TestSearchedRun(t *testing.T) {
	steps := saturating("a")
	for _, p := range []int{4, 6} {
		s := step("a", 8, 1, 7900)
		s.PoolSetting, s.MaxPoolSize = itoa(p), p
		s.Search = &results.SearchInfo{Mode: results.SearchPool, Reason: results.ReasonPool, Probe: 20}
		steps = append(steps, s)
	}
	r := run("s", steps...)
	r.Header.Plan.Search = &results.SearchPlan{Mode: results.SearchPool, Resolution: 1.41, Levels: []int{1, 2, 4, 8, 16, 32}, SLOP99Ms: 20}
	r.End = &results.EndRecord{Kind: results.KindEnd, Status: results.StatusComplete, Reason: "search: knee at concurrency 8 located in 18 steps; pool: …"}

	a := Of([]*results.Results{r}, knee.DefaultOptions())
	if len(a.Series) != 1 || a.Series[0].Pool != "match" {
		t.Errorf("series %d (first pool %q): the pool probes are not knee curves", len(a.Series), a.Series[0].Pool)
	}
	if a.Options.SLOP99 != 20*time.Millisecond {
		t.Errorf("options %+v: want the search's SLO", a.Options)
	}
	if len(a.Searches) != 1 || a.Searches[0].Conclusion != r.End.Reason || a.Searches[0].Mode != "pool" {
		t.Errorf("searches %+v", a.Searches)
	}
	o := knee.DefaultOptions()
	o.SLOP99 = 50 * time.Millisecond
	if got := Of([]*results.Results{r}, o).Options.SLOP99; got != o.SLOP99 {
		t.Errorf("the caller's SLO %s became %s", o.SLOP99, got)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
