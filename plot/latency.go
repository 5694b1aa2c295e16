package plot

import (
	"fmt"
	"image/color"
	"math"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

func (fc *figContext) latency() Figure {
	d := newDrawing(fc.mode.label(), "latency per call (ms, log)")
	p := d.p
	fc.xAxis(p, fc.curves)
	p.Y.Scale = gplot.LogScale{}
	p.Y.Tick.Marker = logTicks{}
	for _, c := range fc.curves {
		clr := seriesColor(c.idx)
		var p99, p50 plotter.XYs
		d99 := seriesData{Name: c.label, Role: "p99"}
		d50 := seriesData{Name: c.label, Role: "p50"}
		for i := range c.levels {
			l := &c.levels[i]
			x := fc.mode.of(l)
			if l.p99 > 0 {
				p99 = append(p99, plotter.XY{X: x, Y: l.p99})
				d99.Points = append(d99.Points, dataPoint{X: round6(x), Y: round6(l.p99), N: len(l.steps)})
				d.ann.obstacles = append(d.ann.obstacles, [2]float64{x, l.p99})
			}
			if l.p50 > 0 {
				p50 = append(p50, plotter.XY{X: x, Y: l.p50})
				d50.Points = append(d50.Points, dataPoint{X: round6(x), Y: round6(l.p50), N: len(l.steps)})
				d.ann.obstacles = append(d.ann.obstacles, [2]float64{x, l.p50})
			}
		}
		d.percentiles(p99, p50, d99, d50, clr, seriesGlyph(c.idx), c.label)
		if c.report != nil && c.report.Knee.Found {
			if l := c.levelAt(c.report.Knee.Concurrency); l != nil && l.p99 > 0 {
				x := fc.mode.of(l)
				d.mark(mark{Kind: "knee", Series: c.label, X: round6(x), Y: round6(l.p99), Label: fmt.Sprintf("knee %s · p99 %s", fmtX(x), fmtMs(l.p99))},
					x, l.p99, clr, kneeGlyph)
			}
		}
	}
	p.Add(d.ann)
	if len(d.data) == 0 {
		p.Y.Scale = gplot.LinearScale{}
		p.Y.Tick.Marker = gplot.DefaultTicks{}
	} else {
		p.Y.Max *= 1.8 // log headroom for labels
	}
	grey := color.Gray{Y: 0x44}
	d.percentilesLegend(grey)
	if len(d.marks) > 0 {
		d.glyphLegend("knee", grey, kneeGlyph)
	}
	title := "Latency vs " + fc.mode.noun() + " — " + fc.subject(fc.curves)
	return d.figure(figLatency, title, "Median over trials of each step's per-call p50 and p99."+fc.xCaption())
}

func (fc *figContext) latencyThroughput() Figure {
	d := newDrawing("throughput (ops/s)", "p99 latency per call (ms)")
	p := d.p
	p.X.Tick.Marker = humanTicks{}
	p.X.Min = 0
	lo, hi := math.Inf(1), 0.0
	for _, c := range fc.curves {
		clr := seriesColor(c.idx)
		var xys plotter.XYs
		sd := seriesData{Name: c.label, Role: "p99"}
		for i := range c.levels {
			l := &c.levels[i]
			if l.p99 <= 0 {
				continue
			}
			xys = append(xys, plotter.XY{X: l.ops.Median, Y: l.p99})
			sd.Points = append(sd.Points, dataPoint{X: round6(l.ops.Median), Y: round6(l.p99), N: len(l.steps), Label: fmtX(fc.mode.of(l))})
			d.ann.obstacles = append(d.ann.obstacles, [2]float64{l.ops.Median, l.p99})
			lo, hi = math.Min(lo, l.p99), math.Max(hi, l.p99)
		}
		if len(xys) == 0 {
			continue
		}
		d.curve(xys, clr, seriesGlyph(c.idx), c.label)
		d.ann.lines = append(d.ann.lines, xyPairs(xys))
		d.data = append(d.data, sd)
		// Label the last level so the reader knows where the stick ends,
		// and the knee so they see what the last stretch costs.
		last := &c.levels[len(c.levels)-1]
		if c.report != nil && c.report.Knee.Found {
			if l := c.levelAt(c.report.Knee.Concurrency); l != nil && l.p99 > 0 {
				d.mark(mark{Kind: "knee", Series: c.label, X: round6(l.ops.Median), Y: round6(l.p99),
					Label: fmt.Sprintf("knee %s · %s ops/s · p99 %s", fmtX(fc.mode.of(l)), humanNumber(l.ops.Median), fmtMs(l.p99))},
					l.ops.Median, l.p99, clr, kneeGlyph)
			}
		}
		if last.p99 > 0 {
			d.ann.items = append(d.ann.items, annotation{X: last.ops.Median, Y: last.p99, Text: fmt.Sprintf("%s: p99 %s", fmtX(fc.mode.of(last)), fmtMs(last.p99)), Color: darker(clr)})
		}
	}
	p.Add(d.ann)
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
	if len(d.marks) > 0 {
		d.glyphLegend("knee", color.Gray{Y: 0x44}, kneeGlyph)
	}
	title := "p99 latency vs throughput — " + fc.subject(fc.curves)
	return d.figure(figLatencyThroughput, title, "One point per concurrency level (median ops/s and median p99 over trials); the last point of each series is labelled with its "+fc.mode.noun()+".")
}
