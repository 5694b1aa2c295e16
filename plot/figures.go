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

	"github.com/poolsweep/poolsweep/sweep"
	"github.com/poolsweep/poolsweep/sweep/knee"
)

// ErrNoSteps is returned when the results hold no measured step to draw.
var ErrNoSteps = errors.New("no measured steps to plot")

// Figures builds the figures named in which (all of AllFigures when empty)
// from decoded results and the knee reports of their series, as
// AnalyzeWith forms them across files (nil reports draw no knee, USL or
// retrograde marks; the points are the analysis's medians either way). A
// figure that does not apply to these results (no C × P grid, a single
// target, no server telemetry) is left out and the second return value
// says why, one note per figure.
func Figures(rs []*sweep.Results, reports []knee.Report, which []string) ([]Figure, []string, error) {
	return figures(rs, reports, which, false)
}

// FiguresEach is Figures with every file's series drawn as its own curves,
// for reports from AnalyzeEach: two runs of one target side by side.
func FiguresEach(rs []*sweep.Results, reports []knee.Report, which []string) ([]Figure, []string, error) {
	return figures(rs, reports, which, true)
}

func figures(rs []*sweep.Results, reports []knee.Report, which []string, each bool) ([]Figure, []string, error) {
	want, err := wanted(which)
	if err != nil {
		return nil, nil, err
	}
	curves := buildCurves(rs, reports, each)
	if len(curves) == 0 {
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
		case FigThroughput:
			fs = []Figure{ctx.throughput()}
		case FigLatency:
			fs = []Figure{ctx.latency()}
		case FigLatencyThroughput:
			fs = []Figure{ctx.latencyThroughput()}
		case FigPoolGrid:
			fs, note = ctx.poolGrids()
		case FigComparison:
			fs, note = ctx.comparison()
		case FigTimeBreakdown:
			fs, note = ctx.timeBreakdown()
		}
		figs = append(figs, fs...)
		if note != "" {
			notes = append(notes, name+": "+note)
		}
	}
	return figs, notes, nil
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
	rs     []*sweep.Results
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
		if n := serverKindNote(c.header); n != "" {
			t += " (" + n + ")"
		}
		if !slices.Contains(tgs, t) {
			tgs = append(tgs, t)
		}
	}
	s := ""
	if len(wls) > 0 {
		s = "workload " + strings.Join(wls, ", ") + " on "
	}
	return s + strings.Join(tgs, ", ")
}

func (fc *figContext) anyCalls(cs []*curve) bool {
	for _, c := range cs {
		for _, l := range c.levels {
			for _, s := range l.steps {
				if callsDiffer(s) {
					return true
				}
			}
		}
	}
	return false
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
func (fc *figContext) curveMarks(c *curve) []Mark {
	var marks []Mark
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
			marks = append(marks, Mark{Kind: "knee", Series: c.label, X: round6(kx), Y: round6(ky), Label: lbl})
		}
	}
	if peakC > 0 && peakC != kneeC {
		if px, ok := c.xAtConcurrency(fc.mode, float64(peakC)); ok {
			marks = append(marks, Mark{Kind: "peak", Series: c.label, X: round6(px), Y: round6(peakY),
				Label: fmt.Sprintf("peak %s · %s ops/s", fmtX(px), humanNumber(peakY))})
		}
	}
	return marks
}

func fmtX(x float64) string { return strconv.FormatFloat(math.Round(x), 'f', 0, 64) }

