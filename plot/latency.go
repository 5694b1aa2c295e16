package plot

import (
	"fmt"
	"image/color"
	"math"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

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
