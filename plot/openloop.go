package plot

import (
	"fmt"
	"github.com/poolsweep/poolsweep/analysis/openloop"
	"image/color"
	"slices"
	"strconv"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/poolsweep/poolsweep/internal/runinfo"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/results"
)

// Open-loop figure names (sweep --rate).
const (
	figOpenLatency  = "open-latency"   // corrected p50/p99 against offered rate, a line per pool
	figOpenAchieved = "open-achieved"  // achieved against offered rate, with the diagonal
	figOpenPoolWait = "open-pool-wait" // share of the latency spent waiting for a connection
)

var openFigures = []string{figOpenLatency, figOpenAchieved, figOpenPoolWait}

// openCurve is one pool size of one open-loop report.
type openCurve struct {
	label  string
	idx    int
	pool   openloop.Pool
	report *openloop.Report
}

func openCurves(reports []openloop.Report) []openCurve {
	var out []openCurve
	for i := range reports {
		r := &reports[i]
		for _, p := range r.Pools {
			label := "pool=" + strconv.Itoa(p.MaxPoolSize)
			if len(reports) > 1 {
				label = r.Target + " · " + label
				if r.Workload != "" {
					label += " · " + r.Workload
				}
			}
			out = append(out, openCurve{label: label, idx: len(out), pool: p, report: r})
		}
	}
	return out
}

// openFigs draws the open-loop figures named in want from reports; when
// there is nothing to draw and they were asked for by name, a note says
// why (a closed-loop run drawn with every figure gets no note).
func openFigs(rs []*results.Results, reports []openloop.Report, want map[string]bool, named bool) ([]Figure, []string) {
	asked := false
	for _, n := range openFigures {
		asked = asked || want[n]
	}
	if !asked {
		return nil, nil
	}
	cs := openCurves(reports)
	if len(cs) == 0 {
		if !named {
			return nil, nil
		}
		var notes []string
		for _, n := range openFigures {
			if want[n] {
				notes = append(notes, n+": skipped: no open-loop steps (sweep --rate)")
			}
		}
		return nil, notes
	}
	subject := openSubject(rs, reports)
	var figs []Figure
	for _, n := range openFigures {
		if !want[n] {
			continue
		}
		switch n {
		case figOpenLatency:
			figs = append(figs, openLatency(cs, subject))
		case figOpenAchieved:
			figs = append(figs, openAchieved(cs, subject))
		case figOpenPoolWait:
			figs = append(figs, openPoolWait(cs, subject))
		}
	}
	return figs, nil
}

// openSubject is the "workload … on targets …" part of the titles.
func openSubject(rs []*results.Results, reports []openloop.Report) string {
	var wls, tgs []string
	for _, r := range reports {
		if r.Workload != "" && !slices.Contains(wls, r.Workload) {
			wls = append(wls, r.Workload)
		}
		t := r.Target
		for _, res := range rs {
			for i := range res.Header.Targets {
				if h := &res.Header.Targets[i]; h.Name == r.Target {
					if n := runinfo.ServerKind(h); n != "" {
						t += " (" + n + ")"
					}
				}
			}
		}
		if !slices.Contains(tgs, t) {
			tgs = append(tgs, t)
		}
	}
	s := "open loop"
	if len(wls) > 0 {
		s += ", workload " + joinComma(wls)
	}
	return s + " on " + joinComma(tgs)
}

func joinComma(ss []string) string {
	out := ""
	for i, s := range ss {
		if i > 0 {
			out += ", "
		}
		out += s
	}
	return out
}

// rateDrawing starts an open-loop figure: offered calls/s on a log x axis
// with ticks at the rates measured.
func rateDrawing(cs []openCurve, ylabel string) *drawing {
	var xs []float64
	for _, c := range cs {
		for _, l := range c.pool.Levels {
			xs = append(xs, float64(l.Rate))
		}
	}
	d := newDrawing("offered rate (calls/s, log)", ylabel)
	d.p.X.Scale = gplot.LogScale{}
	d.p.X.Tick.Marker = levelTicks(xs, 0.075)
	d.p.X.Min, d.p.X.Max = slices.Min(xs)/1.15, slices.Max(xs)*1.15
	return d
}