// throughputPanel draws ops/s per curve with 95% bars and the knee/peak
// marks; full adds calls/s, the USL fits and the retrograde stretches (the
// comparison leaves them out to keep an overlay readable).
// It returns the panel, the data, and the legend entries.
func (fc *figContext) throughputPanel(cs []*curve, withUSL bool) (*gplot.Plot, []SeriesData, []Mark, []LegendEntry) {
	p := newPanel(fc.mode.label(), "throughput (ops/s)")
	fc.xAxis(p, cs)
	p.Y.Tick.Marker = humanTicks{}
	p.Y.Min = 0
	p.Add(plotter.NewGrid())
	var data []SeriesData
	var marks []Mark
	var legend []LegendEntry
	ann := &annotations{}
	hasUSL, hasRetro, hasCalls := false, false, false
	for _, c := range cs {
		clr := seriesColor(c.idx)
		g := seriesGlyph(c.idx)
		var xys, calls plotter.XYs
		var errs plotter.YErrors
		sd := SeriesData{Name: c.label, Role: "ops/s"}
		cd := SeriesData{Name: c.label, Role: "calls/s"}
		showCalls := false
		for i := range c.levels {
			l := &c.levels[i]
			x := fc.mode.of(l)
			xys = append(xys, plotter.XY{X: x, Y: l.ops.Median})
			errs = append(errs, struct{ Low, High float64 }{l.ops.Median - l.ops.Low, l.ops.High - l.ops.Median})
			sd.Points = append(sd.Points, DataPoint{X: round6(x), Y: round6(l.ops.Median), Low: round6(l.ops.Low), High: round6(l.ops.High), N: l.ops.N})
			ann.obstacles = append(ann.obstacles, [2]float64{x, l.ops.Median})
			calls = append(calls, plotter.XY{X: x, Y: l.calls})
			cd.Points = append(cd.Points, DataPoint{X: round6(x), Y: round6(l.calls), N: len(l.steps)})
			for _, s := range l.steps {
				showCalls = showCalls || callsDiffer(s)
			}
		}
		// Retrograde stretch first, so it sits under the data: a wide
		// translucent highlight along the curve past its peak.
		if withUSL && c.report != nil && c.report.Retrograde != nil {
			if px, ok := c.xAtConcurrency(fc.mode, float64(c.report.Peak.Concurrency)); ok {
				rd := SeriesData{Name: c.label, Role: "retrograde"}
				var seg plotter.XYs
				for i := range c.levels {
					if x := fc.mode.of(&c.levels[i]); x >= px {
						seg = append(seg, plotter.XY{X: x, Y: c.levels[i].ops.Median})
						rd.Points = append(rd.Points, DataPoint{X: round6(x), Y: round6(c.levels[i].ops.Median)})
					}
				}
				if len(seg) > 1 {
					p.Add(line(seg, withAlpha(clr, 70), 10, nil))
					data = append(data, rd)
					hasRetro = true
				}
			}
		}
		ann.lines = append(ann.lines, xyPairs(xys))
		ln := line(xys, clr, 2, nil)
		sc := scatter(xys, clr, g, 3.5)
		eb, err := plotter.NewYErrorBars(struct {
			plotter.XYs
			plotter.YErrors
		}{xys, errs})
		if err == nil {
			eb.Color = clr
			eb.Width = vg.Points(1.2)
			eb.CapWidth = vg.Points(7)
			p.Add(eb)
		}
		p.Add(ln, sc)
		data = append(data, sd)
		legend = append(legend, LegendEntry{Text: c.label, Thumbs: []gplot.Thumbnailer{ln, sc}})
		if showCalls && withUSL {
			p.Add(line(calls, clr, 1.5, dashCalls), scatter(calls, clr, draw.RingGlyph{}, 3))
			ann.lines = append(ann.lines, xyPairs(calls))
			data = append(data, cd)
			hasCalls = true
		}
		if withUSL && c.report != nil && c.report.Methods.USL.Fitted {
			u := c.report.Methods.USL
			lo, hi := float64(c.levels[0].concurrency), float64(c.levels[len(c.levels)-1].concurrency)
			var uxy plotter.XYs
			ud := SeriesData{Name: c.label, Role: "usl"}
			const n = 48
			for k := 0; k <= n; k++ {
				cn := lo * math.Pow(hi/lo, float64(k)/n)
				x, ok := c.xAtConcurrency(fc.mode, cn)
				y := u.Eval(cn)
				if !ok || math.IsNaN(y) || math.IsInf(y, 0) || y < 0 {
					continue
				}
				uxy = append(uxy, plotter.XY{X: x, Y: y})
				ud.Points = append(ud.Points, DataPoint{X: round6(x), Y: round6(y)})
			}
			if len(uxy) > 1 {
				p.Add(line(uxy, clr, 1.3, dashUSL))
				data = append(data, ud)
				hasUSL = true
			}
		}
		for _, m := range fc.curveMarks(c) {
			gl := draw.GlyphDrawer(kneeGlyph)
			if m.Kind == "peak" {
				gl = peakGlyph
			}
			ann.items = append(ann.items, annotation{X: m.X, Y: m.Y, Text: m.Label, Color: darker(clr), Glyph: gl})
			marks = append(marks, m)
		}
	}
	p.Add(ann)
	grey := color.Gray{Y: 0x44}
	if hasCalls {
		legend = append(legend, LegendEntry{Text: "calls/s (dotted)", Thumbs: []gplot.Thumbnailer{lineThumb{draw.LineStyle{Color: grey, Width: vg.Points(1.5), Dashes: dashCalls}}}})
	}
	if hasUSL {
		legend = append(legend, LegendEntry{Text: "USL fit (dashed)", Thumbs: []gplot.Thumbnailer{lineThumb{draw.LineStyle{Color: grey, Width: vg.Points(1.3), Dashes: dashUSL}}}})
	}
	if hasMark(marks, "knee") {
		legend = append(legend, LegendEntry{Text: "knee", Thumbs: []gplot.Thumbnailer{glyphThumb{Color: grey, Glyph: kneeGlyph}}})
	}
	if hasMark(marks, "peak") {
		legend = append(legend, LegendEntry{Text: "peak", Thumbs: []gplot.Thumbnailer{glyphThumb{Color: grey, Glyph: peakGlyph}}})
	}
	if hasRetro {
		legend = append(legend, LegendEntry{Text: "retrograde (past peak)", Thumbs: []gplot.Thumbnailer{lineThumb{draw.LineStyle{Color: color.NRGBA{0x44, 0x44, 0x44, 70}, Width: vg.Points(10)}}}})
	}
	// Headroom above the highest point for the labels.
	p.Y.Max *= 1.2
	return p, data, marks, legend
}

