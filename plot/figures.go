package plot

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/internal/runinfo"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/results"
)

// ErrNoSteps is returned when the results hold no measured step to draw.
var ErrNoSteps = errors.New("no measured steps to plot")

// Options choose what Figures draws.
type Options struct {
	// Figures names the figures to draw, from AllFigures; empty draws
	// every one that applies. A figure named here that does not apply
	// gets a note saying why.
	Figures []string
	// Steady, when set, draws only the batch series of the step it names
	// (figSteady, steady.go), with its MSER-5 truncation point and its
	// window's interval.
	Steady *SteadyStep
}

// Figures draws the figures of results rs from their analysis a (of rs:
// analysis.Of, or analysis.Each to draw every file's series as curves of
// its own, as for the two runs of an A/B pair). Every point, interval,
// knee, peak, USL curve and retrograde stretch is a's; nothing is decided
// here. A figure that does not apply to these results (no C × P grid, a
// single target, no server telemetry, no open-loop steps) is left out and
// the second return value says why, one note per figure. The closed-loop
// figures leave open-loop steps out, with a note; the open-* figures draw
// them. Profile steps (sweep --profile) are drawn by the timeline figure
// alone, from their records (timeline.go).
func Figures(rs []*results.Results, a *analysis.Analysis, o Options) ([]Figure, []string, error) {
	if a == nil {
		return nil, nil, errors.New("figures: no analysis to draw")
	}
	if o.Steady != nil {
		f, err := steadyFigure(rs, *o.Steady)
		if err != nil {
			return nil, nil, err
		}
		return []Figure{f}, nil, nil
	}
	which := o.Figures
	want, err := wanted(which)
	if err != nil {
		return nil, nil, err
	}
	ofigs, onotes := openFigs(rs, a.Open, want, len(which) > 0)
	tfigs, tnotes := timelineFigs(rs, want, len(which) > 0)
	ofigs, onotes = append(ofigs, tfigs...), append(onotes, tnotes...)
	curves := buildCurves(rs, a)
	if len(curves) == 0 {
		switch nOpen, nProfile := openStepCount(rs), profileStepCount(rs); {
		case nOpen > 0 && nProfile == 0:
			return ofigs, append([]string{"closed-loop figures: skipped: the results hold only open-loop steps (sweep --rate); the open-* figures draw them"}, onotes...), nil
		case nProfile > 0:
			return ofigs, append([]string{"closed-loop figures: skipped: the results hold no closed-loop steps; the timeline figure draws the profile steps (sweep --profile)"}, onotes...), nil
		}
		return nil, nil, ErrNoSteps
	}
	ctx := figContext{rs: rs, curves: curves, mode: chooseXMode(curves)}
	var figs []Figure
	var notes []string
	for _, name := range AllFigures {
		if !want[name] {
			continue
		}
		var fs []Figure
		var note string
		switch name {
		case figThroughput:
			fs = []Figure{ctx.throughput()}
		case figLatency:
			fs = []Figure{ctx.latency()}
		case figLatencyThroughput:
			fs = []Figure{ctx.latencyThroughput()}
		case figPoolGrid:
			fs, note = ctx.poolGrids()
		case figComparison:
			fs, note = ctx.comparison()
		case figTimeBreakdown:
			fs, note = ctx.timeBreakdown()
		case figRouterPool:
			// Drawn where a router's pools were sampled; said only when
			// asked for by name, since most targets have no routers.
			if f, ok := routerPoolFig(rs); ok {
				fs = []Figure{f}
			} else if len(which) > 0 {
				note = "skipped: no step sampled a mongos router's pools to its shards"
			}
		}
		figs = append(figs, fs...)
		if note != "" {
			notes = append(notes, name+": "+note)
		}
	}
	if n := openStepCount(rs); n > 0 {
		notes = append(notes, fmt.Sprintf("closed-loop figures: %d open-loop step(s) left out; the open-* figures draw them", n))
	}
	return append(figs, ofigs...), append(notes, onotes...), nil
}

