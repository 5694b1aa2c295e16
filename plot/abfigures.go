package plot

import (
	"errors"
	"fmt"
	"image/color"
	"slices"
	"strconv"
	"strings"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/compare"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/results"
)

// A/B figure names, also the base names of the files WriteFiles writes.
const (
	figABThroughput = "ab-throughput"
	figABDeltas     = "ab-deltas"
)

// Side is one side of an A/B comparison: the results compare.Match took
// for it and their analysis (analysis.Of of those results). The two sides
// may be the same results (one file, two targets): each side then draws
// the targets the comparison used for it.
type Side struct {
	Results  []*results.Results
	Analysis *analysis.Analysis
}

// ABFigures draws the A/B comparison c of the sides base and cand:
// figABThroughput, both sides' throughput curves overlaid with the knees
// their analyses found, and figABDeltas, the change of each metric at each
// matched step. The notes say what was left out and why.
//
// It is a function of its own rather than an option of Figures: it draws
// a comparison of two analysed sides, not one analysis, and none of
// Figures' options applies to it.
func ABFigures(c *compare.Comparison, base, cand Side) ([]Figure, []string, error) {
	if c == nil || len(c.Steps) == 0 {
		return nil, nil, errors.New("a/b figures: the comparison has no matched steps")
	}
	if base.Analysis == nil || cand.Analysis == nil {
		return nil, nil, errors.New("a/b figures: a side has no analysis")
	}
	var figs []Figure
	var notes []string
	tp, err := abThroughput(c, base, cand)
	if err != nil {
		return nil, nil, fmt.Errorf("a/b figures: %w", err)
	}
	figs = append(figs, tp)
	d, note := abDeltas(c)
	if d != nil {
		figs = append(figs, *d)
	}
	if note != "" {
		notes = append(notes, figABDeltas+": "+note)
	}
	return figs, notes, nil
}

// sideCurves are a side's curves of the targets the comparison used.
func sideCurves(s Side, targets []string) []*curve {
	var out []*curve
	for _, cv := range buildCurves(s.Results, s.Analysis) {
		if slices.Contains(targets, cv.target) {
			out = append(out, cv)
		}
	}
	return out
}

// abThroughput overlays both sides' throughput curves: one colour per
// series, the baseline solid and the candidate dashed.
func abThroughput(c *compare.Comparison, base, cand Side) (Figure, error) {
	oneFile := c.OneFile()
	sides := []struct {
		name    string
		dashes  []vg.Length
		curves  []*curve
		nudge   float64
		display string
	}{
		{name: "baseline", curves: sideCurves(base, c.Baseline.Targets), nudge: 1 / 1.03, display: c.Baseline.Name(oneFile)},
		{name: "candidate", curves: sideCurves(cand, c.Candidate.Targets), dashes: []vg.Length{vg.Points(6), vg.Points(3)}, nudge: 1.03, display: c.Candidate.Name(oneFile)},
	}
	var keys []compare.SeriesKey
	var all []*curve
	for i := range sides {
		s := &sides[i]
		for _, cv := range s.curves {
			k := c.SeriesKey(cv.target, cv.workload, cv.pool, cv.clients)
			ki := slices.Index(keys, k)
			if ki < 0 {
				keys = append(keys, k)
				ki = len(keys) - 1
			}
			cv.idx = ki
			all = append(all, cv)
		}
	}
	if len(all) == 0 {
		return Figure{}, ErrNoSteps
	}
	labels := abSeriesLabels(keys)
	fc := figContext{curves: all, mode: chooseXMode(all)}

	d := newDrawing(fc.mode.label(), "throughput (ops/s)")
	p, ann := d.p, d.ann
	fc.xAxis(p, all)
	// The nudge moves points off the measured x; widen the range to match.
	p.X.Min /= 1.03
	p.X.Max *= 1.03
	p.Y.Tick.Marker = humanTicks{}
	p.Y.Min = 0
	drawnKey := make([]bool, len(keys))
	for _, s := range sides {
		for _, cv := range s.curves {
			clr := seriesColor(cv.idx)
			name := s.name + " · " + labels[cv.idx]
			var xys plotter.XYs
			var errs plotter.YErrors
			sd := seriesData{Name: name, Role: "ops/s"}
			for i := range cv.levels {
				l := &cv.levels[i]
				x := fc.mode.of(l)
				// Drawn a little left (baseline) or right (candidate) of
				// the level so both sides' interval bars stay visible.
				xys = append(xys, plotter.XY{X: x * s.nudge, Y: l.ops.Median})
				errs = append(errs, struct{ Low, High float64 }{l.ops.Median - l.ops.Low, l.ops.High - l.ops.Median})
				sd.Points = append(sd.Points, dataPoint{X: round6(x), Y: round6(l.ops.Median), Low: round6(l.ops.Low), High: round6(l.ops.High), N: l.ops.N})
				ann.obstacles = append(ann.obstacles, [2]float64{x * s.nudge, l.ops.Median})
			}
			ann.lines = append(ann.lines, xyPairs(xys))
			d.errorBars(xys, errs, clr, 1.1, 6)
			ln := line(xys, clr, 2, s.dashes)
			g := seriesGlyph(cv.idx)
			sc := scatter(xys, clr, g, 3.5)
			if s.name == "candidate" {
				// Hollow-looking markers: a white dot inside the glyph.
				p.Add(ln, sc, scatter(xys, color.White, draw.CircleGlyph{}, 1.4))
			} else {
				p.Add(ln, sc)
			}
			d.data = append(d.data, sd)
			if !drawnKey[cv.idx] {
				drawnKey[cv.idx] = true
				d.legend = append(d.legend, legendEntry{Text: labels[cv.idx], Thumbs: []gplot.Thumbnailer{
					lineThumb{draw.LineStyle{Color: clr, Width: vg.Points(2)}}, glyphThumb{Color: clr, Glyph: g}}})
			}
			for _, m := range fc.curveMarks(cv) {
				if m.Kind != "knee" || !abKneeWorthMarking(cv) {
					continue // peaks of two runs overlaid would bury the curves
				}
				m.Series = name
				m.Label = s.name + " " + m.Label
				d.mark(m, m.X*s.nudge, m.Y, clr, kneeGlyph)
			}
		}
	}
	p.Add(ann)
	p.Y.Max *= 1.2
	grey := color.Gray{Y: 0x33}
	d.lineLegend("baseline: "+sides[0].display, draw.LineStyle{Color: grey, Width: vg.Points(2)})
	d.lineLegend("candidate: "+sides[1].display, draw.LineStyle{Color: grey, Width: vg.Points(2), Dashes: sides[1].dashes})
	if len(d.marks) > 0 {
		d.glyphLegend("knee", grey, kneeGlyph)
	}
	// Legend texts can be long (run ids, file names): wrap them so the
	// legend column does not squeeze the panel.
	for i := range d.legend {
		d.legend[i].Text = textfmt.Wrap(d.legend[i].Text, 30)
	}

	title := textfmt.Capitalise(c.Headline().Text) + " — candidate " + c.Candidate.ShortName(oneFile) +
		" vs baseline " + c.Baseline.ShortName(oneFile)
	cap := fc.trialsCaption() + " Baseline solid, candidate dashed with hollow markers, nudged apart on x so both bars show." +
		" The headline change is compare's: medians across trials with a rank-test interval, at the step where the baseline peaked."
	if len(c.Unmatched) > 0 {
		cap += fmt.Sprintf(" %d step(s) without a partner are drawn but not compared.", len(c.Unmatched))
	}
	if abMatchedXDiffer(sides[0].curves, sides[1].curves, fc.mode) {
		cap += " Steps are matched by concurrency: the two sides open different numbers of connections at the same concurrency," +
			" so matched points sit at different x."
	}
	f := d.figure(figABThroughput, title, cap+fc.xCaption())
	f.Title = abWrapTitle(title)
	return f, nil
}