func openLatency(cs []openCurve, subject string) Figure {
	d := rateDrawing(cs, "corrected latency per call (ms, log)")
	p, ann := d.p, d.ann
	p.Y.Scale = gplot.LogScale{}
	p.Y.Tick.Marker = logTicks{}
	var slo *float64
	for _, c := range cs {
		clr, g := seriesColor(c.idx), seriesGlyph(c.idx)
		var p99, p50 plotter.XYs
		d99, d50 := seriesData{Name: c.label, Role: "p99"}, seriesData{Name: c.label, Role: "p50"}
		for _, l := range c.pool.Levels {
			x := float64(l.Rate)
			if l.P99Ms > 0 {
				p99 = append(p99, plotter.XY{X: x, Y: l.P99Ms})
				d99.Points = append(d99.Points, dataPoint{X: x, Y: round6(l.P99Ms), N: l.Trials})
				ann.obstacles = append(ann.obstacles, [2]float64{x, l.P99Ms})
			}
			if l.P50Ms > 0 {
				p50 = append(p50, plotter.XY{X: x, Y: l.P50Ms})
				d50.Points = append(d50.Points, dataPoint{X: x, Y: round6(l.P50Ms), N: l.Trials})
				ann.obstacles = append(ann.obstacles, [2]float64{x, l.P50Ms})
			}
		}
		d.percentiles(p99, p50, d99, d50, clr, g, c.label)
		if r := c.pool.CarriedRate; r != nil {
			i := slices.IndexFunc(c.pool.Levels, func(l openloop.Level) bool { return l.Rate == *r })
			l := c.pool.Levels[i]
			d.mark(mark{Kind: "carried", Series: c.label, X: float64(l.Rate), Y: round6(l.P99Ms),
				Label: fmt.Sprintf("pool %d carries %s/s", c.pool.MaxPoolSize, textfmt.Thousands(float64(l.Rate)))},
				float64(l.Rate), l.P99Ms, clr, kneeGlyph)
		}
		slo = c.report.SLOP99Ms
	}
	if slo != nil && len(d.data) > 0 {
		xs := plotter.XYs{{X: p.X.Min, Y: *slo}, {X: p.X.Max, Y: *slo}}
		p.Add(line(xs, color.Gray{Y: 0x66}, 1, dashUSL))
		d.data = append(d.data, seriesData{Name: "SLO", Role: "slo", Points: []dataPoint{{X: round6(p.X.Min), Y: *slo}, {X: round6(p.X.Max), Y: *slo}}})
	}
	p.Add(ann)
	if len(d.data) > 0 {
		p.Y.Max *= 1.8 // log headroom for labels
		p.Y.Min /= 1.6
	}
	grey := color.Gray{Y: 0x44}
	d.percentilesLegend(grey)
	if len(d.marks) > 0 {
		d.glyphLegend("highest rate carried", grey, kneeGlyph)
	}
	if slo != nil {
		d.lineLegend("p99 SLO "+textfmt.Ms(*slo)+" ms", draw.LineStyle{Color: color.Gray{Y: 0x66}, Width: vg.Points(1), Dashes: dashUSL})
	}
	return d.figure(figOpenLatency, "Latency vs offered rate — "+subject,
		"Latency from each call's intended start (corrected for coordinated omission), median over trials of each step's p50 and p99, one line per pool size; the ring marks the highest rate each pool carried, as analyze decided it.")
}

func openAchieved(cs []openCurve, subject string) Figure {
	d := rateDrawing(cs, "achieved rate (calls/s, log)")
	p := d.p
	p.Y.Scale = gplot.LogScale{}
	p.Y.Tick.Marker = logTicks{}
	diag := plotter.XYs{{X: p.X.Min, Y: p.X.Min}, {X: p.X.Max, Y: p.X.Max}}
	grey := color.Gray{Y: 0x66}
	p.Add(line(diag, grey, 1, dashUSL))
	d.data = []seriesData{{Name: "achieved = offered", Role: "diagonal", Points: []dataPoint{{X: round6(p.X.Min), Y: round6(p.X.Min)}, {X: round6(p.X.Max), Y: round6(p.X.Max)}}}}
	lo := p.X.Min
	for _, c := range cs {
		clr, g := seriesColor(c.idx), seriesGlyph(c.idx)
		var xys plotter.XYs
		sd := seriesData{Name: c.label, Role: "achieved"}
		for _, l := range c.pool.Levels {
			if l.AchievedPerS <= 0 {
				continue
			}
			xys = append(xys, plotter.XY{X: float64(l.Rate), Y: l.AchievedPerS})
			sd.Points = append(sd.Points, dataPoint{X: float64(l.Rate), Y: round6(l.AchievedPerS), N: l.Trials})
			lo = min(lo, l.AchievedPerS)
		}
		if len(xys) > 0 {
			d.curve(xys, clr, g, c.label)
			d.data = append(d.data, sd)
		}
	}
	p.Y.Min, p.Y.Max = lo/1.15, p.X.Max
	d.lineLegend("achieved = offered", draw.LineStyle{Color: grey, Width: vg.Points(1), Dashes: dashUSL})
	return d.figure(figOpenAchieved, "Achieved vs offered rate — "+subject,
		"Calls that ended inside the window per second against the calls offered, median over trials; on the dashed diagonal every offered call was carried, below it the rest waited past the window or were dropped.")
}

func openPoolWait(cs []openCurve, subject string) Figure {
	d := rateDrawing(cs, "pool wait (% of corrected latency, medians)")
	p := d.p
	p.Y.Min, p.Y.Max = 0, 105
	half := plotter.XYs{{X: p.X.Min, Y: 50}, {X: p.X.Max, Y: 50}}
	grey := color.Gray{Y: 0x66}
	p.Add(line(half, grey, 1, dashUSL))
	for _, c := range cs {
		clr, g := seriesColor(c.idx), seriesGlyph(c.idx)
		var xys plotter.XYs
		sd := seriesData{Name: c.label, Role: "pool wait"}
		for _, l := range c.pool.Levels {
			y := 100 * l.PoolWaitShare
			xys = append(xys, plotter.XY{X: float64(l.Rate), Y: y})
			sd.Points = append(sd.Points, dataPoint{X: float64(l.Rate), Y: round6(y), N: l.Trials})
		}
		if len(xys) > 0 {
			d.curve(xys, clr, g, c.label)
			d.data = append(d.data, sd)
		}
	}
	d.lineLegend("pool wait dominates above", draw.LineStyle{Color: grey, Width: vg.Points(1), Dashes: dashUSL})
	return d.figure(figOpenPoolWait, "Share of latency waiting for a connection — "+subject,
		"Median time a call waited for pool connections (with the client's own time outside the wire) as a share of the median corrected latency, median over trials (a pause of the server makes every call wait, whatever the pool: the medians show the pool's own effect). Above the dashed 50% line most of the latency is waiting for a connection: below the server's capacity a larger maxPoolSize helps; above it, it would only move the queue to the server (compare open-achieved).")
}

// openStepCount is how many open-loop steps rs hold.
func openStepCount(rs []*results.Results) int {
	n := 0
	for _, r := range rs {
		for i := range r.Steps {
			if r.Steps[i].Mode == results.ModeOpen {
				n++
			}
		}
	}
	return n
}
