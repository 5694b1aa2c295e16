package plot

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/internal/runinfo"
	"github.com/poolsweep/poolsweep/internal/textfmt"
)

// throughputPanel draws ops/s per curve with 95% bars and the knee/peak
// marks; full adds calls/s, the USL fits and the retrograde stretches (the
// comparison leaves them out to keep an overlay readable).
func (fc *figContext) throughputPanel(cs []*curve, withUSL bool) *drawing {
	d := newDrawing(fc.mode.label(), "throughput (ops/s)")
	p, ann := d.p, d.ann
	fc.xAxis(p, cs)
	p.Y.Tick.Marker = humanTicks{}
	p.Y.Min = 0
	hasUSL, hasRetro, hasCalls := false, false, false
	for _, c := range cs {
		clr := seriesColor(c.idx)
		g := seriesGlyph(c.idx)
		var xys, calls plotter.XYs
		var errs plotter.YErrors
		sd := seriesData{Name: c.label, Role: "ops/s"}
		cd := seriesData{Name: c.label, Role: "calls/s"}
		showCalls := false
		for i := range c.levels {
			l := &c.levels[i]
			x := fc.mode.of(l)
			xys = append(xys, plotter.XY{X: x, Y: l.ops.Median})
			errs = append(errs, struct{ Low, High float64 }{l.ops.Median - l.ops.Low, l.ops.High - l.ops.Median})
			sd.Points = append(sd.Points, dataPoint{X: round6(x), Y: round6(l.ops.Median), Low: round6(l.ops.Low), High: round6(l.ops.High), N: l.ops.N})
			ann.obstacles = append(ann.obstacles, [2]float64{x, l.ops.Median})
			calls = append(calls, plotter.XY{X: x, Y: l.calls})
			cd.Points = append(cd.Points, dataPoint{X: round6(x), Y: round6(l.calls), N: len(l.steps)})
			for _, s := range l.steps {
				showCalls = showCalls || runinfo.CallsDiffer(s)
			}
		}
		// Retrograde stretch first, so it sits under the data: a wide
		// translucent highlight along the curve past its peak.
		if withUSL && c.report != nil && c.report.Retrograde != nil {
			if px, ok := c.xAtConcurrency(fc.mode, float64(c.report.Peak.Concurrency)); ok {
				rd := seriesData{Name: c.label, Role: "retrograde"}
				var seg plotter.XYs
				for i := range c.levels {
					if x := fc.mode.of(&c.levels[i]); x >= px {
						seg = append(seg, plotter.XY{X: x, Y: c.levels[i].ops.Median})
						rd.Points = append(rd.Points, dataPoint{X: round6(x), Y: round6(c.levels[i].ops.Median)})
					}
				}
				if len(seg) > 1 {
					p.Add(line(seg, withAlpha(clr, 70), 10, nil))
					d.data = append(d.data, rd)
					hasRetro = true
				}
			}
		}
		ann.lines = append(ann.lines, xyPairs(xys))
		d.errorBars(xys, errs, clr, 1.2, 7)
		d.curve(xys, clr, g, c.label)
		d.data = append(d.data, sd)
		if showCalls && withUSL {
			p.Add(line(calls, clr, 1.5, dashCalls), scatter(calls, clr, draw.RingGlyph{}, 3))
			ann.lines = append(ann.lines, xyPairs(calls))
			d.data = append(d.data, cd)
			hasCalls = true
		}
		if withUSL && c.report != nil && c.report.Methods.USL.Accepted() {
			u := c.report.Methods.USL
			lo, hi := float64(c.levels[0].concurrency), float64(c.levels[len(c.levels)-1].concurrency)
			var uxy plotter.XYs
			ud := seriesData{Name: c.label, Role: "usl"}
			const n = 48
			for k := 0; k <= n; k++ {
				cn := lo * math.Pow(hi/lo, float64(k)/n)
				x, ok := c.xAtConcurrency(fc.mode, cn)
				y := u.Eval(cn)
				if !ok || math.IsNaN(y) || math.IsInf(y, 0) || y < 0 {
					continue
				}
				uxy = append(uxy, plotter.XY{X: x, Y: y})
				ud.Points = append(ud.Points, dataPoint{X: round6(x), Y: round6(y)})
			}
			if len(uxy) > 1 {
				p.Add(line(uxy, clr, 1.3, dashUSL))
				d.data = append(d.data, ud)
				hasUSL = true
			}
		}
		for _, m := range fc.curveMarks(c) {
			gl := draw.GlyphDrawer(kneeGlyph)
			if m.Kind == "peak" {
				gl = peakGlyph
			}
			d.mark(m, m.X, m.Y, clr, gl)
		}
	}
	p.Add(ann)
	grey := color.Gray{Y: 0x44}
	if hasCalls {
		d.lineLegend("calls/s (dotted)", draw.LineStyle{Color: grey, Width: vg.Points(1.5), Dashes: dashCalls})
	}
	if hasUSL {
		d.lineLegend("USL fit (dashed)", draw.LineStyle{Color: grey, Width: vg.Points(1.3), Dashes: dashUSL})
	}
	if d.hasMark("knee") {
		d.glyphLegend("knee", grey, kneeGlyph)
	}
	if d.hasMark("peak") {
		d.glyphLegend("peak", grey, peakGlyph)
	}
	if hasRetro {
		d.lineLegend("retrograde (past peak)", draw.LineStyle{Color: color.NRGBA{0x44, 0x44, 0x44, 70}, Width: vg.Points(10)})
	}
	// Headroom above the highest point for the labels.
	p.Y.Max *= 1.2
	return d
}