// abMatchedXDiffer says some concurrency level measured on both sides of
// one series is drawn at different x (more hosts or clients on one side).
func abMatchedXDiffer(base, cand []*curve, m xMode) bool {
	for _, b := range base {
		for _, c := range cand {
			if b.idx != c.idx {
				continue
			}
			for i := range b.levels {
				if l := c.levelAt(b.levels[i].concurrency); l != nil && m.of(l) != m.of(&b.levels[i]) {
					return true
				}
			}
		}
	}
	return false
}

// abKneeWorthMarking says a curve's knee says something: the analysis is
// at least moderately confident and the knee is past the first level (a
// knee at the lowest level only says the run started saturated, which on
// an overlay of two runs is clutter).
func abKneeWorthMarking(cv *curve) bool {
	r := cv.report
	if r == nil || !r.Knee.Found || len(cv.levels) < 4 || r.Knee.Concurrency <= cv.levels[0].concurrency {
		return false
	}
	return r.Knee.Confidence == "high" || r.Knee.Confidence == "medium"
}

// abWrapTitle puts the finding on the first line and the runs on the
// second once the title is longer than what 14pt bold fits in 8in.
func abWrapTitle(s string) string {
	if len([]rune(s)) <= 64 {
		return s
	}
	head, rest, ok := strings.Cut(s, " — ")
	if !ok {
		return textfmt.Wrap(s, 70)
	}
	return textfmt.Wrap(head, 70) + "\n" + textfmt.Wrap(rest, 70)
}

// abSeriesLabels names each series by the dimensions that vary between
// them, and by its workload whenever it has one: in an A/B of mixes the
// workload is the point.
func abSeriesLabels(keys []compare.SeriesKey) []string {
	vary := func(f func(compare.SeriesKey) string) bool {
		for _, k := range keys[1:] {
			if f(k) != f(keys[0]) {
				return true
			}
		}
		return false
	}
	role := vary(func(k compare.SeriesKey) string { return k.Role })
	pool := vary(func(k compare.SeriesKey) string { return k.Pool })
	clients := vary(func(k compare.SeriesKey) string { return strconv.Itoa(k.Clients) })
	out := make([]string, len(keys))
	for i, k := range keys {
		var parts []string
		if role {
			parts = append(parts, k.Role)
		}
		if k.Workload != "" {
			parts = append(parts, k.Workload)
		}
		if pool || len(parts) == 0 {
			parts = append(parts, "pool="+k.Pool)
		}
		if clients {
			parts = append(parts, "clients="+strconv.Itoa(k.Clients))
		}
		out[i] = strings.Join(parts, " · ")
	}
	return out
}