func wanted(which []string) (map[string]bool, error) {
	want := map[string]bool{}
	if len(which) == 0 {
		for _, n := range AllFigures {
			want[n] = true
		}
		return want, nil
	}
	for _, w := range which {
		w = strings.TrimSpace(w)
		if !slices.Contains(AllFigures, w) {
			return nil, fmt.Errorf("unknown figure %q (known: %s)", w, strings.Join(AllFigures, ", "))
		}
		want[w] = true
	}
	return want, nil
}

type figContext struct {
	rs     []*results.Results
	curves []*curve
	mode   xMode
}

// subject is the "workload … on targets …" part of every title.
func (fc *figContext) subject(cs []*curve) string {
	var wls, tgs []string
	for _, c := range cs {
		if c.workload != "" && !slices.Contains(wls, c.workload) {
			wls = append(wls, c.workload)
		}
		t := c.target
		if n := runinfo.ServerKind(c.header); n != "" {
			t += " (" + n + ")"
		}
		if !slices.Contains(tgs, t) {
			tgs = append(tgs, t)
		}
	}
	s := ""
	if len(wls) > 0 {
		s = "workload " + textfmt.List(wls, ", ") + " on "
	}
	return s + textfmt.List(tgs, ", ")
}

func (fc *figContext) trials() int {
	n := 0
	for _, c := range fc.curves {
		for _, l := range c.levels {
			n = max(n, l.ops.N)
		}
	}
	return n
}

func (fc *figContext) allX(cs []*curve) []float64 {
	var xs []float64
	for _, c := range cs {
		for i := range c.levels {
			xs = append(xs, fc.mode.of(&c.levels[i]))
		}
	}
	return xs
}

// xAxis sets a log₂ x axis with ticks at the measured levels only.
func (fc *figContext) xAxis(p *gplot.Plot, cs []*curve) {
	xs := fc.allX(cs)
	p.X.Scale = gplot.LogScale{}
	p.X.Tick.Marker = levelTicks(xs, 0.075)
	lo, hi := slices.Min(xs), slices.Max(xs)
	// A little room either side so end markers and labels are not cut.
	p.X.Min, p.X.Max = lo/1.15, hi*1.15
}

func line(xys plotter.XYs, clr color.Color, width float64, dashes []vg.Length) *plotter.Line {
	l, err := plotter.NewLine(xys)
	if err != nil {
		// NewLine fails only on NaN/Inf, which the callers filter out.
		panic(fmt.Sprintf("plot: %v", err))
	}
	l.Color = clr
	l.Width = vg.Points(width)
	l.Dashes = dashes
	return l
}

func scatter(xys plotter.XYs, clr color.Color, g draw.GlyphDrawer, r float64) *plotter.Scatter {
	s, err := plotter.NewScatter(xys)
	if err != nil {
		panic(fmt.Sprintf("plot: %v", err))
	}
	s.Color = clr
	s.Shape = g
	s.Radius = vg.Points(r)
	return s
}

var (
	dashUSL   = []vg.Length{vg.Points(6), vg.Points(4)}
	dashCalls = []vg.Length{vg.Points(2), vg.Points(3)}
	dashP50   = []vg.Length{vg.Points(5), vg.Points(3)}
	kneeGlyph = draw.RingGlyph{}
	peakGlyph = draw.BoxGlyph{}
)

