package plot

import (
	"bytes"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/results"
)

// steadyResults is one step whose warm-up ran at half speed for its first
// 1.2 s, with MSER-5's truncation there, and a 4-s window from 3 s.
func steadyResults() []*results.Results {
	settled := true
	st := &results.StepSteady{WarmupMode: results.WindowAuto, WarmupEnd: "settled", Settled: &settled, TruncationS: new(1.2),
		WindowMode: results.WindowAuto, WindowEnd: "precision", BatchS: 0.1, BatchSize: 2, Batches: 20, Lag1: new(0.1), Independent: true,
		MeanPerS: new(1000.0), HalfWidthPerS: new(15.0), HalfWidthPct: new(1.5), Confidence: 0.95}
	warm := make([]float64, 30)
	for i := range warm {
		warm[i] = 1000
		if i < 12 {
			warm[i] = 500
		}
	}
	win := make([]float64, 40)
	for i := range win {
		win[i] = 990 + float64(i%3)*10
	}
	st.SetSeries(warm, win, 3)
	step := results.StepResult{Kind: "step", Target: "sim", PoolSetting: "match", Concurrency: 16, MaxPoolSize: 16, Trial: 1, Steady: st}
	other := step
	other.Concurrency, other.Steady = 8, nil
	return []*results.Results{{Steps: []results.StepResult{other, step}}}
}

// TestSteadyFigure: the figure draws the step's own record, and in the
// SVG the truncation line stands where the record says relative to the
// window's start and end lines (so whatever the axis layout, the
// picture and the record agree).
func TestSteadyFigure(t *testing.T) {
	rs := steadyResults()
	figs, _, err := Figures(rs, analysis.Of(rs, knee.Options{}), Options{Steady: &SteadyStep{Concurrency: 16}})
	if err != nil || len(figs) != 1 || figs[0].Name != figSteady {
		t.Fatalf("figures %v, err %v; want the steady figure alone", figs, err)
	}
	f := figs[0]
	marks := map[string]float64{}
	for _, m := range f.Data.Marks {
		marks[m.Kind] = m.X
	}
	if marks[markTruncation] != 1.2 || marks[markWindowStart] != 3 || marks[markWindowEnd] != 7 {
		t.Errorf("marks %v; want truncation 1.2, window 3 to 7", marks)
	}
	if n := len(f.Data.Series); n != 3 {
		t.Fatalf("%d series, want the interval, warm-up and window", n)
	}
	if p := f.Data.Series[0].Points[0]; p.Low != 985 || p.High != 1015 {
		t.Errorf("band %v..%v, want 985..1015", p.Low, p.High)
	}
	var svg bytes.Buffer
	if err := f.WriteSVG(&svg); err != nil {
		t.Fatal(err)
	}
	trunc := verticalLines(svg.String(), "#CC0000")
	window := verticalLines(svg.String(), "#707070")
	if len(trunc) != 1 || len(window) != 2 {
		t.Fatalf("vertical lines: %v red, %v grey; want 1 and 2", trunc, window)
	}
	got := (trunc[0] - window[0]) / (window[1] - window[0])
	if want := (1.2 - 3.0) / (7.0 - 3.0); math.Abs(got-want) > 0.01 {
		t.Errorf("truncation line at %.3f of the window's width from its start, want %.3f", got, want)
	}
}

var svgPath = regexp.MustCompile(`<path d="M([0-9.]+),([0-9.]+)L([0-9.]+),([0-9.]+)" style="[^"]*stroke:(#[0-9A-F]{6})`)

// verticalLines is the x of every two-point vertical path of colour clr in
// svg, sorted.
func verticalLines(svg, clr string) []float64 {
	var xs []float64
	for _, m := range svgPath.FindAllStringSubmatch(svg, -1) {
		if !strings.EqualFold(m[5], clr) || m[1] != m[3] || m[2] == m[4] {
			continue
		}
		x, _ := strconv.ParseFloat(m[1], 64)
		xs = append(xs, x)
	}
	sort.Float64s(xs)
	return xs
}

// TestSteadyStepChoice: --steady's values, and the steps it cannot draw.
func TestSteadyStepChoice(t *testing.T) {
	for in, want := range map[string]SteadyStep{"16": {Concurrency: 16}, " 16,2 ": {Concurrency: 16, Trial: 2}, "sharded:8": {Concurrency: 8, Target: "sharded"}, "a:b:4,1": {Concurrency: 4, Trial: 1, Target: "a:b"},
		"1000/s": {Rate: 1000}, "sim:2000/s,3": {Rate: 2000, Trial: 3, Target: "sim"}} {
		if got, err := ParseSteadyStep(in); err != nil || got != want {
			t.Errorf("%q: %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "x", "16,", "16,0", ":16", "16,2,3", "99999999999", "0/s", "/s", "16/m"} {
		if _, err := ParseSteadyStep(in); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
	rs := steadyResults()
	// An open-loop step is chosen by its offered rate, never by its
	// concurrency (its max-in-flight), and drawn with its own title.
	open := rs[0].Steps[1]
	open.Mode, open.Rate, open.Concurrency, open.PoolSetting = results.ModeOpen, 1000, 16, "8"
	rs[0].Steps = append(rs[0].Steps, open)
	if f, err := steadyFigure(rs, SteadyStep{Rate: 1000}); err != nil || !strings.Contains(f.Title, "offered 1000/s") {
		t.Errorf("open step: %v, %v", f.Title, err)
	}
	if _, err := steadyFigure(rs, SteadyStep{Rate: 500}); err == nil || !strings.Contains(err.Error(), "no step at rate 500/s") {
		t.Errorf("open step not there: %v", err)
	}
	for sel, want := range map[SteadyStep]string{{Concurrency: 8}: "kept no batch series", {Concurrency: 32}: "no step at concurrency 32", {Concurrency: 16, Trial: 2}: "no step at concurrency 16 trial 2"} {
		if _, err := steadyFigure(rs, sel); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%+v: %v, want %q", sel, err, want)
		}
	}
}