func hasMark(ms []Mark, kind string) bool {
	for _, m := range ms {
		if m.Kind == kind {
			return true
		}
	}
	return false
}

func hasRole(ss []SeriesData, role string) bool {
	for _, s := range ss {
		if s.Role == role {
			return true
		}
	}
	return false
}

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
// when every level has 3 or more trials, else the trials' range).
func (fc *figContext) trialsCaption() string {
	n := fc.trials()
	if n <= 1 {
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

func (fc *figContext) throughput() Figure {
	p, data, marks, legend := fc.throughputPanel(fc.curves, true)
	title := "Throughput vs " + map[xMode]string{xConnections: "connections", xInFlight: "in-flight calls"}[fc.mode] + " — " + fc.subject(fc.curves)
	cap := fc.trialsCaption()
	if hasRole(data, "usl") {
		cap += " USL is fitted on per-client concurrency and drawn at the matching x."
	}
	cap += fc.xCaption()
	return Figure{
		Name: FigThroughput, Title: wrapTitle(title), Caption: cap, Panels: []*gplot.Plot{p}, Legend: legend,
		Data: FigureData{Name: FigThroughput, Title: title, XLabel: p.X.Label.Text, YLabel: p.Y.Label.Text, Series: data, Marks: marks},
	}
}

func (fc *figContext) latency() Figure {
	p := newPanel(fc.mode.label(), "latency per call (ms, log)")
	fc.xAxis(p, fc.curves)
	p.Y.Scale = gplot.LogScale{}
	p.Y.Tick.Marker = logTicks{}
	p.Add(plotter.NewGrid())
	var data []SeriesData
	var marks []Mark
	var legend []LegendEntry
	ann := &annotations{}
	for _, c := range fc.curves {
		clr := seriesColor(c.idx)
		g := seriesGlyph(c.idx)
		var p99, p50 plotter.XYs
		d99 := SeriesData{Name: c.label, Role: "p99"}
		d50 := SeriesData{Name: c.label, Role: "p50"}
		for i := range c.levels {
			l := &c.levels[i]
			x := fc.mode.of(l)
			if l.p99 > 0 {
				p99 = append(p99, plotter.XY{X: x, Y: l.p99})
				d99.Points = append(d99.Points, DataPoint{X: round6(x), Y: round6(l.p99), N: len(l.steps)})
				ann.obstacles = append(ann.obstacles, [2]float64{x, l.p99})
			}
			if l.p50 > 0 {
				p50 = append(p50, plotter.XY{X: x, Y: l.p50})
				d50.Points = append(d50.Points, DataPoint{X: round6(x), Y: round6(l.p50), N: len(l.steps)})
				ann.obstacles = append(ann.obstacles, [2]float64{x, l.p50})
			}
		}
		ann.lines = append(ann.lines, xyPairs(p99), xyPairs(p50))
		var thumbs []gplot.Thumbnailer
		if len(p99) > 0 {
			ln, sc := line(p99, clr, 2, nil), scatter(p99, clr, g, 3.5)
			p.Add(ln, sc)
			thumbs = []gplot.Thumbnailer{ln, sc}
			data = append(data, d99)
		}
		if len(p50) > 0 {
			p.Add(line(p50, clr, 1.5, dashP50), scatter(p50, clr, g, 2.5))
			data = append(data, d50)
		}
		if thumbs != nil {
			legend = append(legend, LegendEntry{Text: c.label, Thumbs: thumbs})
		}
		if c.report != nil && c.report.Knee.Found {
			if l := c.levelAt(c.report.Knee.Concurrency); l != nil && l.p99 > 0 {
				x := fc.mode.of(l)
				m := Mark{Kind: "knee", Series: c.label, X: round6(x), Y: round6(l.p99), Label: fmt.Sprintf("knee %s · p99 %s", fmtX(x), fmtMs(l.p99))}
				marks = append(marks, m)
				ann.items = append(ann.items, annotation{X: x, Y: l.p99, Text: m.Label, Color: darker(clr), Glyph: kneeGlyph})
			}
		}
	}
	p.Add(ann)
	if len(data) == 0 {
		p.Y.Scale = gplot.LinearScale{}
		p.Y.Tick.Marker = gplot.DefaultTicks{}
	} else {
		p.Y.Max *= 1.8 // log headroom for labels
	}
	grey := color.Gray{Y: 0x44}
	legend = append(legend,
		LegendEntry{Text: "p99 (solid)", Thumbs: []gplot.Thumbnailer{lineThumb{draw.LineStyle{Color: grey, Width: vg.Points(2)}}}},
		LegendEntry{Text: "p50 (dashed)", Thumbs: []gplot.Thumbnailer{lineThumb{draw.LineStyle{Color: grey, Width: vg.Points(1.5), Dashes: dashP50}}}})
	if len(marks) > 0 {
		legend = append(legend, LegendEntry{Text: "knee", Thumbs: []gplot.Thumbnailer{glyphThumb{Color: grey, Glyph: kneeGlyph}}})
	}
	title := "Latency vs " + map[xMode]string{xConnections: "connections", xInFlight: "in-flight calls"}[fc.mode] + " — " + fc.subject(fc.curves)
	return Figure{
		Name: FigLatency, Title: wrapTitle(title), Caption: "Median over trials of each step's per-call p50 and p99." + fc.xCaption(),
		Panels: []*gplot.Plot{p}, Legend: legend,
		Data: FigureData{Name: FigLatency, Title: title, XLabel: p.X.Label.Text, YLabel: p.Y.Label.Text, Series: data, Marks: marks},
	}
}

func (fc *figContext) latencyThroughput() Figure {
	p := newPanel("throughput (ops/s)", "p99 latency per call (ms)")
	p.X.Tick.Marker = humanTicks{}
	p.X.Min = 0
	p.Add(plotter.NewGrid())
	var data []SeriesData
	var marks []Mark
	var legend []LegendEntry
	ann := &annotations{}
	lo, hi := math.Inf(1), 0.0
	for _, c := range fc.curves {
		clr := seriesColor(c.idx)
		var xys plotter.XYs
		sd := SeriesData{Name: c.label, Role: "p99"}
		for i := range c.levels {
			l := &c.levels[i]
			if l.p99 <= 0 {
				continue
			}
			xys = append(xys, plotter.XY{X: l.ops.Median, Y: l.p99})
			sd.Points = append(sd.Points, DataPoint{X: round6(l.ops.Median), Y: round6(l.p99), N: len(l.steps), Label: fmtX(fc.mode.of(l))})
			ann.obstacles = append(ann.obstacles, [2]float64{l.ops.Median, l.p99})
			lo, hi = math.Min(lo, l.p99), math.Max(hi, l.p99)
		}
		if len(xys) == 0 {
			continue
		}
		ln, sc := line(xys, clr, 2, nil), scatter(xys, clr, seriesGlyph(c.idx), 3.5)
		p.Add(ln, sc)
		ann.lines = append(ann.lines, xyPairs(xys))
		data = append(data, sd)
		legend = append(legend, LegendEntry{Text: c.label, Thumbs: []gplot.Thumbnailer{ln, sc}})
		// Label the last level so the reader knows where the stick ends,
		// and the knee so they see what the last stretch costs.
		last := &c.levels[len(c.levels)-1]
		if c.report != nil && c.report.Knee.Found {
			if l := c.levelAt(c.report.Knee.Concurrency); l != nil && l.p99 > 0 {
				m := Mark{Kind: "knee", Series: c.label, X: round6(l.ops.Median), Y: round6(l.p99),
					Label: fmt.Sprintf("knee %s · %s ops/s · p99 %s", fmtX(fc.mode.of(l)), humanNumber(l.ops.Median), fmtMs(l.p99))}
				marks = append(marks, m)
				ann.items = append(ann.items, annotation{X: l.ops.Median, Y: l.p99, Text: m.Label, Color: darker(clr), Glyph: kneeGlyph})
			}
		}
		if last.p99 > 0 {
			ann.items = append(ann.items, annotation{X: last.ops.Median, Y: last.p99, Text: fmt.Sprintf("%s: p99 %s", fmtX(fc.mode.of(last)), fmtMs(last.p99)), Color: darker(clr)})
		}
	}
	p.Add(ann)
	// Log y when p99 spans more than a factor of 20: the stick's blade
	// otherwise flattens everything before it onto the axis.
	logY := hi > 0 && hi/lo > 20
	if logY {
		p.Y.Scale = gplot.LogScale{}
		p.Y.Tick.Marker = logTicks{}
		p.Y.Label.Text = "p99 latency per call (ms, log)"
		p.Y.Max *= 1.8
		p.Y.Min /= 1.6
	} else {
		p.Y.Min = 0
		p.Y.Max *= 1.12
	}
	p.X.Max *= 1.05
	if len(marks) > 0 {
		legend = append(legend, LegendEntry{Text: "knee", Thumbs: []gplot.Thumbnailer{glyphThumb{Color: color.Gray{Y: 0x44}, Glyph: kneeGlyph}}})
	}
	title := "p99 latency vs throughput — " + fc.subject(fc.curves)
	return Figure{
		Name: FigLatencyThroughput, Title: wrapTitle(title),
		Caption: "One point per concurrency level (median ops/s and median p99 over trials); the last point of each series is labelled with its " + map[xMode]string{xConnections: "connections", xInFlight: "in-flight calls"}[fc.mode] + ".",
		Panels:  []*gplot.Plot{p}, Legend: legend,
		Data: FigureData{Name: FigLatencyThroughput, Title: title, XLabel: p.X.Label.Text, YLabel: p.Y.Label.Text, Series: data, Marks: marks},
	}
}

// comparison overlays one curve per target (per file): each target's best
// pool setting, i.e. the series with the highest peak, with its knee, and
// gives the ratio of peaks in the title.
func (fc *figContext) comparison() ([]Figure, string) {
	type key struct {
		file   int
		target string
	}
	best := map[key]*curve{}
	var order []key
	for _, c := range fc.curves {
		k := key{c.file, c.target}
		b, ok := best[k]
		if !ok {
			order = append(order, k)
		}
		if pc, _ := c.peakOps(); !ok || pc > func() float64 { v, _ := b.peakOps(); return v }() {
			best[k] = c
		}
	}
	if len(order) < 2 {
		return nil, "skipped: one target in one results file, nothing to compare"
	}
	var cs []*curve
	for _, k := range order {
		cs = append(cs, best[k])
	}
	p, data, marks, legend := fc.throughputPanel(cs, false)
	base := cs[0]
	bp, _ := base.peakOps()
	var parts []string
	for _, c := range cs[1:] {
		cp, _ := c.peakOps()
		if bp > 0 {
			parts = append(parts, fmt.Sprintf("%s peaks at %.2f× %s (%s vs %s ops/s)", shortLabel(c), cp/bp, shortLabel(base), humanNumber(cp), humanNumber(bp)))
		}
	}
	title := "Comparison — " + strings.Join(parts, "; ")
	if len(parts) == 0 {
		title = "Comparison — " + fc.subject(cs)
	}
	cap := "Each target's best pool setting (highest peak). " + fc.trialsCaption() + fc.xCaption()
	return []Figure{{
		Name: FigComparison, Title: wrapTitle(title), Caption: cap, Panels: []*gplot.Plot{p}, Legend: legend,
		Data: FigureData{Name: FigComparison, Title: title, XLabel: p.X.Label.Text, YLabel: p.Y.Label.Text, Series: data, Marks: marks},
	}}, ""
}

// shortLabel is the curve's target, with its run when targets repeat.
func shortLabel(c *curve) string {
	if i := strings.Index(c.label, " · "); i > 0 {
		return c.label[:i]
	}
	return c.label
}

// wrapTitle puts what a figure shows on the first line and its subject
// (after " — ") on the next, wrapping each to about 80 characters: what
// fits an 8in figure in 14pt type.
func wrapTitle(s string) string {
	head, rest, ok := strings.Cut(s, " — ")
	if !ok || len([]rune(s)) <= 80 {
		return wrapText(s, 80)
	}
	return wrapText(head, 80) + "\n" + wrapText(rest, 80)
}

// sortedInts returns the distinct values of xs in order.
func sortedInts(xs []int) []int {
	s := append([]int(nil), xs...)
	sort.Ints(s)
	return slices.Compact(s)
}