// curveMarks returns the knee and peak marks of a curve in the figure's x
// units, from its knee report when there is one and from the data
// otherwise (peak only).
func (fc *figContext) curveMarks(c *curve) []mark {
	var marks []mark
	peakC, peakY := 0, 0.0
	if c.report != nil && c.report.Peak.Concurrency > 0 {
		peakC, peakY = c.report.Peak.Concurrency, c.report.Peak.QPS
	} else if y, l := c.peakOps(); l != nil {
		peakC, peakY = l.concurrency, y
	}
	kneeC := 0
	if c.report != nil && c.report.Knee.Found && c.report.Knee.Concurrency > 0 {
		kneeC = c.report.Knee.Concurrency
		kx, ok := c.xAtConcurrency(fc.mode, float64(kneeC))
		if ok {
			ky := c.report.Knee.QPS
			if ky == 0 {
				if l := c.levelAt(kneeC); l != nil {
					ky = l.ops.Median
				}
			}
			word := "knee"
			if kneeC == peakC {
				word = "knee = peak"
			}
			lbl := fmt.Sprintf("%s %s · %s ops/s", word, fmtX(kx), humanNumber(ky))
			if k := c.report.Knee; k.Low > 0 && k.High > 0 && (k.Low != k.Concurrency || k.High != k.Concurrency) {
				lo, okl := c.xAtConcurrency(fc.mode, float64(k.Low))
				hi, okh := c.xAtConcurrency(fc.mode, float64(k.High))
				if okl && okh {
					lbl = fmt.Sprintf("%s %s (%s–%s) · %s ops/s", word, fmtX(kx), fmtX(lo), fmtX(hi), humanNumber(ky))
				}
			}
			marks = append(marks, mark{Kind: "knee", Series: c.label, X: round6(kx), Y: round6(ky), Label: lbl})
		}
	}
	if peakC > 0 && peakC != kneeC {
		if px, ok := c.xAtConcurrency(fc.mode, float64(peakC)); ok {
			marks = append(marks, mark{Kind: "peak", Series: c.label, X: round6(px), Y: round6(peakY),
				Label: fmt.Sprintf("peak %s · %s ops/s", fmtX(px), humanNumber(peakY))})
		}
	}
	return marks
}

func fmtX(x float64) string { return strconv.FormatFloat(math.Round(x), 'f', 0, 64) }

func xyPairs(xys plotter.XYs) [][2]float64 {
	out := make([][2]float64, len(xys))
	for i, p := range xys {
		out[i] = [2]float64{p.X, p.Y}
	}
	return out
}

// darker deepens a palette colour for text, which needs more contrast on
// white than a line does.
func darker(c color.NRGBA) color.NRGBA {
	return color.NRGBA{R: uint8(float64(c.R) * 0.75), G: uint8(float64(c.G) * 0.75), B: uint8(float64(c.B) * 0.75), A: 255}
}

// trialsCaption says what the points and bars are: the knee analysis's
// median over trials and its interval (a bootstrap percentile interval
// when every level has 3 or more trials, else the trials' range; with one
// trial, the step's own batch-means interval when its window had one).
func (fc *figContext) trialsCaption() string {
	n := fc.trials()
	if n <= 1 {
		for _, c := range fc.curves {
			for _, l := range c.levels {
				if l.ops.High > l.ops.Low {
					return "One trial per step; bars: the 95% confidence interval of each step's throughput from its window's batch means, as the knee analysis has them."
				}
			}
		}
		return "One trial per step: no interval bars."
	}
	boot := true
	for _, c := range fc.curves {
		for _, l := range c.levels {
			boot = boot && l.ops.N >= 3
		}
	}
	if boot {
		return fmt.Sprintf("Points: median of %d trials; bars: its 95%% bootstrap interval, as the knee analysis has them.", n)
	}
	return "Points: median of the trials; bars: their range (a bootstrap interval needs 3 or more trials), as the knee analysis has them."
}

func (fc *figContext) xCaption() string {
	if fc.mode == xInFlight {
		return " x is clients × concurrency because a fixed pool holds several steps at one connection count."
	}
	return ""
}

// wrapTitle puts what a figure shows on the first line and its subject
// (after " — ") on the next, wrapping each to about 80 characters: what
// fits an 8in figure in 14pt type.
func wrapTitle(s string) string {
	head, rest, ok := strings.Cut(s, " — ")
	if !ok || len([]rune(s)) <= 80 {
		return textfmt.Wrap(s, 80)
	}
	return textfmt.Wrap(head, 80) + "\n" + textfmt.Wrap(rest, 80)
}

// sortedInts returns the distinct values of xs in order.
func sortedInts(xs []int) []int {
	s := append([]int(nil), xs...)
	sort.Ints(s)
	return slices.Compact(s)
}