func (fc *figContext) throughput() Figure {
	d := fc.throughputPanel(fc.curves, true)
	title := "Throughput vs " + fc.mode.noun() + " — " + fc.subject(fc.curves)
	cap := fc.trialsCaption()
	if slices.ContainsFunc(d.data, func(s seriesData) bool { return s.Role == "usl" }) {
		cap += " USL is fitted on per-client concurrency and drawn at the matching x."
	}
	cap += rejectedUSLCaption(fc.curves)
	return d.figure(figThroughput, title, cap+fc.xCaption())
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
	d := fc.throughputPanel(cs, false)
	base := cs[0]
	bp, _ := base.peakOps()
	var parts []string
	for _, c := range cs[1:] {
		cp, _ := c.peakOps()
		if bp > 0 {
			parts = append(parts, fmt.Sprintf("%s peaks at %.2f× %s (%s vs %s ops/s)", shortLabel(c), cp/bp, shortLabel(base), humanNumber(cp), humanNumber(bp)))
		}
	}
	title := "Comparison — " + textfmt.ListN(parts, "; ", 4) // each part a sentence
	if len(parts) == 0 {
		title = "Comparison — " + fc.subject(cs)
	}
	cap := "Each target's best pool setting (highest peak). " + fc.trialsCaption() + fc.xCaption()
	return []Figure{d.figure(figComparison, title, cap)}, ""
}

// shortLabel is the curve's target, with its run when targets repeat.
func shortLabel(c *curve) string {
	if i := strings.Index(c.label, " · "); i > 0 {
		return c.label[:i]
	}
	return c.label
}

// rejectedUSLCaption says which curves' USL fits were rejected (R² below
// knee.MinUSLR2) and so are not drawn, so that a missing dashed curve is
// not read as a fit nobody tried.
func rejectedUSLCaption(cs []*curve) string {
	var names []string
	for _, c := range cs {
		if u := c.report; u != nil && u.Methods.USL.Fitted && !u.Methods.USL.Accepted() {
			names = append(names, fmt.Sprintf("%s (R² %.2f)", c.label, u.Methods.USL.R2))
		}
	}
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprintf(" USL fit not drawn, R² below %g: %s.", knee.MinUSLR2, textfmt.List(names, ", "))
}
